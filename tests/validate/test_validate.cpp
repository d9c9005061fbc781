// clretw-gen validate: the corpus of invalid manifests (one or more per rule,
// each with its exact expected output), the valid manifests, rule options and
// the JSON/SARIF writers.
//
// tests/validate/invalid/<code>-<name>.man (and <code>-<name>.<case>.man for further cases) holds a
// manifest that breaks rule <code>; <code>-<name>.expected holds the gcc-style output of validating it,
// with the file shown by its basename. To accept a change of the output:
//   CLRETW_UPDATE_GOLDEN=1 ./test_validate   (then review the diff)
// A .expected without its .man (M008) validates a file that does not exist.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "shared_cases.h"
#include "clretw/gen/frontend.h"
#include "clretw/gen/report_formats.h"
#include "clretw/gen/rules.h"
#include "clretw/gen/validate.h"
#include "files.h"
#include "reference.h"

namespace fs = std::filesystem;
using namespace clretw::gen;

namespace {

using clretw::test::check_golden;
using clretw::test::slurp;

const fs::path kInvalid = fs::path(CLRETW_TESTS_DIR) / "validate" / "invalid";

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

// Validates `path` as the CLI does and shows it by its basename.
ValidateResult run(const fs::path& path, const RuleOptions& options = {}) {
  ValidateResult r = validate_files({path.string()}, options);
  const std::string base = path.filename().string();
  for (Diagnostic& d : r.diags.items()) {
    replace_all(d.file, path.string(), base);
    replace_all(d.message, path.string(), base);
    for (Related& rel : d.related) replace_all(rel.file, path.string(), base);
  }
  return r;
}

std::vector<fs::path> corpus() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(kInvalid))
    if (e.path().extension() == ".expected") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::map<std::string, std::size_t> count_by_code(const Diagnostics& d, Severity s) {
  std::map<std::string, std::size_t> out;
  for (const Diagnostic& x : d.items())
    if (x.severity == s) ++out[x.code];
  return out;
}

}  // namespace

TEST_CASE("every invalid manifest gives exactly its expected diagnostics") {
  const bool update = std::getenv("CLRETW_UPDATE_GOLDEN") != nullptr;
  if (update)  // a new .man gets its .expected
    for (const auto& e : fs::directory_iterator(kInvalid))
      if (e.path().extension() == ".man" && !fs::exists(fs::path(e.path()).replace_extension(".expected")))
        std::ofstream(fs::path(e.path()).replace_extension(".expected"));
  const auto files = corpus();
  REQUIRE(files.size() >= 60);
  for (const fs::path& expected : files) {
    const fs::path manifest = fs::path(expected).replace_extension(".man");
    const std::string code = expected.filename().string().substr(0, 4);
    CAPTURE(manifest.filename().string());
    const ValidateResult r = run(manifest);
    const std::string text = format_gcc(r.diags);
    if (update) std::ofstream(expected, std::ios::binary) << text;
    CHECK_MESSAGE(slurp(expected) == text, "output differs from " << expected.filename().string()
                                                                   << "; run with CLRETW_UPDATE_GOLDEN=1 to accept it:\n"
                                                                   << text);
    // The file is about its rule: the rule fires, with a located message.
    CHECK(text.find("[" + code + " ") != std::string::npos);
    bool located = false;
    for (const Diagnostic& d : r.diags.items())
      if (d.code == code) located |= d.loc.line != 0 || code == "M008";
    CHECK(located);
    const Rule* rule = find_rule(code);
    REQUIRE(rule);
    // <code>-<name>.expected, or <code>-<name>.<case>.expected for a further case of the rule.
    const std::string stem = std::string(rule->code) + "-" + std::string(rule->name) + ".";
    CHECK(expected.filename().string().rfind(stem, 0) == 0);
    const bool unreadable = code == "M008";  // malformed XML (M001) is read: an error, status 1
    if (unreadable) CHECK(r.status == 2);
    else if (rule->severity == Severity::error) CHECK(r.status == 1);
    else CHECK(r.status == 0);
  }
}

TEST_CASE("the corpus covers every rule validate and the loader can report") {
  std::set<std::string> covered;
  for (const fs::path& p : corpus()) covered.insert(p.filename().string().substr(0, 4));
  std::size_t rules_covered = 0;
  for (const Rule& r : rules()) {
    if (r.code[1] == '7') continue;  // M7xx: generation (layout, naming, fix-ups), reported by `generate`
    CAPTURE(r.code);
    CHECK(covered.count(std::string(r.code)));
    ++rules_covered;
  }
  CHECK(rules_covered >= 30 + 11);
}

