#include "clretw/gen/merge.h"

#include <algorithm>
#include <set>

namespace clretw::gen {

namespace {

// Update's comments are not the project's words.
void clear_notes(std::vector<Field>& fields) {
  for (Field& f : fields) {
    f.note.clear();
    clear_notes(f.members);
  }
}
void clear_notes(Provider& p) {
  p.note.clear();
  for (auto& x : p.keywords) x.note.clear();
  for (auto& x : p.levels) x.note.clear();
  for (auto& x : p.channels) x.note.clear();
  for (auto& x : p.opcodes) x.note.clear();
  for (auto& t : p.tasks) {
    t.note.clear();
    for (auto& o : t.opcodes) o.note.clear();
  }
  for (auto& m : p.maps) {
    m.note.clear();
    for (auto& e : m.entries) e.note.clear();
  }
  for (auto& t : p.templates) {
    t.note.clear();
    clear_notes(t.fields);
  }
  for (auto& e : p.events) e.note.clear();
}

std::string event_name(const Event& e) {
  return "event " + std::to_string(e.value) + " v" + std::to_string(e.version) + " '" + e.symbol + "'";
}

class Merger {
 public:
  explicit Merger(MergeResult& r) : r_(r) {}

  Provider provider(const Provider& base, const Provider& update) {
    Provider out = update;
    clear_notes(out);
    out.note = base.note;
    where_ = "provider " + base.name + ": ";
    list(base.keywords, out.keywords, "keyword", [](const Keyword& a, const Keyword& b) { return a.mask == b.mask; });
    list(base.levels, out.levels, "level", [](const Level& a, const Level& b) { return a.value == b.value; });
    list(base.channels, out.channels, "channel", [](const Channel&, const Channel&) { return false; });
    opcodes(base.opcodes, out.opcodes, "opcode");
    for (const Task& bt : base.tasks) {
      Task* t = find(out.tasks, bt.name);
      if (t) {
        t->note = bt.note;
        opcodes(bt.opcodes, t->opcodes, "task " + bt.name + " opcode");
      } else if (const Task* clash = find_if(out.tasks, [&](const Task& x) { return x.value == bt.value; })) {
        r_.dropped.push_back(where_ + "task " + bt.name + " (" + std::to_string(bt.value) + "): the value is task " + clash->name + "'s");
      } else {
        out.tasks.push_back(bt);
        base_only_.insert("task " + bt.name);
        for (const Opcode& o : bt.opcodes) base_only_.insert("task " + bt.name + " opcode " + o.name);
      }
    }
    for (const Map& bm : base.maps) {
      Map* m = find(out.maps, bm.name);
      if (!m) {
        out.maps.push_back(bm);
        base_only_.insert("map " + bm.name);
        continue;
      }
      m->note = bm.note;
      for (const MapEntry& be : bm.entries) {
        auto same = [&](const MapEntry& e) { return e.value == be.value; };
        if (MapEntry* e = find_if(m->entries, same)) {
          e->note = be.note;
        } else {
          m->entries.push_back(be);
          r_.kept.push_back(where_ + "map " + bm.name + " entry " + be.value_text + " '" + be.message + "'");
        }
      }
    }
    for (const Template& bt : base.templates) {
      auto same = [&](const Template& t) { return t.tid == bt.tid; };
      if (Template* t = find_if(out.templates, same)) {
        t->note = bt.note;
        fields(bt.fields, t->fields, "template " + bt.tid + " field ");
      } else {
        out.templates.push_back(bt);
        base_only_.insert("template " + bt.tid);
      }
    }
    events(base.events, out);
    return out;
  }

 private:
  template <class T, class Pred>
  static T* find_if(std::vector<T>& v, Pred pred) {
    auto it = std::find_if(v.begin(), v.end(), pred);
    return it == v.end() ? nullptr : &*it;
  }
  template <class T>
  static T* find(std::vector<T>& v, const std::string& name) {
    return find_if(v, [&](const T& x) { return x.name == name; });
  }

  // Named items: a match takes base's note; a base-only item is kept unless it clashes.
  template <class T, class Clash>
  void list(const std::vector<T>& base, std::vector<T>& out, const std::string& what, Clash clash) {
    for (const T& b : base) {
      if (T* x = find(out, b.name)) {
        x->note = b.note;
      } else if (const T* c = find_if(out, [&](const T& o) { return clash(o, b); })) {
        r_.dropped.push_back(where_ + what + " " + b.name + ": clashes with " + c->name);
      } else {
        out.push_back(b);
        r_.kept.push_back(where_ + what + " " + b.name);
      }
    }
  }
  // Opcodes only the base has are declarations like tasks and templates: see prune().
  void opcodes(const std::vector<Opcode>& base, std::vector<Opcode>& out, const std::string& scope) {
    for (const Opcode& b : base) {
      if (Opcode* x = find(out, b.name)) x->note = b.note;
      else if (const Opcode* c = find_if(out, [&](const Opcode& o) { return o.value == b.value; }))
        r_.dropped.push_back(where_ + scope + " " + b.name + ": clashes with " + c->name);
      else {
        out.push_back(b);
        base_only_.insert(scope + " " + b.name);
      }
    }
  }

