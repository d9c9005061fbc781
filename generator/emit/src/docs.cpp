// clretw-gen docs: reference pages in Markdown, one per provider, and an index.
//
// A provider's page: what it is (name, GUID, manifest), its keywords (what each
// enables), levels, tasks and opcodes, maps, then its events - a table of every
// event version, and per event id a section with the fields of each version and
// what changed from one version to the next (diff_events(), the comparison
// `clretw-gen diff` makes). Every heading has a GitHub anchor that links point
// at; they are worked out before the page is written, in the page's order.
#include "clretw/gen/docs.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "clretw/gen/checks.h"
#include "clretw/gen/diff.h"
#include "clretw/gen/fixups.h"
#include "clretw/gen/frontend.h"
#include "clretw/gen/loader.h"
#include "clretw/gen/output.h"
#include "clretw/gen/rules.h"
#include "clretw/gen/schema_builder.h"

namespace clretw::gen {

namespace fs = std::filesystem;

namespace {

bool alnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

}  // namespace

std::string github_anchor(std::string_view heading) {
  std::string out;
  for (const char c : heading) {
    const auto u = static_cast<unsigned char>(c);
    if (c >= 'A' && c <= 'Z')
      out += static_cast<char>(c - 'A' + 'a');
    else if (u >= 0x80 || c == '-' || c == '_' || alnum(c))
      out += c;
    else if (c == ' ')
      out += '-';
  }
  return out;
}

std::string AnchorSet::add(std::string_view heading) {
  const std::string base = github_anchor(heading);
  std::string anchor = base;
  while (seen_.count(anchor)) anchor = base + "-" + std::to_string(++seen_[base]);
  seen_.emplace(anchor, 0);
  return anchor;
}

std::string event_heading(const Event& e) {
  return "Event " + std::to_string(e.value) + (e.symbol.empty() ? "" : ": " + e.symbol);
}

std::string event_version_heading(const Event& e) {
  return std::to_string(e.value) + " v" + std::to_string(e.version) + (e.symbol.empty() ? "" : ": " + e.symbol);
}

std::string provider_page(const std::string& provider_name) {
  std::string out;
  for (const char c : provider_name) {
    out += alnum(c) || c == '-' || c == '_' || c == '.' ? c : '-';
  }
  return (out.empty() ? "provider" : out) + ".md";
}

namespace {

// --- Markdown ----------------------------------------------------------------

std::string hex(std::uint64_t v) {
  char digits[16];
  const auto r = std::to_chars(std::begin(digits), std::end(digits), v, 16);
  return "0x" + std::string(digits, r.ptr);
}

// Text as it should read: what Markdown would take for markup is escaped (not the '_' inside a word, as
// in GCStart_V1: that is never emphasis), line breaks become spaces.
std::string text(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
      continue;
    }
    const bool inside_word = c == '_' && i > 0 && i + 1 < s.size() && alnum(s[i - 1]) && alnum(s[i + 1]);
    if (!inside_word && std::string_view("\\`*_[]<").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// An identifier as code. Manifest names hold no backquote; one would end the span, so it is dropped.
std::string code(std::string_view s) {
  if (s.empty()) return {};
  std::string out = "`";
  for (const char c : s)
    if (c != '`') out += (c == '\n' || c == '\r') ? ' ' : c;
  return out + "`";
}

// "1 event id", "2 event ids".
std::string count(std::size_t n, const std::string& what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

std::string link(const std::string& label, const std::string& anchor) { return "[" + label + "](#" + anchor + ")"; }

// A diff detail ("field 'Depth' inserted at position 3"): what it quotes becomes code.
std::string detail(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::size_t close = s[i] == '\'' ? s.find('\'', i + 1) : std::string_view::npos;
    if (close == std::string_view::npos) {
      out += text(s.substr(i, 1));
      continue;
    }
    out += close == i + 1 ? "(none)" : code(s.substr(i + 1, close - i - 1));
    i = close;
  }
  return out;
}

template <class Range, class Fn>
std::string join(const Range& items, std::string_view sep, Fn fn) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += sep;
    out += fn(item);
  }
  return out;
}

// A table: the header row, its alignment ('l' or 'r' per column), then rows. A cell's '|' is escaped.
class Table {
 public:
  Table(std::string& out, std::initializer_list<std::string_view> header, std::string_view align) : out_(out) {
    row(header);
    out_ += '|';
    for (const char a : align) out_ += a == 'r' ? "--:|" : "---|";
    out_ += '\n';
  }
  void row(std::initializer_list<std::string_view> cells) {
    out_ += '|';
    for (const std::string_view cell : cells) {
      out_ += ' ';
      for (const char c : cell) out_ += c == '|' ? "\\|" : std::string(1, c);
      out_ += " |";
    }
    out_ += '\n';
  }
  ~Table() { out_ += '\n'; }
  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;

