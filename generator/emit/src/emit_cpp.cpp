#include "clretw/gen/emit_cpp.h"

#include <kainjow/mustache.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "clretw/gen/namer.h"
#include "clretw/gen/rules.h"
#include "clretw/layout.h"
#include "clretw/text.h"

namespace clretw::gen {

namespace mst = kainjow::mustache;

namespace {

// ---------------------------------------------------------------------------
// Text helpers

std::string hex(std::uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

std::string cpp_string(std::string_view s) {
  // Control characters as \xHH, then "" so that following hex digits are not absorbed.
  static constexpr Escaper kCpp({{'"', "\\\""}, {'\\', "\\\\"}, {'\n', "\\n"}, {'\r', "\\r"}, {'\t', "\\t"},
                                 {'?', "\\?"}},  // no trigraphs
                                "\\x", "\"\"");
  std::string out = "\"";
  kCpp.append(out, s);
  out += '"';
  return out;
}

std::string intype_enumerator(InType t) {
  switch (t) {
    case InType::Int8: return "Int8";
    case InType::UInt8: return "UInt8";
    case InType::Int16: return "Int16";
    case InType::UInt16: return "UInt16";
    case InType::Int32: return "Int32";
    case InType::UInt32: return "UInt32";
    case InType::Int64: return "Int64";
    case InType::UInt64: return "UInt64";
    case InType::HexInt32: return "HexInt32";
    case InType::HexInt64: return "HexInt64";
    case InType::Float: return "Float";
    case InType::Double: return "Double";
    case InType::Boolean: return "Boolean";
    case InType::Guid: return "Guid";
    case InType::Pointer: return "Pointer";
    case InType::FileTime: return "FileTime";
    case InType::SystemTime: return "SystemTime";
    case InType::UnicodeString: return "UnicodeString";
    case InType::AnsiString: return "AnsiString";
    case InType::Binary: return "Binary";
    case InType::Sid: return "Sid";
    case InType::Struct: return "Struct";
  }
  return "UInt32";
}

std::string outtype_enumerator(OutType t) {
  static const char* const kNames[] = {
      "Default", "String", "DateTime", "Byte", "UnsignedByte", "Short", "UnsignedShort", "Int", "UnsignedInt",
      "Long", "UnsignedLong", "Float", "Double", "Boolean", "Guid", "HexBinary", "HexInt8", "HexInt16", "HexInt32",
      "HexInt64", "Pid", "Tid", "Port", "IPv4", "IPv6", "SocketAddress", "CimDateTime", "EtwTime", "Xml", "ErrorCode",
      "Win32Error", "NtStatus", "HResult", "DateTimeCultureInsensitive", "Json", "Utf8", "Pkcs7WithTypeInfo",
      "CodePointer"};
  return kNames[static_cast<int>(t)];
}

std::string extent_init(const Extent& e) {
  return std::string("{::clretw::Extent::Kind::") + (e.kind == Extent::Kind::constant ? "constant" : "field") + ", " +
         std::to_string(e.value) + "}";
}

std::string uint_type(unsigned width) { return "::std::uint" + std::to_string(width * 8) + "_t"; }
std::string int_type(unsigned width) { return "::std::int" + std::to_string(width * 8) + "_t"; }

// The owning C++ type of one element of a scalar field.
std::string scalar_cpp_type(InType t) {
  switch (t) {
    case InType::Int8: return "::std::int8_t";
    case InType::UInt8: return "::std::uint8_t";
    case InType::Int16: return "::std::int16_t";
    case InType::UInt16: return "::std::uint16_t";
    case InType::Int32: return "::std::int32_t";
    case InType::UInt32: case InType::HexInt32: return "::std::uint32_t";
    case InType::Int64: return "::std::int64_t";
    case InType::UInt64: case InType::HexInt64: case InType::Pointer: case InType::FileTime: return "::std::uint64_t";
    case InType::Float: return "float";
    case InType::Double: return "double";
    case InType::Boolean: return "bool";
    case InType::Guid: return "::clretw::Guid";
    case InType::SystemTime: return "::clretw::SystemTime";
    case InType::UnicodeString: case InType::AnsiString: return "::std::string";
    case InType::Binary: case InType::Sid: return "::std::vector<::std::uint8_t>";
    case InType::Struct: return "";
  }
  return "::std::uint32_t";
}

// ---------------------------------------------------------------------------
// Value categories, for merging a field across event versions.

enum class Cat { unsigned_, signed_, real, boolean, guid, systemtime, utf16, ansi, bytes, records };

Cat category(const FieldDesc& f) {
  switch (f.type) {
    case InType::Int8: case InType::Int16: case InType::Int32: case InType::Int64: return Cat::signed_;
    case InType::Float: case InType::Double: return Cat::real;
    case InType::Boolean: return Cat::boolean;
    case InType::Guid: return Cat::guid;
    case InType::SystemTime: return Cat::systemtime;
    case InType::UnicodeString: return Cat::utf16;
    case InType::AnsiString: return Cat::ansi;
    case InType::Binary: case InType::Sid: return Cat::bytes;
    case InType::Struct: return Cat::records;
    default: return Cat::unsigned_;
  }
}

bool is_array(const FieldDesc& f) { return f.count.kind != Extent::Kind::none || f.type == InType::Struct; }

struct Slot {
  const FieldDesc* fd = nullptr;
  const RecordDesc* record = nullptr;  // the version's record holding fd
  std::uint32_t index = 0;
};

struct Merged {
  std::string name;      // manifest field name
  std::string accessor;  // C++ accessor
  Cat cat{};
  bool array = false;
  std::vector<Slot> slots;  // one per version
};

// Merges the fields of one record per version (nullptr: absent in that version).
std::vector<Merged> merge_fields(const std::vector<const RecordDesc*>& records, const std::vector<unsigned>& versions,
                                 NameScope& scope, const std::function<NameOrigin(const FieldDesc&)>& origin) {
  std::vector<Merged> out;
  for (std::size_t v = records.size(); v-- > 0;) {  // newest first: it decides order and keeps plain names
    if (!records[v]) continue;
    const RecordDesc& r = *records[v];
    for (std::uint32_t i = 0; i < r.fields.size(); ++i) {
      const FieldDesc& f = r.fields[i];
      Merged* target = nullptr;
      for (Merged& m : out)
        if (m.name == f.name && m.cat == category(f) && m.array == is_array(f) && !m.slots[v].fd) target = &m;
      if (!target) {
        const bool clash = std::any_of(out.begin(), out.end(), [&](const Merged& m) { return m.name == f.name; });
        Merged m;
        m.name = std::string(f.name);
        m.accessor = scope.take_name(clash ? std::string(f.name) + "_V" + std::to_string(versions[v]) : std::string(f.name), "_",
                                     origin(f));
        m.cat = category(f);
        m.array = is_array(f);
        m.slots.resize(records.size());
        out.push_back(std::move(m));
        target = &out.back();
      }
      target->slots[v] = Slot{&f, &r, i};
    }
  }
  return out;
}

// The names the runtime declares in namespace clretw itself (lower case ones:
// provider namespaces are lower case, so they cannot meet the runtime's types),
// and std, which the runtime's headers use unqualified there. Generating into
// namespace clretw (the default, and the built-in decoders) puts the provider
// namespaces beside them. `gen` is the generator's library, which tools link
// together with generated decoders. To refresh: list the namespace-scope
// declarations of clretw in `clang++ -Xclang -ast-dump` of a file including
// every runtime header.
const std::set<std::string>& runtime_names() {
  static const std::set<std::string> k = {
      "ansi_to_utf8", "append_double", "append_hex", "append_json_escaped", "append_utf8", "compute_layout",
      "csv_header", "decode_dynamic", "decode_payload", "detail", "element_count", "element_length", "element_size",
      "encode_payload", "errc_name", "extent_value", "flag_ops", "for_each_field", "format_event", "format_fields", "format_value", "gen", "glob_match",
      "intype_name", "is_integer", "is_signed", "is_unsigned", "is_valid_utf8", "item_size", "load_int", "load_le",
      "load_uint", "load_value", "loc", "locate_element", "nettrace", "outtype_name", "parse_intype", "parse_outtype",
      "put_utf16", "scalar_size", "sid_size", "std", "string_text", "utf16_length", "utf8_to_utf16", "valid_utf8",
      "visit_fields", "walk"};
  return k;
}

// ---------------------------------------------------------------------------

class Emitter {
 public:
  Emitter(const std::vector<SourceManifest>& sources, const EmitOptions& options, Diagnostics& diags)
      : sources_(sources), options_(options), diags_(diags) {}

  std::optional<EmitResult> run() {
    const auto& templates = options_.templates.empty() ? builtin_templates() : options_.templates;
    for (const char* name : {"provider.h.mustache", "provider_types.h.mustache", "provider_part.h.mustache", "provider_payload.h.mustache", "provider.cpp.mustache", "catalog.h.mustache", "events.h.mustache", "all.cpp.mustache",
                             "struct_check.mustache", "check_steps.mustache", "layout_view.mustache"}) {
      if (!templates.count(name)) {
        report(diags_, RuleId::unreadable_file, name, {}, std::string("template '") + name + "' is missing");
        return std::nullopt;
      }
    }
    root_path_ = options_.root_namespace;
    for (std::size_t i; (i = root_path_.find("::")) != std::string::npos;) root_path_.replace(i, 2, "/");

    // The root namespace: the provider namespaces, what events.h and all.cpp declare there, and the
    // namespaces it is in (a provider namespace clretw::main::clretw would hide ::clretw from code in
    // clretw::main). Generating into clretw itself puts them beside the runtime.
    std::set<std::string> root_names = {"detail", "catalog", "for_each_event_version", "kProviders", "kCatalog"};
    for (std::size_t b = 0, e; b <= options_.root_namespace.size(); b = e + 2) {
      e = std::min(options_.root_namespace.find("::", b), options_.root_namespace.size());
      root_names.insert(options_.root_namespace.substr(b, e - b));
    }
    if (options_.root_namespace == "clretw") root_names.insert(runtime_names().begin(), runtime_names().end());
    NameScope namespaces(root_names, "namespace " + options_.root_namespace, &renames_);
    mst::data providers{mst::data::type::list};
    std::set<std::string> seen_providers;
    for (const SourceManifest& src : sources_) {
      for (std::size_t pi = 0; pi < src.manifest->providers.size(); ++pi) {
        const Provider& p = src.manifest->providers[pi];
        if (!seen_providers.insert(p.name).second) {
          report(diags_, RuleId::duplicate_provider, src.manifest->path, p.loc,
                 "provider '" + p.name + "' is declared by more than one manifest; generate them separately");
          return std::nullopt;
        }
        NameOrigin origin{"provider '" + p.name + "'", src.manifest->path, p.loc, p.name, {}};
        const std::string leaf = namespaces.take(provider_namespace(p.name, &origin.why), "_", origin);
        ProviderOut po = provider(src, pi, leaf);
        result_.files.push_back({root_path_ + "/" + leaf + "/types.h", render(templates, "provider_types.h.mustache", po.data)});
        for (const auto& [part, data] : po.parts) {
          result_.files.push_back({root_path_ + "/" + leaf + "/" + part + ".h", render(templates, "provider_part.h.mustache", data)});
          result_.files.push_back({root_path_ + "/" + leaf + "/payload/" + part + ".h",
                                   render(templates, "provider_payload.h.mustache", data)});
        }
        result_.files.push_back({root_path_ + "/" + leaf + ".h", render(templates, "provider.h.mustache", po.data)});
        result_.files.push_back({root_path_ + "/" + leaf + ".cpp", render(templates, "provider.cpp.mustache", po.data)});
        mst::data entry;
        entry.set("leaf", leaf);
        providers.push_back(entry);
        ++result_.providers;
      }
    }
    mst::data top;
    top.set("root_ns", options_.root_namespace);
    top.set("root_path", root_path_);
    top.set("providers", providers);
    top.set("sources", sources_text());
    result_.files.push_back({root_path_ + "/catalog.h", render(templates, "catalog.h.mustache", top)});
    result_.files.push_back({root_path_ + "/events.h", render(templates, "events.h.mustache", top)});
    result_.files.push_back({root_path_ + "/all.cpp", render(templates, "all.cpp.mustache", top)});
    report_renames();
    return result_;
  }

 private:
  struct ProviderOut {
    mst::data data;                                         // the umbrella header and the .cpp
    std::vector<std::pair<std::string, mst::data>> parts;  // shared.h, then each task's header
  };

  // Every name that differs from the manifest's spelling, as a note: M704 when
  // a collision added a suffix, M710 when only the spelling had to change.
  // In manifest order; a change made the same way in several scopes (a field's
  // spelling in its struct and in each view of it) is reported once.
  void report_renames() {
    std::stable_sort(renames_.begin(), renames_.end(), [](const Rename& a, const Rename& b) {
      if (a.origin.file != b.origin.file) return a.origin.file < b.origin.file;
      if (a.origin.loc.line != b.origin.loc.line) return a.origin.loc.line < b.origin.loc.line;
      return a.origin.loc.col < b.origin.loc.col;
    });
    std::set<std::string> seen;
    for (const Rename& r : renames_) {
      const std::string message = r.origin.what + ": '" + r.from + "' is '" + r.to + "' in C++ (" + r.reason + ")";
      const std::string key = r.origin.file + ":" + std::to_string(r.origin.loc.line) + ":" +
                              std::to_string(r.origin.loc.col) + ":" + message;
      if (seen.insert(key).second) report(diags_, r.collision ? RuleId::name_collision : RuleId::identifier_changed, r.origin.file, r.origin.loc, message);
    }
  }

  std::string sources_text() const {
    std::string s;
    for (const SourceManifest& src : sources_) s += (s.empty() ? "" : ", ") + src.display_path;
    return s;
  }

  std::string render(const std::map<std::string, std::string>& templates, const std::string& name, const mst::data& d) {
    mst::mustache tmpl(standalone(templates.at(name)));
    tmpl.set_custom_escape([](const std::string& s) { return s; });
    if (!tmpl.is_valid()) {
      report(diags_, RuleId::xml_syntax, name, {}, "template error: " + tmpl.error_message());
      return {};
    }
    mst::data ctx = d;
    for (const auto& [tname, text] : templates) {
      if (tname.size() > 9 && tname.compare(tname.size() - 9, 9, ".mustache") == 0 && tname.find('.') == tname.size() - 9) {
        const std::string body = standalone(text);
        ctx.set(tname.substr(0, tname.size() - 9), mst::partial([body] { return body; }));
      }
    }
    std::string out = tmpl.render(ctx);
    if (!tmpl.is_valid()) report(diags_, RuleId::xml_syntax, name, {}, "template error: " + tmpl.error_message());
    return unstandalone(out);
  }

  // Standalone lines as the mustache spec has them: a line that holds nothing but one section,
  // inverted section, end of section, partial, comment or delimiter tag (and blanks) is not
  // written. kainjow mustache drops such a line only when it renders the section, never that of
  // a partial or delimiter tag; so each one is marked here (kStandalone after the tag) and
  // unstandalone() drops the lines the marks end up on.
  static constexpr char kStandalone = '\x01';  // never in generated text (cpp_string() escapes it)

  static std::string standalone(const std::string& text) {
    std::string out, open = "{{", close = "}}";
    for (std::size_t b = 0; b < text.size();) {
      std::size_t e = text.find('\n', b);
      e = e == std::string::npos ? text.size() : e + 1;
      const std::string_view line(text.data() + b, e - b);
      b = e;
      const std::size_t first = line.find_first_not_of(" \t");
      const std::size_t last = line.find_last_not_of(" \t\r\n");
      const bool tag = first != std::string_view::npos && line.compare(first, open.size(), open) == 0 &&
                       last + 1 >= close.size() && line.compare(last + 1 - close.size(), close.size(), close) == 0 &&
                       first + open.size() < last + 1 - close.size() &&
                       std::string_view("#^/>!=").find(line[first + open.size()]) != std::string_view::npos &&
                       line.find(open, first + open.size()) == std::string_view::npos;
      if (!tag) {
        out += line;
        continue;
      }
      const std::string_view t = line.substr(first, last + 1 - first);
      out += t;
      out += kStandalone;
      out += line.substr(last + 1);
      if (t[open.size()] == '=') {  // {{=<% %>=}}: the delimiters from here on
        const std::string_view inner = t.substr(open.size() + 1, t.size() - open.size() - close.size() - 2);
        const std::size_t space = inner.find(' ');
        open = std::string(inner.substr(0, space));
        close = std::string(inner.substr(inner.find_first_not_of(' ', space)));
      }
    }
    return out;
  }

  static std::string unstandalone(const std::string& text) {
    std::string out;
    for (std::size_t b = 0; b < text.size();) {
      std::size_t e = text.find('\n', b);
      e = e == std::string::npos ? text.size() : e + 1;
      std::string line = text.substr(b, e - b);
      b = e;
      if (line.find(kStandalone) == std::string::npos) {
        out += line;
        continue;
      }
      std::erase(line, kStandalone);
      if (line.find_first_not_of(" \t\r\n") != std::string::npos) out += line;
    }
    return out;
  }

  // ---- per provider ------------------------------------------------------

  struct Ctx {
    const SourceManifest* src = nullptr;
    const Provider* p = nullptr;
    const BuiltSchema::ProviderTables* t = nullptr;
    std::string leaf;
    std::string ns;          // the provider namespace, fully qualified: "::clretw::dotnet_runtime"
    std::uint16_t event_id = 0;  // of the event whose views are being made
    NameScope scope;         // names in the provider namespace, its unnamed namespace in the .cpp included
    NameScope struct_scope;  // payload structs in namespace templates
    std::map<const FieldDesc*, NameOrigin> field_origin;  // every field of every template, for reports
    std::map<const EventDesc*, Loc> event_loc;
    std::map<const MapDesc*, std::string> map_enum;  // map descriptor -> enum name
    std::map<const MapDesc*, std::string> map_const;
    std::map<const RecordDesc*, std::string> record_const;
    std::map<const RecordDesc*, std::string> record_struct;  // owning struct (templates::X or element)
    mst::data records{mst::data::type::list};       // descriptor tables, children first
    // Payload structs (children first) with the template each belongs to, and views (element views
    // first), aliases, event types and versions with the header of the part they go to (home).
    std::vector<std::pair<const RecordDesc*, mst::data>> structs;
    std::vector<std::pair<std::string, mst::data>> views, aliases, event_types, event_versions;
    std::string home;                                // the part of the event being made
    std::vector<std::string> homes;                  // the parts, in the order of their first event
    std::map<const RecordDesc*, std::set<std::string>> used_by;  // template -> parts of the events using it
    std::map<std::string, std::string> part_of;      // task name as events show it -> its part
    mst::data view_impls{mst::data::type::list};    // .cpp parts of views
    std::set<const RecordDesc*> layout_views;       // records whose owning struct has a View<PointerSize>
    std::set<const RecordDesc*> template_records;   // records of templates (not element structs)
    std::vector<std::pair<const RecordDesc*, mst::data>> record_data;  // descriptor tables, before their check is known
  };

  // Where each field of a record is declared (the model's fields are the record's, in order).
  void field_origins(Ctx& c, const std::vector<Field>& fields, const RecordDesc& r, const std::string& in) {
    for (std::size_t i = 0; i < fields.size() && i < r.fields.size(); ++i) {
      c.field_origin[&r.fields[i]] = NameOrigin{"field '" + fields[i].name + "' of " + in, c.src->manifest->path, fields[i].loc, {}, {}};
      if (r.fields[i].members)
        field_origins(c, fields[i].members, *r.fields[i].members, "struct '" + fields[i].name + "' of " + in);
    }
  }

  NameOrigin origin(const Ctx& c, std::string what, Loc loc) const {
    return NameOrigin{std::move(what), c.src->manifest->path, loc, {}, {}};
  }

  std::string where(const Ctx& c, std::uint32_t line) const {
    return c.src->display_path + ":" + std::to_string(line);
  }

  ProviderOut provider(const SourceManifest& src, std::size_t pi, const std::string& leaf) {
    Ctx c;
    c.src = &src;
    c.p = &src.manifest->providers[pi];
    c.t = &src.schema->providers()[pi];
    c.leaf = leaf;
    c.ns = "::" + options_.root_namespace + "::" + leaf;
    // What the templates declare in the provider namespace (and in its unnamed namespace in the .cpp).
    c.scope = NameScope({"provider", "provider_name", "provider_guid", "templates", "payload", "detail",
                         "for_each_event_version", "Keywords", "Level", "Task", "Opcode", "to_string",
                         "clretw_flag_enum", "kMaps", "kKeywords", "kLevels", "kTasks", "kOpcodes", "kEvents", "kNone",
                         "kFirstVersion"},
                        "namespace " + c.ns.substr(2), &renames_);
    c.struct_scope = NameScope({"checks"}, "namespace " + c.ns.substr(2) + "::templates", &renames_);
    const Provider& p = *c.p;
    const ProviderDesc& pd = *c.t->desc;
    for (std::size_t i = 0; i < pd.events.size() && i < c.t->event_source.size(); ++i)
      c.event_loc[&pd.events[i]] = p.events[static_cast<std::size_t>(c.t->event_source[i])].loc;
    for (std::size_t ti = 0; ti < p.templates.size(); ++ti)
      if (c.t->templates[ti]) field_origins(c, p.templates[ti].fields, *c.t->templates[ti], "template '" + p.templates[ti].tid + "'");

    mst::data d;
    d.set("source", src.display_path);
    d.set("root_ns", options_.root_namespace);
    d.set("root_path", root_path_);
    d.set("leaf", leaf);
    d.set("ns", options_.root_namespace + "::" + leaf);
    d.set("provider_name", p.name);
    d.set("provider_name_literal", cpp_string(p.name));
    d.set("provider_symbol_literal", cpp_string(p.symbol));
    d.set("guid_text", pd.guid.to_string());
    d.set("guid_init", guid_init(pd.guid));
    d.set("provider_line", std::to_string(p.loc.line));

    d.set("keywords", keywords(c));
    d.set("levels", levels(c));
    d.set("tasks", tasks(c));
    mst::data task_opcodes{mst::data::type::list};
    d.set("opcodes", opcodes(c, task_opcodes));
    d.set("task_opcodes", task_opcodes);
    d.set("opcode_descs", opcode_descs_);
    d.set("has_opcode_descs", opcode_descs_.is_non_empty_list());
    d.set("has_keywords", !p.keywords.empty());
    d.set("has_tasks", !p.tasks.empty());
    d.set("has_maps", !p.maps.empty());
    d.set("maps", maps(c));

    // Templates: descriptor tables and owning structs.
    for (std::size_t ti = 0; ti < p.templates.size(); ++ti) {
      const RecordDesc* r = c.t->templates[ti];
      if (!r) continue;
      record_tables(c, *r, identifier(p.templates[ti].tid), "template '" + p.templates[ti].tid + "'", p.templates[ti].loc);
      c.template_records.insert(r);
      payload_struct(c, *r, p.templates[ti].tid, p.templates[ti].loc, true);
      ++result_.templates;
    }
    // Events: descriptors, payload aliases, views and event types.
    mst::data events{mst::data::type::list};
    NameScope alias_scope({}, "namespace " + c.ns.substr(2) + "::payload", &renames_);
    // The parts' headers, in the provider's directory beside types.h and shared.h.
    NameScope parts({"types", "shared"}, "the headers of " + c.ns.substr(2), &renames_);
    for (std::size_t i = 0; i < pd.events.size(); ++i) events.push_back(event_desc(c, pd.events[i]));
    for (std::size_t i = 0; i < pd.events.size();) {
      std::size_t j = i;
      while (j < pd.events.size() && pd.events[j].id == pd.events[i].id) ++j;
      std::vector<const EventDesc*> versions;
      for (std::size_t k = i; k < j; ++k) versions.push_back(&pd.events[k]);
      event(c, versions, alias_scope, parts);
      i = j;
      ++result_.event_ids;
    }
    result_.events += pd.events.size();
    result_.maps += p.maps.size();

    // A template's descriptor points to its layout view's check, when it has one and its
    // layout varies (check_fields() checks a fixed layout's length itself).
    for (auto& [r, rd] : c.record_data) {
      const bool has_check = c.template_records.count(r) && c.layout_views.count(r) &&
                             !(r->layout[0].fixed() && r->layout[1].fixed());
      rd.set("has_check", has_check);
      if (has_check) rd.set("check_struct", c.ns + "::templates::" + c.record_struct.at(r));
      c.records.push_back(rd);
    }
    d.set("records", c.records);
    d.set("view_impls", c.view_impls);
    d.set("events", events);
    d.set("event_versions", list_of(c.event_versions, nullptr));
    d.set("structs", list_of(c.structs));
    // The parts: a template used by the events of one part is declared in its header, one used by
    // several (or none) in shared.h, which those parts include.
    auto home_of = [&](const RecordDesc* r) {
      auto it = c.used_by.find(r);
      return it != c.used_by.end() && it->second.size() == 1 ? *it->second.begin() : std::string("shared");
    };
    ProviderOut out;
    std::vector<std::string> homes = c.homes;
    homes.insert(homes.begin(), "shared");
    mst::data part_list{mst::data::type::list};
    for (const std::string& home : homes) {
      mst::data part = d;
      mst::data structs{mst::data::type::list};
      bool uses_shared = false;
      for (const auto& [root, sd] : c.structs)
        if (home_of(root) == home) structs.push_back(sd);
      for (const auto& [r, parts_using] : c.used_by)
        if (home != "shared" && parts_using.count(home) && home_of(r) == "shared") uses_shared = true;
      part.set("part", home);
      part.set("is_shared", home == "shared");
      part.set("uses_shared", uses_shared);
      part.set("structs", structs);
      part.set("has_structs", structs.is_non_empty_list());
      part.set("payload_aliases", list_of(c.aliases, &home));
      part.set("views", list_of(c.views, &home));
      part.set("event_types", list_of(c.event_types, &home));
      out.parts.emplace_back(home, part);
      mst::data entry;
      entry.set("part", home);
      part_list.push_back(entry);
    }
    d.set("parts", part_list);
    std::string first_version;
    for (std::size_t i = 0; i < pd.first_version.size(); ++i)
      first_version += (i % 16 == 0 ? "\n    " : " ") + (pd.first_version[i] == kNoEvent ? std::string("kNone,") : std::to_string(pd.first_version[i]) + ",");
    d.set("first_version", first_version);
    d.set("has_first_version", !pd.first_version.empty());
    d.set("has_events", !pd.events.empty());
    out.data = std::move(d);
    for (auto& [home, part] : out.parts) {
      part.set("first_version", first_version);
      part.set("has_first_version", !pd.first_version.empty());
      part.set("has_events", !pd.events.empty());
    }
    return out;
  }

  // The items of `items` (of part `*home`; every item when null), as a list for a template.
  template <class Key>
  static mst::data list_of(const std::vector<std::pair<Key, mst::data>>& items, const std::string* home = nullptr) {
    mst::data list{mst::data::type::list};
    for (const auto& [key, item] : items) {
      if constexpr (std::is_same_v<Key, std::string>) {
        if (home && key != *home) continue;
      }
      list.push_back(item);
    }
    return list;
  }

  static std::string guid_init(const Guid& g) {
    std::string s = "{" + hex(g.data1) + ", " + hex(g.data2) + ", " + hex(g.data3) + ", {";
    for (int i = 0; i < 8; ++i) s += (i ? ", " : "") + hex(g.data4[static_cast<std::size_t>(i)]);
    return s + "}}";
  }

  // An enumerator of a keyword, level or task (`what`): `spelling` (the manifest's name, or a shorter
  // one) taken in `names`, the manifest's name and message as literals, and its number (a keyword's
  // mask, a level's or task's value) as `number_key`.
  template <class Item>
  mst::data enumerator_of(Ctx& c, NameScope& names, const char* what, const Item& item, const std::string& spelling,
                          const char* number_key, const std::string& number) {
    mst::data e;
    e.set("name", names.take_name(spelling, "_", origin(c, std::string(what) + " '" + item.name + "'", item.loc)));
    e.set(number_key, number);
    e.set("name_literal", cpp_string(item.name));
    e.set("message_literal", cpp_string(item.message));
    return e;
  }

  mst::data keywords(Ctx& c) {
    mst::data list{mst::data::type::list};
    NameScope names({"None"}, "enum Keywords", &renames_);
    for (const Keyword& k : c.p->keywords) {
      mst::data e = enumerator_of(c, names, "keyword", k, k.name, "mask", hex(k.mask));
      e.set("manifest_name", k.name);
      list.push_back(e);
    }
    return list;
  }

  mst::data levels(Ctx& c) {
    mst::data list{mst::data::type::list};
    NameScope names({}, "enum Level", &renames_);
    auto add = [&](const Level& l) {
      const std::string spelling = l.name.rfind("win:", 0) == 0 ? l.name.substr(4) : l.name;
      list.push_back(enumerator_of(c, names, "level", l, spelling, "value", std::to_string(l.value)));
    };
    for (const Level& l : standard_levels()) add(l);
    for (const Level& l : c.p->levels) add(l);
    return list;
  }

  mst::data tasks(Ctx& c) {
    mst::data list{mst::data::type::list};
    NameScope names({"None"}, "enum Task", &renames_);
    for (const Task& t : c.p->tasks)
      list.push_back(enumerator_of(c, names, "task", t, t.name, "value", std::to_string(t.value)));
    return list;
  }

  mst::data opcodes(Ctx& c, mst::data& task_opcodes) {
    mst::data list{mst::data::type::list};
    mst::data descs{mst::data::type::list};
    NameScope names({}, "enum Opcode", &renames_);
    auto entry = [](const std::string& name, const Opcode& o) {
      mst::data e;
      e.set("name", name);
      e.set("value", std::to_string(o.value));
      return e;
    };
    auto desc = [&](const Opcode& o, std::uint32_t task) {
      mst::data e;
      e.set("name_literal", cpp_string(o.name));
      e.set("task", std::to_string(task));
      e.set("value", std::to_string(o.value));
      e.set("message_literal", cpp_string(o.message));
      descs.push_back(e);
    };
    for (const Opcode& o : standard_opcodes()) list.push_back(entry(names.take_name(o.name.substr(4), "_", origin(c, "opcode '" + o.name + "'", o.loc)), o));
    for (const Opcode& o : c.p->opcodes) {
      list.push_back(entry(names.take_name(o.name, "_", origin(c, "opcode '" + o.name + "'", o.loc)), o));
      desc(o, 0);
    }
    for (const Task& t : c.p->tasks)
      for (const Opcode& o : t.opcodes) desc(o, t.value);
    opcode_descs_ = std::move(descs);
    for (const Task& t : c.p->tasks) {
      if (t.opcodes.empty()) continue;
      mst::data group;
      const std::string group_enum =
          c.scope.take(identifier(t.name) + "Opcode", "_", origin(c, "the opcode enum of task '" + t.name + "'", t.loc));
      group.set("enum", group_enum);
      group.set("task", t.name);
      mst::data items{mst::data::type::list};
      NameScope tnames({}, "enum " + group_enum, &renames_);
      for (const Opcode& o : t.opcodes)
        items.push_back(entry(tnames.take_name(o.name, "_", origin(c, "opcode '" + o.name + "' of task '" + t.name + "'", o.loc)), o));
      group.set("opcodes", items);
      task_opcodes.push_back(group);
    }
    return list;
  }

  mst::data maps(Ctx& c) {
    mst::data list{mst::data::type::list};
    const ProviderDesc& pd = *c.t->desc;
    for (std::size_t i = 0; i < c.p->maps.size(); ++i) {
      const Map& m = c.p->maps[i];
      const MapDesc* md = pd.maps[i];
      const std::string what = "map '" + m.name + "'";
      const std::string name = c.scope.take_name(m.name, "_Map", origin(c, what, m.loc));
      c.map_enum[md] = name;
      c.map_const[md] = c.scope.take("kMap_" + identifier(m.name), "_", origin(c, "the descriptor of " + what, m.loc));
      std::uint64_t max = 0;
      for (const clretw::MapEntry& e : md->entries) max = std::max(max, e.value);
      mst::data e;
      e.set("enum", name);
      e.set("manifest_name", m.name);
      e.set("const", c.map_const[md]);
      if (!md->entries.empty())
        e.set("entries_const", c.scope.take("kEntries_" + c.map_const[md], "_", origin(c, "the entries of " + what, m.loc)));
      e.set("name_literal", cpp_string(m.name));
      e.set("line", std::to_string(m.loc.line));
      e.set("bitmap", m.bitmap);
      e.set("kind", m.bitmap ? "Bit map" : "Value map");
      e.set("underlying", max > 0xFFFFFFFFu ? "::std::uint64_t" : "::std::uint32_t");
      mst::data entries{mst::data::type::list};
      NameScope enames({}, "enum " + name, &renames_);
      for (std::size_t k = 0; k < md->entries.size(); ++k) {
        const clretw::MapEntry& me = md->entries[k];
        mst::data x;
        NameOrigin o = origin(c, "entry " + hex(me.value) + " of " + what, k < m.entries.size() ? m.entries[k].loc : m.loc);
        o.spelling = std::string(me.name);
        std::string en = enumerator(me.name, &o.why);
        if (en.empty()) en = "Value_" + hex(me.value);
        x.set("ename", enames.take(en, "_" + hex(me.value), o));
        x.set("value", hex(me.value));
        x.set("text_literal", cpp_string(me.name));
        entries.push_back(x);
      }
      e.set("entries", entries);
      e.set("has_entries", !md->entries.empty());
      list.push_back(e);
    }
    return list;
  }

  // ---- descriptor tables ---------------------------------------------------

  void record_tables(Ctx& c, const RecordDesc& r, const std::string& base, const std::string& what, Loc loc) {
    if (c.record_const.count(&r)) return;
    for (const FieldDesc& f : r.fields)
      if (f.members) record_tables(c, *f.members, base + "_" + identifier(f.name), c.field_origin.at(&f).what, c.field_origin.at(&f).loc);
    const std::string k = c.scope.take("kRecord_" + base, "_", origin(c, "the descriptor of " + what, loc));
    c.record_const[&r] = k;
    mst::data d;
    d.set("const", k);
    const std::string suffix = k.substr(8);  // after "kRecord_"
    if (!r.fields.empty()) {
      d.set("fields_const", c.scope.take("kFields" + suffix, "_", origin(c, "the fields of " + what, loc)));
      d.set("places_const", c.scope.take("kPlaces" + suffix, "_", origin(c, "the field places of " + what, loc)));
    }
    d.set("segs_const", c.scope.take("kSegments" + suffix, "_", origin(c, "the segments of " + what, loc)));
    d.set("name_literal", cpp_string(r.name));
    d.set("line", std::to_string(r.line));
    d.set("nfields", std::to_string(r.fields.size()));
    d.set("has_fields", !r.fields.empty());
    d.set("nsegs", std::to_string(r.layout[1].segments.size()));
    mst::data fields{mst::data::type::list};
    for (const FieldDesc& f : r.fields) {
      mst::data x;
      x.set("name_literal", cpp_string(f.name));
      x.set("intype", intype_enumerator(f.type));
      x.set("has_out", f.out != OutType::Default);
      x.set("outtype", outtype_enumerator(f.out));
      x.set("has_count", f.count.kind != Extent::Kind::none);
      x.set("count", extent_init(f.count));
      x.set("has_length", f.length.kind != Extent::Kind::none);
      x.set("length", extent_init(f.length));
      x.set("has_map", f.map != nullptr);
      x.set("map", f.map ? c.map_const.at(f.map) : std::string());
      x.set("has_members", f.members != nullptr);
      x.set("members", f.members ? c.record_const.at(f.members) : std::string());
      fields.push_back(x);
    }
    d.set("fields", fields);
    for (int psi = 0; psi < 2; ++psi) {
      const Layout& l = r.layout[psi];
      std::string places, segs;
      for (const FieldPlace& pl : l.places)
        places += "{" + std::to_string(pl.seg) + ", " + std::to_string(pl.off) + ", " +
                  (pl.size == kVariable ? std::string("::clretw::kVariable") : std::to_string(pl.size)) + "}, ";
      for (const Segment& s : l.segments)
        segs += "{" + std::to_string(s.fixed) + ", " + (s.var_field == kNoField ? std::string("::clretw::kNoField") : std::to_string(s.var_field)) + "}, ";
      if (!places.empty()) places.resize(places.size() - 2);
      segs.resize(segs.size() - 2);
      d.set(psi ? "places8" : "places4", places);
      d.set(psi ? "segs8" : "segs4", segs);
      d.set(psi ? "min8" : "min4", std::to_string(l.min_size));
    }
    c.record_data.emplace_back(&r, d);
  }

  // ---- owning payload structs --------------------------------------------

  std::string member_type(Ctx& c, const FieldDesc& f) {
    std::string t;
    if (f.type == InType::Struct) t = c.ns + "::templates::" + c.record_struct.at(f.members);
    else if (f.map && is_integer(f.type)) t = c.ns + "::" + c.map_enum.at(f.map);
    else t = scalar_cpp_type(f.type);
    return is_array(f) ? "::std::vector<" + t + ">" : t;
  }

  // Emits the struct for record r (children first); returns its qualified name.
  std::string payload_struct(Ctx& c, const RecordDesc& r, const std::string& display, Loc loc, bool is_template,
                             const std::string& parent = {}, const FieldDesc* field = nullptr,
                             const RecordDesc* root = nullptr) {
    if (!root) root = &r;
    if (c.record_struct.count(&r)) return c.record_struct.at(&r);
    const NameOrigin o = is_template ? origin(c, "template '" + display + "'", loc)
                                     : origin(c, "the element struct of " + c.field_origin.at(field).what, c.field_origin.at(field).loc);
    const std::string name = is_template ? c.struct_scope.take_name(display, "_", o)
                                         : c.struct_scope.take(parent + "_" + identifier(display), "_", o);
    for (const FieldDesc& f : r.fields)
      if (f.members) payload_struct(c, *f.members, std::string(f.name), Loc{f.members->line, 0}, false, name, &f, root);
    c.record_struct[&r] = name;
    mst::data d;
    d.set("sname", name);
    d.set("record_const", c.record_const.at(&r));
    d.set("is_template", is_template);
    d.set("display", display);
    d.set("where", where(c, loc.line));
    // What the struct declares and uses unqualified in its body, and its own name.
    NameScope members({"record", "decode", "encode", "for_each_field", "fields", "visit", "check", "View"},
                      "struct " + c.ns.substr(2) + "::templates::" + name, &renames_);
    members.reserve(name, "the struct itself");
    mst::data list{mst::data::type::list};
    std::vector<std::string> mnames;
    std::vector<mst::data> tie;
    std::vector<std::size_t> widths;
    for (std::size_t i = 0; i < r.fields.size(); ++i) {
      const FieldDesc& f = r.fields[i];
      mst::data m;
      m.set("type", member_type(c, f));
      mnames.push_back(members.take_name(f.name, "_", c.field_origin.at(&f)));
      m.set("mname", mnames.back());
      m.set("comment", member_comment(r, f));
      list.push_back(m);
      mst::data t;
      t.set("mname", mnames.back());
      tie.push_back(t);
      widths.push_back(mnames.back().size() + 4);  // "s.NAME, "
    }
    d.set("members", list);
    d.set("has_members", !r.fields.empty());
    d.set("tie", lines_of(tie, widths));
    const std::optional<mst::data> check = struct_check(r);
    d.set("has_check", check.has_value());
    if (check) d.set("check", *check);
    mst::data view;
    const bool has_view = layout_view(c, r, name, mnames, view);
    if (has_view) c.layout_views.insert(&r);
    d.set("has_layout_view", has_view);
    d.set("view", view);
    c.structs.emplace_back(root, d);
    return name;
  }

  // Items of a list in lines of about kLineItems characters (`widths`: each item's), for a
  // template to write: each line {items, more: another line follows, indent: of the next line
  // where the template does not fix it}, each item with `sep` (a separator and a space follow it
  // on its line) or `eol` (a separator ends the line).
  static mst::data lines_of(const std::vector<mst::data>& items, const std::vector<std::size_t>& widths,
                            const std::string& indent = {}) {
    static constexpr std::size_t kLineItems = 90;
    mst::data lines{mst::data::type::list};
    std::vector<std::pair<std::size_t, std::size_t>> spans;  // [begin, end) of each line
    std::size_t width = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (spans.empty() || (width + widths[i] > kLineItems && i > spans.back().first)) {
        spans.emplace_back(i, i);
        width = 0;
      }
      spans.back().second = i + 1;
      width += widths[i];
    }
    for (std::size_t l = 0; l < spans.size(); ++l) {
      mst::data line;
      mst::data list{mst::data::type::list};
      for (std::size_t i = spans[l].first; i < spans[l].second; ++i) {
        mst::data item = items[i];
        const bool last_on_line = i + 1 == spans[l].second;
        item.set("sep", !last_on_line);
        item.set("eol", last_on_line && l + 1 < spans.size());
        list.push_back(item);
      }
      line.set("items", list);
      line.set("more", l + 1 < spans.size());
      line.set("indent", indent);
      lines.push_back(line);
    }
    return lines;
  }

  // One step of a layout's straight-line check (clretw::LayoutCursor, layout_view.h).
  struct Step {
    enum class Kind { segment, skip, array, utf16z, ansiz };
    Kind kind = Kind::segment;
    std::uint64_t n = 0;            // segment: its index; array: a constant count
    std::uint64_t bytes = 0;        // segment: its fixed part; skip, array: the item size
    unsigned count_width = 0;       // array: bytes of its count field (0: a constant count)
    std::uint32_t count_seg = 0, count_off = 0;  // array: where the count field is
    bool operator==(const Step&) const = default;
  };

  // The straight-line check of r's layout at pointer size ps: accepts exactly what walk()
  // accepts and fills the segment starts as walk() does. Layouts whose variable items are
  // NUL-terminated strings or arrays of fixed-size elements (scalars, strings of constant
  // length, fixed-size structs) with a constant count or a count field before them are
  // written out; for the others (false) the layout engine decides.
  static bool check_steps(const RecordDesc& r, unsigned ps, std::vector<Step>& steps) {
    const Layout& l = r.layout_for(ps);
    for (std::uint32_t s = 0; s < l.segments.size(); ++s) {
      const Segment& sg = l.segments[s];
      steps.push_back(Step{Step::Kind::segment, s, sg.fixed, 0, 0, 0});
      if (sg.var_field == kNoField) break;
      const FieldDesc& f = r.fields[sg.var_field];
      const std::uint32_t elem = element_size(f, ps);
      if (elem != kVariable) {
        Step a{Step::Kind::array, 0, elem, 0, 0, 0};
        switch (f.count.kind) {
          case Extent::Kind::none: a.kind = Step::Kind::skip; break;
          case Extent::Kind::constant: a.n = f.count.value; break;
          case Extent::Kind::field: {
            const FieldPlace& at = l.places[f.count.value];
            if (at.seg > s || !(at.size == 1 || at.size == 2 || at.size == 4 || at.size == 8)) return false;
            a.count_width = at.size;
            a.count_seg = at.seg;
            a.count_off = at.off;
            break;
          }
        }
        if (elem != 0) steps.push_back(a);
      } else if ((f.type == InType::UnicodeString || f.type == InType::AnsiString) &&
                 f.length.kind == Extent::Kind::none && f.count.kind == Extent::Kind::none) {
        steps.push_back(Step{f.type == InType::UnicodeString ? Step::Kind::utf16z : Step::Kind::ansiz, 0, 0, 0, 0, 0});
      } else {
        return false;
      }
    }
    return true;
  }

  // A number that may differ by pointer size, as an expression of PointerSize.
  static std::string by_ps(std::uint64_t v4, std::uint64_t v8) {
    return v4 == v8 ? std::to_string(v8) : "(PointerSize == 8 ? " + std::to_string(v8) + "u : " + std::to_string(v4) + "u)";
  }

  // The steps for pointer sizes 4 and 8 (the same steps, but for sizes and offsets) as a template
  // writes them (check_steps.mustache), in lines.
  static mst::data steps_data(const std::vector<Step>& s4, const std::vector<Step>& s8, std::size_t indent) {
    std::vector<mst::data> items;
    std::vector<std::size_t> widths;
    for (std::size_t i = 0; i < s8.size(); ++i) {
      const Step& a = s4[i];
      const Step& s = s8[i];
      mst::data d;
      d.set("segment", s.kind == Step::Kind::segment);
      d.set("skip", s.kind == Step::Kind::skip);
      d.set("array", s.kind == Step::Kind::array);
      d.set("utf16z", s.kind == Step::Kind::utf16z);
      d.set("ansiz", s.kind == Step::Kind::ansiz);
      d.set("n", std::to_string(s.n));
      d.set("bytes", by_ps(a.bytes, s.bytes));
      d.set("by_field", s.count_width != 0);
      d.set("count_type", s.count_width ? uint_type(s.count_width) : std::string());
      d.set("count_seg", std::to_string(s.count_seg));
      d.set("count_off", by_ps(a.count_off, s.count_off));
      d.set("has_count_off", a.count_off != 0 || s.count_off != 0);
      items.push_back(d);
      const std::size_t numbers = a.bytes == s.bytes && a.count_off == s.count_off ? 0 : 24;
      widths.push_back(numbers + (s.kind == Step::Kind::segment ? 26 : s.kind == Step::Kind::array ? (s.count_width ? 60 : 24) : 16));
    }
    return lines_of(items, widths, std::string(indent, ' '));
  }

  // Whether two checks are the same steps but for sizes and offsets (one check with expressions of
  // PointerSize writes both).
  static bool same_but_numbers(const std::vector<Step>& a, const std::vector<Step>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i].kind != b[i].kind || a[i].n != b[i].n || a[i].count_width != b[i].count_width || a[i].count_seg != b[i].count_seg)
        return false;
    return true;
  }

