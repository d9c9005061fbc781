// clretw-gen docs: the pages for tests/manifests/features.man are checked in
// under tests/golden/docs/ (to accept a change: CLRETW_UPDATE_GOLDEN=1 ./test_docs,
// then review the diff); the built-in manifests' pages under docs/events/ must be
// current, and must show every event version, every keyword's mask and what
// changed between versions; every link on a page must reach a heading; and the
// command line's exit statuses.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#ifndef _WIN32
#include <sys/wait.h>
#endif

#include "shared_cases.h"
#include "clretw/gen/docs.h"
#include "clretw/gen/frontend.h"
#include "files.h"

namespace fs = std::filesystem;
using namespace clretw::gen;
using clretw::test::slurp;

namespace {

struct Rendered {
  std::vector<LoadedManifest> loaded;
  DocsResult docs;

  const std::string& page(const std::string& path) const {
    const auto it =
        std::find_if(docs.files.begin(), docs.files.end(), [&](const DocFile& f) { return f.path == path; });
    REQUIRE_MESSAGE(it != docs.files.end(), "no page " << path);
    return it->text;
  }
};

// The pages for `paths`, loaded as clretw-gen docs loads them (CLR fix-ups included).
Rendered render(const std::vector<std::string>& paths) {
  Rendered r;
  Diagnostics d;
  std::vector<DocsSource> sources;
  for (const std::string& path : paths) {
    auto l = load(path, {}, d);
    REQUIRE(l);
    r.loaded.push_back(std::move(*l));
  }
  for (const LoadedManifest& l : r.loaded)
    sources.push_back(
        {l.manifest.get(), fs::path(l.manifest->path).filename().string(), describe_fixups(*l.manifest, {})});
  auto docs = render_docs(sources, d);
  CHECK(d.error_count() == 0);
  REQUIRE(docs);
  r.docs = std::move(*docs);
  return r;
}

std::vector<std::string> builtin_manifests() {
  const std::string dir = std::string(CLRETW_SOURCE_DIR) + "/manifest/";
  return {dir + "ClrEtwBuiltin.man", dir + "WindowsKernel.man"};
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// 1 to 6 for a heading line, 0 for any other.
int heading_level(const std::string& line) {
  const std::size_t hashes = line.find_first_not_of('#');
  return hashes != std::string::npos && hashes > 0 && line[hashes] == ' ' ? static_cast<int>(hashes) : 0;
}

// The text of a Markdown heading line as GitHub reads it: backslash escapes undone.
std::string heading_text(const std::string& line) {
  std::string out;
  const std::size_t start = line.find(' ') + 1;
  for (std::size_t i = start; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size()) ++i;
    out += line[i];
  }
  return out;
}

// Every heading's anchor, in page order, as GitHub makes them unique.
std::set<std::string> anchors_of(const std::string& page) {
  std::set<std::string> out;
  AnchorSet anchors;
  for (const std::string& l : lines(page))
    if (heading_level(l)) out.insert(anchors.add(heading_text(l)));
  return out;
}

// The section of a page under `heading` ("### Event 1: GCStart", unescaped), up to the next heading of its
// level or above; "" when the page has no such heading.
std::string section(const std::string& page, const std::string& heading) {
  const int level = heading_level(heading);
  std::string out;
  bool in = false;
  for (const std::string& l : lines(page)) {
    const int h = heading_level(l);
    if (in && h && h <= level) break;
    if (h == level && heading_text(l) == heading_text(heading)) in = true;
    if (in) out += l + "\n";
  }
  return out;
}

bool has_heading(const std::string& page, const std::string& heading) { return !section(page, heading).empty(); }

int run_gen(const std::string& args) {
  const std::string command = std::string("\"") + CLRETW_GEN + "\" " + args + " >/dev/null 2>&1";
  const int status = std::system(command.c_str());
#ifdef _WIN32
  return status;
#else
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
#endif
}

std::string quoted(const fs::path& p) { return "\"" + p.string() + "\""; }

}  // namespace

TEST_CASE("anchors are GitHub's") {
  CHECK(github_anchor("Event 1: GCStart") == "event-1-gcstart");
  CHECK(github_anchor("1 v2: GCStart_V2") == "1-v2-gcstart_v2");
  CHECK(github_anchor("ColorMap (valueMap)") == "colormap-valuemap");
  CHECK(github_anchor("Tasks and opcodes") == "tasks-and-opcodes");
  CHECK(github_anchor("Windows Kernel") == "windows-kernel");
  AnchorSet a;
  CHECK(a.add("Maps") == "maps");
  CHECK(a.add("Maps") == "maps-1");
  CHECK(a.add("maps 1") == "maps-1-1");
  CHECK(a.add("Maps") == "maps-2");
  CHECK(provider_page("Windows Kernel") == "Windows-Kernel.md");
  CHECK(provider_page("Microsoft-Windows-DotNETRuntime") == "Microsoft-Windows-DotNETRuntime.md");
}