 private:
  std::string& out_;
};

std::string guid_text(const Provider& p) {
  const auto g = Guid::parse(p.guid_text);
  return g ? "{" + g->to_string() + "}" : p.guid_text;
}

std::string marker(const std::string& from) {
  return std::string(kDocsMarker) + " from " + from + "; do not edit. -->\n";
}

// --- a provider's page ---------------------------------------------------------

class ProviderPage {
 public:
  ProviderPage(const Provider& p, const DocsSource& src) : p_(p), src_(src) {
    for (std::size_t i = 0; i < p.events.size(); ++i) order_.push_back(i);
    std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
      const Event &x = p.events[a], &y = p.events[b];
      return x.value != y.value ? x.value < y.value : x.version < y.version;
    });
    for (const std::size_t i : order_) versions_[p.events[i].value].push_back(i);
    for (std::size_t i = 0; i < p.maps.size(); ++i) map_order_.push_back(i);
    std::stable_sort(map_order_.begin(), map_order_.end(),
                     [&](std::size_t a, std::size_t b) { return p.maps[a].name < p.maps[b].name; });

    // Every heading's anchor, in the order render() writes the headings.
    AnchorSet anchors;
    anchors.add(p.name);
    for (const char* section : {"Keywords", "Levels", "Tasks and opcodes", "Maps"})
      section_anchor_.emplace_back(section, anchors.add(section));
    map_anchor_.resize(p.maps.size());
    for (const std::size_t m : map_order_) map_anchor_[m] = anchors.add(map_heading(p.maps[m]));
    section_anchor_.emplace_back("Events", anchors.add("Events"));
    version_anchor_.resize(p.events.size());
    for (const auto& [id, list] : versions_) {
      id_anchor_[id] = anchors.add(event_heading(p.events[list.front()]));
      for (const std::size_t i : list) version_anchor_[i] = anchors.add(event_version_heading(p.events[i]));
    }
  }

  std::string render() {
    out_ = marker(src_.file);
    heading(1, p_.name);
    summary();
    keywords();
    levels();
    tasks();
    maps();
    events();
    for (const auto& [id, list] : versions_) event(list);
    while (out_.size() > 1 && out_[out_.size() - 2] == '\n') out_.pop_back();
    return std::move(out_);
  }

  std::size_t event_ids() const { return versions_.size(); }

 private:
  static std::string map_heading(const Map& m) { return m.name + (m.bitmap ? " (bitMap)" : " (valueMap)"); }

  void heading(int level, const std::string& title) {
    out_ += std::string(static_cast<std::size_t>(level), '#') + " " + text(title) + "\n\n";
  }
  void paragraph(const std::string& s) { out_ += s + "\n\n"; }

  // The ids of the events that pass `pred` (an id counts when one of its versions does).
  template <class Pred>
  std::size_t count_ids(Pred pred) const {
    std::set<std::uint32_t> ids;
    for (const Event& e : p_.events)
      if (pred(e)) ids.insert(e.value);
    return ids.size();
  }

  const Event& first(std::uint32_t id) const { return p_.events[versions_.at(id).front()]; }

  void summary() {
    out_ += "- GUID: " + code(guid_text(p_)) + "\n";
    if (!p_.symbol.empty()) out_ += "- Symbol: " + code(p_.symbol) + "\n";
    out_ += "- Manifest: " + code(src_.file) + (src_.fixups.empty() ? "" : ", with " + text(src_.fixups)) + "\n";
    out_ += "- Events: " + count(versions_.size(), "event id") + ", " + count(p_.events.size(), "event version") + "\n";
    if (!p_.message.empty()) out_ += "- Description: " + text(p_.message) + "\n";
    out_ +=
        "- Contents: " + join(section_anchor_, ", ", [](const auto& s) { return link(s.first, s.second); }) + "\n\n";
  }

  void keywords() {
    heading(2, "Keywords");
    if (p_.keywords.empty()) return paragraph("The provider declares no keywords.");
    paragraph(
        "A session that enables a keyword receives the events that name it. The Events column counts event "
        "ids: an id counts when one of its versions names the keyword.");
    std::vector<const Keyword*> list;
    for (const Keyword& k : p_.keywords) list.push_back(&k);
    std::stable_sort(list.begin(), list.end(), [](const Keyword* a, const Keyword* b) {
      return a->mask != b->mask ? a->mask < b->mask : a->name < b->name;
    });
    Table t(out_, {"Mask", "Keyword", "Description", "Events", "Tasks of those events"}, "lllrl");
    for (const Keyword* k : list) {
      auto names = [&](const Event& e) {
        return std::find(e.keywords.begin(), e.keywords.end(), k->name) != e.keywords.end();
      };
      std::set<std::string> tasks;
      for (const Event& e : p_.events)
        if (names(e) && !e.task.empty()) tasks.insert(e.task);
      t.row({code(hex(k->mask)), code(k->name), text(k->message), std::to_string(count_ids(names)),
             join(tasks, ", ", [](const std::string& s) { return code(s); })});
    }
  }

  void levels() {
    heading(2, "Levels");
    struct Row {
      std::uint32_t value;
      std::string message;
    };
    std::map<std::string, Row> rows;  // by name: declared levels, and the standard ones events use
    for (const Level& l : p_.levels) rows.emplace(l.name, Row{l.value, l.message});
    for (const Event& e : p_.events) {
      if (rows.count(e.level)) continue;
      Row r{e.level_value, {}};
      for (const Level& l : standard_levels())
        if (l.name == e.level) r.message = l.message;
      rows.emplace(e.level, r);
    }
    if (rows.empty()) return paragraph("The provider declares no levels and its events name none.");
    std::vector<std::pair<std::string, Row>> list(rows.begin(), rows.end());
    std::stable_sort(list.begin(), list.end(),
                     [](const auto& a, const auto& b) { return a.second.value < b.second.value; });
    Table t(out_, {"Value", "Level", "Description", "Events"}, "rllr");
    for (const auto& [name, r] : list) {
      const std::string& level = name;  // a structured binding cannot be captured before C++20's P1091 (clang 16)
      t.row({std::to_string(r.value), level.empty() ? "(none)" : code(level),
             level.empty() ? "events that name no level" : text(r.message),
             std::to_string(count_ids([&](const Event& e) { return e.level == level; }))});
    }
  }

  // "`win:Start` (1), `Step` (11)": the opcodes a task declares and those its events use.
  std::string opcodes_of(const std::vector<Opcode>& declared, const std::string& task) const {
    std::set<std::pair<std::uint32_t, std::string>> ops;
    for (const Opcode& o : declared) ops.emplace(o.value, o.name);
    for (const Event& e : p_.events)
      if (e.task == task && !e.opcode.empty()) ops.emplace(e.opcode_value, e.opcode);
    return join(ops, ", ", [](const auto& o) { return code(o.second) + " (" + std::to_string(o.first) + ")"; });
  }

  void tasks() {
    heading(2, "Tasks and opcodes");
    std::vector<const Task*> list;
    for (const Task& t : p_.tasks) list.push_back(&t);
    std::stable_sort(list.begin(), list.end(), [](const Task* a, const Task* b) { return a->value < b->value; });
    const std::size_t untasked = count_ids([](const Event& e) { return e.task.empty(); });
    if (list.empty() && untasked == 0) paragraph("The provider declares no tasks.");
    if (!list.empty() || untasked) {
      Table t(out_, {"Value", "Task", "Description", "Opcodes", "Events"}, "rlllr");
      for (const Task* k : list)
        t.row({std::to_string(k->value), code(k->name), text(k->message), opcodes_of(k->opcodes, k->name),
               std::to_string(count_ids([&](const Event& e) { return e.task == k->name; }))});
      if (untasked) t.row({"", "(none)", "events that name no task", opcodes_of({}, ""), std::to_string(untasked)});
    }
    if (p_.opcodes.empty()) return;
    paragraph("Opcodes declared for the whole provider:");
    std::vector<const Opcode*> ops;
    for (const Opcode& o : p_.opcodes) ops.push_back(&o);
    std::stable_sort(ops.begin(), ops.end(), [](const Opcode* a, const Opcode* b) { return a->value < b->value; });
    Table t(out_, {"Value", "Opcode", "Description", "Events"}, "rllr");
    for (const Opcode* o : ops)
      t.row({std::to_string(o->value), code(o->name), text(o->message),
             std::to_string(count_ids([&](const Event& e) { return find_opcode(p_, e) == o; }))});
  }

  // Whether a field list (structs included) names map `m`.
  static bool uses_map(const std::vector<Field>& fields, int m) {
    return std::any_of(fields.begin(), fields.end(),
                       [&](const Field& f) { return f.map == m || (f.is_struct && uses_map(f.members, m)); });
  }

  const std::vector<Field>* fields_of(const Event& e) const {
    if (e.template_index == kUnresolved) return nullptr;
    return &p_.templates[static_cast<std::size_t>(e.template_index)].fields;
  }

  void maps() {
    heading(2, "Maps");
    if (p_.maps.empty()) return paragraph("The provider declares no maps.");
    for (const std::size_t m : map_order_) {
      const Map& map = p_.maps[m];
      heading(3, map_heading(map));
      std::vector<std::string> users;
      for (const auto& [id, list] : versions_)
        for (const std::size_t i : list)
          if (const auto* f = fields_of(p_.events[i]); f && uses_map(*f, static_cast<int>(m))) {
            users.push_back(
                link(code(first(id).symbol.empty() ? std::to_string(id) : first(id).symbol), id_anchor_[id]));
            break;
          }
      paragraph(users.empty() ? "No event uses it."
                              : "Used by " + join(users, ", ", [](const std::string& s) { return s; }) + ".");
      std::vector<const MapEntry*> entries;
      for (const MapEntry& e : map.entries) entries.push_back(&e);
      std::stable_sort(entries.begin(), entries.end(),
                       [](const MapEntry* a, const MapEntry* b) { return a->value < b->value; });
      Table t(out_, {"Value", "Name"}, "rl");
      for (const MapEntry* e : entries)
        t.row({map.bitmap ? code(hex(e->value)) : std::to_string(e->value),
               e->message.empty() ? code(e->message_ref) : text(e->message)});
    }
  }

  std::string level_cell(const Event& e) const {
    return e.level.empty() ? "" : code(e.level) + " (" + std::to_string(e.level_value) + ")";
  }
  std::string keywords_cell(const Event& e) const {
    if (e.keywords.empty()) return "";
    return join(e.keywords, ", ", [](const std::string& k) { return code(k); }) + " (" + code(hex(e.keyword_mask)) +
           ")";
  }

  void events() {
    heading(2, "Events");
    if (p_.events.empty()) return paragraph("The provider declares no events.");
    paragraph("Every event version; the sections after the table give each one's fields.");
    Table t(out_, {"ID", "Version", "Symbol", "Task/Opcode", "Level", "Keywords"}, "rrllll");
    for (const std::size_t i : order_) {
      const Event& e = p_.events[i];
      const std::string task = e.task.empty() ? "" : code(e.task);
      const std::string opcode = e.opcode.empty() ? "" : code(e.opcode);
      t.row({std::to_string(e.value), std::to_string(e.version),
             link(e.symbol.empty() ? "v" + std::to_string(e.version) : code(e.symbol), version_anchor_[i]),
             task + (task.empty() || opcode.empty() ? "" : "/") + opcode, level_cell(e), keywords_cell(e)});
    }
  }

  // The section of one event id: its versions, what changed between them, their fields.
  void event(const std::vector<std::size_t>& list) {
    const Event& head = p_.events[list.front()];
    heading(3, event_heading(head));
    if (list.size() > 1) {
      paragraph(
          "Versions: " +
          join(list, ", ",
               [&](std::size_t i) { return link("v" + std::to_string(p_.events[i].version), version_anchor_[i]); }) +
          ".");
      paragraph("Changes between versions:");
      for (std::size_t k = 1; k < list.size(); ++k) {
        const Event &a = p_.events[list[k - 1]], &b = p_.events[list[k]];
        std::vector<Change> changes = diff_events(p_, a, p_, b);
        // Versions have symbols of their own (GCStart, GCStart_V1): a new symbol is no change.
        std::erase_if(changes,
                      [](const Change& c) { return c.kind == "event-renamed" || c.kind == "event-id-reused"; });
        out_ += "- v" + std::to_string(a.version) + " to v" + std::to_string(b.version) + ":";
        if (changes.empty()) out_ += " no change to the fields, level, keywords, task, opcode or channel";
        out_ += "\n";
        for (const Change& c : changes) out_ += "  - " + detail(c.detail) + "\n";
      }
      out_ += "\n";
    }
    for (const std::size_t i : list) version(p_.events[i]);
  }

  void version(const Event& e) {
    heading(4, event_version_heading(e));
    std::vector<std::string> facts;
    facts.push_back(e.task.empty() ? "No task" : "Task " + code(e.task) + " (" + std::to_string(e.task_value) + ")");
    if (!e.opcode.empty()) facts.push_back("opcode " + code(e.opcode) + " (" + std::to_string(e.opcode_value) + ")");
    facts.push_back("shown as " + code(display_name(p_, e)));
    if (!e.level.empty()) facts.push_back("level " + level_cell(e));
    facts.push_back(e.keywords.empty() ? "no keywords" : "keywords " + keywords_cell(e));
    if (!e.channel.empty()) facts.push_back("channel " + code(e.channel));
    facts.push_back(e.template_name.empty() ? "no template" : "template " + code(e.template_name));
    paragraph(join(facts, "; ", [](const std::string& s) { return s; }) + ".");
    const std::vector<Field>* fields = fields_of(e);
    if (!fields || fields->empty())
      return paragraph(e.template_name.empty() || fields ? "No payload." : "Its template is missing.");
    Table t(out_, {"#", "Field", "inType", "outType", "Size", "Count", "Map"}, "rllllll");
    field_rows(t, *fields, "", "");
  }

  // Bytes on the wire, or how the size is known.
  static std::string size_of(const Field& f) {
    if (f.is_struct) return "struct";
    if (!f.in_type) return "";
    if (*f.in_type == InType::Pointer) return "4 or 8";
    if (const unsigned n = scalar_size(*f.in_type, 8)) return std::to_string(n);
    if (takes_rest(f)) return "the rest of the payload";
    if (!f.length_text.empty())
      return "length " + (f.length_const ? std::to_string(*f.length_const) : code(f.length_text));
    if (*f.in_type == InType::UnicodeString || *f.in_type == InType::AnsiString) return "nul-terminated";
    if (*f.in_type == InType::Sid) return "SID";
    return "variable";
  }

  void field_rows(Table& t, const std::vector<Field>& fields, const std::string& number, const std::string& prefix) {
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const Field& f = fields[i];
      const std::string n = number + std::to_string(i + 1);
      std::string map;
      if (f.map != kUnresolved)
        map = link(code(f.map_name), map_anchor_[static_cast<std::size_t>(f.map)]);
      else
        map = code(f.map_name);
      const std::string count = f.count_text.empty() ? ""
                                : f.count_const      ? std::to_string(*f.count_const)
                                                     : code(f.count_text);
      t.row({n, code(prefix + f.name), f.is_struct ? "struct" : code(f.in_type_text), code(f.out_type_text), size_of(f),
             count, map});
      if (f.is_struct) field_rows(t, f.members, n + ".", prefix + f.name + ".");
    }
  }

  const Provider& p_;
  const DocsSource& src_;
  std::vector<std::size_t> order_;                              // event indices by (id, version)
  std::map<std::uint32_t, std::vector<std::size_t>> versions_;  // id -> event indices by version
  std::vector<std::size_t> map_order_;                          // map indices by name
  std::map<std::uint32_t, std::string> id_anchor_;
  std::vector<std::pair<std::string, std::string>> section_anchor_;  // title, anchor, in the page's order
  std::vector<std::string> version_anchor_, map_anchor_;             // by event index, by map index
  std::string out_;
};

