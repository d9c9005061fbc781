#include "clretw/gen/diff.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "clretw/gen/frontend.h"
#include "clretw/gen/loader.h"
#include "clretw/gen/report_formats.h"

namespace clretw::gen {

std::size_t DiffResult::breaking() const {
  return static_cast<std::size_t>(
      std::count_if(changes.begin(), changes.end(), [](const Change& c) { return c.cls == ChangeClass::breaking; }));
}

std::string_view class_name(ChangeClass c) noexcept {
  static constexpr std::string_view kNames[] = {"compatible", "warning", "breaking"};
  const auto i = static_cast<std::size_t>(c);
  return i < std::size(kNames) ? kNames[i] : "breaking";
}

namespace {

std::string hex(std::uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::string event_item(const Event& e) {
  return "event " + std::to_string(e.value) + " v" + std::to_string(e.version) + " " + quoted(e.symbol);
}

// Items of a list by name; the first of duplicates wins, as in the schema builder.
template <class T, class KeyFn>
auto index_by(const std::vector<T>& items, KeyFn key) {
  std::map<decltype(key(items[0])), const T*> out;
  for (const T& item : items) out.emplace(key(item), &item);
  return out;
}

const std::string& name_of(const Field& f) { return f.name; }
const std::string& name_of(const std::string& s) { return s; }

class Differ {
 public:
  Differ(const Manifest& a, const Manifest& b, DiffResult& out) : a_(a), b_(b), out_(out) {}

  // One event against another (diff_events()), outside any manifest comparison.
  void run_event(const Provider& op, const Event& o, const Provider& np, const Event& n) {
    begin(np.name);
    event(op, o, np, n);
  }

  void run() {
    auto old_providers = index_by(a_.providers, [](const Provider& p) { return p.name; });
    std::set<std::string> seen;
    for (const Provider& np : b_.providers) {
      if (!seen.insert(np.name).second) continue;
      begin(np.name);
      auto it = old_providers.find(np.name);
      if (it == old_providers.end()) {
        add(ChangeClass::compatible, "provider-added", "provider " + quoted(np.name),
            std::to_string(np.events.size()) + " event versions", {}, np.loc);
        summary().versions_added = np.events.size();
        summary().events_added = ids(np).size();
        continue;
      }
      provider(*it->second, np);
    }
    for (const Provider& op : a_.providers) {
      if (seen.count(op.name) || !seen.insert(op.name).second) continue;
      begin(op.name);
      add(ChangeClass::breaking, "provider-removed", "provider " + quoted(op.name),
          std::to_string(op.events.size()) + " event versions are gone", op.loc, {});
      summary().events_removed = ids(op).size();
      summary().versions_removed = op.events.size();
    }
  }

 private:
  static std::set<std::uint32_t> ids(const Provider& p) {
    std::set<std::uint32_t> s;
    for (const Event& e : p.events) s.insert(e.value);
    return s;
  }

  void begin(const std::string& provider) {
    provider_ = provider;
    out_.providers.push_back({});
    out_.providers.back().name = provider;
  }
  ProviderSummary& summary() { return out_.providers.back(); }

  void add(ChangeClass cls, std::string kind, std::string item, std::string detail, Loc old_loc, Loc new_loc) {
    out_.changes.push_back({cls, std::move(kind), provider_, std::move(item), std::move(detail), old_loc, new_loc});
    ProviderSummary& s = summary();
    (cls == ChangeClass::breaking ? s.breaking : cls == ChangeClass::warning ? s.warnings : s.compatible)++;
  }

  void provider(const Provider& op, const Provider& np) {
    if (auto a = Guid::parse(op.guid_text), b = Guid::parse(np.guid_text); a && b && !(*a == *b))
      add(ChangeClass::breaking, "provider-guid-changed", "provider " + quoted(np.name),
          "GUID " + a->to_string() + " -> " + b->to_string(), op.loc, np.loc);
    keywords(op, np);
    tasks(op, np);
    opcodes(op.opcodes, np.opcodes, "");
    maps(op, np);
    events(op, np);
  }

  // --- keywords: a bit is an identity consumers enable sessions with ---------
  void keywords(const Provider& op, const Provider& np) {
    auto old_by_name = index_by(op.keywords, [](const Keyword& k) { return k.name; });
    auto new_by_name = index_by(np.keywords, [](const Keyword& k) { return k.name; });
    auto old_by_mask = index_by(op.keywords, [](const Keyword& k) { return k.mask; });
    auto new_by_mask = index_by(np.keywords, [](const Keyword& k) { return k.mask; });
    for (const Keyword& k : np.keywords) {
      if (new_by_name[k.name] != &k) continue;
      auto same_name = old_by_name.find(k.name);
      if (same_name != old_by_name.end()) {
        if (same_name->second->mask != k.mask)
          add(ChangeClass::breaking, "keyword-reassigned", "keyword " + quoted(k.name),
              "mask " + hex(same_name->second->mask) + " -> " + hex(k.mask), same_name->second->loc, k.loc);
        continue;
      }
      auto same_mask = old_by_mask.find(k.mask);
      if (same_mask != old_by_mask.end() && !new_by_name.count(same_mask->second->name))
        add(ChangeClass::breaking, "keyword-reassigned", "keyword " + quoted(k.name),
            "mask " + hex(k.mask) + " was keyword " + quoted(same_mask->second->name), same_mask->second->loc, k.loc);
      else
        add(ChangeClass::compatible, "keyword-added", "keyword " + quoted(k.name), "mask " + hex(k.mask), {}, k.loc);
    }
    for (const Keyword& k : op.keywords) {
      if (old_by_name[k.name] != &k || new_by_name.count(k.name)) continue;
      auto same_mask = new_by_mask.find(k.mask);
      if (same_mask != new_by_mask.end() && !old_by_name.count(same_mask->second->name)) continue;  // reported above
      add(ChangeClass::breaking, "keyword-removed", "keyword " + quoted(k.name), "mask " + hex(k.mask), k.loc, {});
    }
  }

  // --- tasks and opcodes: values are in every event header --------------------
  void tasks(const Provider& op, const Provider& np) {
    auto old_tasks = index_by(op.tasks, [](const Task& t) { return t.name; });
    auto new_tasks = index_by(np.tasks, [](const Task& t) { return t.name; });
    for (const Task& t : np.tasks) {
      if (new_tasks[t.name] != &t) continue;
      auto it = old_tasks.find(t.name);
      if (it == old_tasks.end()) {
        add(ChangeClass::compatible, "task-added", "task " + quoted(t.name), "value " + std::to_string(t.value), {},
            t.loc);
        continue;
      }
      if (it->second->value != t.value)
        add(ChangeClass::breaking, "task-changed", "task " + quoted(t.name),
            "value " + std::to_string(it->second->value) + " -> " + std::to_string(t.value), it->second->loc, t.loc);
      opcodes(it->second->opcodes, t.opcodes, " of task " + quoted(t.name));
    }
    for (const Task& t : op.tasks)
      if (old_tasks[t.name] == &t && !new_tasks.count(t.name))
        add(ChangeClass::breaking, "task-removed", "task " + quoted(t.name), "value " + std::to_string(t.value), t.loc,
            {});
  }

  void opcodes(const std::vector<Opcode>& olds, const std::vector<Opcode>& news, const std::string& scope) {
    auto old_ops = index_by(olds, [](const Opcode& o) { return o.name; });
    auto new_ops = index_by(news, [](const Opcode& o) { return o.name; });
    for (const Opcode& o : news) {
      if (new_ops[o.name] != &o) continue;
      auto it = old_ops.find(o.name);
      if (it == old_ops.end())
        add(ChangeClass::compatible, "opcode-added", "opcode " + quoted(o.name) + scope,
            "value " + std::to_string(o.value), {}, o.loc);
      else if (it->second->value != o.value)
        add(ChangeClass::breaking, "opcode-changed", "opcode " + quoted(o.name) + scope,
            "value " + std::to_string(it->second->value) + " -> " + std::to_string(o.value), it->second->loc, o.loc);
    }
    for (const Opcode& o : olds)
      if (old_ops[o.name] == &o && !new_ops.count(o.name))
        add(ChangeClass::breaking, "opcode-removed", "opcode " + quoted(o.name) + scope,
            "value " + std::to_string(o.value), o.loc, {});
  }

  // --- maps: entries only name values; decoding never depends on them ----------
  void maps(const Provider& op, const Provider& np) {
    auto old_maps = index_by(op.maps, [](const Map& m) { return m.name; });
    auto new_maps = index_by(np.maps, [](const Map& m) { return m.name; });
    auto entry_name = [](const MapEntry& e) { return e.message.empty() ? e.message_ref : e.message; };
    for (const Map& m : np.maps) {
      if (new_maps[m.name] != &m) continue;
      const std::string item = "map " + quoted(m.name);
      auto it = old_maps.find(m.name);
      if (it == old_maps.end()) {
        add(ChangeClass::compatible, "map-added", item, std::to_string(m.entries.size()) + " entries", {}, m.loc);
        continue;
      }
      const Map& o = *it->second;
      if (o.bitmap != m.bitmap)
        add(ChangeClass::breaking, "map-kind-changed", item,
            std::string(o.bitmap ? "bitMap -> valueMap" : "valueMap -> bitMap"), o.loc, m.loc);
      auto old_entries = index_by(o.entries, [](const MapEntry& e) { return e.value; });
      auto new_entries = index_by(m.entries, [](const MapEntry& e) { return e.value; });
      for (const MapEntry& e : m.entries) {
        if (new_entries[e.value] != &e) continue;
        auto oe = old_entries.find(e.value);
        if (oe == old_entries.end())
          add(ChangeClass::compatible, "map-entry-added", item, "entry " + e.value_text + " " + quoted(entry_name(e)),
              {}, e.loc);
        else if (entry_name(*oe->second) != entry_name(e))
          add(ChangeClass::warning, "map-entry-renamed", item,
              "entry " + e.value_text + " " + quoted(entry_name(*oe->second)) + " -> " + quoted(entry_name(e)),
              oe->second->loc, e.loc);
      }
      for (const MapEntry& e : o.entries)
        if (old_entries[e.value] == &e && !new_entries.count(e.value))
          add(ChangeClass::warning, "map-entry-removed", item, "entry " + e.value_text + " " + quoted(entry_name(e)),
              e.loc, {});
    }
    for (const Map& m : op.maps)
      if (old_maps[m.name] == &m && !new_maps.count(m.name))
        add(ChangeClass::breaking, "map-removed", "map " + quoted(m.name), std::to_string(m.entries.size()) + " entries",
            m.loc, {});
  }

  // --- events -------------------------------------------------------------------
  void events(const Provider& op, const Provider& np) {
    using Key = std::pair<std::uint32_t, std::uint32_t>;
    auto key = [](const Event& e) { return Key{e.value, e.version}; };
    auto olds = index_by(op.events, key);
    auto news = index_by(np.events, key);
    const std::set<std::uint32_t> old_ids = ids(op), new_ids = ids(np);
    for (const auto& [k, e] : news) {
      auto it = olds.find(k);
      if (it != olds.end()) {
        event(op, *it->second, np, *e);
        continue;
      }
      ++summary().versions_added;
      if (!old_ids.count(e->value)) {
        if (e->version == news.lower_bound(Key{e->value, 0})->first.second) ++summary().events_added;
        add(ChangeClass::compatible, "event-added", event_item(*e), fields_summary(np, *e), {}, e->loc);
      } else {
        add(ChangeClass::compatible, "event-version-added", event_item(*e), fields_summary(np, *e), {}, e->loc);
      }
    }
    for (const auto& [k, e] : olds) {
      if (news.count(k)) continue;
      ++summary().versions_removed;
      if (!new_ids.count(e->value)) {
        if (e->version == olds.lower_bound(Key{e->value, 0})->first.second) ++summary().events_removed;
        add(ChangeClass::breaking, "event-removed", event_item(*e), "the event id is gone", e->loc, {});
      } else {
        add(ChangeClass::breaking, "event-version-removed", event_item(*e), "the id has other versions", e->loc, {});
      }
    }
  }

  static const std::vector<Field>& fields(const Provider& p, const Event& e) {
    static const std::vector<Field> kNone;
    if (e.template_index == kUnresolved) return kNone;
    return p.templates[static_cast<std::size_t>(e.template_index)].fields;
  }

  static std::string fields_summary(const Provider& p, const Event& e) {
    const auto& f = fields(p, e);
    return f.empty() ? "no payload" : std::to_string(f.size()) + " fields";
  }

  void event(const Provider& op, const Event& o, const Provider& np, const Event& n) {
    const std::string item = event_item(n);
    const std::size_t before = out_.changes.size();
    field_list(fields(op, o), fields(np, n), "", item, o.loc, n.loc);
    // A new symbol over a new payload is another event under an old id; over the
    // same payload it is a rename, which still changes every generated name.
    if (o.symbol != n.symbol) {
      const bool reused = out_.changes.size() != before;
      Change c{ChangeClass::breaking, reused ? "event-id-reused" : "event-renamed", provider_, item,
               "symbol " + quoted(o.symbol) + " -> " + quoted(n.symbol), o.loc, n.loc};
      out_.changes.insert(out_.changes.begin() + static_cast<std::ptrdiff_t>(before), std::move(c));
      ++summary().breaking;
    }
    if (o.level_value != n.level_value)
      add(ChangeClass::warning, "event-level-changed", item,
          "level " + quoted(o.level) + " (" + std::to_string(o.level_value) + ") -> " + quoted(n.level) + " (" +
              std::to_string(n.level_value) + ")",
          o.loc, n.loc);
    if (o.keyword_mask != n.keyword_mask) {
      const std::uint64_t lost = o.keyword_mask & ~n.keyword_mask;
      add(lost ? ChangeClass::breaking : ChangeClass::compatible, lost ? "event-keywords-removed" : "event-keywords-added",
          item, "keywords " + quoted(o.keywords_text) + " (" + hex(o.keyword_mask) + ") -> " + quoted(n.keywords_text) +
                    " (" + hex(n.keyword_mask) + ")",
          o.loc, n.loc);
    }
    // The task and the opcode: a new value breaks decoders, a new name only reads differently.
    auto named = [&](const char* what, const std::string& was, std::uint32_t was_value, const std::string& is,
                     std::uint32_t is_value) {
      const std::string kind = std::string("event-") + what;
      if (was_value != is_value)
        add(ChangeClass::breaking, kind + "-changed", item,
            what + (" " + quoted(was)) + " (" + std::to_string(was_value) + ") -> " + quoted(is) + " (" +
                std::to_string(is_value) + ")",
            o.loc, n.loc);
      else if (was != is)
        add(ChangeClass::warning, kind + "-renamed", item, what + (" " + quoted(was)) + " -> " + quoted(is), o.loc, n.loc);
    };
    named("task", o.task, o.task_value, n.task, n.task_value);
    named("opcode", o.opcode, o.opcode_value, n.opcode, n.opcode_value);
    if (o.channel != n.channel)
      add(ChangeClass::warning, "event-channel-changed", item,
          "channel " + quoted(o.channel) + " -> " + quoted(n.channel), o.loc, n.loc);
  }

  // Field lists of one event version: any difference changes the payload or the
  // generated accessors, so all are breaking.
  void field_list(const std::vector<Field>& a, const std::vector<Field>& b, const std::string& prefix,
                  const std::string& item, Loc old_event, Loc new_event) {
    auto position = [](const auto& fs, const std::string& name) -> std::optional<std::size_t> {
      for (std::size_t i = 0; i < fs.size(); ++i)
        if (name_of(fs[i]) == name) return i;
      return std::nullopt;
    };
    // Order among the fields both lists have: an insertion alone moves nothing.
    std::vector<std::string> common_a, common_b;
    for (const Field& g : a)
      if (position(b, g.name)) common_a.push_back(g.name);
    for (const Field& f : b)
      if (position(a, f.name)) common_b.push_back(f.name);
    for (std::size_t i = 0; i < b.size(); ++i) {
      const Field& f = b[i];
      const std::string name = quoted(prefix + f.name);
      auto j = position(a, f.name);
      if (!j) {
        add(ChangeClass::breaking, "field-added", item,
            "field " + name + " inserted at position " + std::to_string(i + 1), old_event, f.loc);
        continue;
      }
      const Field& g = a[*j];
      if (position(b, f.name) != i) continue;  // a duplicate name: the first one speaks for it
      if (position(common_a, f.name) != position(common_b, f.name))
        add(ChangeClass::breaking, "field-moved", item,
            "field " + name + " moved from position " + std::to_string(*j + 1) + " to " + std::to_string(i + 1),
            g.loc, f.loc);
      auto attr = [&](const char* what, const std::string& x, const std::string& y) {
        if (x != y)
          add(ChangeClass::breaking, "field-changed", item,
              "field " + name + ": " + what + " " + (x.empty() ? "(none)" : quoted(x)) + " -> " +
                  (y.empty() ? "(none)" : quoted(y)),
              g.loc, f.loc);
      };
      if (g.is_struct != f.is_struct) {
        attr("kind", g.is_struct ? "struct" : "data", f.is_struct ? "struct" : "data");
        continue;
      }
      attr("inType", g.in_type_text, f.in_type_text);
      attr("outType", g.out_type_text, f.out_type_text);
      attr("count", g.count_text, f.count_text);
      attr("length", g.length_text, f.length_text);
      if (g.map_name.empty() && !f.map_name.empty())  // values get names: printing and the accessor's type change
        add(ChangeClass::warning, "field-map-added", item, "field " + name + ": map (none) -> " + quoted(f.map_name), g.loc,
            f.loc);
      else
        attr("map", g.map_name, f.map_name);
      if (f.is_struct) field_list(g.members, f.members, prefix + f.name + ".", item, g.loc, f.loc);
    }
    for (const Field& g : a)
      if (!position(b, g.name))
        add(ChangeClass::breaking, "field-removed", item, "field " + quoted(prefix + g.name) + " removed", g.loc,
            new_event);
  }

  const Manifest& a_;
  const Manifest& b_;
  DiffResult& out_;
  std::string provider_;
};

std::string where(Loc old_loc, Loc new_loc) {
  std::string s;
  if (old_loc.line) s += "old:" + std::to_string(old_loc.line);
  if (new_loc.line) s += std::string(s.empty() ? "" : ", ") + "new:" + std::to_string(new_loc.line);
  return s.empty() ? s : " (" + s + ")";
}

}  // namespace

DiffResult diff_manifests(const Manifest& old_manifest, const Manifest& new_manifest) {
  DiffResult r;
  r.old_path = old_manifest.path;
  r.new_path = new_manifest.path;
  Differ(old_manifest, new_manifest, r).run();
  return r;
}

std::vector<Change> diff_events(const Provider& old_provider, const Event& old_event, const Provider& new_provider,
                                const Event& new_event) {
  static const Manifest kNone;
  DiffResult r;
  Differ(kNone, kNone, r).run_event(old_provider, old_event, new_provider, new_event);
  return std::move(r.changes);
}

std::string format_diff_text(const DiffResult& r) {
  std::string s = "clretw-gen diff: " + r.old_path + " -> " + r.new_path + "\n";
  std::size_t totals[3] = {};
  for (const ProviderSummary& p : r.providers) {
    s += "provider '" + p.name + "'\n";
    for (const Change& c : r.changes) {
      if (c.provider != p.name) continue;
      ++totals[static_cast<int>(c.cls)];
      std::string cls(class_name(c.cls));
      cls.resize(11, ' ');
      s += "  " + cls + c.kind + ": " + c.item + ": " + c.detail + where(c.old_loc, c.new_loc) + "\n";
    }
    s += "  summary: " + std::to_string(p.events_added) + " event id(s) added, " + std::to_string(p.versions_added) +
         " event version(s) added, " + std::to_string(p.events_removed) + " event id(s) removed, " +
         std::to_string(p.versions_removed) + " event version(s) removed; " + std::to_string(p.compatible) +
         " compatible, " + std::to_string(p.warnings) + " warning(s), " + std::to_string(p.breaking) + " breaking\n";
  }
  s += "total: " + std::to_string(totals[0]) + " compatible, " + std::to_string(totals[1]) + " warning(s), " +
       std::to_string(totals[2]) + " breaking\n";
  return s;
}

std::string format_diff_json(const DiffResult& r, int status) {
  std::string s = "{\n  \"old\": " + json_string(r.old_path) + ",\n  \"new\": " + json_string(r.new_path) +
                  ",\n  \"status\": " + std::to_string(status) + ",\n  \"breaking\": " + std::to_string(r.breaking()) +
                  ",\n  \"providers\": [";
  for (std::size_t i = 0; i < r.providers.size(); ++i) {
    const ProviderSummary& p = r.providers[i];
    s += (i ? ",\n" : "\n") + std::string("    {\"name\": ") + json_string(p.name) +
         ", \"events_added\": " + std::to_string(p.events_added) +
         ", \"versions_added\": " + std::to_string(p.versions_added) +
         ", \"events_removed\": " + std::to_string(p.events_removed) +
         ", \"versions_removed\": " + std::to_string(p.versions_removed) +
         ", \"compatible\": " + std::to_string(p.compatible) + ", \"warnings\": " + std::to_string(p.warnings) +
         ", \"breaking\": " + std::to_string(p.breaking) + "}";
  }
  s += r.providers.empty() ? "],\n  \"changes\": [" : "\n  ],\n  \"changes\": [";
  for (std::size_t i = 0; i < r.changes.size(); ++i) {
    const Change& c = r.changes[i];
    s += (i ? ",\n" : "\n") + std::string("    {\"class\": ") + json_string(class_name(c.cls)) +
         ", \"kind\": " + json_string(c.kind) + ", \"provider\": " + json_string(c.provider) +
         ", \"item\": " + json_string(c.item) + ", \"detail\": " + json_string(c.detail) +
         ", \"old_line\": " + std::to_string(c.old_loc.line) + ", \"new_line\": " + std::to_string(c.new_loc.line) +
         "}";
  }
  s += r.changes.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return s;
}

DiffRun diff_files(const std::string& old_path, const std::string& new_path) {
  DiffRun run;
  const FrontEndOptions as_written{.fixups = FrontEndOptions::Fixups::none, .schema = false};
  auto a = load(old_path, as_written, run.diags);
  auto b = load(new_path, as_written, run.diags);
  if (!a || !b) {
    run.status = 2;
    return run;
  }
  run.result = diff_manifests(*a->manifest, *b->manifest);
  run.status = run.result.breaking() ? 1 : 0;
  return run;
}

}  // namespace clretw::gen