  // A payload struct's check<PointerSize>() (struct_check.mustache): one chain of steps when both
  // pointer sizes have the same steps (their sizes and offsets as expressions of PointerSize
  // where they differ), else one per pointer size (a pointer size whose layout the layout engine
  // checks has none); none when neither has one.
  static std::optional<mst::data> struct_check(const RecordDesc& r) {
    std::vector<Step> steps[2];
    bool ok[2];
    for (unsigned psi = 0; psi < 2; ++psi) ok[psi] = check_steps(r, psi ? 8u : 4u, steps[psi]);
    if (!ok[0] && !ok[1]) return std::nullopt;
    mst::data d;
    const bool same = ok[0] && ok[1] && same_but_numbers(steps[0], steps[1]);
    d.set("same", same);
    d.set("both", ok[0] && ok[1] && !same);
    d.set("only8", ok[1] && !ok[0]);
    d.set("only4", ok[0] && !ok[1]);
    // Continuation lines start under the first step: after "  return " or, in a branch, "    return ".
    const std::size_t indent = same || !ok[0] || !ok[1] ? 9 : 11;
    if (same) {
      d.set("steps", steps_data(steps[0], steps[1], indent));
    } else {
      d.set("steps", steps_data(steps[ok[1] ? 1 : 0], steps[ok[1] ? 1 : 0], indent));
      d.set("steps4", steps_data(steps[0], steps[0], indent));
    }
    return d;
  }

