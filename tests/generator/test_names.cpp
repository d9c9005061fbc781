// tests/manifests/names.man: every name the generated code gives differently
// from the manifest is reported (M704 name-collision, M710 identifier-changed).
// That the code compiles and round-trips is roundtrip_names.
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "clretw/gen/emit_cpp.h"
#include "clretw/gen/frontend.h"

using namespace clretw::gen;

namespace {

const std::string kNamesMan = std::string(CLRETW_TESTS_DIR) + "/manifests/names.man";

struct Generated {
  LoadedManifest loaded;
  Diagnostics diags;
  EmitResult result;

  // The notes on names, as "LINE: MESSAGE".
  std::vector<std::string> notes() const {
    std::vector<std::string> out;
    for (const Diagnostic& d : diags.items())
      if (d.code == "M704" || d.code == "M710") out.push_back(std::to_string(d.loc.line) + ": " + d.message);
    return out;
  }
  bool noted(std::uint32_t line, const std::string& from, const std::string& to) const {
    const std::string change = "'" + from + "' is '" + to + "' in C++";
    for (const Diagnostic& d : diags.items())
      if ((d.code == "M704" || d.code == "M710") && d.loc.line == line && d.message.find(change) != std::string::npos)
        return true;
    return false;
  }
  // Every header of provider `leaf` ("clretw/names/contoso_names"): its umbrella, types.h, each task's
  // headers and their payload headers, one after another.
  std::string headers(const std::string& leaf) const {
    std::string all;
    for (const EmittedFile& f : result.files)
      if (f.path == leaf + ".h" || (f.path.rfind(leaf + "/", 0) == 0 && f.path.ends_with(".h"))) all += f.text;
    if (all.empty()) FAIL("no headers of " << leaf);
    return all;
  }
  const std::string& file(const std::string& path) const {
    for (const EmittedFile& f : result.files)
      if (f.path == path) return f.text;
    FAIL("no file " << path);
    static const std::string none;
    return none;
  }
};

std::unique_ptr<Generated> generate(const std::string& ns) {
  auto g = std::make_unique<Generated>();
  auto l = load(kNamesMan, {}, g->diags);
  REQUIRE(l);
  g->loaded = std::move(*l);
  EmitOptions options;
  options.root_namespace = ns;
  auto r = emit_cpp({{g->loaded.manifest.get(), g->loaded.schema.get(), "names.man"}}, options, g->diags);
  REQUIRE(r);
  CHECK(g->diags.error_count() == 0);
  g->result = std::move(*r);
  return g;
}

// The line of names.man holding `text` (it must be there once).
std::uint32_t at(const std::string& text) {
  std::ifstream in(kNamesMan, std::ios::binary);
  std::uint32_t found = 0, n = 0;
  for (std::string l; std::getline(in, l);) {
    ++n;
    if (l.find(text) == std::string::npos) continue;
    CHECK_MESSAGE(found == 0, text << " is on lines " << found << " and " << n);
    found = n;
  }
  CHECK_MESSAGE(found != 0, text << " is not in names.man");
  return found;
}

// What follows `prefix` in `line`; empty if the line does not start with it.
std::string after(const std::string& line, const std::string& prefix) {
  return line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : std::string();
}

// The line of the first field named `name`, struct members included; 0 if none.
std::uint32_t field_line(const std::vector<Field>& fields, const std::string& name) {
  for (const Field& f : fields) {
    if (f.name == name) return f.loc.line;
    if (const std::uint32_t l = field_line(f.members, name)) return l;
  }
  return 0;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

const Field* find_struct(const std::vector<Field>& fields, const std::string& name) {
  for (const Field& f : fields) {
    if (f.is_struct && f.name == name) return &f;
    if (const Field* s = find_struct(f.members, name)) return s;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("names.man: the renames are reported, with where and why") {
  auto g = generate("clretw::names");
  std::string all;
  for (const std::string& n : g->notes()) all += n + "\n";
  INFO(all);

  // The original failure: a field named like its map keeps its name (the type is qualified).
  const std::string h = g->headers("clretw/names/contoso_names");
  CHECK(h.find("  ::std::vector<::clretw::names::contoso_names::GCRootFlags> GCRootFlags{};") != std::string::npos);
  CHECK_FALSE(g->noted(at(R"(count="Count"/>  <!-- a map's name -->)"), "GCRootFlags", "GCRootFlags_"));

  // Collisions with the generated code's own names.
  CHECK(g->noted(at(R"(<keyword name="None")"), "None", "None_"));          // Keywords::None
  CHECK(g->noted(at(R"(<level name="Error")"), "Error", "Error_"));         // Level::Error (win:Error)
  CHECK(g->noted(at(R"(<task name="None")"), "None", "None_"));             // Task::None
  CHECK(g->noted(at(R"(<opcode name="Start" value="20")"), "Start", "Start_"));  // Opcode::Start (win:Start)
  CHECK(g->noted(at(R"(<valueMap name="Keywords")"), "Keywords", "Keywords_Map"));
  CHECK(g->noted(at(R"(<valueMap name="kMaps")"), "kMaps", "kMaps_Map"));  // a table of the .cpp
  CHECK(g->noted(at(R"(<data name="record")"), "record", "record_"));
  CHECK(g->noted(at(R"(<data name="Torture" )"), "Torture", "Torture_"));  // the struct's own name
  CHECK(g->noted(at(R"(<data name="ps8_")"), "ps8_", "ps8_2"));            // clretw::ViewBase's
  CHECK(g->noted(at(R"(<event value="5" )"), "Payload", "Payload_5"));     // the event type's Payload
  // Across kinds: a map and a task's opcode enum, a map and descriptor tables, a field and a view's tables.
  CHECK(g->noted(at(R"(<valueMap name="GCRootOpcode")"), "GCRootOpcode", "GCRootOpcode_Map"));
  CHECK(g->noted(at(R"(<valueMap name="Color")"), "kMap_Color", "kMap_Color_"));
  CHECK(g->noted(at(R"(<valueMap name="std")"), "kEntries_kMap_std", "kEntries_kMap_std_"));
  CHECK(g->noted(at(R"(<data name="Foo")"), "k_Foo", "k_Foo_"));
  // Keywords, macros, reserved spellings, leading digits, non-ASCII; and collisions they cause.
  CHECK(g->noted(at(R"(<keyword name="class")"), "class", "class_"));
  CHECK(g->noted(at(R"(<keyword name="class_")"), "class_", "class_2"));  // never class__ (reserved)
  CHECK(g->noted(at(R"(<keyword name="2Fast")"), "2Fast", "n2Fast"));
  CHECK(g->noted(at(R"(<keyword name="_Reserved")"), "_Reserved", "Reserved"));
  CHECK(g->noted(at(R"(<keyword name="a__b")"), "a__b", "a_b"));
  CHECK(g->noted(at(R"(<keyword name="Größe")"), "Größe", "Gr_e"));
  CHECK(g->noted(at(R"(<keyword name="Grüße")"), "Grüße", "Gr_e_"));
  CHECK(g->noted(at(R"(<keyword name="NULL")"), "NULL", "NULL_"));
  CHECK(g->noted(at(R"(<data name="Reserved")"), "Reserved", "Reserved_"));  // after _Reserved
  // Map entries whose messages give the same enumerator, or none.
  CHECK(g->noted(at(R"($(string.Map.WeakRef2))"), "Weak-ref", "Weak_ref_0x4"));
  CHECK(g->noted(at(R"($(string.Map.Gruesse))"), "Grüße", "Gr_e_0x3"));
  CHECK(g->noted(at(R"($(string.Map.Bangs))"), "!!!", "Value_0x4"));
  CHECK(g->noted(at(R"($(string.Map.Japanese))"), "日本", "Value_0x7"));
  // Events: with a map, a view, another event.
  CHECK(g->noted(at(R"(<event value="4" )"), "View", "View_4"));
  CHECK(g->noted(at(R"(<event value="9" )"), "std", "std_9"));
  CHECK(g->noted(at(R"(<event value="17" )"), "GCRootFlags", "GCRootFlags_17"));
  CHECK(g->noted(at(R"(<event value="27" )"), "BarView", "BarView_27"));
  CHECK(g->noted(at(R"(<event value="29" )"), "Thing", "Thing_29"));
  CHECK(g->noted(at(R"(<event value="36" )"), "Event25", "Event25_36"));
  // Providers.
  CHECK(g->noted(at(R"(<provider name="ContosoNames")"), "ContosoNames", "contoso_names_"));
  CHECK(g->noted(at(R"(<provider name="Detail")"), "Detail", "detail_"));
  CHECK(g->noted(at(R"(<provider name="Clretw")"), "Clretw", "clretw_"));  // would hide ::clretw in clretw::names
  CHECK(g->noted(at(R"(<provider name="Class")"), "Class", "class_"));
  CHECK(g->noted(at(R"(<provider name="Contoso-Größe")"), "Contoso-Größe", "contoso_gr_e"));

  // Notes come in manifest order, once each.
  const std::vector<std::string> notes = g->notes();
  CHECK(std::set<std::string>(notes.begin(), notes.end()).size() == notes.size());
  std::uint32_t last = 0;
  for (const Diagnostic& d : g->diags.items()) {
    if (d.code != "M704" && d.code != "M710") continue;
    CHECK(d.severity == Severity::note);
    CHECK(d.file == kNamesMan);
    CHECK(d.loc.line >= last);
    last = d.loc.line;
  }
}

TEST_CASE("names.man: every struct member, accessor, keyword and event type that differs from the manifest is reported") {
  auto g = generate("clretw::names");
  const Provider& p = g->loaded.manifest->providers.front();
  const std::vector<std::string> h = lines(g->headers("clretw/names/contoso_names"));
  std::size_t checked = 0, renamed = 0;
  auto check = [&](std::uint32_t line, const std::string& manifest, const std::string& cpp) {
    ++checked;
    if (manifest == cpp) return;
    ++renamed;
    CAPTURE(line);
    CHECK_MESSAGE(g->noted(line, manifest, cpp), "'" << manifest << "' became '" << cpp << "' unreported");
  };

  // Payload structs ("/// Template X (" or "/// Element of struct X ("): members in manifest order.
  for (std::size_t i = 0; i + 1 < h.size(); ++i) {
    std::string name = after(h[i], "/// Template ");
    const bool element = name.empty();
    if (element) name = after(h[i], "/// Element of struct ");
    if (name.empty()) continue;
    name = name.substr(0, name.find(" ("));
    const std::vector<Field>* fields = nullptr;
    for (const Template& t : p.templates) {
      if (!element && t.tid == name) fields = &t.fields;
      if (element)
        if (const Field* st = find_struct(t.fields, name)) fields = &st->members;
    }
    REQUIRE_MESSAGE(fields, h[i]);
    std::size_t k = 0;
    for (std::size_t j = i + 2; j < h.size(); ++j, ++k) {  // "  TYPE NAME{};  // comment"
      const std::size_t end = h[j].find("{};  // ");
      if (h[j].rfind("  ", 0) != 0 || end == std::string::npos) break;
      const std::size_t begin = h[j].rfind(' ', end) + 1;
      REQUIRE(k < fields->size());
      check((*fields)[k].loc.line, (*fields)[k].name, h[j].substr(begin, end - begin));
    }
    CHECK(k == fields->size());
  }
  // View accessors: for_each_field() pairs each manifest name with its accessor: f("NAME", this->ACCESSOR());
  for (const std::string& l : h) {
    const std::string rest = after(l, "    f(\"");
    const std::size_t mid = rest.find("\", this->"), end = rest.find("());");
    if (mid == std::string::npos || end == std::string::npos) continue;
    const std::string name = rest.substr(0, mid), accessor = rest.substr(mid + 9, end - mid - 9);
    std::uint32_t line = 0;
    for (const Template& t : p.templates)
      if (!line) line = field_line(t.fields, name);
    // A field whose type changes across versions has a name per version (Versioned's Value_V0), by design.
    if (name == "Value" && accessor == "Value_V0_") {
      CHECK(g->noted(line, "Value_V0", "Value_V0_"));
      continue;
    }
    check(line, name, accessor);
  }
  // Keywords: enumerators in order after None.
  std::size_t kw = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (h[i] != "enum class Keywords : ::std::uint64_t {") continue;
    for (std::size_t j = i + 2; h[j].rfind("  ", 0) == 0 && h[j].find(" = ") != std::string::npos; ++j, ++kw) {
      REQUIRE(kw < p.keywords.size());
      check(p.keywords[kw].loc.line, p.keywords[kw].name, h[j].substr(2, h[j].find(" = ") - 2));
    }
  }
  CHECK(kw == p.keywords.size());
  // Event types: "/// TAG: event N of Contoso-Names" for every event id, in order.
  std::size_t events = 0;
  for (const std::string& l : h) {
    const std::string rest = after(l, "/// ");
    const std::size_t colon = rest.find(": event "), of = rest.find(" of Contoso-Names");
    if (colon == std::string::npos || of == std::string::npos) continue;
    const std::string tag = rest.substr(0, colon), id = rest.substr(colon + 8, of - colon - 8);
    for (const Event& e : p.events) {
      if (std::to_string(e.value) != id || e.version != 0) continue;
      ++events;
      std::string base = e.symbol.empty() ? "Event" + id : e.symbol;
      if (base == "Thing_V1") base = "Thing";  // "_V1" is a version suffix
      check(e.loc.line, base, tag);
    }
  }
  CHECK(events == 2 * 41);  // in the comments of the view and of the event type
  MESSAGE(checked << " names checked, " << renamed << " renamed");
  CHECK(renamed > 50);
}

TEST_CASE("generating into namespace clretw keeps provider namespaces off the runtime's names") {
  auto g = generate("clretw");
  CHECK(g->noted(at(R"(<provider name="Walk")"), "Walk", "walk_"));  // clretw::walk() is the layout engine's
  CHECK(g->noted(at(R"(<provider name="Std")"), "Std", "std_"));     // the runtime's headers use std:: there
  auto n = generate("clretw::names");
  CHECK_FALSE(n->noted(at(R"(<provider name="Walk")"), "Walk", "walk_"));
  CHECK_FALSE(n->noted(at(R"(<provider name="Std")"), "Std", "std_"));
}
