// Golden tests: the code generated for tests/manifests/*.man is checked in
// under tests/golden/ and must not change unless the generator's output is
// meant to change. To accept a change: CLRETW_UPDATE_GOLDEN=1 ./test_generator
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <vector>
#include <sstream>

#include "clretw/gen/emit_cpp.h"
#include "clretw/gen/frontend.h"
#include "files.h"

namespace fs = std::filesystem;
using namespace clretw::gen;

namespace {

using clretw::test::check_golden;
using clretw::test::slurp;

EmitResult generate(const std::vector<std::string>& paths, const std::string& ns) {
  Diagnostics d;
  std::vector<LoadedManifest> loaded;
  std::vector<SourceManifest> sources;
  for (const std::string& path : paths) {
    auto l = load(path, {}, d);
    REQUIRE(l);
    loaded.push_back(std::move(*l));
    sources.push_back({loaded.back().manifest.get(), loaded.back().schema.get(), fs::path(path).filename().string()});
  }
  EmitOptions options;
  options.root_namespace = ns;
  auto r = emit_cpp(sources, options, d);
  CHECK(d.error_count() == 0);
  REQUIRE(r);
  return *r;
}

void check_golden(const std::string& manifest, const std::string& ns, const fs::path& golden_dir) {
  const EmitResult r = generate({manifest}, ns);
  const bool update = std::getenv("CLRETW_UPDATE_GOLDEN") != nullptr;
  std::set<std::string> expected_files;
  for (const EmittedFile& f : r.files) {
    expected_files.insert(f.path);
    const fs::path p = golden_dir / f.path;
    if (update) {
      fs::create_directories(p.parent_path());
      std::ofstream(p, std::ios::binary) << f.text;
    }
    CAPTURE(p.string());
    REQUIRE(fs::exists(p));
    CHECK_MESSAGE(slurp(p) == f.text, "generated output differs from the golden file; run with CLRETW_UPDATE_GOLDEN=1 "
                                      "to accept it, and review the diff");
  }
  for (const auto& e : fs::recursive_directory_iterator(golden_dir))
    if (e.is_regular_file()) CHECK_MESSAGE(expected_files.count(fs::relative(e.path(), golden_dir).string()), e.path().string());
}

}  // namespace

TEST_CASE("generated code for features.man matches tests/golden/features") {
  check_golden(std::string(CLRETW_TESTS_DIR) + "/manifests/features.man", "clretw::features",
               fs::path(CLRETW_TESTS_DIR) / "golden" / "features");
}

TEST_CASE("generated/ is what the built-in manifests generate") {
  const std::string dir = std::string(CLRETW_SOURCE_DIR) + "/manifest/";
  const EmitResult r = generate({dir + "ClrEtwBuiltin.man", dir + "WindowsKernel.man"}, "clretw");
  for (const EmittedFile& f : r.files) {
    CAPTURE(f.path);
    CHECK_MESSAGE(slurp(fs::path(CLRETW_SOURCE_DIR) / "generated" / f.path) == f.text,
                  "generated/ is stale: run clretw-gen generate manifest/ClrEtwBuiltin.man manifest/WindowsKernel.man -o generated");
  }
}

TEST_CASE("generation is deterministic") {
  const std::string m = std::string(CLRETW_TESTS_DIR) + "/manifests/features.man";
  const EmitResult a = generate({m}, "clretw::features");
  const EmitResult b = generate({m}, "clretw::features");
  REQUIRE(a.files.size() == b.files.size());
  for (std::size_t i = 0; i < a.files.size(); ++i) {
    CHECK(a.files[i].path == b.files[i].path);
    CHECK(a.files[i].text == b.files[i].text);
  }
  CHECK(a.providers == 1);
  CHECK(a.events == 8);
  CHECK(a.event_ids == 6);
  CHECK(a.templates == 7);
}