  // The layout view of record r, nested in its owning struct (layout_view.mustache):
  // View<PointerSize> reads one version's layout in place, checked by the struct's check(),
  // and every accessor is a load at an offset known here (or at a segment start the check
  // found, plus one). None (false) for a record with a part the check leaves to the layout
  // engine, a string array, a byte array with a count, or a struct array whose elements vary
  // in size: the event views read those.
  bool layout_view(Ctx& c, const RecordDesc& r, const std::string& sname, const std::vector<std::string>& mnames,
                   mst::data& out) {
    for (unsigned psi = 0; psi < 2; ++psi) {
      std::vector<Step> steps;
      if (!check_steps(r, psi ? 8u : 4u, steps)) return false;
    }
    const Layout& l4 = r.layout_for(4);
    const Layout& l8 = r.layout_for(8);
    if (l4.segments.size() != l8.segments.size()) return false;
    const std::size_t segs = l8.segments.size();
    NameScope scope({"View", "verify", "payload", "consumed", "trailing_bytes", "for_each_field", "copy_to", "check", "at", "kSize",
                     "PointerSize", "p_", "size_", "end_", "seg_", "d_", "n_", "pos_", "fields"},
                    "class " + c.ns.substr(2) + "::templates::" + sname + "::View", &renames_);
    mst::data accessors{mst::data::type::list};
    std::vector<mst::data> values;
    std::vector<std::size_t> widths;
    for (std::uint32_t i = 0; i < r.fields.size(); ++i) {
      const FieldDesc& f = r.fields[i];
      const FieldPlace& p4 = l4.places[i];
      const FieldPlace& p8 = l8.places[i];
      if (p4.seg != p8.seg) return false;
      const std::string at = "this->p_" + (p8.seg ? " + this->seg_[" + std::to_string(p8.seg) + "]" : std::string()) +
                             (p4.off || p8.off ? " + " + by_ps(p4.off, p8.off) : std::string());
      // The field's size in bytes: fixed, or up to the next segment (a variable part ends its segment).
      std::string size;
      if (p4.size != kVariable && p8.size != kVariable) size = by_ps(p4.size, p8.size);
      else if (p4.size == kVariable && p8.size == kVariable && p8.seg + 1 < segs)
        size = "(this->seg_[" + std::to_string(p8.seg + 1) + "]" + (p8.seg ? " - this->seg_[" + std::to_string(p8.seg) + "]" : std::string()) +
               (p4.off || p8.off ? " - " + by_ps(p4.off, p8.off) : std::string()) + ")";
      else return false;
      const bool array = f.count.kind != Extent::Kind::none;
      mst::data a;
      for (const char* kind : {"scalar", "array", "bytes", "elements", "utf16", "ansi"}) a.set(kind, false);
      a.set("at", at);
      a.set("size", size);
      a.set("terminated", f.length.kind == Extent::Kind::none ? "true" : "false");
      if (f.type == InType::Struct) {
        const std::uint32_t e4 = element_size(f, 4), e8 = element_size(f, 8);
        if (!f.members || !c.layout_views.count(f.members) || e4 == kVariable || e8 == kVariable || e4 == 0 || e8 == 0) return false;
        a.set("type", "::clretw::ElementRange<" + c.ns + "::templates::" + c.record_struct.at(f.members) + "::View<PointerSize>>");
        a.set("elements", true);
        a.set("width", by_ps(e4, e8));
      } else if (f.type == InType::UnicodeString || f.type == InType::AnsiString) {
        if (array) return false;
        a.set("type", f.type == InType::UnicodeString ? "::clretw::Utf16View" : "::std::string_view");
        a.set(f.type == InType::UnicodeString ? "utf16" : "ansi", true);
      } else if (f.type == InType::Binary || f.type == InType::Sid) {
        if (array || f.type == InType::Sid) return false;
        a.set("type", "::clretw::Bytes");
        a.set("bytes", true);
      } else {
        const std::string t = f.map && is_integer(f.type) ? c.ns + "::" + c.map_enum.at(f.map) : scalar_cpp_type(f.type);
        const unsigned w4 = scalar_size(f.type, 4), w8 = scalar_size(f.type, 8);
        if (w4 == 0 || w8 == 0) return false;
        if (array) {
          a.set("type", "::clretw::ArrayView<" + t + ">");
          a.set("array", true);
          a.set("width", by_ps(w4, w8));
        } else {
          a.set("type", t);
          a.set("scalar", true);
          a.set("width", w4 == w8 ? std::to_string(w8) : std::string("PointerSize"));
        }
      }
      const std::string aname = scope.take(mnames[i], "_", c.field_origin.at(&f));
      a.set("aname", aname);
      accessors.push_back(a);
      mst::data v;
      v.set("aname", aname);
      values.push_back(v);
      widths.push_back(aname.size() + 10);  // "this->NAME(), "
    }
    const bool fixed = segs == 1 && l4.segments[0].var_field == kNoField && l8.segments[0].var_field == kNoField;
    out.set("sname", sname);
    out.set("segs", std::to_string(segs));
    out.set("fixed", fixed);
    out.set("fixed_size", by_ps(l4.min_size, l8.min_size));
    out.set("accessors", accessors);
    out.set("values", lines_of(values, widths));
    return true;
  }

