#include "clretw/gen/schema_builder.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "clretw/gen/checks.h"
#include "clretw/gen/rules.h"
#include "clretw/select.h"

namespace clretw::gen {

namespace {

// An event's name from its task and opcode: "GC" and "Start"; no opcode text for opcode 0.
struct TaskOpcode {
  std::string_view task, opcode;
  bool operator==(const TaskOpcode&) const = default;
};
TaskOpcode task_opcode(const Provider& p, const Event& e) {
  const Task& t = p.tasks[static_cast<std::size_t>(e.task_index)];
  return {t.message.empty() ? t.name : t.message,
          e.opcode_value != 0 ? std::string_view(e.opcode_message) : std::string_view()};
}

// The newest version of event `id`.
const Event& newest(const Provider& p, std::uint32_t id) {
  const Event* n = nullptr;
  for (const Event& e : p.events)
    if (e.value == id && (!n || e.version > n->version)) n = &e;
  return *n;
}

std::string_view without_prefix(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix ? s.substr(prefix.size()) : s;
}

}  // namespace

std::string display_name(const Provider& p, const Event& e) {
  if (e.task_index == kUnresolved) return e.symbol.empty() ? "EventID(" + std::to_string(e.value) + ")" : e.symbol;
  const TaskOpcode name = task_opcode(p, e);
  std::string out(name.task);
  if (!name.opcode.empty()) out.append("/").append(name.opcode);
  // Other events (other ids, another payload) may have the same task and opcode: ClrEtwAll.man's
  // MethodLoad (141), R2RGetEntryPoint (159) and R2RGetEntryPointStart (160) are all
  // CLRMethod/MethodLoad. The one the opcode names (its symbol ends with the opcode's name) keeps
  // the name; the others are TASK/SYMBOL, less what the owner's symbol has before the opcode's name
  // (Method/R2RGetEntryPoint; MethodJitInliningFailedAnsi beside MethodJitInliningFailed:
  // Method/JitInliningFailedAnsi), as TraceEvent names them. Ids of one payload under one name
  // (the kernel's Image/Load as 778 and 5130, GC/SampledObjectAllocation High and Low) stay one.
  const std::string& payload = newest(p, e.value).template_name;
  std::vector<std::uint32_t> ids{e.value};  // the events of this name, e's first
  for (const Event& o : p.events)
    if (o.value != e.value && o.task_index != kUnresolved && std::find(ids.begin(), ids.end(), o.value) == ids.end() &&
        task_opcode(p, o) == name && newest(p, o.value).template_name != payload)
      ids.push_back(o.value);
  if (ids.size() == 1 || e.symbol.empty()) return out;
  const std::string_view opcode = without_prefix(e.opcode, "win:");
  const Event* owner = nullptr;
  for (std::uint32_t id : ids) {
    const Event& n = newest(p, id);
    if (!opcode.empty() && without_version_suffix(n.symbol).ends_with(opcode)) {
      if (owner) return out;  // no one owner: a manifest of odd names keeps them as they are
      owner = &n;
    }
  }
  if (owner && owner->value == e.value) return out;
  std::string_view distinct = without_version_suffix(e.symbol);
  if (owner) {
    const std::string_view owner_symbol = without_version_suffix(owner->symbol);
    const std::string_view before = owner_symbol.substr(0, owner_symbol.size() - opcode.size());
    if (distinct.size() > before.size()) distinct = without_prefix(distinct, before);
  }
  return std::string(name.task).append("/").append(distinct);
}

class SchemaBuilder {
 public:
  SchemaBuilder(const Manifest& m, Diagnostics& d) : m_(m), diags_(d), out_(std::make_unique<BuiltSchema>()) {}

  std::unique_ptr<BuiltSchema> build() {
    for (const Provider& p : m_.providers) provider(p);
    out_->catalog_.providers = out_->provider_ptrs_;
    return std::move(out_);
  }

 private:
  std::string_view intern(const std::string& s) { return out_->strings_.emplace_back(s); }

  Diagnostic& error(RuleId rule, Loc loc, std::string message) { return report(diags_, rule, m_.path, loc, std::move(message)); }

