#include "clretw/gen/validate.h"

#include <algorithm>
#include <bit>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>

#include "clretw/gen/checks.h"
#include "clretw/gen/frontend.h"
#include "clretw/gen/loader.h"
#include "clretw/gen/rules.h"
#include "clretw/gen/schema_builder.h"

namespace clretw::gen {

namespace {

std::string hex(std::uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

std::string event_name(const Event& e) {
  return "event '" + e.symbol + "' (" + std::to_string(e.value) + " v" + std::to_string(e.version) + ")";
}

bool same_loc(Loc a, Loc b) { return a.line == b.line && a.col == b.col; }

// The outTypes that render an inType. Each inType also accepts its own natural
// form; the lists follow the manifest schema's documentation, a little
// generously where real manifests (and mc.exe) accept more.
bool outtype_fits(InType in, OutType out) {
  using O = OutType;
  auto any = [out](std::initializer_list<OutType> l) { return std::find(l.begin(), l.end(), out) != l.end(); };
  switch (in) {
    case InType::Int8: return any({O::Byte, O::String});
    case InType::UInt8: return any({O::UnsignedByte, O::HexInt8, O::String, O::Boolean});
    case InType::Int16: return any({O::Short});
    case InType::UInt16: return any({O::UnsignedShort, O::HexInt16, O::Port, O::String});
    case InType::Int32: return any({O::Int, O::HResult});
    case InType::UInt32:
      return any({O::UnsignedInt, O::HexInt32, O::Pid, O::Tid, O::IPv4, O::EtwTime, O::ErrorCode, O::Win32Error,
                  O::NtStatus, O::HResult, O::CodePointer});
    case InType::Int64: return any({O::Long});
    case InType::UInt64: return any({O::UnsignedLong, O::HexInt64, O::EtwTime, O::CodePointer});
    case InType::HexInt32: return any({O::HexInt32, O::UnsignedInt, O::Win32Error, O::NtStatus, O::HResult});
    case InType::HexInt64: return any({O::HexInt64, O::UnsignedLong});
    case InType::Float: return any({O::Float});
    case InType::Double: return any({O::Double});
    case InType::Boolean: return any({O::Boolean});
    case InType::Guid: return any({O::Guid});
    case InType::Pointer: return any({O::HexInt64, O::HexInt32, O::UnsignedLong, O::CodePointer});
    case InType::FileTime:
    case InType::SystemTime: return any({O::DateTime, O::DateTimeCultureInsensitive, O::CimDateTime});
    case InType::UnicodeString: return any({O::String, O::Xml, O::Json});
    case InType::AnsiString: return any({O::String, O::Xml, O::Json, O::Utf8});
    case InType::Binary: return any({O::HexBinary, O::IPv6, O::SocketAddress, O::Pkcs7WithTypeInfo});
    case InType::Sid: return any({O::String});
    case InType::Struct: return false;
  }
  return false;
}

bool has_fixed_size(InType t) { return scalar_size(t, 8) != 0; }

class Validator {
 public:
  Validator(const Manifest& m, Diagnostics& d) : m_(m), diags_(d) {
    // Values the loader could not read are 0 in the model: not range-checked again.
    for (const Diagnostic& x : d.items())
      if (is(x, RuleId::bad_number)) unreadable_.push_back(x.loc);
  }

  void run() {
    providers();
    strings();
    for (std::size_t i = 0; i < m_.providers.size(); ++i) {
      const Provider& p = m_.providers[i];
      uniqueness(p);
      references(p);
      extents(p);
      ranges(p);
      types(p);
      maps(p);
      templates(p);
      versions(p);
    }
    symbols();
    payload_sizes();
  }

 private:
  Diagnostic& report(RuleId rule, Loc loc, std::string message) {
    return gen::report(diags_, rule, m_.path, loc, std::move(message));
  }
  // A conflict: `message` at `loc`, and a note at the item it conflicts with.
  Diagnostic& conflict(RuleId code, Loc loc, std::string message, Loc other, std::string note) {
    Diagnostic& d = report(code, loc, std::move(message));
    d.related.push_back({m_.path, other, std::move(note)});
    return d;
  }
  bool readable(Loc loc) const {
    return std::none_of(unreadable_.begin(), unreadable_.end(), [&](Loc l) { return same_loc(l, loc); });
  }

  // Reports every item whose key was seen before; `describe` names an item.
  template <class T, class KeyFn, class DescribeFn>
  void unique(const std::vector<T>& items, RuleId code, KeyFn key, DescribeFn describe,
              const std::string& what) {
    std::map<decltype(key(items[0])), const T*> seen;
    for (const T& item : items) {
      auto k = key(item);
      if (!k) continue;
      auto [it, inserted] = seen.emplace(k, &item);
      if (inserted) continue;
      const std::string self = describe(item), first = describe(*it->second);
      conflict(code, item.loc, self == first ? self + " is declared twice" : self + " has the same " + what + " as " + first,
               it->second->loc, first + " is first declared here");
    }
  }

  // --- M101: providers; M116: string ids --------------------------------------
  void providers() {
    auto describe = [](const Provider& p) { return "provider '" + p.name + "'"; };
    unique(m_.providers, RuleId::duplicate_provider, [](const Provider& p) { return std::optional<std::string>(p.name); }, describe,
           "name");
    unique(m_.providers, RuleId::duplicate_provider,
           [](const Provider& p) -> std::optional<std::string> {
             auto g = Guid::parse(p.guid_text);
             if (!g) return std::nullopt;
             return g->to_string();
           },
           describe, "GUID");
  }

  void strings() {
    std::map<std::pair<std::string, std::string>, const StringEntry*> seen;
    for (const StringEntry& s : m_.strings) {
      auto [it, inserted] = seen.emplace(std::make_pair(s.culture, s.id), &s);
      if (!inserted)
        conflict(RuleId::duplicate_string_id, s.loc, "string '" + s.id + "' is declared twice in the string table of culture '" + s.culture +
                                    "'; the first declaration is used",
                 it->second->loc, "string '" + s.id + "' is first declared here");
    }
  }

  // --- M102-M115: names, values and pairs that must be unique -------------------
  void uniqueness(const Provider& p) {
    auto opt = [](const std::string& s) { return s.empty() ? std::nullopt : std::optional<std::string>(s); };
    auto keyword = [](const Keyword& k) { return "keyword '" + k.name + "'"; };
    unique(p.keywords, RuleId::duplicate_keyword_name, [&](const Keyword& k) { return opt(k.name); }, keyword, "name");
    // Masks: any shared bit, not just equal masks.
    for (std::size_t i = 0; i < p.keywords.size(); ++i)
      for (std::size_t j = 0; j < i; ++j) {
        const Keyword& a = p.keywords[i];
        const Keyword& b = p.keywords[j];
        if ((a.mask & b.mask) == 0) continue;
        conflict(RuleId::duplicate_keyword_mask, a.loc,
                 "keyword '" + a.name + "' (mask " + hex(a.mask) + ") shares bits " + hex(a.mask & b.mask) +
                     " with keyword '" + b.name + "' (mask " + b.mask_text + ")",
                 b.loc, "keyword '" + b.name + "' is declared here")
            .hint = "give each keyword a bit of its own";
        break;
      }

    auto task = [](const Task& t) { return "task '" + t.name + "'"; };
    unique(p.tasks, RuleId::duplicate_task_name, [&](const Task& t) { return opt(t.name); }, task, "name");
    unique(p.tasks, RuleId::duplicate_task_value, [](const Task& t) { return std::optional<std::uint32_t>(t.value); },
           [](const Task& t) { return "task '" + t.name + "' (value " + std::to_string(t.value) + ")"; }, "value");

    auto opcodes = [&](const std::vector<Opcode>& ops, const std::string& scope) {
      auto describe = [&](const Opcode& o) { return "opcode '" + o.name + "'" + scope; };
      unique(ops, RuleId::duplicate_opcode_name, [&](const Opcode& o) { return opt(o.name); }, describe, "name");
      unique(ops, RuleId::duplicate_opcode_value, [](const Opcode& o) { return std::optional<std::uint32_t>(o.value); },
             [&](const Opcode& o) { return "opcode '" + o.name + "' (value " + std::to_string(o.value) + ")" + scope; },
             "value");
    };
    opcodes(p.opcodes, "");
    for (const Task& t : p.tasks) opcodes(t.opcodes, " of task '" + t.name + "'");

    auto level = [](const Level& l) { return "level '" + l.name + "' (value " + std::to_string(l.value) + ")"; };
    unique(p.levels, RuleId::duplicate_level, [&](const Level& l) { return opt(l.name); }, level, "name");
    unique(p.levels, RuleId::duplicate_level, [](const Level& l) { return std::optional<std::uint32_t>(l.value); }, level, "value");

    auto channel = [](const Channel& c) { return "channel '" + c.name + "'"; };
    unique(p.channels, RuleId::duplicate_channel, [&](const Channel& c) { return opt(c.name); }, channel, "name");
    unique(p.channels, RuleId::duplicate_channel, [&](const Channel& c) { return opt(c.chid); }, channel, "chid");
    unique(p.channels, RuleId::duplicate_channel, [](const Channel& c) { return c.value; }, channel, "value");

    unique(p.templates, RuleId::duplicate_template_id, [&](const Template& t) { return opt(t.tid); },
           [](const Template& t) { return "template '" + t.tid + "'"; }, "tid");
    unique(p.maps, RuleId::duplicate_map_name, [&](const Map& mp) { return opt(mp.name); },
           [](const Map& mp) { return std::string(mp.bitmap ? "bitMap '" : "valueMap '") + mp.name + "'"; }, "name");
    unique(p.events, RuleId::duplicate_event,
           [](const Event& e) { return std::optional<std::pair<std::uint32_t, std::uint32_t>>({e.value, e.version}); },
           event_name, "value and version");
    unique(p.events, RuleId::duplicate_event_symbol, [&](const Event& e) { return opt(e.symbol); }, event_name, "symbol");

    for (const Template& t : p.templates) field_names(t.fields, "template '" + t.tid + "'");
  }

  void field_names(const std::vector<Field>& fields, const std::string& scope) {
    unique(fields, RuleId::duplicate_field_name,
           [](const Field& f) { return f.name.empty() ? std::nullopt : std::optional<std::string>(f.name); },
           [&](const Field& f) { return "field '" + f.name + "' of " + scope; }, "name");
    for (const Field& f : fields)
      if (f.is_struct) field_names(f.members, "struct '" + f.name + "' in " + scope);
  }

  // M114, M117: mc.exe turns these symbols into macros of one C header. Two
  // identical definitions (same kind, same value, different providers) compile;
  // anything else does not.
  void symbols() {
    struct Use {
      Loc loc;
      std::string what;
      std::size_t provider;
      char kind;
      std::uint64_t value;
    };
    std::map<std::string, Use> seen;
    std::size_t provider = 0;
    auto add = [&](const std::string& symbol, Loc loc, const std::string& what, char kind, std::uint64_t value) {
      if (symbol.empty()) return;
      auto [it, inserted] = seen.emplace(symbol, Use{loc, what, provider, kind, value});
      if (inserted) return;
      const Use& first = it->second;
      if (first.provider != provider && first.kind == kind && first.value == value && kind != 'p')
        conflict(RuleId::shared_symbol, loc, what + " of provider '" + m_.providers[provider].name + "' reuses symbol '" + symbol +
                                  "' of " + first.what + " of provider '" + m_.providers[first.provider].name +
                                  "' (same value, so the definitions agree)",
                 first.loc, first.what + " is declared here");
      else
        conflict(RuleId::duplicate_symbol, loc, what + " uses symbol '" + symbol + "', already used by " + first.what, first.loc,
                 first.what + " is declared here");
    };
    for (; provider < m_.providers.size(); ++provider) {
      const Provider& p = m_.providers[provider];
      add(p.symbol, p.loc, "provider '" + p.name + "'", 'p', 0);
      for (const Keyword& k : p.keywords) add(k.symbol, k.loc, "keyword '" + k.name + "'", 'k', k.mask);
      for (const Level& l : p.levels) add(l.symbol, l.loc, "level '" + l.name + "'", 'l', l.value);
      for (const Channel& c : p.channels) add(c.symbol, c.loc, "channel '" + c.name + "'", 'c', c.value.value_or(0));
      for (const Opcode& o : p.opcodes) add(o.symbol, o.loc, "opcode '" + o.name + "'", 'o', o.value);
      for (const Task& t : p.tasks) {
        add(t.symbol, t.loc, "task '" + t.name + "'", 't', t.value);
        for (const Opcode& o : t.opcodes)
          add(o.symbol, o.loc, "opcode '" + o.name + "' of task '" + t.name + "'", 'o', (t.value << 8) | o.value);
      }
    }
  }

  // --- M201-M209, M214, M215: references --------------------------------------
  void message(const std::string& ref, Loc loc, const std::string& what) {
    if (ref.empty()) return;
    if (!string_ref_id(ref)) {
      report(RuleId::malformed_message, loc, what + ": message '" + ref + "' is not a $(string.ID) reference").hint =
          "put the text in the string table and write message=\"$(string.ID)\"";
      return;
    }
    if (!m_.lookup_message(ref))
      report(RuleId::unresolved_string, loc, what + ": message '" + ref + "' names no string of the string table");
  }

  void references(const Provider& p) {
    message(p.message_ref, p.loc, "provider '" + p.name + "'");
    for (const Keyword& k : p.keywords) message(k.message_ref, k.loc, "keyword '" + k.name + "'");
    for (const Level& l : p.levels) message(l.message_ref, l.loc, "level '" + l.name + "'");
    for (const Channel& c : p.channels) message(c.message_ref, c.loc, "channel '" + c.name + "'");
    for (const Opcode& o : p.opcodes) message(o.message_ref, o.loc, "opcode '" + o.name + "'");
    for (const Task& t : p.tasks) {
      message(t.message_ref, t.loc, "task '" + t.name + "'");
      for (const Opcode& o : t.opcodes) message(o.message_ref, o.loc, "opcode '" + o.name + "' of task '" + t.name + "'");
    }
    for (const Map& mp : p.maps)
      for (const MapEntry& e : mp.entries) message(e.message_ref, e.loc, "entry " + e.value_text + " of map '" + mp.name + "'");

    std::set<std::string> used_templates;
    for (const Event& e : p.events) {
      const std::string what = event_name(e);
      message(e.message_ref, e.loc, what);
      used_templates.insert(e.template_name);
      if (!e.template_name.empty() && e.template_index == kUnresolved)
        report(RuleId::unresolved_template, e.loc, what + " names template '" + e.template_name + "', which does not exist");
      if (!e.task.empty() && e.task_index == kUnresolved)
        report(RuleId::unresolved_task, e.loc, what + " names task '" + e.task + "', which does not exist");
      if (!e.opcode.empty() && !find_opcode(p, e)) {
        Diagnostic& d = report(RuleId::unresolved_opcode, e.loc, what + " names opcode '" + e.opcode + "', which is neither standard, " +
                                                  "provider-wide nor declared in " +
                                                  (e.task.empty() ? "its task (it has none)" : "task '" + e.task + "'"));
        for (const Task& t : p.tasks)
          for (const Opcode& o : t.opcodes)
            if (o.name == e.opcode) {
              d.related.push_back({m_.path, o.loc, "opcode '" + o.name + "' is declared in task '" + t.name + "'"});
              d.hint = "an opcode declared inside a task is visible only to that task's events";
            }
      }
      for (const std::string& k : e.keywords)
        if (std::none_of(p.keywords.begin(), p.keywords.end(), [&](const Keyword& x) { return x.name == k; }))
          report(RuleId::unresolved_keyword, e.loc, what + " names keyword '" + k + "', which does not exist");
      if (!e.level.empty() &&
          std::none_of(p.levels.begin(), p.levels.end(), [&](const Level& l) { return l.name == e.level; }) &&
          std::none_of(standard_levels().begin(), standard_levels().end(),
                       [&](const Level& l) { return l.name == e.level; }))
        report(RuleId::unresolved_level, e.loc, what + " names level '" + e.level + "', which is neither standard nor declared").hint =
            "the standard levels are win:LogAlways, win:Critical, win:Error, win:Warning, win:Informational and "
            "win:Verbose";
      if (!e.channel.empty() && std::none_of(p.channels.begin(), p.channels.end(), [&](const Channel& c) {
            return c.name == e.channel || c.chid == e.channel;
          }))
        report(RuleId::unresolved_channel, e.loc, what + " names channel '" + e.channel + "', which is not declared");
    }

    std::set<std::string> used_maps;
    std::function<void(const std::vector<Field>&, const std::string&)> fields = [&](const std::vector<Field>& fs,
                                                                                   const std::string& scope) {
      for (const Field& f : fs) {
        if (f.is_struct) fields(f.members, scope);
        if (f.map_name.empty()) continue;
        used_maps.insert(f.map_name);
        if (f.map == kUnresolved)
          report(RuleId::unresolved_map, f.loc, "field '" + f.name + "' of " + scope + " names map '" + f.map_name +
                                    "', which does not exist");
      }
    };
    for (const Template& t : p.templates) {
      fields(t.fields, "template '" + t.tid + "'");
      if (!used_templates.count(t.tid))
        report(RuleId::unused_template, t.loc, "template '" + t.tid + "' is not used by any event of provider '" + p.name + "'");
    }
    for (const Map& mp : p.maps)
      if (!used_maps.count(mp.name))
        report(RuleId::unused_map, mp.loc, "map '" + mp.name + "' is not used by any field of provider '" + p.name + "'");
  }

  // --- M210-M213: count and length targets -------------------------------------
  // `outer` is the enclosing field list (the template's, for struct members).
  void extents(const std::vector<Field>& fields, const std::vector<Field>* outer, const std::string& scope) {
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const Field& f = fields[i];
      extent(fields, i, outer, scope, "count", f.count_text);
      extent(fields, i, outer, scope, "length", f.length_text);
      if (f.is_struct) extents(f.members, &fields, "struct '" + f.name + "'");
    }
  }

  void extent(const std::vector<Field>& fields, std::size_t i, const std::vector<Field>* outer,
              const std::string& scope, const char* attr, const std::string& text) {
    const Field& f = fields[i];
    if (attr == std::string_view("length") && takes_rest(f)) return;  // checked with the types (M404)
    const int resolved = attr == std::string_view("count") ? f.count_field : f.length_field;
    report_extent(diags_, m_.path, f, "field '" + f.name + "' of " + scope + ": " + attr + " '" + text + "'", scope,
                  check_extent(fields, i, text, resolved, outer));
  }

  void extents(const Provider& p) {
    for (const Template& t : p.templates) extents(t.fields, nullptr, "template '" + t.tid + "'");
  }

  // --- M301-M308: ranges --------------------------------------------------------
  void ranges(const Provider& p) {
    auto opcode = [&](const Opcode& o, const std::string& scope) {
      if (!readable(o.loc)) return;
      const std::string what = "opcode '" + o.name + "'" + scope + " has value " + std::to_string(o.value);
      if (o.value == 10)
        report(RuleId::opcode_value_10, o.loc, what + ", which part of the documentation reserves (user opcodes are 11..239)")
            .hint = "use a value in 11..239 (the .NET runtime's manifests use 10 in several tasks, so it is only a warning)";
      else if (o.value < 10 || o.value > 239)
        report(RuleId::opcode_out_of_range, o.loc, what + ", outside 11..239 (0..10 and 240..255 belong to the standard opcodes)");
    };
    for (const Opcode& o : p.opcodes) opcode(o, "");
    for (const Task& t : p.tasks) {
      for (const Opcode& o : t.opcodes) opcode(o, " of task '" + t.name + "'");
      if (readable(t.loc) && (t.value == 0 || t.value == 65535))
        report(RuleId::task_out_of_range, t.loc, "task '" + t.name + "' has value " + std::to_string(t.value) + ", outside 1..65534");
    }
    for (const Level& l : p.levels)
      if (readable(l.loc) && l.value < 16)
        report(RuleId::level_out_of_range, l.loc, "level '" + l.name + "' has value " + std::to_string(l.value) +
                                  ", outside 16..255 (0..15 are reserved for the standard levels)");
    for (const Keyword& k : p.keywords) {
      if (!readable(k.loc) || k.mask_text.empty()) continue;  // no mask: reported by the loader
      if (k.mask >> 48)
        report(RuleId::keyword_reserved_bits, k.loc, "keyword '" + k.name + "' has mask " + k.mask_text + ", which uses reserved bits " +
                                  hex(k.mask & 0xFFFF000000000000ull))
            .hint = "keyword bits 48..63 are reserved for Windows; use bits 0..47";
      if (k.mask == 0 || !std::has_single_bit(k.mask))
        report(RuleId::keyword_not_one_bit, k.loc, "keyword '" + k.name + "' has mask " + k.mask_text +
                                  (k.mask == 0 ? ", which has no bit set" : ", which has more than one bit set"));
    }
    for (std::size_t i = 8; i < p.channels.size(); ++i)
      report(RuleId::too_many_channels, p.channels[i].loc, "channel '" + p.channels[i].name + "' is channel number " +
                                            std::to_string(i + 1) + " of provider '" + p.name +
                                            "'; a provider can have at most 8");
    for (const Channel& c : p.channels)
      if (c.value && readable(c.loc) && (*c.value < 16 || *c.value > 255))
        report(RuleId::channel_out_of_range, c.loc, "channel '" + c.name + "' has value " + std::to_string(*c.value) + ", outside 16..255");
  }

  // --- M403-M407: types ---------------------------------------------------------
  // `top`: the fields are a template's (not a struct's members).
  void types(const std::vector<Field>& fields, const std::string& scope, bool top = false) {
    for (const Field& f : fields) {
      const std::string what = "field '" + f.name + "' of " + scope;
      if (f.is_struct) {
        if (!f.length_text.empty())
          report(RuleId::length_on_fixed_size, f.loc, what + ": a struct cannot have a length (its size comes from its members)");
        if (f.members.empty()) report(RuleId::empty_struct, f.loc, "struct '" + f.name + "' of " + scope + " has no members");
        types(f.members, "struct '" + f.name + "'");
      }
      if (f.count_const == 0u || f.length_const == 0u)
        report(RuleId::zero_count, f.loc, what + ": " + (f.count_const == 0u ? "count" : "length") + " is 0, so it is always empty");
      if (!f.in_type) continue;
      const InType t = *f.in_type;
      if (f.out_type && !outtype_fits(t, *f.out_type))
        report(RuleId::outtype_mismatch, f.loc, what + ": outType '" + f.out_type_text + "' is not a rendering of inType '" +
                                  f.in_type_text + "'");
      if (takes_rest(f) && (t != InType::Binary || !top || &f != &fields.back() || !f.count_text.empty()))
        report(RuleId::binary_without_length, f.loc,
               what + ": length '*' (the rest of the payload) is for a win:Binary that is its template's last field")
            .hint = "give the field a length (a number or an earlier integer field)";
      if (t == InType::Binary && f.length_text.empty())
        report(RuleId::binary_without_length, f.loc, what + ": win:Binary has no length, so its end cannot be found").hint =
            "add length=\"N\" or length=\"SizeField\" naming an earlier integer field (length=\"*\": the rest of the payload, for a template's last field)";
      if (has_fixed_size(t) && !f.length_text.empty() && !takes_rest(f))
        report(RuleId::length_on_fixed_size, f.loc, what + ": length '" + f.length_text + "' on " + f.in_type_text +
                                  ", whose size is fixed")
            .hint = "length applies to strings and win:Binary; for an array use count";
      if (!f.map_name.empty() && t != InType::UInt8 && t != InType::UInt16 && t != InType::UInt32)
        report(RuleId::map_on_non_integer, f.loc, what + ": map '" + f.map_name + "' on " + f.in_type_text +
                                  "; maps apply to win:UInt8, win:UInt16 and win:UInt32");
    }
  }

  void types(const Provider& p) {
    for (const Template& t : p.templates) types(t.fields, "template '" + t.tid + "'", true);
  }

  // --- M501-M504: maps ----------------------------------------------------------
  void maps(const Provider& p) {
    for (const Map& mp : p.maps) {
      const std::string what = std::string(mp.bitmap ? "bitMap '" : "valueMap '") + mp.name + "'";
      if (mp.entries.empty()) report(RuleId::empty_map, mp.loc, what + " has no entries");
      std::map<std::uint64_t, const MapEntry*> seen;
      for (const MapEntry& e : mp.entries) {
        if (mp.bitmap && readable(e.loc) && e.value == 0)
          report(RuleId::bitmap_zero_value, e.loc, "entry " + e.value_text + " of " + what + " names no bit; it can only mean 'no flag set'")
              .hint = "decoders show it only when the value is 0 (clretw does); others ignore it";
        else if (mp.bitmap && readable(e.loc) && !std::has_single_bit(e.value))
          report(RuleId::bitmap_not_power_of_two, e.loc, "entry " + e.value_text + " of " + what + " has more than one bit set").hint =
              "clretw prints such an entry when all of its bits are set, before entries of fewer bits (a named value inside "
              "a bit field); other decoders may name its bits one by one. For a plain enumeration use a valueMap";
        auto [it, inserted] = seen.emplace(e.value, &e);
        if (!inserted)
          conflict(RuleId::duplicate_map_value, e.loc, "entry " + e.value_text + " of " + what + " has the same value as entry " +
                                      it->second->value_text,
                   it->second->loc, "entry " + it->second->value_text + " is declared here");
        if (e.message_ref.empty())
          report(RuleId::map_entry_without_message, e.loc, "entry " + e.value_text + " of " + what + " has no message, so the value has no name");
      }
    }
  }

  // --- M601, M604: templates and versions ---------------------------------------
  void templates(const Provider& p) {
    for (const Template& t : p.templates)
      if (t.fields.empty())
        report(RuleId::empty_template, t.loc, "template '" + t.tid + "' declares no data; events using it have no payload").hint =
            "leave out the event's template attribute instead";
  }

  static bool same_field(const Field& a, const Field& b) {
    if (a.name != b.name || a.is_struct != b.is_struct || a.in_type_text != b.in_type_text ||
        a.count_text != b.count_text || a.length_text != b.length_text || a.members.size() != b.members.size())
      return false;
    for (std::size_t i = 0; i < a.members.size(); ++i)
      if (!same_field(a.members[i], b.members[i])) return false;
    return true;
  }

  // A decoder that meets a version newer than it knows reads it with the newest
  // layout it knows: that works only when versions append fields.
  void versions(const Provider& p) {
    std::map<std::uint32_t, std::vector<const Event*>> by_value;
    for (const Event& e : p.events) by_value[e.value].push_back(&e);
    static const std::vector<Field> kNone;
    auto fields_of = [&](const Event& e) -> const std::vector<Field>* {
      if (e.template_name.empty()) return &kNone;
      if (e.template_index == kUnresolved) return nullptr;
      return &p.templates[static_cast<std::size_t>(e.template_index)].fields;
    };
    for (auto& [value, list] : by_value) {
      std::stable_sort(list.begin(), list.end(), [](const Event* a, const Event* b) { return a->version < b->version; });
      for (std::size_t i = 1; i < list.size(); ++i) {
        const Event& prev = *list[i - 1];
        const Event& next = *list[i];
        const auto* a = fields_of(prev);
        const auto* b = fields_of(next);
        if (!a || !b || prev.version == next.version) continue;
        std::size_t k = 0;
        while (k < a->size() && k < b->size() && same_field((*a)[k], (*b)[k])) ++k;
        if (k == a->size()) continue;
        const Field& was = (*a)[k];
        std::string how;
        if (k >= b->size()) how = "drops field '" + was.name + "' and what follows";
        else if ((*b)[k].name != was.name)
          how = "has field '" + (*b)[k].name + "' where version " + std::to_string(prev.version) + " has '" +
                was.name + "' (position " + std::to_string(k + 1) + ")";
        else
          how = "changes field '" + was.name + "' (position " + std::to_string(k + 1) + ")" +
                ((*b)[k].in_type_text != was.in_type_text
                     ? " from " + was.in_type_text + " to " + (*b)[k].in_type_text
                     : std::string(" (count, length or members)"));
        conflict(RuleId::version_reorders_fields, next.loc,
                 event_name(next) + " " + how + " instead of appending to version " + std::to_string(prev.version) +
                     "'s fields",
                 prev.loc, event_name(prev) + " is declared here")
            .hint = "decoders read unknown newer versions with the newest layout they know; appending keeps them right";
      }
    }
  }

  // --- M602: payload size, from the layout engine -------------------------------
  void payload_sizes() {
    Diagnostics scratch;  // what the builder says is for `generate`; the validator's rules cover it
    auto schema = build_schema(m_, scratch);
    for (std::size_t pi = 0; pi < m_.providers.size() && pi < schema->providers().size(); ++pi) {
      const Provider& p = m_.providers[pi];
      const auto& records = schema->providers()[pi].templates;
      for (std::size_t t = 0; t < p.templates.size() && t < records.size(); ++t) {
        if (!records[t]) continue;
        const std::uint32_t min = records[t]->layout_for(4).min_size;
        if (min > kMaxPayload)
          report(RuleId::payload_exceeds_64k, p.templates[t].loc, "template '" + p.templates[t].tid + "' needs at least " +
                                                 std::to_string(min) + " bytes, more than the " +
                                                 std::to_string(kMaxPayload) + " an ETW event payload can hold")
              .hint = "use a count field instead of a large constant count or length";
      }
    }
  }

  static constexpr std::uint32_t kMaxPayload = 65535;

  const Manifest& m_;
  Diagnostics& diags_;
  std::vector<Loc> unreadable_;
};

}  // namespace

void validate(const Manifest& m, Diagnostics& diags) { Validator(m, diags).run(); }

std::optional<RuleOptions> parse_rule_options(const std::vector<std::string>& disable,
                                              const std::vector<std::string>& severity, std::string& error) {
  RuleOptions o;
  for (const std::string& key : disable) {
    const Rule* r = find_rule(key);
    if (!r) {
      error = "unknown rule '" + key + "' (see --list-rules)";
      return std::nullopt;
    }
    o.disabled.insert(std::string(r->code));
  }
  for (const std::string& spec : severity) {
    const auto eq = spec.find('=');
    const Rule* r = eq == std::string::npos ? nullptr : find_rule(spec.substr(0, eq));
    if (!r) {
      error = "'" + spec + "' is not RULE=error|warning with a rule from --list-rules";
      return std::nullopt;
    }
    const std::string level = spec.substr(eq + 1);
    if (level == "error") o.severity[std::string(r->code)] = Severity::error;
    else if (level == "warning") o.severity[std::string(r->code)] = Severity::warning;
    else {
      error = "severity '" + level + "' in '" + spec + "' is neither error nor warning";
      return std::nullopt;
    }
  }
  return o;
}

void apply_rule_options(Diagnostics& diags, const RuleOptions& options) {
  auto& items = diags.items();
  items.erase(std::remove_if(items.begin(), items.end(),
                             [&](const Diagnostic& d) { return options.disabled.count(d.code) != 0; }),
              items.end());
  for (Diagnostic& d : items)
    if (auto it = options.severity.find(d.code); it != options.severity.end()) d.severity = it->second;
}

namespace {

// Validates one loaded (or unloadable) manifest into `out`; false when the file
// could not be read (a file that is not well-formed XML is read: its errors say why).
bool validate_one(const std::optional<LoadedManifest>& l, Diagnostics& diags) {
  if (!l) return !unreadable(diags);
  validate(*l->manifest, diags);
  return true;
}

// Checked as written: no fix-ups; the rules that need a layout build their own.
const FrontEndOptions kAsWritten{.fixups = FrontEndOptions::Fixups::none, .schema = false};

std::string trimmed(std::string_view s) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return std::string(s);
}

// Marks the warnings of `diags` (one file's, rule options applied) that the file accepts, and reports
// acceptances that are malformed or accept nothing. An acceptance is a line of a comment (a comment of
// its own, or a line of a longer one, such as a manifest's header note that clretw-gen merge keeps).
void apply_acceptances(const std::string& text, const std::string& file, Diagnostics& diags, const RuleOptions& options) {
  static constexpr std::string_view kWord = "clretw-gen validate accepts ";
  Diagnostics found;
  std::uint32_t line = 1;
  std::size_t line_start = 0, counted = 0;
  for (std::size_t at = text.find("<!--"); at != std::string::npos; at = text.find("<!--", at + 4)) {
    const std::size_t end = text.find("-->", at + 4);
    if (end == std::string::npos) break;
    for (std::size_t from = at + 4; from < end;) {
      const std::size_t eol = std::min(text.find('\n', from), end);
      const std::string body = trimmed(std::string_view(text).substr(from, eol - from));
      const std::size_t start = text.find_first_not_of(" \t\r", from);  // where the body begins
      from = eol + 1;
      if (body.rfind(kWord, 0) != 0) continue;
      for (; counted < start; ++counted)
        if (text[counted] == '\n') ++line, line_start = counted + 1;
      const Loc loc{line, static_cast<std::uint32_t>(start - line_start + 1)};
      const std::size_t colon = body.find(':');
      const std::string names = trimmed(std::string_view(body).substr(kWord.size(), colon - kWord.size()));
      const std::string reason = colon == std::string::npos ? std::string() : trimmed(std::string_view(body).substr(colon + 1));
      // "M302", "opcode-value-10" or "M302 opcode-value-10": one rule, named once or twice.
      const std::size_t space = names.find(' ');
      const Rule* r = find_rule(names.substr(0, space));
      if (r && space != std::string::npos && find_rule(trimmed(names.substr(space))) != r) r = nullptr;
      if (!r || r->severity != Severity::warning || reason.empty()) {
        report(found, RuleId::bad_acceptance, file, loc,
               !r ? "'" + names + "' is not a rule, or names two (see --list-rules)"
                  : r->severity != Severity::warning
                      ? std::string(r->code) + " " + std::string(r->name) + " is an error: only warnings can be accepted"
                      : "accepting " + std::string(r->code) + " gives no reason after ':'");
        continue;
      }
      std::size_t used = 0;
      for (Diagnostic& d : diags.items())
        if (d.code == r->code && d.severity == Severity::warning && d.accepted.empty()) d.accepted = reason, ++used;
      if (!used && !options.disabled.count(std::string(r->code)))  // a disabled rule's acceptance is moot, not unused
        report(found, RuleId::unused_acceptance, file, loc,
               "accepts " + std::string(r->code) + " " + std::string(r->name) + ", and the file has no such warning");
    }
  }
  apply_rule_options(found, options);
  diags.append(found);
}

// Reads a file's text, for its acceptances; empty when it cannot be read (the loader said so).
std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void finish(ValidateResult& r, bool unreadable, const RuleOptions& options) {
  if (unreadable) r.status = 2;
  else if (r.diags.error_count() || (options.werror && r.diags.warning_count())) r.status = 1;
  else r.status = 0;
}

}  // namespace

ValidateResult validate_files(const std::vector<std::string>& paths, const RuleOptions& options) {
  ValidateResult r;
  bool unreadable = false;
  for (const std::string& path : paths) {
    Diagnostics d;
    unreadable |= !validate_one(load(path, kAsWritten, d), d);
    apply_rule_options(d, options);
    apply_acceptances(file_text(path), path, d, options);
    d.sort();
    r.diags.append(d);
  }
  finish(r, unreadable, options);
  return r;
}

ValidateResult validate_text(const std::string& text, const std::string& path, const RuleOptions& options) {
  ValidateResult r;
  const bool readable = validate_one(load_text(text, path, kAsWritten, r.diags), r.diags);
  apply_rule_options(r.diags, options);
  apply_acceptances(text, path, r.diags, options);
  r.diags.sort();
  finish(r, !readable, options);
  return r;
}

}  // namespace clretw::gen