  static std::string member_comment(const RecordDesc& r, const FieldDesc& f) {
    std::string s = std::string(intype_name(f.type));
    if (f.out != OutType::Default) s += " -> " + std::string(outtype_name(f.out));
    auto ext = [&](const Extent& e, const char* what) {
      if (e.kind == Extent::Kind::constant) s += std::string(", ") + what + " " + std::to_string(e.value);
      if (e.kind == Extent::Kind::field) s += std::string(", ") + what + " " + std::string(r.fields[e.value].name);
    };
    if (f.type != InType::Struct) ext(f.count, "count");
    else if (f.count.kind == Extent::Kind::field) ext(f.count, "count");
    ext(f.length, "length");
    if (f.map) s += ", map " + std::string(f.map->name);
    return s;
  }

  // ---- events ----------------------------------------------------------------

  mst::data event_desc(Ctx& c, const EventDesc& e) {
    mst::data d;
    d.set("id", std::to_string(e.id));
    d.set("version", std::to_string(e.version));
    d.set("level", std::to_string(e.level));
    d.set("opcode", std::to_string(e.opcode));
    d.set("task", std::to_string(e.task));
    d.set("keywords", hex(e.keywords));
    d.set("symbol_literal", cpp_string(e.symbol));
    d.set("name_literal", cpp_string(e.name));
    d.set("task_name_literal", cpp_string(e.task_name));
    d.set("opcode_name_literal", cpp_string(e.opcode_name));
    d.set("message_literal", cpp_string(e.message));
    d.set("has_payload", e.payload != nullptr);
    d.set("payload", e.payload ? c.record_const.at(e.payload) : std::string());
    d.set("line", std::to_string(e.line));
    return d;
  }