TEST_CASE("rule codes and names are unique; each symbol finds its own rule; retired codes find their successor") {
  std::set<std::string_view> codes, names;
  for (const Rule& r : rules()) {
    CAPTURE(r.code);
    CHECK(codes.insert(r.code).second);
    CHECK(names.insert(r.name).second);
    CHECK(&rule(r.id) == &r);
    CHECK(find_rule(r.code) == &r);
    CHECK(find_rule(r.name) == &r);
    CHECK(r.code.size() == 4);
    CHECK(r.code[0] == 'M');
  }
  CHECK(find_rule("M701") == &rule(RuleId::unresolved_template));
  CHECK(find_rule("M702") == &rule(RuleId::unresolved_extent));
  CHECK(find_rule("M708") == &rule(RuleId::duplicate_event));
  CHECK(find_rule("M709") == &rule(RuleId::unresolved_map));
  CHECK(find_rule("M999") == nullptr);
}

TEST_CASE("the schema builder reports what it cannot build under the rule validate uses") {
  // generate and clretw-dump --manifest do not run validate; what stops the
  // schema builder is reported under the same code (and the same message for
  // counts and lengths) as validate gives it.
  for (const std::string name : {"M112-duplicate-event", "M201-unresolved-template", "M207-unresolved-map",
                           "M210-unresolved-extent", "M211-extent-not-earlier", "M212-extent-out-of-scope",
                           "M213-extent-not-integer", "M404-binary-without-length", "M404-binary-without-length.rest-not-last"}) {
    CAPTURE(name);
    const fs::path path = kInvalid / (name + ".man");
    Diagnostics built;
    auto l = load(path.string(), {.fixups = FrontEndOptions::Fixups::none}, built);
    REQUIRE(l);
    REQUIRE(l->schema);
    const ValidateResult validated = validate_files({path.string()}, {});
    const std::string code = name.substr(0, 4);
    std::set<std::string> from_builder, from_validate;
    for (const Diagnostic& d : built.items())
      if (d.code == code) from_builder.insert(d.message);
    for (const Diagnostic& d : validated.diags.items())
      if (d.code == code) from_validate.insert(d.message);
    CHECK_FALSE(from_builder.empty());
    CHECK_FALSE(from_validate.empty());
    if (code[1] == '2' && code[2] == '1') CHECK(from_builder == from_validate);  // M210-M213: one message
  }
}

TEST_CASE("valid manifests give no errors") {
  std::vector<fs::path> valid = {fs::path(CLRETW_SOURCE_DIR) / "manifest" / "ClrEtwBuiltin.man",
                                 fs::path(CLRETW_TESTS_DIR) / "manifests" / "features.man",
                                 fs::path(CLRETW_TESTS_DIR) / "manifests" / "names.man"};
  for (const auto& e : fs::directory_iterator(fs::path(CLRETW_TESTS_DIR) / "diff"))
    if (e.is_directory())
      for (const char* side : {"old.man", "new.man"}) valid.push_back(e.path() / side);
  for (const fs::path& p : valid) {
    CAPTURE(p.string());
    const ValidateResult r = run(p);
    CHECK_MESSAGE(r.diags.error_count() == 0, format_gcc(r.diags));
    CHECK(r.status == 0);
  }
  // The built-in manifest's warnings: runtime-main's (see below), and M501 for the optimization tiers
  // it names in MethodFlagsMap (entries of two or three bits, in the runtime and rundown providers).
  // The manifest accepts each of them, saying why: none is left as a warning, and --werror passes.
  const ValidateResult builtin = run(valid[0]);
  CHECK(count_by_code(builtin.diags, Severity::warning) ==
        std::map<std::string, std::size_t>{{"M117", 1}, {"M302", 10}, {"M501", 8}, {"M505", 2}, {"M601", 2}, {"M604", 8}});
  CHECK(builtin.diags.warning_count() == 0);
  CHECK(builtin.diags.accepted_count() == 31);
  RuleOptions werror;
  werror.werror = true;
  CHECK(run(valid[0], werror).status == 0);
  const ValidateResult kernel = run(fs::path(CLRETW_SOURCE_DIR) / "manifest" / "WindowsKernel.man", werror);
  CHECK(kernel.status == 0);
  CHECK(kernel.diags.warning_count() == 0);
  CHECK(kernel.diags.accepted_count() == 6);
}