  void fields(const std::vector<Field>& base, std::vector<Field>& out, const std::string& path) {
    for (const Field& bf : base) {
      Field* f = find(out, bf.name);
      if (!f) continue;
      f->note = bf.note;
      if (f->map_name.empty() && !bf.map_name.empty()) {
        f->map_name = bf.map_name;
        r_.kept.push_back(where_ + path + bf.name + " map " + bf.map_name);
      }
      fields(bf.members, f->members, path + bf.name + ".");
    }
  }

  static bool has_opcode(const Provider& p, const Event& e) {
    if (e.opcode.empty()) return true;
    auto named = [&](const Opcode& o) { return o.name == e.opcode; };
    for (const Task& t : p.tasks)
      if (t.name == e.task && std::any_of(t.opcodes.begin(), t.opcodes.end(), named)) return true;
    return std::any_of(p.opcodes.begin(), p.opcodes.end(), named) ||
           std::any_of(standard_opcodes().begin(), standard_opcodes().end(), named);
  }

  // Why a base-only event cannot stand in `p`; empty when it can.
  static std::string unresolved(const Provider& p, const Event& e) {
    if (!e.template_name.empty() && !p.find_template(e.template_name)) return "template " + e.template_name + " is gone";
    if (!e.task.empty() && !p.find_task(e.task)) return "task " + e.task + " is gone";
    if (!has_opcode(p, e)) return "opcode " + e.opcode + " is gone";
    for (const std::string& k : e.keywords)
      if (std::none_of(p.keywords.begin(), p.keywords.end(), [&](const Keyword& x) { return x.name == k; }))
        return "keyword " + k + " is gone";
    return {};
  }

  void events(const std::vector<Event>& base, Provider& out) {
    const std::size_t update_events = out.events.size();
    for (const Event& be : base) {
      auto same = [&](const Event& e) { return e.value == be.value && e.version == be.version; };
      if (Event* e = find_if(out.events, same)) {
        e->note = be.note;
        continue;
      }
      auto moved = [&](const Event& e) { return !be.symbol.empty() && e.symbol == be.symbol; };
      if (const Event* e = find_if(out.events, moved)) {
        r_.dropped.push_back(where_ + event_name(be) + ": the update has it as " + event_name(*e));
        continue;
      }
      if (std::string why = unresolved(out, be); !why.empty()) {
        r_.dropped.push_back(where_ + event_name(be) + ": " + why);
        continue;
      }
      out.events.push_back(be);
      r_.kept.push_back(where_ + event_name(be));
    }
    prune(out, update_events);
  }

  static void used_maps(const std::vector<Field>& fields, std::set<std::string>& used) {
    for (const Field& f : fields) {
      if (!f.map_name.empty()) used.insert("map " + f.map_name);
      used_maps(f.members, used);
    }
  }

  // Declarations only the base has (tasks, opcodes, maps, templates) stay while
  // something kept uses them: events kept from the base, fields for maps.
  void prune(Provider& out, std::size_t update_events) {
    std::set<std::string> used;
    for (std::size_t i = update_events; i < out.events.size(); ++i) {
      const Event& e = out.events[i];
      used.insert("template " + e.template_name);
      used.insert("task " + e.task);
      used.insert("task " + e.task + " opcode " + e.opcode);
      used.insert("opcode " + e.opcode);
    }
    for (const Template& t : out.templates) used_maps(t.fields, used);
    auto keep = [&](const std::string& key) {
      if (!base_only_.count(key)) return true;
      if (used.count(key)) r_.kept.push_back(where_ + key);
      else r_.dropped.push_back(where_ + key + ": nothing kept uses it");
      return used.count(key) != 0;
    };
    std::erase_if(out.templates, [&](const Template& t) { return !keep("template " + t.tid); });
    std::erase_if(out.maps, [&](const Map& m) { return !keep("map " + m.name); });
    std::erase_if(out.opcodes, [&](const Opcode& o) { return !keep("opcode " + o.name); });
    std::erase_if(out.tasks, [&](Task& t) {
      std::erase_if(t.opcodes, [&](const Opcode& o) { return !keep("task " + t.name + " opcode " + o.name); });
      return !keep("task " + t.name);
    });
    base_only_.clear();
  }

  MergeResult& r_;
  std::string where_;
  std::set<std::string> base_only_;  // "task X", "task X opcode Y", "opcode Y", "map M", "template T"
};

}  // namespace

MergeResult merge_manifests(const Manifest& base, const Manifest& update) {
  MergeResult r;
  r.manifest.path = base.path;
  r.manifest.note = base.note;
  Merger merger(r);
  std::vector<bool> matched(base.providers.size());
  for (const Provider& up : update.providers) {
    std::size_t i = 0;
    while (i < base.providers.size() && base.providers[i].name != up.name &&
           (up.guid.is_zero() || !(base.providers[i].guid == up.guid)))
      ++i;
    if (i == base.providers.size()) {
      Provider p = up;
      clear_notes(p);
      r.manifest.providers.push_back(std::move(p));
      continue;
    }
    matched[i] = true;
    r.manifest.providers.push_back(merger.provider(base.providers[i], up));
  }
  for (std::size_t i = 0; i < base.providers.size(); ++i) {
    if (matched[i]) continue;
    r.manifest.providers.push_back(base.providers[i]);
    r.kept.push_back("provider " + base.providers[i].name);
  }
  return r;
}

}  // namespace clretw::gen
