// The documents' C++ examples are the tests' code: docs and tests cannot drift apart.
//
// A test source marks an example it compiles and runs with two lines,
//   // --- docs/LIBRARY.md example begins ---...
//   ...the example...
//   // --- docs/LIBRARY.md example ends ---...
// naming the document (a path from the source tree's root). Every marked block must be, byte for
// byte, the body of a ```cpp block of the document it names; and every ```cpp block of README.md
// and of the Markdown files under docs/ must be a block some test marks for it, so no example in
// them goes uncompiled.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Marked {
  std::string doc;     // "docs/LIBRARY.md"
  std::string source;  // "tests/decoders/test_readme.cpp:43", where the block begins
  std::string code;    // the lines between the markers, each ending in '\n'
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// "// --- DOC example begins ---..." -> DOC; "" when the line is no such marker.
std::string marker_doc(std::string_view line, std::string_view what) {
  constexpr std::string_view head = "// --- ";
  const std::string tail = " example " + std::string(what) + " ---";
  if (!line.starts_with(head)) return {};
  const std::size_t at = line.find(tail);
  if (at == std::string_view::npos || at <= head.size()) return {};
  return std::string(line.substr(head.size(), at - head.size()));
}

// Every marked block of the test sources under `tests`; problems with the markers go to `errors`.
std::vector<Marked> marked_blocks(const fs::path& root, std::vector<std::string>& errors) {
  std::vector<Marked> blocks;
  std::vector<fs::path> sources;
  for (const auto& entry : fs::recursive_directory_iterator(root / "tests"))
    if (entry.is_regular_file() && (entry.path().extension() == ".cpp" || entry.path().extension() == ".in"))
      sources.push_back(entry.path());
  std::sort(sources.begin(), sources.end());
  for (const fs::path& path : sources) {
    const std::string name = fs::relative(path, root).generic_string();
    if (name == "tests/docs/test_doc_examples.cpp") continue;  // its comment shows the markers
    const std::vector<std::string> lines = lines_of(read_file(path));
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const std::string doc = marker_doc(lines[i], "begins");
      if (doc.empty()) {
        if (!marker_doc(lines[i], "ends").empty())
          errors.push_back(name + ":" + std::to_string(i + 1) + ": an \"example ends\" marker with no beginning");
        continue;
      }
      Marked m{doc, name + ":" + std::to_string(i + 1), {}};
      std::size_t j = i + 1;
      for (; j < lines.size() && marker_doc(lines[j], "ends").empty(); ++j) {
        if (!marker_doc(lines[j], "begins").empty()) break;
        m.code += lines[j] + "\n";
      }
      if (j == lines.size() || marker_doc(lines[j], "ends") != doc) {
        errors.push_back(m.source + ": the example for " + doc + " has no \"--- " + doc + " example ends\" marker");
        continue;
      }
      blocks.push_back(std::move(m));
      i = j;
    }
  }
  return blocks;
}

// The bodies of a Markdown document's ```cpp blocks, with the line each begins on. A ```cpp block
// that does not start its line (in a list or a quote) cannot be compared: its line goes to `indented`.
std::vector<std::pair<std::size_t, std::string>> cpp_blocks(const std::string& markdown,
                                                            std::vector<std::size_t>* indented = nullptr) {
  std::vector<std::pair<std::size_t, std::string>> out;
  const std::vector<std::string> lines = lines_of(markdown);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] != "```cpp") {
      const std::size_t text = lines[i].find_first_not_of(" \t>-*0123456789.");
      if (indented && text != std::string::npos && std::string_view(lines[i]).substr(text).starts_with("```cpp"))
        indented->push_back(i + 1);
      continue;
    }
    std::string body;
    std::size_t j = i + 1;
    for (; j < lines.size() && lines[j] != "```"; ++j) body += lines[j] + "\n";
    out.emplace_back(i + 1, body);
    i = j;
  }
  return out;
}

}  // namespace