  void event(Ctx& c, const std::vector<const EventDesc*>& versions, NameScope& alias_scope, NameScope& parts) {
    const EventDesc& first = *versions.front();
    const EventDesc& last = *versions.back();
    // Its part: the header of its task ("GC/Start" -> gc.h), or of the events with no task.
    const std::string_view display(last.name);
    const std::size_t slash = display.find('/');
    const std::string task = slash == std::string_view::npos ? std::string() : std::string(display.substr(0, slash));
    auto part = c.part_of.find(task);
    if (part == c.part_of.end()) {
      const std::string file = task.empty() ? std::string("other") : provider_namespace(task);
      part = c.part_of.emplace(task, parts.take(file.empty() ? std::string("task") : file, "_",
                                                origin(c, "the header of task '" + task + "'", Loc{first.line, 0}))).first;
      c.homes.push_back(part->second);
    }
    c.home = part->second;
    for (const EventDesc* e : versions)
      if (e->payload) c.used_by[e->payload].insert(c.home);
    std::string base = first.symbol.empty() ? "Event" + std::to_string(first.id) : strip_version_suffix(first.symbol);
    const std::string what = "event " + std::to_string(first.id) + (first.symbol.empty() ? "" : " '" + std::string(first.symbol) + "'");
    const Loc loc = c.event_loc.count(&first) ? c.event_loc.at(&first) : Loc{first.line, 0};
    // The event type's members: it cannot take the name of one of them.
    static const NameScope kEventTypeMembers({"id", "provider_guid", "name", "latest_version", "View", "Payload"},
                                             "the event type");
    const std::string tag = c.scope.take_name(base, "_" + std::to_string(first.id), origin(c, what, loc), &kEventTypeMembers);
    const std::string view = c.scope.take(tag + "View", "_", origin(c, "the view of " + what, loc));

    std::vector<const RecordDesc*> records;
    std::vector<unsigned> vnums;
    for (const EventDesc* e : versions) {
      records.push_back(e->payload);
      vnums.push_back(e->version);
    }
    std::string comment = "/// " + tag + ": event " + std::to_string(first.id) + " of " + c.p->name + " (\"" +
                          std::string(last.name) + "\"), version" + (versions.size() > 1 ? "s " : " ");
    for (std::size_t i = 0; i < versions.size(); ++i) comment += (i ? ", " : "") + std::to_string(versions[i]->version);
    comment += ".\n";
    for (const EventDesc* e : versions) {
      comment += "///   v" + std::to_string(e->version) + " " + std::string(e->symbol) + ": " +
                 (e->payload ? "template " + std::string(e->payload->name) : std::string("no payload")) + " (" +
                 where(c, e->line) + ")\n";
    }
    c.event_id = first.id;
    view_class(c, view, "", records, vnums, comment, /*top=*/true, tag);

    // Payload aliases and the version list.
    std::string latest;
    for (const EventDesc* e : versions) {
      std::string sym = e->symbol.empty() ? tag + "_V" + std::to_string(e->version) : std::string(e->symbol);
      const Loc eloc = c.event_loc.count(e) ? c.event_loc.at(e) : Loc{e->line, 0};
      const std::string alias = alias_scope.take_name(
          sym, "_" + std::to_string(e->id) + "_" + std::to_string(e->version),
          origin(c, "the payload alias of event " + std::to_string(e->id) + " version " + std::to_string(e->version), eloc));
      mst::data a;
      a.set("alias", alias);
      a.set("target", e->payload ? c.ns + "::templates::" + c.record_struct.at(e->payload) : std::string("::clretw::EmptyPayload"));
      a.set("version", std::to_string(e->version));
      a.set("tag", tag);
      c.aliases.emplace_back(c.home, a);
      mst::data ev;
      ev.set("tag", tag);
      ev.set("alias", alias);
      ev.set("version", std::to_string(e->version));
      c.event_versions.emplace_back(c.home, ev);
      latest = alias;
    }
    mst::data t;
    t.set("tag", tag);
    t.set("vname", view);
    t.set("id", std::to_string(first.id));
    t.set("name_literal", cpp_string(last.name));
    t.set("latest", latest);
    t.set("latest_version", std::to_string(last.version));
    t.set("comment", comment);
    c.event_types.emplace_back(c.home, t);
  }