struct Entry {
  const Provider* provider;
  const DocsSource* source;
};

std::string index_page(const std::vector<Entry>& entries, const std::vector<std::string>& pages,
                       const std::vector<std::size_t>& ids, const std::vector<DocsSource>& sources) {
  const std::string files = join(sources, ", ", [](const DocsSource& s) { return s.file; });
  std::string out = marker(files);
  out += "# Event reference\n\n";
  out += "The providers of " + join(sources, ", ", [](const DocsSource& s) { return code(s.file); }) +
         ", as the decoders clretw-gen generates from them decode their events. Each provider's page lists its "
         "keywords, levels, tasks, opcodes and maps, then every event version with its fields, and what changed from "
         "one version of an event to the next.\n\n";
  for (const DocsSource& s : sources)
    if (!s.fixups.empty()) out += code(s.file) + " is read with " + text(s.fixups) + " applied.\n\n";
  {
    Table t(out, {"Provider", "GUID", "Manifest", "Event ids", "Event versions"}, "lllrr");
    for (std::size_t i = 0; i < entries.size(); ++i)
      t.row({"[" + text(entries[i].provider->name) + "](" + pages[i] + ")", code(guid_text(*entries[i].provider)),
             code(entries[i].source->file), std::to_string(ids[i]),
             std::to_string(entries[i].provider->events.size())});
  }
  const bool clr = std::any_of(sources.begin(), sources.end(),
                               [](const DocsSource& s) { return s.manifest && is_clr_manifest(*s.manifest); });
  if (clr)
    out +=
        "Where Microsoft's documentation of the CLR's events disagrees with the runtime's manifest, see the "
        "[errata](../seeds-errata.md).\n\n";
  out += "These pages are generated by `clretw-gen docs` from the manifests named; do not edit them by hand.\n";
  return out;
}

