#include "clretw/gen/loader.h"

#include <pugixml.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <unordered_map>

#include "clretw/gen/checks.h"
#include "clretw/gen/rules.h"
#include "clretw/text.h"

namespace clretw::gen {

// ---------------------------------------------------------------------------
// Model helpers

const Template* Provider::find_template(const std::string& tid) const {
  for (const Template& t : templates)
    if (t.tid == tid) return &t;
  return nullptr;
}

const Map* Provider::find_map(const std::string& n) const {
  for (const Map& m : maps)
    if (m.name == n) return &m;
  return nullptr;
}

const Task* Provider::find_task(const std::string& n) const {
  for (const Task& t : tasks)
    if (t.name == n) return &t;
  return nullptr;
}

const std::string* Manifest::lookup_message(const std::string& ref) const {
  const auto id = string_ref_id(ref);
  if (!id) return nullptr;
  auto it = string_index.find(std::string(*id));
  return it == string_index.end() ? nullptr : &strings[it->second].value;
}

const std::vector<Level>& standard_levels() {
  static const std::vector<Level> kLevels = [] {
    std::vector<Level> v;
    const char* names[] = {"win:LogAlways", "win:Critical", "win:Error", "win:Warning", "win:Informational", "win:Verbose"};
    const char* messages[] = {"LogAlways", "Critical", "Error", "Warning", "Informational", "Verbose"};
    for (std::uint32_t i = 0; i < 6; ++i) {
      Level l;
      l.name = names[i];
      l.message = messages[i];
      l.value = i;
      l.standard = true;
      v.push_back(l);
    }
    return v;
  }();
  return kLevels;
}

const std::vector<Opcode>& standard_opcodes() {
  static const std::vector<Opcode> kOpcodes = [] {
    std::vector<Opcode> v;
    struct S {
      const char* name;
      const char* message;
      std::uint32_t value;
    } list[] = {{"win:Info", "Info", 0},         {"win:Start", "Start", 1},      {"win:Stop", "Stop", 2},
                {"win:DC_Start", "DCStart", 3},  {"win:DC_Stop", "DCStop", 4},   {"win:Extension", "Extension", 5},
                {"win:Reply", "Reply", 6},       {"win:Resume", "Resume", 7},    {"win:Suspend", "Suspend", 8},
                {"win:Send", "Send", 9},         {"win:Receive", "Receive", 240}};
    for (const S& s : list) {
      Opcode o;
      o.name = s.name;
      o.message = s.message;
      o.value = s.value;
      o.standard = true;
      v.push_back(o);
    }
    return v;
  }();
  return kOpcodes;
}

bool unreadable(const Diagnostics& diags) {
  for (const Diagnostic& d : diags.items())
    if (is(d, RuleId::unreadable_file)) return true;
  return false;
}

std::optional<std::uint64_t> parse_number(const std::string& text) {
  std::string_view t = text;
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  if (t.empty()) return std::nullopt;
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    base = 16;
    t.remove_prefix(2);
  }
  std::uint64_t v = 0;
  for (char c : t) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return std::nullopt;
    if (v > (UINT64_MAX - static_cast<std::uint64_t>(d)) / static_cast<std::uint64_t>(base)) return std::nullopt;
    v = v * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
  }
  return v;
}

// ---------------------------------------------------------------------------
// Loading

namespace {

std::string_view local_name(const char* name) {
  std::string_view n = name;
  auto colon = n.find(':');
  return colon == std::string_view::npos ? n : n.substr(colon + 1);
}

// UTF-16 manifests (as mc.exe accepts) are converted so offsets map to lines.
std::string to_utf8_text(std::string raw) {
  auto b = reinterpret_cast<const unsigned char*>(raw.data());
  if (raw.size() >= 2 && ((b[0] == 0xFF && b[1] == 0xFE) || (b[0] == 0xFE && b[1] == 0xFF))) {
    const bool le = b[0] == 0xFF;
    std::string out;
    std::u16string units;
    for (std::size_t i = 2; i + 1 < raw.size(); i += 2)
      units.push_back(static_cast<char16_t>(le ? (b[i] | (b[i + 1] << 8)) : ((b[i] << 8) | b[i + 1])));
    std::vector<std::uint8_t> bytes;
    for (char16_t u : units) {
      bytes.push_back(static_cast<std::uint8_t>(u & 0xFF));
      bytes.push_back(static_cast<std::uint8_t>(u >> 8));
    }
    return Utf16View(bytes.data(), units.size()).to_utf8();
  }
  if (raw.size() >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) raw.erase(0, 3);
  return raw;
}

class Loader {
 public:
  Loader(const std::string& text, const std::string& path, Diagnostics& diags) : text_(text), path_(path), diags_(diags) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') line_starts_.push_back(i + 1);
  }