  // A view class (top-level event view or element view) over `records` (one per version).
  void view_class(Ctx& c, const std::string& name, const std::string& struct_name, const std::vector<const RecordDesc*>& records,
                  const std::vector<unsigned>& vnums, const std::string& comment, bool top, const std::string& tag) {
    // The view's members, those of clretw::ViewBase it uses, and its own name.
    NameScope scope({"version", "layout_version", "newer_than_manifest", "pointer_size", "payload", "consumed",
                     "trailing_bytes", "verify", "from", "for_each_field", "at", "make", "make_at", "init", "get",
                     "verify_generic", "verify_generic_into", "from_generic", "at_generic", "quick", "verified", "versions_", "d_", "n_", "pos_", "get_w", "present_if",
                     "utf16", "ansi", "bytes", "array", "strings", "records", "count_of", "bytes_of", "p_", "rec_", "size_",
                     "begin_", "end_", "vi_", "ps8_", "version_", "layout_version_", "seg_"},
                    "class " + c.ns.substr(2) + "::" + name, &renames_);
    scope.reserve(name, "the view itself");
    std::vector<Merged> merged =
        merge_fields(records, vnums, scope, [&](const FieldDesc& f) { return c.field_origin.at(&f); });
    const std::size_t nv = records.size();
    std::size_t segs = 1;
    for (const RecordDesc* r : records)
      if (r) segs = std::max(segs, r->layout[1].segments.size());

    mst::data accessors{mst::data::type::list};
    mst::data locs{mst::data::type::list};
    for (const Merged& m : merged) {
      bool everywhere = true;
      for (const Slot& s : m.slots) everywhere &= s.fd != nullptr;
      // Element views for struct arrays first (they are emitted before this class).
      std::string elem_view;
      if (m.cat == Cat::records) {
        std::vector<const RecordDesc*> members(nv, nullptr);
        for (std::size_t v = 0; v < nv; ++v)
          if (m.slots[v].fd) members[v] = m.slots[v].fd->members;
        const NameOrigin& fo = c.field_origin.at(first_slot(m).fd);
        elem_view = c.scope.take(name + "_" + m.accessor, "_", origin(c, "the element view of " + fo.what, fo.loc));
        std::string ecomment = "/// An element of " + name + "::" + m.accessor + "() (struct " + m.name + ").\n";
        view_class(c, elem_view, m.name, members, vnums, ecomment, false, tag);
      }
      // Field locations per version and pointer size. Presence is tested apart from the
      // location (a field most versions append keeps its place where it is present): one
      // location for all versions and pointer sizes, one per pointer size, one per version,
      // or a full table, whichever the versions that have the field need.
      std::vector<std::string> cells;
      std::vector<std::size_t> present;  // version indices with the field
      for (std::size_t v = 0; v < nv; ++v) {
        for (int psi = 0; psi < 2; ++psi) cells.push_back(loc_init(m.slots[v], psi ? 8u : 4u));
        if (m.slots[v].fd) present.push_back(v);
      }
      const std::size_t p0 = present.front();
      bool same_versions = true, same_sizes = true;
      for (std::size_t v : present) {
        same_versions &= cells[2 * v] == cells[2 * p0] && cells[2 * v + 1] == cells[2 * p0 + 1];
        same_sizes &= cells[2 * v] == cells[2 * v + 1];
      }
      const NameOrigin& fo = c.field_origin.at(first_slot(m).fd);
      const std::string kname = scope.take("k_" + m.accessor, "_", origin(c, "the location table of " + fo.what, fo.loc));
      // The location expression at pointer size index `ps` ("ps8_", "0" or "1").
      std::function<std::string(const std::string&)> loc_at;
      mst::data l;
      l.set("kname", kname);
      l.set("nv", std::to_string(nv));
      l.set("cell", cells[2 * p0]);
      l.set("cell8", cells[2 * p0 + 1]);
      l.set("one", same_versions && same_sizes);
      l.set("per_ps", same_versions && !same_sizes);
      l.set("per_version", !same_versions && same_sizes);
      l.set("full", !same_versions && !same_sizes);
      if (same_versions && same_sizes) {
        loc_at = [kname](const std::string&) { return kname; };
      } else if (same_versions) {
        loc_at = [kname](const std::string& ps) { return kname + "[" + ps + "]"; };
      } else {
        mst::data rows{mst::data::type::list};
        for (std::size_t v = 0; v < nv; ++v) {
          mst::data row;
          row.set("cell", cells[2 * v]);
          row.set("cell8", cells[2 * v + 1]);
          row.set("version", std::to_string(vnums[v]));
          rows.push_back(row);
        }
        l.set("rows", rows);
        if (same_sizes) loc_at = [kname](const std::string&) { return kname + "[vi_]"; };
        else loc_at = [kname](const std::string& ps) { return kname + "[vi_][" + ps + "]"; };
      }
      locs.push_back(l);

      auto [type, helper] = accessor_type(c, m, elem_view);
      const std::string args = helper_args(c, m, type, elem_view);
      std::string read = helper + args + "(" + loc_at("ps8_") + ")";
      if (helper == "get") {
        // A scalar as wide in every version is read at a width the compiler knows (a plain
        // load); a pointer, at the width of its pointer size; one that widens between
        // versions, at the width of its slot.
        unsigned w4 = 0, w8 = 0;
        bool by_size = true;
        auto loadable = [](unsigned w) { return w == 1 || w == 2 || w == 4 || w == 8 || w == 16; };
        for (std::size_t v : present) {
          const FieldDesc& f = *m.slots[v].fd;
          const unsigned a = scalar_size(f.type, 4), b = scalar_size(f.type, 8);
          by_size &= (w4 == 0 || w4 == a) && (w8 == 0 || w8 == b) && loadable(a) && loadable(b);
          w4 = a, w8 = b;
        }
        const std::string targs = args.substr(0, args.size() - 1);
        if (by_size && w4 == w8)
          read = "get_w" + targs + ", " + std::to_string(w8) + ">(" + loc_at("ps8_") + ")";
        else if (by_size)
          read = "ps8_ ? get_w" + targs + ", " + std::to_string(w8) + ">(" + loc_at("1") + ") : get_w" + targs + ", " +
                 std::to_string(w4) + ">(" + loc_at("0") + ")";
      }
      std::string cond;  // the versions with the field, when not all: from one on, or a set of them
      if (!everywhere) {
        bool suffix = true;
        for (std::size_t i = 0; i < present.size(); ++i) suffix &= present[i] == p0 + i;
        suffix &= present.back() == nv - 1;
        if (suffix) {
          cond = "vi_ >= " + std::to_string(p0);
        } else if (nv <= 64) {
          std::uint64_t mask = 0;
          for (std::size_t v : present) mask |= std::uint64_t{1} << v;
          cond = "(" + std::to_string(mask) + "ull >> vi_ & 1u) != 0";
        } else {
          for (std::size_t v : present) cond += (cond.empty() ? "vi_ == " : " || vi_ == ") + std::to_string(v);
        }
      }
      mst::data a;
      a.set("aname", m.accessor);
      a.set("name_literal", cpp_string(m.name));
      a.set("type", type);
      a.set("optional", !everywhere);
      a.set("read", read);
      a.set("cond", cond);
      a.set("comment", accessor_comment(m, vnums, everywhere));
      accessors.push_back(a);
    }

    mst::data d;
    d.set("vname", name);
    d.set("segs", std::to_string(segs));
    d.set("comment", comment);
    d.set("top", top);
    d.set("tag", tag);
    d.set("struct_name", struct_name);
    d.set("accessors", accessors);
    d.set("locs", locs);
    d.set("has_fields", !merged.empty());
    d.set("cases", quick_cases(c, records));
    pick_version(vnums, d);
    d.set("id", std::to_string(c.event_id));
    d.set("nversions", std::to_string(nv));
    c.views.emplace_back(c.home, d);

    // .cpp part: the records per version.
    mst::data impl;
    impl.set("vname", name);
    impl.set("top", top);
    impl.set("tag", tag);
    impl.set("nversions", std::to_string(nv));
    mst::data rows{mst::data::type::list};
    for (std::size_t v = 0; v < nv; ++v) {
      mst::data row;
      row.set("version", std::to_string(vnums[v]));
      // Qualified: the table is a class member, where a field's accessor may bear the record's name.
      row.set("record", records[v] ? "&" + c.ns + "::" + c.record_const.at(records[v]) : std::string("nullptr"));
      rows.push_back(row);
    }
    impl.set("rows", rows);
    c.view_impls.push_back(impl);
  }

