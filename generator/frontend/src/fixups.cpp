#include "clretw/gen/fixups.h"

#include <pugixml.hpp>

#include "clretw/gen/loader.h"
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

// A field a <fixup> inserts: <data name inType [count] [length] [outType] [map]/>, or <struct name count>
// of such <data>.
std::optional<Field> inserted_field(pugi::xml_node c, const std::string& text, const std::string& path, Diagnostics& diags) {
  Field f;
  f.loc = loc_at(text, c.offset_debug() - 1);
  f.name = c.attribute("name").as_string();
  f.count_text = c.attribute("count").as_string();
  const std::string_view element = c.name();
  if (element == "struct" && !f.name.empty() && !f.count_text.empty()) {
    f.is_struct = true;
    for (pugi::xml_node m : c.children()) {
      if (m.type() != pugi::node_element) continue;
      auto member = inserted_field(m, text, path, diags);
      if (!member) return std::nullopt;
      if (member->is_struct) {
        report(diags, RuleId::unknown_element, path, member->loc, "a <struct> a <fixup> inserts holds <data> fields only");
        return std::nullopt;
      }
      f.members.push_back(std::move(*member));
    }
    if (!f.members.empty()) return f;
  } else if (element == "data" && !f.name.empty()) {
    f.in_type_text = c.attribute("inType").as_string();
    f.out_type_text = c.attribute("outType").as_string();
    f.length_text = c.attribute("length").as_string();
    f.map_name = c.attribute("map").as_string();
    InType it;
    OutType ot;
    if (parse_intype(f.in_type_text, it) && (f.out_type_text.empty() || parse_outtype(f.out_type_text, ot))) {
      f.in_type = it;
      if (!f.out_type_text.empty()) f.out_type = ot;
      return f;
    }
  }
  report(diags, RuleId::unknown_element, path, f.loc,
         "a <fixup> inserts <data name=\"...\" inType=\"win:...\"/> fields, or <struct name=\"...\" count=\"...\"> of them, only");
  return std::nullopt;
}

}  // namespace

std::optional<FixupSet> load_fixups_text(const std::string& text, const std::string& path, Diagnostics& diags) {
  pugi::xml_document doc;
  auto r = doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!r) {
    report(diags, RuleId::xml_syntax, path, loc_at(text, r.offset), std::string("malformed XML: ") + r.description());
    return std::nullopt;
  }
  FixupSet set;
  set.path = path;
  pugi::xml_node root = doc.document_element();
  if (std::string_view(root.name()) != "fixups") {
    report(diags, RuleId::not_a_manifest, path, {1, 1}, "root element is <" + std::string(root.name()) + ">, expected <fixups>");
    return std::nullopt;
  }
  for (pugi::xml_node n : root.children()) {
    if (n.type() != pugi::node_element) continue;
    Loc loc = loc_at(text, n.offset_debug() - 1);
    if (std::string_view(n.name()) != "fixup") {
      report(diags, RuleId::unknown_element, path, loc, "unknown element <" + std::string(n.name()) + "> in <fixups>");
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
        else report(diags, RuleId::unknown_attribute, path, loc, "attribute '" + std::string(name) + "' of <fixup> is not known; ignored");
      }
    }
    for (pugi::xml_node c : n.children()) {
      if (c.type() != pugi::node_element) continue;
      if (auto inserted = inserted_field(c, text, path, diags)) f.insert.push_back(std::move(*inserted));
    }
    for (const char* required : {"provider", "template", "reason"})
      if (!n.attribute(required))
        report(diags, RuleId::missing_attribute, path, loc, std::string("<fixup> has no '") + required + "' attribute");
    if (f.set.empty() && f.insert.empty())
      report(diags, RuleId::missing_attribute, path, loc, "<fixup> changes nothing (set count, length, inType, outType or map, or insert <data>)");
    if (f.field.empty() && (!f.set.empty() || f.insert.empty()))
      report(diags, RuleId::missing_attribute, path, loc,
             "<fixup> has no 'field' attribute: only a fix-up that fills an empty template with <data> and <struct> may leave it out");
    set.fixups.push_back(std::move(f));
  }
  return set;
}

