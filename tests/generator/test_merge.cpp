// clretw-gen merge and the canonical manifest writer: a golden merge of two
// small manifests, the writer's round trip, and the built-in manifest against
// the runtime's newest ClrEtwAll.man. To accept a change of the golden files:
// CLRETW_UPDATE_GOLDEN=1 ./test_generator
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "shared_cases.h"
#include "clretw/gen/diff.h"
#include "clretw/gen/loader.h"
#include "clretw/gen/merge.h"
#include "clretw/gen/writer.h"
#include "files.h"
#include "reference.h"

namespace fs = std::filesystem;
using namespace clretw::gen;

namespace {

using clretw::test::check_golden;
using clretw::test::slurp;

const fs::path kMerge = fs::path(CLRETW_TESTS_DIR) / "merge";
const fs::path kBuiltin = fs::path(CLRETW_SOURCE_DIR) / "manifest" / "ClrEtwBuiltin.man";

Manifest load(const std::string& text, const std::string& name) {
  Diagnostics d;
  auto m = load_manifest_text(text, name, d);
  REQUIRE(m);
  CHECK_MESSAGE(d.error_count() == 0, format_gcc(d));
  resolve(*m);
  return std::move(*m);
}
Manifest load(const fs::path& p) { return load(slurp(p), p.filename().string()); }

std::string report(const MergeResult& r) {
  std::string s;
  for (const std::string& k : r.kept) s += "kept: " + k + "\n";
  for (const std::string& k : r.dropped) s += "dropped: " + k + "\n";
  return s;
}

}  // namespace

TEST_CASE("merge: the update's facts, the base's notes and the additions that do not collide") {
  const MergeResult r = merge_manifests(load(kMerge / "base.man"), load(kMerge / "update.man"));
  const std::string text = write_manifest(r.manifest);
  check_golden(kMerge / "expected.man", text);
  check_golden(kMerge / "expected.txt", report(r));
  // Merging the same update again changes nothing and keeps the same additions.
  const MergeResult again = merge_manifests(load(text, "expected.man"), load(kMerge / "update.man"));
  CHECK(write_manifest(again.manifest) == text);
  CHECK(again.kept.size() == r.kept.size());
  CHECK(again.dropped.empty());
  // The update's comments do not carry over; the base's do.
  CHECK(text.find("Release comment") == std::string::npos);
  CHECK(text.find("Note on a field.") != std::string::npos);
}

TEST_CASE("writer: a manifest written and loaded again says the same, and writes the same bytes") {
  for (const fs::path& p : {fs::path(CLRETW_TESTS_DIR) / "manifests" / "features.man", kBuiltin}) {
    CAPTURE(p.string());
    const Manifest m = load(p);
    const std::string once = write_manifest(m);
    const Manifest reloaded = load(once, "written.man");
    const DiffResult d = diff_manifests(m, reloaded);
    for (const Change& c : d.changes) CHECK_MESSAGE(false, c.kind << ": " << c.item << ": " << c.detail);
    CHECK(write_manifest(reloaded) == once);
  }
}

CLRETW_SHARED_CASE("the built-in manifest is the runtime's newest manifest plus additions where it has nothing") {
  const std::string shared = clretw::test::shared_dir_or_skip(CLRETW_SHARED_DIR " is absent; the built-in manifest was not compared with the runtime's");
  if (shared.empty()) return;
  const Manifest runtime = load(fs::path(shared) / "manifests" / "ClrEtwAll.runtime-main.man");
  const Manifest builtin = load(kBuiltin);
  // Every difference must be an addition: no event's id, version, level, keywords, task, opcode or
  // fields (names, types, order) differ, and no map value is named otherwise.
  const std::set<std::string> additions = {"provider-added", "keyword-added", "task-added", "opcode-added",
                                           "map-added",      "map-entry-added", "event-added", "event-version-added",
                                           "field-map-added"};
  const DiffResult d = diff_manifests(runtime, builtin);
  std::map<std::string, std::size_t> kinds;
  for (const Change& c : d.changes) {
    ++kinds[c.kind];
    CHECK_MESSAGE(additions.count(c.kind), c.provider << ": " << c.kind << ": " << c.item << ": " << c.detail);
  }
  // What the project adds, counted so that a change shows up here.
  std::string counted;
  for (const auto& [kind, n] : kinds) counted += kind + "=" + std::to_string(n) + " ";
  CAPTURE(counted);
  CHECK(kinds == std::map<std::string, std::size_t>{{"provider-added", 1},     // SampleProfiler
                                                    {"event-added", 3},        // .NET 9/10: WaitHandleWait Start/Stop, AllocationSampled
                                                    {"keyword-added", 2},      // their keywords
                                                    {"task-added", 1},         // WaitHandleWait
                                                    {"map-added", 8},          // GC global, compact, expand mechanisms; wait source;
                                                                               // GC pause mode, GC settings flags; the private
                                                                               // provider's GC reason and global mechanisms
                                                    {"map-entry-added", 22},   // ReadyToRun, tiers, ColdSection x2, GC reasons 10-13
                                                    {"field-map-added", 16}}); // GlobalHeapHistory v2-v4 Reason,
                                                                                // GlobalMechanisms and PauseMode, PerHeapHistory v3
                                                                                // mechanisms, GCSettingsRundown's BitSettings; the
                                                                                // private GlobalHeapHistory v0-v1 Reason and
                                                                                // GlobalMechanisms
  // And merging the runtime's manifest into the built-in one changes nothing.
  const MergeResult r = merge_manifests(builtin, runtime);
  CHECK(r.dropped.empty());
  CHECK(write_manifest(r.manifest) == slurp(kBuiltin));
}