  Loc loc_of(std::ptrdiff_t offset) const {
    if (offset < 0) return {};
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), static_cast<std::size_t>(offset));
    const std::size_t line = static_cast<std::size_t>(it - line_starts_.begin());
    return {static_cast<std::uint32_t>(line), static_cast<std::uint32_t>(static_cast<std::size_t>(offset) - line_starts_[line - 1] + 1)};
  }
  // The comments just before an element (blank lines allowed, nothing else), oldest first.
  static std::string note_of(const pugi::xml_node& n) {
    std::vector<std::string> parts;
    for (pugi::xml_node c = n.previous_sibling(); c && c.type() == pugi::node_comment; c = c.previous_sibling())
      parts.push_back(trim_comment(c.value()));
    std::string note;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) note += (note.empty() ? "" : "\n") + *it;
    return note;
  }
  // Trimmed, and the lines after the first dedented by their common indent, so
  // that a note reads the same wherever the comment was indented.
  static std::string trim_comment(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    std::vector<std::string_view> lines;
    for (std::size_t start = 0; start <= text.size();) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      std::string_view l = text.substr(start, end - start);
      while (!l.empty() && (l.back() == ' ' || l.back() == '\t' || l.back() == '\r')) l.remove_suffix(1);
      lines.push_back(l);
      start = end + 1;
    }
    std::size_t indent = std::string_view::npos;
    for (std::size_t i = 1; i < lines.size(); ++i)
      if (!lines[i].empty()) indent = std::min(indent, lines[i].find_first_not_of(" \t"));
    std::string out(lines[0]);
    for (std::size_t i = 1; i < lines.size(); ++i) {
      out += '\n';
      if (!lines[i].empty()) out += lines[i].substr(indent);
    }
    return out;
  }

  // Elements are located at their '<'.
  Loc loc_of(const pugi::xml_node& n) const {
    Loc l = loc_of(n.offset_debug());
    if (l.col > 1) --l.col;
    return l;
  }

  std::optional<Manifest> load() {
    pugi::xml_document doc;
    pugi::xml_parse_result r = doc.load_buffer(text_.data(), text_.size(), pugi::parse_default | pugi::parse_comments, pugi::encoding_utf8);
    if (!r) {
      report(diags_, RuleId::xml_syntax, path_, loc_of(r.offset), std::string("malformed XML: ") + r.description());
      return std::nullopt;
    }
    Manifest m;
    m.path = path_;
    pugi::xml_node root = doc.document_element();
    m.note = note_of(root);
    if (!root || local_name(root.name()) != "instrumentationManifest") {
      report(diags_, RuleId::not_a_manifest, path_, root ? loc_of(root) : Loc{1, 1},
             std::string("root element is <") + (root ? root.name() : "") + ">, expected <instrumentationManifest>");
      return m;
    }
    for (pugi::xml_node n : root.children()) {
      if (n.type() != pugi::node_element) continue;
      auto name = local_name(n.name());
      if (name == "instrumentation") instrumentation(n, m);
      else if (name == "localization") localization(n, m);
      else if (name == "metadata") continue;  // winmeta-style metadata block: not used for decoding
      else unknown(n, "instrumentationManifest");
    }
    if (m.providers.empty()) report(diags_, RuleId::no_providers, path_, loc_of(root), "the manifest declares no <provider>");
    return m;
  }

 private:
  void unknown(const pugi::xml_node& n, std::string_view parent) {
    report(diags_, RuleId::unknown_element, path_, loc_of(n),
           "unknown element <" + std::string(n.name()) + "> in <" + std::string(parent) + ">");
  }

  // Reports attributes outside `known` (namespace declarations are always allowed).
  void check_attributes(const pugi::xml_node& n, std::initializer_list<std::string_view> known) {
    for (pugi::xml_attribute a : n.attributes()) {
      std::string_view an = a.name();
      if (an == "xmlns" || an.substr(0, 6) == "xmlns:") continue;
      if (std::find(known.begin(), known.end(), an) == known.end())
        report(diags_, RuleId::unknown_attribute, path_, loc_of(n),
               "attribute '" + std::string(an) + "' of <" + std::string(n.name()) + "> is not part of the manifest schema; ignored");
    }
  }

  std::string attr(const pugi::xml_node& n, const char* name) const { return n.attribute(name).as_string(); }

  std::string required(const pugi::xml_node& n, const char* name, std::string_view what) {
    pugi::xml_attribute a = n.attribute(name);
    if (!a) {
      report(diags_, RuleId::missing_attribute, path_, loc_of(n),
             std::string(what) + " <" + n.name() + "> has no '" + name + "' attribute");
      return {};
    }
    return a.as_string();
  }

  std::uint64_t number(const pugi::xml_node& n, const char* name, const std::string& text, std::uint64_t max, std::string_view what) {
    if (text.empty() && !n.attribute(name)) return 0;  // absent: the default (a required one is reported as M005)
    auto v = parse_number(text);
    if (!v || *v > max) {
      report(diags_, RuleId::bad_number, path_, loc_of(n),
             std::string(what) + " '" + name + "' value '" + text + "' is not a number in 0.." + std::to_string(max));
      return 0;
    }
    return *v;
  }

  // Each element child of `node` named one of `names` (any other is reported as unknown in <parent>).
  template <class F>
  void each(const pugi::xml_node& node, std::initializer_list<std::string_view> names, std::string_view parent, F&& f) {
    for (pugi::xml_node n : node.children()) {
      if (n.type() != pugi::node_element) continue;
      if (std::find(names.begin(), names.end(), local_name(n.name())) == names.end()) unknown(n, parent);
      else f(n);
    }
  }

  // Reports every element child of `n`, which has none in the schema.
  void no_children(const pugi::xml_node& n, std::string_view parent) {
    for (pugi::xml_node c : n.children())
      if (c.type() == pugi::node_element) unknown(c, parent);
  }

  // The model's item for element `n`: its attributes checked against `known`, its location, the notes before it.
  template <class T>
  T item(const pugi::xml_node& n, std::initializer_list<std::string_view> known) {
    check_attributes(n, known);
    T t;
    t.loc = loc_of(n);
    t.note = note_of(n);
    return t;
  }

  // <level> and <opcode> (`what`): a name, a value in 0..255, a symbol and a message.
  template <class T>
  void levels_or_opcodes(const pugi::xml_node& node, const char* what, std::string_view parent, std::vector<T>& out) {
    each(node, {what}, parent, [&](const pugi::xml_node& n) {
      T t = item<T>(n, {"name", "value", "symbol", "message"});
      t.name = required(n, "name", what);
      t.value = static_cast<std::uint32_t>(number(n, "value", required(n, "value", what), 255, what));
      t.symbol = attr(n, "symbol");
      t.message_ref = attr(n, "message");
      out.push_back(std::move(t));
    });
  }

  void instrumentation(const pugi::xml_node& node, Manifest& m) {
    each(node, {"events"}, "instrumentation", [&](const pugi::xml_node& n) {
      each(n, {"provider"}, "events", [&](const pugi::xml_node& p) { provider(p, m); });
    });
  }

  void provider(const pugi::xml_node& n, Manifest& m) {
    check_attributes(n, {"name", "guid", "symbol", "resourceFileName", "messageFileName", "parameterFileName", "message"});
    Provider p;
    p.loc = loc_of(n);
    p.note = note_of(n);
    p.name = required(n, "name", "provider");
    p.guid_text = required(n, "guid", "provider");
    p.symbol = attr(n, "symbol");
    p.resource_file = attr(n, "resourceFileName");
    p.message_file = attr(n, "messageFileName");
    p.message_ref = attr(n, "message");
    if (!p.guid_text.empty()) {
      if (auto g = Guid::parse(p.guid_text)) p.guid = *g;
      else report(diags_, RuleId::bad_guid, path_, p.loc, "provider '" + p.name + "' guid '" + p.guid_text + "' is not a GUID");
    }
    for (pugi::xml_node c : n.children()) {
      if (c.type() != pugi::node_element) continue;
      auto name = local_name(c.name());
      if (name == "keywords") keywords(c, p);
      else if (name == "tasks") tasks(c, p);
      else if (name == "opcodes") levels_or_opcodes(c, "opcode", "opcodes", p.opcodes);
      else if (name == "levels") levels_or_opcodes(c, "level", "levels", p.levels);
      else if (name == "channels") channels(c, p);
      else if (name == "maps") maps(c, p);
      else if (name == "templates") templates(c, p);
      else if (name == "events") events(c, p);
      else unknown(c, "provider");
    }
    m.providers.push_back(std::move(p));
  }

  void keywords(const pugi::xml_node& node, Provider& p) {
    each(node, {"keyword"}, "keywords", [&](const pugi::xml_node& n) {
      Keyword k = item<Keyword>(n, {"name", "mask", "symbol", "message"});
      k.name = required(n, "name", "keyword");
      k.mask_text = required(n, "mask", "keyword");
      k.mask = number(n, "mask", k.mask_text, UINT64_MAX, "keyword");
      k.symbol = attr(n, "symbol");
      k.message_ref = attr(n, "message");
      p.keywords.push_back(std::move(k));
    });
  }

  void tasks(const pugi::xml_node& node, Provider& p) {
    each(node, {"task"}, "tasks", [&](const pugi::xml_node& n) {
      Task t = item<Task>(n, {"name", "value", "symbol", "eventGUID", "message"});
      t.name = required(n, "name", "task");
      t.value = static_cast<std::uint32_t>(number(n, "value", required(n, "value", "task"), 65535, "task"));
      t.symbol = attr(n, "symbol");
      t.event_guid = attr(n, "eventGUID");
      t.message_ref = attr(n, "message");
      each(n, {"opcodes"}, "task", [&](const pugi::xml_node& c) { levels_or_opcodes(c, "opcode", "opcodes", t.opcodes); });
      p.tasks.push_back(std::move(t));
    });
  }

  void channels(const pugi::xml_node& node, Provider& p) {
    each(node, {"channel", "importChannel"}, "channels", [&](const pugi::xml_node& n) {
      Channel c =
          item<Channel>(n, {"name", "chid", "type", "symbol", "value", "message", "enabled", "isolation", "access"});
      c.imported = local_name(n.name()) == "importChannel";
      c.name = required(n, "name", "channel");
      c.chid = attr(n, "chid");
      c.type = attr(n, "type");
      c.symbol = attr(n, "symbol");
      c.message_ref = attr(n, "message");
      if (n.attribute("value")) c.value = static_cast<std::uint32_t>(number(n, "value", attr(n, "value"), 255, "channel"));
      p.channels.push_back(std::move(c));
    });
  }

  void maps(const pugi::xml_node& node, Provider& p) {
    each(node, {"valueMap", "bitMap"}, "maps", [&](const pugi::xml_node& n) {
      const auto kind = local_name(n.name());
      Map m = item<Map>(n, {"name", "prefix", "removePrefix"});
      m.bitmap = kind == "bitMap";
      m.name = required(n, "name", std::string(kind));
      each(n, {"map"}, kind, [&](const pugi::xml_node& e) {
        MapEntry me = item<MapEntry>(e, {"value", "message", "symbol"});
        me.value_text = required(e, "value", "map entry");
        me.value = number(e, "value", me.value_text, UINT64_MAX, "map entry");
        me.message_ref = attr(e, "message");
        m.entries.push_back(std::move(me));
      });
      p.maps.push_back(std::move(m));
    });
  }

  void field(const pugi::xml_node& n, std::vector<Field>& out, std::string_view parent) {
    auto kind = local_name(n.name());
    if (kind == "UserData") return;  // rendering hints for Event Viewer: not part of the payload
    if (kind != "data" && kind != "struct") {
      unknown(n, parent);
      return;
    }
    Field f;
    f.loc = loc_of(n);
    f.note = note_of(n);
    f.is_struct = kind == "struct";
    f.name = required(n, "name", std::string(kind));
    f.count_text = attr(n, "count");
    f.length_text = attr(n, "length");
    if (f.is_struct) {
      check_attributes(n, {"name", "count", "length"});
      for (pugi::xml_node c : n.children())
        if (c.type() == pugi::node_element) field(c, f.members, "struct");
    } else {
      check_attributes(n, {"name", "inType", "outType", "map", "count", "length"});
      f.in_type_text = required(n, "inType", "data");
      f.out_type_text = attr(n, "outType");
      f.map_name = attr(n, "map");
      InType it;
      if (parse_intype(f.in_type_text, it)) f.in_type = it;
      else if (!f.in_type_text.empty())
        report(diags_, RuleId::unknown_intype, path_, f.loc, "field '" + f.name + "': unknown inType '" + f.in_type_text + "'");
      OutType ot;
      if (parse_outtype(f.out_type_text, ot)) f.out_type = ot;
      else if (!f.out_type_text.empty())
        report(diags_, RuleId::unknown_outtype, path_, f.loc, "field '" + f.name + "': unknown outType '" + f.out_type_text + "'");
      no_children(n, "data");
    }
    out.push_back(std::move(f));
  }

  void templates(const pugi::xml_node& node, Provider& p) {
    each(node, {"template"}, "templates", [&](const pugi::xml_node& n) {
      Template t = item<Template>(n, {"tid", "name"});
      t.tid = required(n, "tid", "template");
      for (pugi::xml_node c : n.children())
        if (c.type() == pugi::node_element) field(c, t.fields, "template");
      p.templates.push_back(std::move(t));
    });
  }

  void events(const pugi::xml_node& node, Provider& p) {
    each(node, {"event"}, "events", [&](const pugi::xml_node& n) {
      Event e = item<Event>(n, {"value", "version", "level", "task", "opcode", "keywords", "template", "symbol",
                                "message", "channel", "notLogged"});
      e.value_text = required(n, "value", "event");
      e.value = static_cast<std::uint32_t>(number(n, "value", e.value_text, 65535, "event"));
      e.version_text = attr(n, "version");
      e.version = static_cast<std::uint32_t>(number(n, "version", e.version_text, 255, "event"));
      e.level = attr(n, "level");
      e.task = attr(n, "task");
      e.opcode = attr(n, "opcode");
      e.keywords_text = attr(n, "keywords");
      std::istringstream words(e.keywords_text);
      for (std::string w; words >> w;) e.keywords.push_back(w);
      e.template_name = attr(n, "template");
      e.symbol = attr(n, "symbol");
      e.message_ref = attr(n, "message");
      e.channel = attr(n, "channel");
      no_children(n, "event");
      p.events.push_back(std::move(e));
    });
  }

  void localization(const pugi::xml_node& node, Manifest& m) {
    bool first_culture = true;
    each(node, {"resources"}, "localization", [&](const pugi::xml_node& r) {
      // Messages come from the first culture (en-US in the CLR manifests); others are kept out of the index.
      each(r, {"stringTable"}, "resources", [&](const pugi::xml_node& st) {
        each(st, {"string"}, "stringTable", [&](const pugi::xml_node& n) {
          StringEntry e = item<StringEntry>(n, {"id", "value", "stringType"});
          e.id = required(n, "id", "string");
          e.value = attr(n, "value");
          e.culture = attr(r, "culture");
          if (first_culture) m.string_index.emplace(e.id, m.strings.size());
          m.strings.push_back(std::move(e));
        });
      });
      first_culture = false;
    });
  }

  const std::string& text_;
  const std::string& path_;
  Diagnostics& diags_;
  std::vector<std::size_t> line_starts_;
};

}  // namespace

std::optional<Manifest> load_manifest_text(std::string text, const std::string& path, Diagnostics& diags) {
  text = to_utf8_text(std::move(text));
  return Loader(text, path, diags).load();
}

std::optional<std::string> read_input(const std::string& path, std::string_view what, Diagnostics& diags) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    report(diags, RuleId::unreadable_file, path, {}, "cannot open " + std::string(what) + " '" + path + "'");
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    report(diags, RuleId::unreadable_file, path, {}, "cannot read " + std::string(what) + " '" + path + "'");
    return std::nullopt;
  }
  return ss.str();
}

std::optional<Manifest> load_manifest(const std::string& path, Diagnostics& diags) {
  auto text = read_input(path, "manifest", diags);
  if (!text) return std::nullopt;
  return load_manifest_text(std::move(*text), path, diags);
}

}  // namespace clretw::gen