  // The cases of the event view's quick() (quick.mustache): for version vi at pointer size 4
  // (case 2 vi) and 8 (case 2 vi + 1), the check of its payload struct, which accepts exactly
  // what walk() accepts and fills seg_ as walk() does; one case for both pointer sizes where
  // their layouts agree. A layout without a straight-line check has no case: quick() declines,
  // and the layout engine decides (as it does for every payload quick() rejects, to say why).
  static mst::data quick_cases(const Ctx& c, const std::vector<const RecordDesc*>& records) {
    mst::data cases{mst::data::type::list};
    for (std::size_t v = 0; v < records.size(); ++v) {
      std::vector<Step> steps[2];
      bool ok[2] = {true, true};
      if (records[v])
        for (unsigned psi = 0; psi < 2; ++psi) ok[psi] = check_steps(*records[v], psi ? 8u : 4u, steps[psi]);
      auto add = [&](std::vector<unsigned> labels, unsigned ps) {
        mst::data k;
        mst::data list{mst::data::type::list};
        for (unsigned label : labels) {
          mst::data x;
          x.set("label", std::to_string(label));
          list.push_back(x);
        }
        k.set("labels", list);
        k.set("no_payload", records[v] == nullptr);
        k.set("struct", records[v] ? c.ns + "::templates::checks::" + c.record_struct.at(records[v]) : std::string());
        k.set("ps", std::to_string(ps));
        cases.push_back(k);
      };
      const unsigned c4 = static_cast<unsigned>(2 * v), c8 = c4 + 1;
      if (ok[0] && ok[1] && steps[0] == steps[1]) {
        add({c4, c8}, 8);
      } else {
        if (ok[0]) add({c4}, 4);
        if (ok[1]) add({c8}, 8);
      }
    }
    return cases;
  }

