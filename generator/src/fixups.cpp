#include "clretw/gen/fixups.h"

#include <pugixml.hpp>

#include <fstream>
#include <sstream>

#include "clretw/gen/rules.h"

namespace clretw::gen {

extern const char* const kClrFixupsText;  // generated from manifest/clr-fixups.xml at build time


namespace {

Loc loc_at(const std::string& text, std::ptrdiff_t offset) {
  Loc l{1, 1};
  for (std::ptrdiff_t i = 0; i < offset && i < static_cast<std::ptrdiff_t>(text.size()); ++i) {
    if (text[static_cast<std::size_t>(i)] == '\n') ++l.line, l.col = 1;
    else ++l.col;
  }
  return l;
}

constexpr const char* kSettable[] = {"count", "length", "inType", "outType", "map"};

}  // namespace

std::optional<FixupSet> load_fixups_text(const std::string& text, const std::string& path, Diagnostics& diags) {
  pugi::xml_document doc;
  auto r = doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!r) {
    report(diags, "M001", path, loc_at(text, r.offset), std::string("malformed XML: ") + r.description());
    return std::nullopt;
  }
  FixupSet set;
  set.path = path;
  pugi::xml_node root = doc.document_element();
  if (std::string_view(root.name()) != "fixups") {
    report(diags, "M002", path, {1, 1}, "root element is <" + std::string(root.name()) + ">, expected <fixups>");
    return std::nullopt;
  }
  for (pugi::xml_node n : root.children()) {
    if (n.type() != pugi::node_element) continue;
    Loc loc = loc_at(text, n.offset_debug() - 1);
    if (std::string_view(n.name()) != "fixup") {
      report(diags, "M003", path, loc, "unknown element <" + std::string(n.name()) + "> in <fixups>");
      continue;
    }
    Fixup f;
    f.loc = loc;
    for (pugi::xml_attribute a : n.attributes()) {
      std::string_view name = a.name();
      if (name == "provider") f.provider = a.as_string();
      else if (name == "template") f.tid = a.as_string();
      else if (name == "field") f.field = a.as_string();
      else if (name == "reason") f.reason = a.as_string();
      else {
        bool settable = false;
        for (const char* s : kSettable) settable |= name == s;
        if (settable) f.set.emplace_back(std::string(name), a.as_string());
        else report(diags, "M004", path, loc, "attribute '" + std::string(name) + "' of <fixup> is not known; ignored");
      }
    }
    for (const char* required : {"provider", "template", "field", "reason"})
      if (!n.attribute(required))
        report(diags, "M005", path, loc, std::string("<fixup> has no '") + required + "' attribute");
    if (f.set.empty()) report(diags, "M005", path, loc, "<fixup> sets nothing (give count, length, inType, outType or map)");
    set.fixups.push_back(std::move(f));
  }
  return set;
}

std::optional<FixupSet> load_fixups(const std::string& path, Diagnostics& diags) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    report(diags, "M008", path, {}, "cannot open fix-up file '" + path + "'");
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return load_fixups_text(ss.str(), path, diags);
}

const FixupSet& clr_fixups() {
  static const FixupSet kSet = [] {
    Diagnostics d;
    auto s = load_fixups_text(kClrFixupsText, "manifest/clr-fixups.xml", d);
    return s ? *s : FixupSet{};
  }();
  return kSet;
}

bool is_clr_manifest(const Manifest& m) {
  static const Guid kClr[] = {*Guid::parse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"),
                              *Guid::parse("a669021c-c450-4609-a035-5af59af4df18"),
                              *Guid::parse("cc2bcbba-16b6-4cf3-8990-d74c2e8af500"),
                              *Guid::parse("763fd754-7086-4dfe-95eb-c01a46faf4ca")};
  for (const Provider& p : m.providers)
    for (const Guid& g : kClr)
      if (p.guid == g) return true;
  return false;
}

namespace {

Field* find_field(std::vector<Field>& fields, std::string_view path) {
  auto dot = path.find('.');
  std::string_view head = path.substr(0, dot);
  for (Field& f : fields) {
    if (f.name != head) continue;
    if (dot == std::string_view::npos) return &f;
    return f.is_struct ? find_field(f.members, path.substr(dot + 1)) : nullptr;
  }
  return nullptr;
}

std::string* attribute_text(Field& f, const std::string& name) {
  if (name == "count") return &f.count_text;
  if (name == "length") return &f.length_text;
  if (name == "inType") return &f.in_type_text;
  if (name == "outType") return &f.out_type_text;
  if (name == "map") return &f.map_name;
  return nullptr;
}

}  // namespace

void apply_fixups(Manifest& m, const FixupSet& set, Diagnostics& diags) {
  for (const Fixup& fx : set.fixups) {
    int matched = 0;
    for (Provider& p : m.providers) {
      if (!glob_match(fx.provider, p.name)) continue;
      for (Template& t : p.templates) {
        if (t.tid != fx.tid) continue;
        Field* f = find_field(t.fields, fx.field);
        if (!f) continue;
        ++matched;
        for (const auto& [name, value] : fx.set) {
          std::string* text = attribute_text(*f, name);
          const std::string before = text->empty() ? "(none)" : *text;
          *text = value;
          if (name == "inType") {
            InType it;
            f->in_type = parse_intype(value, it) ? std::optional<InType>(it) : std::nullopt;
          } else if (name == "outType") {
            OutType ot;
            f->out_type = parse_outtype(value, ot) ? std::optional<OutType>(ot) : std::nullopt;
          }
          auto& d = report(diags, "M706", m.path, f->loc,
                           "fix-up: provider '" + p.name + "' template '" + t.tid + "' field '" + fx.field + "': " + name +
                               " '" + before + "' -> '" + value + "'");
          d.related.push_back({set.path, fx.loc, fx.reason});
        }
      }
    }
    if (matched == 0)
      report(diags, "M705", set.path, fx.loc,
             "fix-up for template '" + fx.tid + "' field '" + fx.field + "' (provider '" + fx.provider +
                 "') matches nothing in " + m.path)
          .hint = "the manifest may have renamed the template or field; update the fix-up or pass --no-fixups";
  }
}

}  // namespace clretw::gen