TEST_CASE("the pages for features.man match tests/golden/docs") {
  const fs::path golden = fs::path(CLRETW_TESTS_DIR) / "golden" / "docs";
  const Rendered r = render({std::string(CLRETW_TESTS_DIR) + "/manifests/features.man"});
  const bool update = std::getenv("CLRETW_UPDATE_GOLDEN") != nullptr;
  std::set<std::string> expected;
  for (const DocFile& f : r.docs.files) {
    expected.insert(f.path);
    const fs::path p = golden / f.path;
    if (update) {
      fs::create_directories(golden);
      std::ofstream(p, std::ios::binary) << f.text;
    }
    CAPTURE(p.string());
    REQUIRE(fs::exists(p));
    CHECK_MESSAGE(slurp(p) == f.text,
                  "the pages differ from the golden files; run with CLRETW_UPDATE_GOLDEN=1 to "
                  "accept them, and review the diff");
  }
  for (const auto& e : fs::directory_iterator(golden))
    CHECK_MESSAGE(expected.count(e.path().filename().string()), e.path().string());
  CHECK(r.docs.providers == 1);
  CHECK(r.docs.event_ids == 6);
  CHECK(r.docs.events == 8);
}

TEST_CASE("docs/events/ is what the built-in manifests give") {
  const Rendered r = render(builtin_manifests());
  const fs::path dir = fs::path(CLRETW_SOURCE_DIR) / "docs" / "events";
  std::set<std::string> expected;
  for (const DocFile& f : r.docs.files) {
    expected.insert(f.path);
    CAPTURE(f.path);
    CHECK_MESSAGE(slurp(dir / f.path) == f.text,
                  "docs/events is stale: run clretw-gen docs manifest/ClrEtwBuiltin.man "
                  "manifest/WindowsKernel.man -o docs/events");
  }
  for (const auto& e : fs::directory_iterator(dir))
    CHECK_MESSAGE(expected.count(e.path().filename().string()), e.path().string());
}

TEST_CASE("every event version, keyword and provider of the built-in manifests is on its page") {
  const Rendered r = render(builtin_manifests());
  const std::string& index = r.page("README.md");
  CHECK(index.find("(../seeds-errata.md)") != std::string::npos);
  std::size_t providers = 0;
  for (const LoadedManifest& l : r.loaded)
    for (const Provider& p : l.manifest->providers) {
      ++providers;
      CAPTURE(p.name);
      const std::string page_name = provider_page(p.name);
      CHECK(index.find("[" + p.name + "](" + page_name + ")") != std::string::npos);
      const std::string& page = r.page(page_name);
      CHECK(has_heading(page, "# " + p.name));
      CHECK(page.find("- GUID: `{" + p.guid.to_string() + "}`") != std::string::npos);

      // The events table: a row per event version, and a section per version.
      for (const Event& e : p.events) {
        CAPTURE(e.symbol);
        const std::string row = "| " + std::to_string(e.value) + " | " + std::to_string(e.version) + " | [`" +
                                e.symbol + "`](#" + github_anchor(event_version_heading(e)) + ") |";
        CHECK_MESSAGE(page.find(row) != std::string::npos, row);
        CHECK(has_heading(page, "#### " + event_version_heading(e)));
      }

      // The keywords table: the mask printed for each keyword is the model's.
      const std::string keywords = section(page, "## Keywords");
      std::map<std::string, std::string> printed;  // name -> mask as printed
      for (const std::string& l : lines(keywords)) {
        if (l.rfind("| `0x", 0) != 0) continue;
        const std::size_t mask_end = l.find('`', 3), name = l.find('`', mask_end + 1) + 1;
        printed[l.substr(name, l.find('`', name) - name)] = l.substr(3, mask_end - 3);
      }
      CHECK(printed.size() == p.keywords.size());
      for (const Keyword& k : p.keywords) {
        CAPTURE(k.name);
        REQUIRE(printed.count(k.name));
        CHECK(std::stoull(printed[k.name], nullptr, 16) == k.mask);
      }
    }
  CHECK(r.docs.providers == providers);
  CHECK(r.docs.files.size() == providers + 1);
}