TEST_CASE("a manifest accepts a warning it knows it has, with its reason") {
  const std::string manifest = slurp(kInvalid / "M302-opcode-value-10.man");
  const std::string accepted = "<!-- clretw-gen validate accepts M302 opcode-value-10: the runtime uses opcode 10 -->\n";
  // Before the root (a comment of its own) or as a line of a longer comment inside it.
  for (const std::string& text :
       {accepted + manifest.substr(manifest.find("<instrumentationManifest")),
        manifest.substr(0, manifest.find("<instrumentation>")) +
            "  <!--\n    A note.\n    clretw-gen validate accepts opcode-value-10: the runtime uses opcode 10\n  -->\n" +
            manifest.substr(manifest.find("<instrumentation>"))}) {
    RuleOptions werror;
    werror.werror = true;
    const ValidateResult r = validate_text(text, "m.man", werror);
    CHECK(r.status == 0);
    CHECK(r.diags.warning_count() == 0);
    REQUIRE(r.diags.accepted_count() == 1);
    const Diagnostic& d = r.diags.items().front();
    CHECK(d.code == "M302");
    CHECK(d.accepted == "the runtime uses opcode 10");
    CHECK(format_gcc(r.diags).empty());
    CHECK(format_gcc(r.diags, true).find("  accepted by the manifest: the runtime uses opcode 10\n") != std::string::npos);
    CHECK(format_json(r.diags, r.status).find("\"accepted\": \"the runtime uses opcode 10\"") != std::string::npos);
    CHECK(format_sarif(r.diags).find("\"suppressions\": [{\"kind\": \"inSource\", \"justification\": "
                                     "\"the runtime uses opcode 10\"}]") != std::string::npos);
  }
  // A rule made an error is not accepted; M011 can be disabled like any rule.
  std::string error;
  auto options = parse_rule_options({"M011"}, {"M302=error"}, error);
  REQUIRE(options);
  const ValidateResult up = validate_text(accepted + manifest.substr(manifest.find("<instrumentationManifest")), "m.man", *options);
  CHECK(up.status == 1);
  CHECK(up.diags.accepted_count() == 0);
  CHECK(up.diags.items().size() == 1);
}

CLRETW_SHARED_CASE("the real CLR manifests give no errors, and these warnings") {
  const std::string shared = clretw::test::shared_dir_or_skip(CLRETW_SHARED_DIR " is absent; the real ClrEtwAll.man files were not validated");
  if (shared.empty()) return;
  using Counts = std::map<std::string, std::size_t>;
  // M117: InteropPrivateKeyword reuses CLR_INTEROP_KEYWORD (same mask 0x2000) of the runtime provider.
  // M302: task opcodes with value 10 (GCSuspendEEBegin and others).
  // M505: TieredCompilationSettingsFlagsMap has a "None" entry 0x0 (3.1 on).
  // M601: the private provider's empty templates GCPerHeapHistory and Startup.
  // M604: GCStart_V1, GCEnd_V1, GCSuspendEEBegin_V1, AssemblyLoad/Unload/DCStart/DCEnd_V1, GCPerHeapHistory v2.
  const std::map<std::string, Counts> expected = {
      {"coreclr-1.0", {{"M117", 1}, {"M302", 8}, {"M601", 2}, {"M604", 8}}},
      {"coreclr-2.1", {{"M117", 1}, {"M302", 8}, {"M601", 2}, {"M604", 8}}},
      {"coreclr-3.1", {{"M117", 1}, {"M302", 8}, {"M505", 2}, {"M601", 2}, {"M604", 8}}},
      {"runtime-2020", {{"M117", 1}, {"M302", 8}, {"M505", 2}, {"M601", 2}, {"M604", 8}}},
      {"runtime-main", {{"M117", 1}, {"M302", 10}, {"M505", 2}, {"M601", 2}, {"M604", 8}}},
  };
  for (const auto& [name, warnings] : expected) {
    const fs::path p = fs::path(shared) / "manifests" / ("ClrEtwAll." + name + ".man");
    CAPTURE(p.string());
    const ValidateResult r = run(p);
    CHECK_MESSAGE(r.diags.error_count() == 0, format_gcc(r.diags));
    CHECK(r.status == 0);
    CHECK(count_by_code(r.diags, Severity::warning) == warnings);
    RuleOptions werror;
    werror.werror = true;
    CHECK(run(p, werror).status == 1);
  }
}