TEST_CASE("every C++ example of README.md and docs/ is a block a test compiles") {
  const fs::path root = CLRETW_SOURCE_DIR;
  std::vector<std::string> errors;
  const std::vector<Marked> blocks = marked_blocks(root, errors);

  // The documents: README.md, every Markdown file under docs/, and any other one a marker names.
  std::set<std::string> docs = {"README.md"};
  for (const auto& entry : fs::recursive_directory_iterator(root / "docs"))
    if (entry.is_regular_file() && entry.path().extension() == ".md")
      docs.insert(fs::relative(entry.path(), root).generic_string());
  for (const Marked& m : blocks) docs.insert(m.doc);

  std::map<std::string, std::vector<std::pair<std::size_t, std::string>>> fences;
  for (const std::string& doc : docs) {
    if (!fs::exists(root / doc)) {
      errors.push_back("a test marks an example for " + doc + ", which does not exist");
      continue;
    }
    std::vector<std::size_t> indented;
    fences[doc] = cpp_blocks(read_file(root / doc), &indented);
    for (std::size_t line : indented)
      errors.push_back(doc + ":" + std::to_string(line) + ": a ```cpp block must start its line to be checked");
  }

  // Each marked block is a ```cpp block of its document...
  for (const Marked& m : blocks) {
    const auto& in = fences[m.doc];
    if (std::none_of(in.begin(), in.end(), [&](const auto& f) { return f.second == m.code; }))
      errors.push_back(m.source + ": this example is not, byte for byte, a ```cpp block of " + m.doc +
                       " (copy the block between the markers into the document, or the document's into the test)");
  }
  // ...and each ```cpp block of a document is a block some test marks for it.
  // (Named copies, not structured bindings: clang 14 cannot capture those in a lambda.)
  for (const auto& doc_fences : fences)
    for (const auto& fence : doc_fences.second) {
      const std::string& doc = doc_fences.first;
      const std::size_t line = fence.first;
      if (std::none_of(blocks.begin(), blocks.end(), [&](const Marked& m) { return m.doc == doc && m.code == fence.second; }))
        errors.push_back(doc + ":" + std::to_string(line) + ": this ```cpp block is compiled by no test (mark it in one: "
                         "// --- " + doc + " example begins --- ... // --- " + doc + " example ends ---)");
    }

  for (const std::string& e : errors) FAIL_CHECK(e);
  CHECK(errors.empty());
  // The examples known today: README.md's quick start, and docs/LIBRARY.md's.
  CHECK(std::count_if(blocks.begin(), blocks.end(), [](const Marked& m) { return m.doc == "README.md"; }) >= 1);
  CHECK(std::count_if(blocks.begin(), blocks.end(), [](const Marked& m) { return m.doc == "docs/LIBRARY.md"; }) >= 3);
}

TEST_CASE("the markers are read as they are written") {
  CHECK(marker_doc("// --- docs/LIBRARY.md example begins ----------", "begins") == "docs/LIBRARY.md");
  CHECK(marker_doc("// --- README.md example ends ---", "ends") == "README.md");
  CHECK(marker_doc("// --- README.md example ends ---", "begins").empty());
  CHECK(marker_doc("  // --- README.md example begins ---", "begins").empty());  // a marker starts its line
  CHECK(marker_doc("// --- example begins ---", "begins").empty());
  std::vector<std::size_t> indented;
  const auto f = cpp_blocks("text\n```cpp\nint x;\n\nint y;\n```\n```sh\nls\n```\n```cpp\n```\n- a list\n  ```cpp\nsay ```cpp in prose\n", &indented);
  REQUIRE(f.size() == 2);
  CHECK(indented == std::vector<std::size_t>{13});
  CHECK(f[0] == std::pair<std::size_t, std::string>{2, "int x;\n\nint y;\n"});
  CHECK(f[1].second.empty());
}