// The file's bytes; nullopt when it cannot be read.
std::optional<std::string> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::string describe_fixups(const Manifest& manifest, const FrontEndOptions& options) {
  if (options.fixups == FrontEndOptions::Fixups::custom && options.custom)
    return "the fix-ups of " + fs::path(options.custom->path).filename().string();
  if (options.fixups == FrontEndOptions::Fixups::clr && is_clr_manifest(manifest))
    return "the built-in CLR fix-ups (manifest/clr-fixups.xml)";
  return {};
}

std::optional<DocsResult> render_docs(const std::vector<DocsSource>& sources, Diagnostics& diags) {
  std::vector<Entry> entries;
  std::map<std::string, const DocsSource*> seen;
  for (const DocsSource& s : sources)
    for (const Provider& p : s.manifest->providers) {
      if (!seen.emplace(p.name, &s).second) {
        report(diags, RuleId::duplicate_provider, s.manifest->path, p.loc,
               "provider '" + p.name + "' is declared by more than one manifest; document them separately");
        return std::nullopt;
      }
      entries.push_back({&p, &s});
    }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.provider->name < b.provider->name; });

  DocsResult r;
  r.files.push_back({"README.md", {}});
  std::vector<std::string> pages;
  std::vector<std::size_t> ids;
  std::set<std::string> taken{"README.md"};
  for (const Entry& e : entries) {
    std::string page = provider_page(e.provider->name);
    for (int n = 2; !taken.insert(page).second; ++n)  // two names that read alike as file names
      page = provider_page(e.provider->name + "-" + std::to_string(n));
    ProviderPage pp(*e.provider, *e.source);
    r.files.push_back({page, pp.render()});
    pages.push_back(page);
    ids.push_back(pp.event_ids());
    r.event_ids += pp.event_ids();
    r.events += e.provider->events.size();
  }
  r.providers = entries.size();
  r.files.front().text = index_page(entries, pages, ids, sources);
  return r;
}