TEST_CASE("rules can be disabled and re-graded, by code or by name") {
  const fs::path p = kInvalid / "M302-opcode-value-10.man";
  std::string error;
  auto off = parse_rule_options({"opcode-value-10"}, {}, error);
  REQUIRE(off);
  ValidateResult r = run(p, *off);
  CHECK(r.diags.items().empty());
  CHECK(r.status == 0);

  auto up = parse_rule_options({}, {"M302=error"}, error);
  REQUIRE(up);
  r = run(p, *up);
  REQUIRE(r.diags.items().size() == 1);
  CHECK(r.diags.items()[0].severity == Severity::error);
  CHECK(r.status == 1);

  auto down = parse_rule_options({}, {"duplicate-task-value=warning"}, error);
  REQUIRE(down);
  r = run(kInvalid / "M105-duplicate-task-value.man", *down);
  CHECK(r.diags.error_count() == 0);
  CHECK(r.status == 0);
  down->werror = true;
  CHECK(run(kInvalid / "M105-duplicate-task-value.man", *down).status == 1);

  CHECK_FALSE(parse_rule_options({"M999"}, {}, error));
  CHECK(error.find("M999") != std::string::npos);
  CHECK_FALSE(parse_rule_options({}, {"M302=fatal"}, error));
  CHECK_FALSE(parse_rule_options({}, {"M302"}, error));
}

TEST_CASE("conflicts point at the item they conflict with") {
  const ValidateResult r = run(kInvalid / "M105-duplicate-task-value.man");
  REQUIRE(r.diags.items().size() == 1);
  const Diagnostic& d = r.diags.items()[0];
  CHECK(d.message.find("'Play'") != std::string::npos);
  CHECK(d.message.find("'Work'") != std::string::npos);
  REQUIRE(d.related.size() == 1);
  CHECK(d.related[0].loc.line == d.loc.line - 1);
  CHECK(d.related[0].file == "M105-duplicate-task-value.man");
}

TEST_CASE("JSON output") {
  const ValidateResult r = run(kInvalid / "M203-unresolved-opcode.man");
  const std::string json = format_json(r.diags, r.status);
  CHECK(json.find("\"status\": 1") != std::string::npos);
  CHECK(json.find("\"code\": \"M203\", \"rule\": \"unresolved-opcode\", \"severity\": \"error\", "
                  "\"file\": \"M203-unresolved-opcode.man\", \"line\": 22, \"column\": 11") != std::string::npos);
  CHECK(json.find("\"related\": [{\"file\": \"M203-unresolved-opcode.man\", \"line\": 11") != std::string::npos);
  CHECK(json_string("a\"b\\c\nd\x01") == "\"a\\\"b\\\\c\\nd\\u0001\"");
  CHECK(json_string("caf\xC3\xA9 \xE4\xB8\xAD") == "\"caf\xC3\xA9 \xE4\xB8\xAD\"");  // UTF-8 is kept
  const std::string replacement = "\xEF\xBF\xBD";  // U+FFFD for each byte that is not UTF-8
  CHECK(json_string("a\xFF\xC3(\xED\xA0\x80") ==
        "\"a" + replacement + replacement + "(" + replacement + replacement + replacement + "\"");
  Diagnostics none;
  CHECK(format_json(none, 0) == "{\n  \"tool\": \"clretw-gen\",\n  \"status\": 0,\n  \"errors\": 0,\n"
                                "  \"warnings\": 0,\n  \"accepted\": 0,\n  \"diagnostics\": []\n}\n");
}

TEST_CASE("SARIF output names every rule and points at each finding") {
  const ValidateResult r = run(kInvalid / "M103-duplicate-keyword-mask.man");
  const std::string sarif = format_sarif(r.diags);
  CHECK(sarif.find("\"version\": \"2.1.0\"") != std::string::npos);
  for (const Rule& rule : rules()) CHECK(sarif.find("{\"id\": \"" + std::string(rule.code) + "\"") != std::string::npos);
  CHECK(sarif.find("\"ruleId\": \"M103\"") != std::string::npos);
  CHECK(sarif.find("\"uri\": \"M103-duplicate-keyword-mask.man\"}, \"region\": {\"startLine\": 10") !=
        std::string::npos);
  CHECK(sarif.find("\"relatedLocations\"") != std::string::npos);
}