  // The version index verify() reads a payload of `version` with (pick_version.mustache): the
  // highest version not above it, as ViewBase::make() picks (older than every version: the
  // layout engine says so).
  static void pick_version(const std::vector<unsigned>& vnums, mst::data& d) {
    mst::data picks{mst::data::type::list};
    std::optional<std::size_t> zero;
    for (std::size_t v = vnums.size(); v-- > 0;) {
      if (vnums[v] == 0) {
        zero = v;
        break;
      }
      mst::data p;
      p.set("first", picks.is_empty_list());
      p.set("version", std::to_string(vnums[v]));
      p.set("vi", std::to_string(v));
      picks.push_back(p);
    }
    d.set("picks", picks);
    d.set("pick_zero", zero.has_value());
    d.set("zero_first", picks.is_empty_list());
    d.set("zero_vi", std::to_string(zero.value_or(0)));
  }

  // The newest version's slot of a merged field.
  static const Slot& first_slot(const Merged& m) {
    for (std::size_t v = m.slots.size(); v-- > 0;)
      if (m.slots[v].fd) return m.slots[v];
    return m.slots.front();
  }

  std::string loc_init(const Slot& s, unsigned ps) {
    if (!s.fd) return "{}";
    const FieldDesc& f = *s.fd;
    const FieldPlace& pl = s.record->layout_for(ps).places[s.index];
    std::uint32_t width = 0;
    const bool terminated = (f.type == InType::UnicodeString || f.type == InType::AnsiString) && f.length.kind == Extent::Kind::none;
    if (f.type == InType::Struct) {
      const std::uint32_t e = element_size(f, ps);
      width = e == kVariable ? 0 : e;
    } else if (f.type == InType::UnicodeString || f.type == InType::AnsiString) {
      width = f.length.kind == Extent::Kind::constant ? f.length.value : 0;
    } else {
      width = scalar_size(f.type, ps);
    }
    // An aggregate, not a call of ::clretw::loc(): hundreds of constant calls per header cost the compiler
    // more than their braces.
    return std::string("{true, ") + (terminated ? "::clretw::kTerminated" : "0") + ", " + std::to_string(s.index) + ", " +
           std::to_string(pl.seg) + ", " + std::to_string(pl.off) + ", " +
           (pl.size == kVariable ? std::string("::clretw::kVariable") : std::to_string(pl.size)) + ", " + std::to_string(width) + "}";
  }

  // The accessor's value type and the ViewBase helper that reads it.
  std::pair<std::string, std::string> accessor_type(Ctx& c, const Merged& m, const std::string& elem_view) {
    unsigned width = 1;
    bool all_float = true;
    const MapDesc* map = nullptr;  // slots are in version order: the newest version with a map wins
    for (const Slot& s : m.slots) {
      if (!s.fd) continue;
      width = std::max(width, scalar_size(s.fd->type, 8));
      all_float &= s.fd->type == InType::Float;
      if (s.fd->map && is_integer(s.fd->type)) map = s.fd->map;
    }
    std::string t;
    switch (m.cat) {
      case Cat::unsigned_: t = map ? c.ns + "::" + c.map_enum.at(map) : uint_type(width); break;
      case Cat::signed_: t = map ? c.ns + "::" + c.map_enum.at(map) : int_type(width); break;
      case Cat::real: t = all_float ? "float" : "double"; break;
      case Cat::boolean: t = "bool"; break;
      case Cat::guid: t = "::clretw::Guid"; break;
      case Cat::systemtime: t = "::clretw::SystemTime"; break;
      case Cat::utf16: return m.array ? std::pair{std::string("::clretw::StringArray<char16_t>"), std::string("strings")}
                                      : std::pair{std::string("::clretw::Utf16View"), std::string("utf16")};
      case Cat::ansi: return m.array ? std::pair{std::string("::clretw::StringArray<char>"), std::string("strings")}
                                     : std::pair{std::string("::std::string_view"), std::string("ansi")};
      case Cat::bytes: return {"::clretw::Bytes", "bytes"};
      case Cat::records: return {"::clretw::RecordRange<" + c.ns + "::" + elem_view + ">", "records"};
    }
    if (m.array) return {"::clretw::ArrayView<" + t + ">", "array"};
    return {t, "get"};
  }

  static std::string helper_args(const Ctx& c, const Merged& m, const std::string& type, const std::string& elem_view) {
    switch (m.cat) {
      case Cat::utf16: return m.array ? "<char16_t>" : "";
      case Cat::ansi: return m.array ? "<char>" : "";
      case Cat::bytes: return "";
      case Cat::records: return "<" + c.ns + "::" + elem_view + ">";
      default: break;
    }
    if (m.array) return "<" + type.substr(std::string("::clretw::ArrayView<").size(), type.size() - std::string("::clretw::ArrayView<").size() - 1) + ">";
    return "<" + type + ">";
  }

  // "win:UInt32, map GCReasonMap", "win:UInt16 in v0, win:UInt32 from v1", "(from v1)".
  static std::string accessor_comment(const Merged& m, const std::vector<unsigned>& vnums, bool everywhere) {
    std::vector<std::pair<std::string, unsigned>> types;  // type text, first version with it
    std::vector<unsigned> present;
    for (std::size_t v = 0; v < m.slots.size(); ++v) {
      if (!m.slots[v].fd) continue;
      const FieldDesc& f = *m.slots[v].fd;
      std::string t = std::string(intype_name(f.type));
      if (f.type == InType::Struct) t = "struct";
      if (f.out != OutType::Default) t += " -> " + std::string(outtype_name(f.out));
      if (f.map) t += ", map " + std::string(f.map->name);
      if (types.empty() || types.back().first != t) types.emplace_back(t, vnums[v]);
      present.push_back(vnums[v]);
    }
    std::string s;
    for (std::size_t i = 0; i < types.size(); ++i) {
      if (i) s += "; ";
      s += types[i].first;
      if (types.size() > 1) s += (i == 0 ? " in v" : " from v") + std::to_string(types[i].second);
    }
    if (!everywhere) {
      // Present from some version on, or only in some versions.
      bool to_end = present.back() == vnums.back();
      for (std::size_t i = 1; i < present.size() && to_end; ++i) to_end = present[i] == present[i - 1] + 1;
      if (to_end && present.front() != vnums.front()) {
        s += " (from v" + std::to_string(present.front()) + ")";
      } else {
        s += " (only in v";
        for (std::size_t i = 0; i < present.size(); ++i) s += (i ? ", v" : "") + std::to_string(present[i]);
        s += ")";
      }
    }
    return s;
  }

  const std::vector<SourceManifest>& sources_;
  const EmitOptions& options_;
  Diagnostics& diags_;
  EmitResult result_;
  std::string root_path_;
  mst::data opcode_descs_{mst::data::type::list};
  std::vector<Rename> renames_;  // every name that differs from the manifest's spelling, in emission order
};

}  // namespace

extern const char* const kTemplateNames[];
extern const char* const kTemplateTexts[];
extern const std::size_t kTemplateCount;

const std::map<std::string, std::string>& builtin_templates() {
  static const std::map<std::string, std::string> kTemplates = [] {
    std::map<std::string, std::string> m;
    for (std::size_t i = 0; i < kTemplateCount; ++i) m.emplace(kTemplateNames[i], kTemplateTexts[i]);
    return m;
  }();
  return kTemplates;
}

std::optional<std::map<std::string, std::string>> load_templates(const std::string& dir, Diagnostics& diags) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".mustache") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    out.emplace(entry.path().filename().string(), ss.str());
  }
  if (ec || out.empty()) {
    report(diags, RuleId::unreadable_file, dir, {}, "no *.mustache templates in '" + dir + "'");
    return std::nullopt;
  }
  return out;
}

std::optional<EmitResult> emit_cpp(const std::vector<SourceManifest>& sources, const EmitOptions& options, Diagnostics& diags) {
  return Emitter(sources, options, diags).run();
}

}  // namespace clretw::gen