TEST_CASE("the versions of GCStart: the fields each one added") {
  const Rendered r = render(builtin_manifests());
  const std::string gc = section(r.page("Microsoft-Windows-DotNETRuntime.md"), "### Event 1: GCStart");
  REQUIRE(!gc.empty());
  CHECK(gc.find("Versions: [v0](#1-v0-gcstart), [v1](#1-v1-gcstart_v1), [v2](#1-v2-gcstart_v2).") != std::string::npos);
  const std::size_t v1 = gc.find("- v0 to v1:\n"), v2 = gc.find("- v1 to v2:\n");
  REQUIRE(v1 != std::string::npos);
  REQUIRE(v2 != std::string::npos);
  const std::string first = gc.substr(v1, v2 - v1), second = gc.substr(v2, gc.find("\n\n", v2) - v2);
  for (const char* f : {"Depth", "Type", "ClrInstanceID"}) {
    CAPTURE(f);
    CHECK(first.find(std::string("field `") + f + "` inserted") != std::string::npos);
    CHECK(second.find(std::string("`") + f + "`") == std::string::npos);
  }
  CHECK(first.find("`Reason`") == std::string::npos);  // neither moved nor changed
  CHECK(second == "- v1 to v2:\n  - field `ClientSequenceNumber` inserted at position 6");
  // Version 2's fields, in order, with their types and maps.
  const std::string v2_fields = section(gc, "#### 1 v2: GCStart_V2");
  CHECK(v2_fields.find("| 3 | `Reason` | `win:UInt32` |  | 4 |  | [`GCReasonMap`](#gcreasonmap-valuemap) |") !=
        std::string::npos);
  CHECK(v2_fields.find("| 6 | `ClientSequenceNumber` | `win:UInt64` |  | 8 |  |  |") != std::string::npos);
}

TEST_CASE("the pages describe what the decoders decode: the CLR fix-ups are applied") {
  const Rendered r = render(builtin_manifests());
  const std::string& page = r.page("Microsoft-Windows-DotNETRuntime.md");
  CHECK(page.find("- Manifest: `ClrEtwBuiltin.man`, with the built-in CLR fix-ups") != std::string::npos);
  // clr-fixups.xml inserts the padding the runtime writes after GCFitBucketInfo's Values.Index.
  const std::string fit = section(page, "#### 209 v0: GCFitBucketInfo");
  CHECK(fit.find("| 5.1 | `Values.Index` | `win:UInt16` |") != std::string::npos);
  CHECK(fit.find("| 5.2 | `Values.Padding` | `win:UInt16` |") != std::string::npos);
  CHECK(r.page("Windows-Kernel.md").find("fix-ups") == std::string::npos);
}

TEST_CASE("every link on every page reaches a heading or a page") {
  std::vector<Rendered> sets;
  sets.push_back(render(builtin_manifests()));
  sets.push_back(render({std::string(CLRETW_TESTS_DIR) + "/manifests/features.man"}));
  for (const Rendered& r : sets) {
    std::set<std::string> pages;
    for (const DocFile& f : r.docs.files) pages.insert(f.path);
    for (const DocFile& f : r.docs.files) {
      CAPTURE(f.path);
      const std::set<std::string> anchors = anchors_of(f.text);
      std::size_t links = 0;
      for (std::size_t at = 0; (at = f.text.find("](", at)) != std::string::npos; ++at) {
        const std::size_t end = f.text.find(')', at);
        const std::string target = f.text.substr(at + 2, end - at - 2);
        CAPTURE(target);
        ++links;
        if (target.empty())
          FAIL("an empty link");
        else if (target[0] == '#')
          CHECK(anchors.count(target.substr(1)));
        else if (target != "../seeds-errata.md")
          CHECK(pages.count(target));
        else
          CHECK(fs::exists(fs::path(CLRETW_SOURCE_DIR) / "docs" / "seeds-errata.md"));
      }
      CHECK(links > 0);
      // Nothing from the machine that wrote it.
      CHECK(f.text.find(CLRETW_SOURCE_DIR) == std::string::npos);
      CHECK(f.text.find(CLRETW_TESTS_DIR) == std::string::npos);
    }
  }
}

TEST_CASE("the pages do not depend on the order of the manifests or on a second run") {
  const std::vector<std::string> paths = builtin_manifests();
  const Rendered a = render(paths), b = render({paths[1], paths[0]});
  REQUIRE(a.docs.files.size() == b.docs.files.size());
  for (std::size_t i = 1; i < a.docs.files.size(); ++i) {  // the index names the manifests in the order given
    CHECK(a.docs.files[i].path == b.docs.files[i].path);
    CHECK(a.docs.files[i].text == b.docs.files[i].text);
  }
  CHECK(render(paths).docs.files.front().text == a.docs.files.front().text);
}

TEST_CASE("two manifests declaring one provider: an error, no pages") {
  const std::string m = std::string(CLRETW_TESTS_DIR) + "/manifests/features.man";
  Diagnostics d;
  auto a = load(m, {}, d), b = load(m, {}, d);
  REQUIRE(a);
  REQUIRE(b);
  CHECK_FALSE(render_docs({{a->manifest.get(), "a.man", {}}, {b->manifest.get(), "b.man", {}}}, d));
  REQUIRE(d.error_count() == 1);
  CHECK(d.items().back().code == "M101");
}

