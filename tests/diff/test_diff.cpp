// clretw-gen diff: small manifest pairs, one directory per change class
// (tests/diff/<case>/old.man, new.man, with the expected text and JSON output),
// and the real release chain of ClrEtwAll.man.
// To accept a change of the output: CLRETW_UPDATE_GOLDEN=1 ./test_diff
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "shared_cases.h"
#include "clretw/gen/diff.h"
#include "files.h"
#include "reference.h"

namespace fs = std::filesystem;
using namespace clretw::gen;

namespace {

using clretw::test::check_golden;
using clretw::test::slurp;

const fs::path kCases = fs::path(CLRETW_TESTS_DIR) / "diff";

DiffRun run_case(const std::string& name) {
  DiffRun run = diff_files((kCases / name / "old.man").string(), (kCases / name / "new.man").string());
  run.result.old_path = name + "/old.man";
  run.result.new_path = name + "/new.man";
  return run;
}

std::vector<std::string> cases() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kCases))
    if (e.is_directory()) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("each manifest pair gives exactly its expected report") {
  const auto names = cases();
  REQUIRE(names.size() >= 6);
  std::set<std::string> kinds;
  for (const std::string& name : names) {
    CAPTURE(name);
    const DiffRun run = run_case(name);
    REQUIRE(run.status != 2);
    CHECK(run.diags.error_count() == 0);
    check_golden(kCases / name / "expected.txt", format_diff_text(run.result));
    check_golden(kCases / name / "expected.json", format_diff_json(run.result, run.status));
    // Only the compatible case may pass the gate.
    CHECK(run.status == (name == "compatible" ? 0 : 1));
    for (const Change& c : run.result.changes) kinds.insert(c.kind);
  }
  // Every kind of change the differ knows is exercised by some pair.
  for (const char* kind :
       {"provider-added", "provider-removed", "provider-guid-changed", "keyword-added", "keyword-removed",
        "keyword-reassigned", "task-added", "task-removed", "task-changed", "opcode-added", "opcode-removed",
        "opcode-changed", "map-added", "map-removed", "map-kind-changed", "map-entry-added", "map-entry-removed",
        "map-entry-renamed", "event-added", "event-removed", "event-version-added", "event-version-removed",
        "event-id-reused", "event-renamed", "field-added", "field-removed", "field-moved", "field-changed",
        "event-level-changed", "event-keywords-added", "event-keywords-removed", "event-task-changed",
        "event-opcode-changed", "event-opcode-renamed", "event-channel-changed", "field-map-added"}) {
    const std::string k = kind;
    CAPTURE(k);
    CHECK(kinds.count(k));
  }
}

TEST_CASE("a manifest compared with itself has no changes") {
  const DiffRun run = diff_files((kCases / "fields" / "old.man").string(), (kCases / "fields" / "old.man").string());
  CHECK(run.status == 0);
  CHECK(run.result.changes.empty());
}

TEST_CASE("unreadable input is status 2 with a located message") {
  const DiffRun run = diff_files("/nonexistent/old.man", (kCases / "fields" / "new.man").string());
  CHECK(run.status == 2);
  REQUIRE(!run.diags.items().empty());
  CHECK(run.diags.items()[0].code == "M008");
}

CLRETW_SHARED_CASE("the real release chain: events added and every breaking change") {
  const std::string shared = clretw::test::shared_dir_or_skip(CLRETW_SHARED_DIR " is absent; the ClrEtwAll.man release chain was not compared");
  if (shared.empty()) return;
  struct Step {
    const char* from;
    const char* to;
    std::size_t events_added, versions_added;  // summed over providers
    std::vector<std::string> breaking;         // "kind: item: detail"
  };
  // Each breaking change was checked against the files: they are real.
  const std::vector<Step> chain = {
      {"coreclr-1.0", "coreclr-2.1", 1, 1, {}},
      {"coreclr-2.1",
       "coreclr-3.1",
       11,
       12,
       {
           // The ANSI events got an "Ansi" name when UTF-16 versions took the old names under new ids.
           "event-renamed: event 186 v0 'MethodJitInliningFailedAnsi': symbol 'MethodJitInliningFailed' -> "
           "'MethodJitInliningFailedAnsi'",
           "event-renamed: event 189 v0 'MethodJitTailCallFailedAnsi': symbol 'MethodJitTailCallFailed' -> "
           "'MethodJitTailCallFailedAnsi'",
           // EventSource (270) lost its opcode: BACKGROUND notes it has no task or opcode.
           "event-opcode-changed: event 270 v0 'EventSource': opcode 'win:Start' (1) -> '' (0)",
           "event-renamed: event 193 v0 'CCWRefCountChangeAnsi': symbol 'CCWRefCountChange' -> 'CCWRefCountChangeAnsi'",
       }},
      {"coreclr-3.1",
       "runtime-2020",
       17,
       20,
       {
           // FusionKeyword (0x4) became AssemblyLoaderKeyword.
           "keyword-reassigned: keyword 'AssemblyLoaderKeyword': mask 0x4 was keyword 'FusionKeyword'",
       }},
      {"runtime-2020",
       "runtime-main",
       72,
       80,
       {
           // Bit 0x20000000000 moved from YieldProcessorNormalizedKeyword to ProfilerKeyword, and event 58
           // was redefined: another symbol, task, keyword and field list.
           "keyword-reassigned: keyword 'ProfilerKeyword': mask 0x20000000000 was keyword "
           "'YieldProcessorNormalizedKeyword'",
           "task-removed: task 'InitializeYieldProcessorNormalized': value 35",
           "event-id-reused: event 58 v0 'YieldProcessorMeasurement': symbol 'InitializeYieldProcessorNormalizedInfo' "
           "-> 'YieldProcessorMeasurement'",
           "field-added: event 58 v0 'YieldProcessorMeasurement': field 'NsPerYield' inserted at position 2",
           "field-added: event 58 v0 'YieldProcessorMeasurement': field 'EstablishedNsPerYield' inserted at position 3",
           "field-removed: event 58 v0 'YieldProcessorMeasurement': field 'YieldsPerNormalizedYield' removed",
           "field-removed: event 58 v0 'YieldProcessorMeasurement': field 'OptimalMaxNormalizedYieldsPerSpinIteration' "
           "removed",
           "event-keywords-removed: event 58 v0 'YieldProcessorMeasurement': keywords "
           "'YieldProcessorNormalizedKeyword' (0x20000000000) -> 'ThreadingKeyword' (0x10000)",
           "event-task-changed: event 58 v0 'YieldProcessorMeasurement': task 'InitializeYieldProcessorNormalized' (35) "
           "-> 'YieldProcessorMeasurement' (37)",
       }},
  };
  for (const Step& step : chain) {
    CAPTURE(step.from);
    CAPTURE(step.to);
    const auto path = [&](const char* v) { return shared + "/manifests/ClrEtwAll." + v + ".man"; };
    const DiffRun run = diff_files(path(step.from), path(step.to));
    REQUIRE(run.status != 2);
    std::size_t events = 0, versions = 0, removed = 0;
    for (const ProviderSummary& p : run.result.providers) {
      events += p.events_added;
      versions += p.versions_added;
      removed += p.versions_removed;
    }
    CHECK(events == step.events_added);
    CHECK(versions == step.versions_added);
    CHECK(removed == 0);
    std::vector<std::string> breaking;
    for (const Change& c : run.result.changes)
      if (c.cls == ChangeClass::breaking) breaking.push_back(c.kind + ": " + c.item + ": " + c.detail);
    CHECK(breaking == step.breaking);
    CHECK(run.status == (step.breaking.empty() ? 0 : 1));
  }
}