  // Builds the record for a field list; nullptr (after reporting) when it cannot be laid out.
  // `where` names the field list ("template 'T'", "struct 'S'"); `outer` is the
  // enclosing one, for the members of a struct.
  const RecordDesc* record(const Provider& p, const std::string& name, const std::vector<Field>& fields, Loc loc,
                           const std::vector<const MapDesc*>& maps, const std::string& where,
                           const std::vector<Field>* outer = nullptr) {
    std::vector<FieldDesc>& fds = out_->fields_.emplace_back();
    bool ok = true;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const Field& f = fields[i];
      const std::string what = "field '" + f.name + "' of " + where;
      FieldDesc fd;
      fd.name = intern(f.name);
      if (f.is_struct) {
        fd.type = InType::Struct;
        fd.members = record(p, f.name, f.members, f.loc, maps, "struct '" + f.name + "'", &fields);
        if (!fd.members) ok = false;
      } else if (f.in_type) {
        fd.type = *f.in_type;
        if (f.out_type) fd.out = *f.out_type;
      } else {
        ok = false;  // unknown inType: reported by the loader
        fds.push_back(fd);
        continue;
      }
      if (!f.map_name.empty()) {
        if (f.map != kUnresolved) fd.map = maps[static_cast<std::size_t>(f.map)];
        else  // generation can go on without the map: a warning here, an error to validate
          error(RuleId::unresolved_map, f.loc, what + ": map '" + f.map_name + "' does not exist; values print as numbers")
              .severity = Severity::warning;
      }
      ok &= extent(fields, i, outer, where, f.count_text, f.count_field, f.count_const, fd.count, what, "count");
      if (takes_rest(f)) {  // no extent: the layout engine gives a win:Binary without one the rest of the payload
        if (fd.type != InType::Binary || outer || i + 1 != fields.size() || !f.count_text.empty()) {
          error(RuleId::binary_without_length, f.loc,
                what + ": length '*' (the rest of the payload) is for a win:Binary that is its template's last field");
          ok = false;
        }
      } else {
        ok &= extent(fields, i, outer, where, f.length_text, f.length_field, f.length_const, fd.length, what, "length");
      }
      if (fd.type == InType::Struct && fd.count.kind == Extent::Kind::none) fd.count = {Extent::Kind::constant, 1};
      if (fd.count.kind == Extent::Kind::constant && fd.count.value == 1 && fd.type != InType::Struct) fd.count = {};
      if (fd.count.kind != Extent::Kind::none && (fd.type == InType::Binary || fd.type == InType::Sid)) {
        error(RuleId::unsupported_array, f.loc, what + ": arrays of " + std::string(intype_name(fd.type)) + " are not supported");
        ok = false;
      }
      if (fd.type == InType::Binary && fd.length.kind == Extent::Kind::none && !takes_rest(f)) {
        error(RuleId::binary_without_length, f.loc, what + ": win:Binary has no length, so its end cannot be found");
        ok = false;
      }
      fds.push_back(fd);
    }
    if (!ok) return nullptr;
    RecordDesc& r = out_->records_.emplace_back();
    r.name = intern(name);
    r.fields = fds;
    r.line = loc.line;
    for (unsigned psi = 0; psi < 2; ++psi) {
      LayoutData& l = out_->layouts_.emplace_back(compute_layout(fds, psi ? 8 : 4));
      r.layout[psi] = Layout{l.places, l.segments, l.min_size};
    }
    if (r.layout[1].segments.size() > kMaxSegments) {
      error(RuleId::too_many_segments, loc, where + " has " + std::to_string(r.layout[1].segments.size() - 1) +
                             " variable-size items; at most " + std::to_string(kMaxSegments - 1) + " are supported");
      return nullptr;
    }
    return &r;
  }

  bool extent(const std::vector<Field>& fields, std::size_t i, const std::vector<Field>* outer, const std::string& scope,
              const std::string& text,
              int ref, const std::optional<std::uint32_t>& constant, Extent& out, const std::string& what,
              const char* attr) {
    if (text.empty()) return true;
    if (constant) {
      out = {Extent::Kind::constant, *constant};
      return true;
    }
    const std::string attribute = what + ": " + attr + " '" + text + "'";
    const ExtentCheck check = check_extent(fields, i, text, ref, outer);
    if (check.problem == ExtentCheck::Problem::none && check.target) {
      out = {Extent::Kind::field, static_cast<std::uint32_t>(ref)};
      return true;
    }
    if (check.problem == ExtentCheck::Problem::none)  // a number, but not one that fits in 32 bits
      error(RuleId::bad_number, fields[i].loc, attribute + " does not fit in 32 bits");
    report_extent(diags_, m_.path, fields[i], attribute, scope, check);
    return false;
  }