int run_docs(const DocsOptions& o) {
  Diagnostics diags;
  FrontEndOptions fo;
  std::optional<FixupSet> custom;
  if (!choose_fixups("clretw-gen docs", o.fixups, o.no_fixups, custom, fo, diags, std::cerr)) return 2;

  bool cannot_read = false;
  const std::vector<LoadedManifest> loaded = load_all(o.manifests, fo, diags, cannot_read);
  std::vector<DocsSource> sources;
  for (const LoadedManifest& l : loaded)
    sources.push_back(
        {l.manifest.get(), fs::path(l.manifest->path).filename().string(), describe_fixups(*l.manifest, fo)});
  std::optional<DocsResult> result;
  if (!cannot_read && !diags.has_errors()) result = render_docs(sources, diags);
  for (const Diagnostic& d : diags.items())
    if (d.severity != Severity::note || o.verbose) std::cerr << format_gcc(d);
  if (cannot_read) return 2;
  if (!result || diags.has_errors()) {
    std::cerr << "clretw-gen docs: " << diags.error_count() << " error(s); nothing written\n";
    return 1;
  }

  const fs::path dir(o.output);
  OutputCount count;
  std::size_t removed = 0;
  std::set<std::string> produced;
  for (const DocFile& f : result->files) {
    produced.insert(f.path);
    if (!update_output(dir / f.path, f.text, o.check, "clretw-gen docs", count, std::cerr)) return 2;
  }
  // Pages no provider writes any more: reported (--check), else removed when clretw-gen docs wrote them.
  std::vector<fs::path> stale;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ".md" && !produced.count(it->path().filename().string()))
      stale.push_back(it->path());
  std::sort(stale.begin(), stale.end());
  for (const fs::path& p : stale) {
    const bool ours = read_bytes(p).value_or("").starts_with(kDocsMarker);
    if (o.check) {
      std::cerr << p.string() << ": stale (no provider of these manifests has this page)\n";
      ++count.differ;
    } else if (ours && fs::remove(p, ec)) {
      ++removed;
    } else {
      std::cerr << "clretw-gen docs: " << p.string() << ": no provider of these manifests has this page; left alone ("
                << (ours ? "cannot remove it" : "clretw-gen docs did not write it") << ")\n";
    }
  }
  if (!o.quiet) {
    std::cout << "clretw-gen docs: " << result->providers << " provider(s), " << result->event_ids << " event ids, "
              << result->events << " event versions -> " << o.output << " (";
    if (o.check)
      std::cout << count.differ << " file(s) out of date or stale)\n";
    else
      std::cout << count.written << " file(s) written, " << removed << " removed)\n";
  }
  return count.differ ? 1 : 0;
}

}  // namespace clretw::gen