CLRETW_SHARED_CASE("the real ClrEtwAll.man files: every event version has its section") {
  const fs::path dir = fs::path(CLRETW_SHARED_DIR) / "manifests";
  if (!fs::exists(dir / "ClrEtwAll.runtime-main.man")) {
    clretw::test::skip(dir.string() + " is absent; no pages were made for the runtime's manifests");
    return;
  }
  for (const char* name : {"ClrEtwAll.coreclr-1.0.man", "ClrEtwAll.runtime-main.man"}) {
    CAPTURE(name);
    const Rendered r = render({(dir / name).string()});
    for (const Provider& p : r.loaded.front().manifest->providers) {
      const std::string& page = r.page(provider_page(p.name));
      for (const Event& e : p.events)
        CHECK_MESSAGE(has_heading(page, "#### " + event_version_heading(e)), p.name, " ", event_version_heading(e));
    }
  }
}

TEST_CASE("clretw-gen docs from the command line") {
  const fs::path work = fs::current_path() / "docs_cli";
  fs::remove_all(work);
  fs::create_directories(work);
  const std::string features = quoted(fs::path(CLRETW_TESTS_DIR) / "manifests" / "features.man");
  const fs::path out = work / "out";
  const std::string o = " -o " + quoted(out);

  // Unreadable input and bad usage: 2; malformed XML: 1; nothing written.
  CHECK(run_gen("docs " + quoted(work / "missing.man") + o) == 2);
  CHECK(run_gen("docs " + quoted(work) + o) == 2);  // a directory
  CHECK(run_gen("docs " + features) == 2);          // no -o
  CHECK(run_gen("docs " + quoted(fs::path(CLRETW_TESTS_DIR) / "manifests" / "bad" / "malformed.man") + o) == 1);
  CHECK_FALSE(fs::exists(out));
  DocsOptions in_process;
  in_process.manifests = {(work / "missing.man").string()};
  in_process.output = out.string();
  in_process.quiet = true;
  CHECK(run_docs(in_process) == 2);

  // --check writes nothing, and finds the pages missing.
  CHECK(run_gen("docs " + features + o + " --check") == 1);
  CHECK_FALSE(fs::exists(out));
  // Written, then current.
  CHECK(run_gen("docs " + features + o) == 0);
  const fs::path page = out / "Contoso-Test-Features.md";
  REQUIRE(fs::exists(page));
  CHECK(fs::exists(out / "README.md"));
  CHECK(run_gen("docs " + features + o + " --check") == 0);

  // A page edited by hand: --check exits 1 and leaves it as it is; writing restores it.
  const std::string original = slurp(page);
  std::ofstream(page, std::ios::binary | std::ios::app) << "edited\n";
  CHECK(run_gen("docs " + features + o + " --check -q") == 1);
  CHECK(slurp(page) == original + "edited\n");
  CHECK(run_gen("docs " + features + o + " -q") == 0);
  CHECK(slurp(page) == original);

  // A stale page: one clretw-gen docs wrote for a provider that is gone is removed; another .md file is reported
  // by --check and left alone.
  fs::copy_file(page, out / "Gone-Provider.md");
  std::ofstream(out / "notes.md") << "# my notes\n";
  std::ofstream(out / "notes.txt") << "not a page\n";
  CHECK(run_gen("docs " + features + o + " --check") == 1);
  CHECK(fs::exists(out / "Gone-Provider.md"));
  CHECK(run_gen("docs " + features + o) == 0);
  CHECK_FALSE(fs::exists(out / "Gone-Provider.md"));
  CHECK(fs::exists(out / "notes.md"));
  CHECK(run_gen("docs " + features + o + " --check") == 1);
  fs::remove(out / "notes.md");
  CHECK(run_gen("docs " + features + o + " --check") == 0);  // notes.txt is no page

  // --no-fixups: the manifest as written (no padding field); by default, as the decoders read it.
  const std::string builtin = quoted(fs::path(CLRETW_SOURCE_DIR) / "manifest" / "ClrEtwBuiltin.man");
  const fs::path clr = work / "clr";
  CHECK(run_gen("docs " + builtin + " -o " + quoted(clr) + " --no-fixups") == 0);
  const std::string as_written = slurp(clr / "Microsoft-Windows-DotNETRuntime.md");
  CHECK(as_written.find("`Values.Index`") != std::string::npos);
  CHECK(as_written.find("`Values.Padding`") == std::string::npos);
  CHECK(run_gen("docs " + builtin + " -o " + quoted(clr) + " --check") == 1);
  CHECK(run_gen("docs " + builtin + " -o " + quoted(clr)) == 0);
  CHECK(slurp(clr / "Microsoft-Windows-DotNETRuntime.md").find("`Values.Padding`") != std::string::npos);
  fs::remove_all(work);
}