std::optional<FixupSet> load_fixups(const std::string& path, Diagnostics& diags) {
  auto text = read_input(path, "fix-up file", diags);
  if (!text) return std::nullopt;
  return load_fixups_text(std::move(*text), path, diags);
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

// The list holding the field at `path` ("Struct.Member" for members), and its index there.
std::pair<std::vector<Field>*, std::size_t> find_field(std::vector<Field>& fields, std::string_view path) {
  auto dot = path.find('.');
  std::string_view head = path.substr(0, dot);
  for (std::size_t i = 0; i < fields.size(); ++i) {
    Field& f = fields[i];
    if (f.name != head) continue;
    if (dot == std::string_view::npos) return {&fields, i};
    if (f.is_struct) return find_field(f.members, path.substr(dot + 1));
    return {nullptr, 0};
  }
  return {nullptr, 0};
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
    int matched = 0, templates = 0;
    for (Provider& p : m.providers) {
      if (!glob_match(fx.provider, p.name)) continue;
      for (Template& t : p.templates) {
        if (t.tid != fx.tid) continue;
        ++templates;
        if (fx.field.empty()) {  // fills an empty template: one the manifest declares without the fields the runtime writes
          if (!t.fields.empty()) continue;
          ++matched;
          for (const Field& inserted : fx.insert) {
            auto& d = report(diags, RuleId::fixup_applied, m.path, t.loc,
                             "fix-up: provider '" + p.name + "' template '" + t.tid + "': field '" + inserted.name + "' (" +
                                 (inserted.is_struct ? "struct" : inserted.in_type_text) + ") added to the empty template");
            d.related.push_back({set.path, fx.loc, fx.reason});
            t.fields.push_back(inserted);
            t.fields.back().loc = t.loc;
            for (Field& member : t.fields.back().members) member.loc = t.loc;
          }
          continue;
        }
        auto [list, index] = find_field(t.fields, fx.field);
        if (!list) continue;
        ++matched;
        Field* f = &(*list)[index];
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
          auto& d = report(diags, RuleId::fixup_applied, m.path, f->loc,
                           "fix-up: provider '" + p.name + "' template '" + t.tid + "' field '" + fx.field + "': " + name +
                               " '" + before + "' -> '" + value + "'");
          d.related.push_back({set.path, fx.loc, fx.reason});
        }
        const Loc at = f->loc;
        for (std::size_t k = 0; k < fx.insert.size(); ++k) {
          Field inserted = fx.insert[k];
          inserted.loc = at;
          auto& d = report(diags, RuleId::fixup_applied, m.path, at,
                           "fix-up: provider '" + p.name + "' template '" + t.tid + "': field '" + inserted.name + "' (" +
                               inserted.in_type_text + ") inserted after '" + fx.field + "'");
          d.related.push_back({set.path, fx.loc, fx.reason});
          list->insert(list->begin() + static_cast<std::ptrdiff_t>(index + 1 + k), std::move(inserted));
        }
      }
    }
    // A manifest from before the template existed is fine; a template without the field is not, nor a
    // template a fix-up would fill that has fields of its own now.
    if (templates > 0 && matched == 0 && fx.field.empty())
      report(diags, RuleId::fixup_unmatched, set.path, fx.loc,
             "fix-up filling template '" + fx.tid + "' (provider '" + fx.provider + "') finds it no longer empty in " + m.path)
          .hint = "the manifest declares the template's fields now; check them against the fix-up's and drop it";
    else if (templates > 0 && matched == 0)
      report(diags, RuleId::fixup_unmatched, set.path, fx.loc,
             "fix-up for template '" + fx.tid + "' field '" + fx.field + "' (provider '" + fx.provider +
                 "') matches nothing in " + m.path)
          .hint = "the manifest may have renamed the field; update the fix-up or pass --no-fixups";
  }
}

}  // namespace clretw::gen