  void provider(const Provider& p) {
    BuiltSchema::ProviderTables tables;
    ProviderDesc& pd = out_->provider_descs_.emplace_back();
    pd.name = intern(p.name);
    pd.guid = p.guid;
    pd.symbol = intern(p.symbol);

    auto& kw = out_->keywords_.emplace_back();
    for (const Keyword& k : p.keywords) kw.push_back({intern(k.name), k.mask, intern(k.message)});
    pd.keywords = kw;
    auto& lv = out_->levels_.emplace_back();
    for (const Level& l : standard_levels()) lv.push_back({intern(l.name), static_cast<std::uint8_t>(l.value), intern(l.message)});
    for (const Level& l : p.levels) lv.push_back({intern(l.name), static_cast<std::uint8_t>(l.value), intern(l.message)});
    pd.levels = lv;
    auto& tk = out_->tasks_.emplace_back();
    auto& op = out_->opcodes_.emplace_back();
    for (const Opcode& o : p.opcodes) op.push_back({intern(o.name), 0, static_cast<std::uint8_t>(o.value), intern(o.message)});
    for (const Task& t : p.tasks) {
      tk.push_back({intern(t.name), static_cast<std::uint16_t>(t.value), intern(t.message)});
      for (const Opcode& o : t.opcodes)
        op.push_back({intern(o.name), static_cast<std::uint16_t>(t.value), static_cast<std::uint8_t>(o.value), intern(o.message)});
    }
    pd.tasks = tk;
    pd.opcodes = op;

    auto& map_ptrs = out_->map_lists_.emplace_back();
    for (const Map& mp : p.maps) {
      auto& entries = out_->map_entries_.emplace_back();
      for (const gen::MapEntry& e : mp.entries)
        entries.push_back(clretw::MapEntry{e.value, intern(e.message.empty() ? e.value_text : e.message)});
      map_ptrs.push_back(&out_->maps_.emplace_back(MapDesc{intern(mp.name), mp.bitmap, entries}));
    }
    pd.maps = map_ptrs;

    tables.templates.resize(p.templates.size());
    for (std::size_t t = 0; t < p.templates.size(); ++t) {
      const Template& tp = p.templates[t];
      tables.templates[t] = record(p, tp.tid, tp.fields, tp.loc, map_ptrs, "template '" + tp.tid + "'");
    }

    // Events, sorted by (id, version); the first of duplicate pairs wins.
    std::vector<std::size_t> order(p.events.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const Event& x = p.events[a];
      const Event& y = p.events[b];
      return x.value != y.value ? x.value < y.value : x.version < y.version;
    });
    auto& events = out_->events_.emplace_back();
    for (std::size_t k : order) {
      const Event& e = p.events[k];
      if (!events.empty() && events.back().id == e.value && events.back().version == e.version) {
        error(RuleId::duplicate_event, e.loc,
              "event " + std::to_string(e.value) + " version " + std::to_string(e.version) + " ('" + e.symbol +
                  "') is declared twice in provider '" + p.name + "'; the first declaration is used");
        continue;
      }
      EventDesc ed;
      ed.id = static_cast<std::uint16_t>(e.value);
      ed.version = static_cast<std::uint8_t>(e.version);
      ed.level = static_cast<std::uint8_t>(e.level_value);
      ed.opcode = static_cast<std::uint8_t>(e.opcode_value);
      ed.task = static_cast<std::uint16_t>(e.task_value);
      ed.keywords = e.keyword_mask;
      ed.symbol = intern(e.symbol);
      ed.name = intern(display_name(p, e));
      ed.task_name = intern(e.task);
      ed.opcode_name = intern(e.opcode);
      ed.message = intern(e.message);
      ed.line = e.loc.line;
      if (!e.template_name.empty()) {
        if (e.template_index == kUnresolved) {
          error(RuleId::unresolved_template, e.loc,
                "event '" + e.symbol + "' (" + std::to_string(e.value) + " v" + std::to_string(e.version) +
                    ") names template '" + e.template_name + "', which does not exist; the event is left out");
          continue;
        }
        ed.payload = tables.templates[static_cast<std::size_t>(e.template_index)];
        if (!ed.payload) {
          // The template's own error says why; this says what it costs.
          error(RuleId::unresolved_template, e.loc,
                "event '" + e.symbol + "' uses template '" + e.template_name +
                    "', which cannot be laid out (see its error); the event is left out")
              .severity = Severity::note;
          continue;
        }
      }
      events.push_back(ed);
      tables.event_source.push_back(static_cast<int>(k));
    }
    pd.events = events;
    auto& first = out_->first_version_.emplace_back();
    if (!events.empty()) {
      first.assign(std::size_t{events.back().id} + 1, kNoEvent);
      for (std::size_t i = events.size(); i-- > 0;) first[events[i].id] = static_cast<std::uint16_t>(i);
    }
    pd.first_version = first;
    tables.desc = &pd;
    out_->provider_ptrs_.push_back(&pd);
    out_->providers_.push_back(std::move(tables));
  }

  const Manifest& m_;
  Diagnostics& diags_;
  std::unique_ptr<BuiltSchema> out_;
};

std::unique_ptr<BuiltSchema> build_schema(const Manifest& m, Diagnostics& diags) { return SchemaBuilder(m, diags).build(); }

}  // namespace clretw::gen
