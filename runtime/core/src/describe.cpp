#include "clretw/describe.h"

#include <atomic>
#include <cstring>
#include <cstdio>

#include "clretw/format.h"
#include "numbers.h"

namespace clretw {

using detail::AddressTexts;
using detail::append_decimal;
using detail::append_ms_padded;
using detail::Pieces;

namespace {

// Walks without looking: checks a payload.
class NullVisitor final : public FieldVisitor {
 public:
  void scalar(const Scalar&) override {}
};

void append_csv(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char c : s) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

// A string literal, its length known at compile time.
template <std::size_t N>
void append_lit(std::string& out, const char (&text)[N]) {
  out.append(text, N - 1);
}

// An event's provider, id, version and name, in that order, each after its separator in `before`;
// the two names through `text` (JSON's escaping, CSV's quoting).
void append_identity(std::string& out, const EventRecord& r, const Described& d, const std::string_view (&before)[4],
                     void (*text)(std::string&, std::string_view)) {
  out += before[0];
  text(out, d.provider_name);
  out += before[1];
  append_decimal(out, r.id);
  out += before[2];
  append_decimal(out, r.version);
  out += before[3];
  text(out, d.name);
}

}  // namespace

SelfDescription::SelfDescription() noexcept {
  static std::atomic<std::uint64_t> next{1};
  serial_ = next.fetch_add(1, std::memory_order_relaxed);
}

Result<std::uint32_t> SelfDescription::check(Bytes payload) const {
  NullVisitor null;
  return visit(payload, null);
}

Described EventDescriber::describe(const EventRecord& r, FieldVisitor* visitor) const {
  Described d;
  describe(r, d, visitor);
  return d;
}

std::size_t EventDescriber::hash(const Guid& guid, std::uint16_t id, std::uint8_t version, std::uint64_t description) noexcept {
  std::uint64_t words[2];
  std::memcpy(words, &guid, sizeof words);
  std::uint64_t h = words[0] ^ (words[1] * 0x9E3779B97F4A7C15ull);
  h ^= (std::uint64_t{id} << 8 | version) * 0xC2B2AE3D27D4EB4Full;
  h ^= description * 0x94D049BB133111EBull;
  h ^= h >> 29;
  return static_cast<std::size_t>(h * 0xBF58476D1CE4E5B9ull);
}

namespace {
bool same(const std::string& a, std::string_view b) noexcept {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}
}  // namespace

// What the catalogs and the record's own description say of its type: found once per type.
void EventDescriber::make_type(const EventRecord& r, Type& t) const {
  t.lookup = catalogs_.find(r);
  t.name.clear();
  t.self_described = false;
  t.fixed_size[0] = t.fixed_size[1] = kVariable;
  if (t.lookup.event) {
    t.name.assign(t.lookup.event->name);
    if (const RecordDesc* payload = t.lookup.event->payload) {
      for (int wide = 0; wide < 2; ++wide)
        if (payload->layout[wide].fixed()) t.fixed_size[wide] = payload->layout[wide].segments[0].fixed;
    } else {
      t.fixed_size[0] = t.fixed_size[1] = 0;
    }
    return;
  }
  const SelfDescription* m = r.self_description;
  // CLR runtime events name no fields and have no name in their metadata:
  // without a manifest they are unknown. EventSource events describe themselves.
  if (m && (!m->name().empty() || m->has_fields())) {
    t.self_described = true;
    m->append_display_name(t.name);
    return;
  }
  if (!r.event_name.empty()) {
    t.name.assign(r.event_name);
  } else {
    t.name.assign("EventID(");
    append_decimal(t.name, r.id);
    t.name.push_back(')');
  }
}

// A new type in slot i (empty) of the table; kNoEventType when the describer numbers no more.
std::uint32_t EventDescriber::add_type(const EventRecord& r, std::uint64_t desc, std::size_t i) const {
  auto& types = cache_.types;
  auto& slots = cache_.slots;
  if (types.size() >= kMaxTypes) return kNoEventType;
  Type& t = *types.emplace_back(std::make_unique<Type>());
  t.guid = r.provider_guid;
  t.id = r.id;
  t.version = r.version;
  t.description = desc;
  t.provider_name.assign(r.provider_name);
  t.event_name.assign(r.event_name);
  make_type(r, t);
  const auto index = static_cast<std::uint32_t>(types.size() - 1);
  slots[i] = index + 1;
  if (types.size() * 2 > slots.size()) {  // at most half full
    std::vector<std::uint32_t> grown(slots.size() * 2, 0);
    for (std::uint32_t k = 0; k < types.size(); ++k) {
      const Type& y = *types[k];
      std::size_t j = hash(y.guid, y.id, y.version, y.description) & (grown.size() - 1);
      while (grown[j]) j = (j + 1) & (grown.size() - 1);
      grown[j] = k + 1;
    }
    slots.swap(grown);
  }
  return index;
}

// The number of r's type: a probe of the table (inlined into describe()), or a new type.
inline std::uint32_t EventDescriber::find_type(const EventRecord& r) const {
  auto& slots = cache_.slots;
  if (slots.empty()) slots.assign(64, 0);
  const std::size_t mask = slots.size() - 1;
  const std::uint64_t desc = description(r);
  for (std::size_t i = hash(r.provider_guid, r.id, r.version, desc) & mask;; i = (i + 1) & mask) {
    const std::uint32_t slot = slots[i];
    if (slot == 0) return add_type(r, desc, i);
    const Type& t = *cache_.types[slot - 1];
    if (t.guid == r.provider_guid && t.id == r.id && t.version == r.version && t.description == desc &&
        (t.description || (same(t.provider_name, r.provider_name) && same(t.event_name, r.event_name))))
      return slot - 1;
  }
}

void EventDescriber::describe(const EventRecord& r, Described& d, FieldVisitor* visitor) const {
  examine(r, identify(r, d), d, visitor, nullptr, nullptr);
}

const EventDescriber::Type& EventDescriber::identify(const EventRecord& r, Described& d) const {
  d.type = find_type(r);
  const Type* t = &cache_.uncounted;
  if (d.type != kNoEventType) t = cache_.types[d.type].get();
  else make_type(r, cache_.uncounted);
  const EventLookup& l = t->lookup;
  d.kind = Described::Kind::unknown;
  d.provider = l.provider;
  d.event = l.event;
  d.self_description = nullptr;
  // The catalog's name first: a source may name a provider only by its GUID (ETL).
  d.provider_name = l.provider ? l.provider->name : r.provider_name;
  d.name.assign(t->name);
  d.symbol = l.event ? l.event->symbol : std::string_view{};
  d.consumed = d.trailing = 0;
  d.undescribed = false;
  return *t;
}

void EventDescriber::examine(const EventRecord& r, const Type& t, Described& d, FieldVisitor* visitor,
                             const FieldPlan* plan, std::string* planned) const {
  const EventLookup& l = t.lookup;
  const auto size = static_cast<std::uint32_t>(r.payload.size());
  auto outcome = [&](const Result<std::uint32_t>& walked) {
    if (!walked) {
      d.kind = Described::Kind::malformed;
      d.error = walked.error();
      return;
    }
    d.kind = Described::Kind::decoded;
    d.consumed = *walked;
    d.trailing = size - *walked;
  };
  if (l.event) {
    // Checking only, a fixed layout is a length comparison.
    const std::uint32_t fixed = r.pointer_size == 8 ? t.fixed_size[1] : r.pointer_size == 4 ? t.fixed_size[0] : kVariable;
    if (!visitor && !plan && fixed != kVariable && size >= fixed && r.payload.size() < kVariable) {
      d.kind = Described::Kind::decoded;
      d.consumed = fixed;
      d.trailing = size - fixed;
    } else if (!l.event->payload) {
      outcome(std::uint32_t{0});
    } else if (plan) {
      outcome(plan->format(r.payload, *planned));
    } else if (visitor) {
      outcome(visit_fields(*l.event->payload, r.payload, r.pointer_size, *visitor));
    } else {
      outcome(check_fields(*l.event->payload, r.payload, r.pointer_size));
    }
    return;
  }
  if (t.self_described) {
    const SelfDescription* m = r.self_description;
    d.self_description = m;
    outcome(visitor ? m->visit(r.payload, *visitor) : m->check(r.payload));
    d.undescribed = !m->has_fields() && size != 0;
  }
}

const FieldPlan* EventDescriber::field_plan(const Described& d, unsigned ps, Format format) const {
  if (d.type == kNoEventType || !d.event || !d.event->payload || (ps != 4 && ps != 8)) return nullptr;
  Type& t = *cache_.types[d.type];
  const int f = format == Format::json, wide = ps == 8;
  if (!t.planned[f][wide]) {
    t.plan[f][wide] = FieldPlan::make(*d.event->payload, ps, format);
    t.planned[f][wide] = true;
  }
  return t.plan[f][wide].get();
}

std::string_view csv_header() { return "ms,provider,id,version,name,pid,tid,cpu,fields"; }

namespace {

// Why an event is not fully decoded, appended to `out`; nothing when it is.
void append_note(std::string& out, const EventRecord& r, const Described& d) {
  if (d.kind == Described::Kind::malformed) {
    out += "malformed: ";
    out += d.error.message();
  } else if (d.kind == Described::Kind::unknown) {
    out += "unknown event, ";
    append_decimal(out, r.payload.size());
    out += " payload bytes";
  } else if (d.undescribed) {
    append_decimal(out, d.trailing);
    out += " payload bytes the trace's metadata lists no fields for";
  } else if (d.trailing) {
    append_decimal(out, d.trailing);
    out += " trailing payload bytes";
  }
}

}  // namespace

const std::string& EventDescriber::line_head(const EventRecord& r, const Described& d, LineFormat format) const {
  const bool counted = d.type != kNoEventType;
  Type& t = counted ? *cache_.types[d.type] : cache_.uncounted;  // the uncounted type changes every event
  std::string& head = t.line_head[static_cast<int>(format)];
  if (!head.empty() && counted) return head;
  head.clear();
  switch (format) {
    case LineFormat::text:  // "  Provider/Name (1 v2)"
      append_lit(head, "  ");
      head += d.provider_name;
      head += '/';
      head += d.name;
      append_lit(head, " (");
      append_decimal(head, r.id);
      append_lit(head, " v");
      append_decimal(head, r.version);
      head += ')';
      break;
    case LineFormat::json:  // {"provider":...,"symbol":"...","ms":
      append_identity(head, r, d, {"{\"provider\":\"", "\",\"id\":", ",\"version\":", ",\"name\":\""},
                      append_json_escaped);
      append_lit(head, "\",\"symbol\":\"");
      append_json_escaped(head, d.symbol);
      append_lit(head, "\",\"ms\":");
      break;
    case LineFormat::csv:  // ,"Provider",1,2,"Name",
      append_identity(head, r, d, {",", ",", ",", ","}, append_csv);
      head += ',';
      break;
  }
  return head;
}

void format_event(const EventRecord& r, const EventDescriber& describer, double ms, LineFormat format, std::string& out,
                  Described* described) {
  // Reused buffers: a line costs no allocation once they are warm (one set per thread).
  thread_local std::string fields, note;
  thread_local AddressTexts addresses;
  thread_local Described local;
  Described& d = described ? *described : local;
  fields.clear();
  note.clear();
  const Format field_format = format == LineFormat::json ? Format::json : Format::text;
  const EventDescriber::Type& type = describer.identify(r, d);
  if (const FieldPlan* plan = describer.field_plan(d, r.pointer_size, field_format)) {
    describer.examine(r, type, d, nullptr, plan, &fields);
  } else {
    FieldFormatter f(fields, field_format);
    describer.examine(r, type, d, &f, nullptr, nullptr);
    if (d.kind == Described::Kind::decoded) f.finish();
    else fields.clear();
  }
  append_note(note, r, d);

  switch (format) {
    case LineFormat::text: {
      append_ms_padded(out, ms);
      out += describer.line_head(r, d, format);
      Pieces w(out);
      // What the source did not record (all bits set: a kernel event of no process, EventPipe's
      // events of no processor) is left out, not shown as 4294967295.
      w.lit("  ");
      if (r.process_id != kUnrecorded) {
        w.lit("pid=").dec(r.process_id);
        if (!r.process_name.empty()) {
          w.lit(" (").flush() += r.process_name;
          w.ch(')');
        }
        w.ch(' ');
      }
      if (r.thread_id != kUnrecorded && r.thread_id != ~std::uint64_t{0}) w.lit("tid=").dec(r.thread_id).ch(' ');
      if (r.processor != kUnrecorded) w.lit("cpu=").dec(r.processor).ch(' ');
      std::string& line = w.flush();
      line.pop_back();  // the last item's space
      if (line.back() == ' ') line.pop_back();  // (and the separator, when nothing was recorded)
      if (!fields.empty()) w.lit("  ").flush() += fields;
      if (!note.empty()) {
        w.lit("  [").flush() += note;
        w.ch(']');
      }
      if (!r.stack.empty()) w.lit("  stack=").dec(r.stack_depth()).lit(" frames");
      w.flush();
      break;
    }
    case LineFormat::json: {
      Pieces w(out);
      const std::string& head = describer.line_head(r, d, format);
      w.bytes(head.data(), head.size()).fixed4(ms);
      w.lit(",\"timestamp\":").dec(r.timestamp).lit(",\"pid\":").dec(r.process_id);
      if (!r.process_name.empty()) {
        append_json_escaped(w.lit(",\"process\":\"").flush(), r.process_name);
        w.ch('"');
      }
      w.lit(",\"tid\":").dec(r.thread_id);
      if (r.processor != kUnrecorded) w.lit(",\"cpu\":").dec(r.processor);  // as text: no processor, no "cpu"
      w.lit(",\"level\":").dec(r.level).lit(",\"keywords\":").dec(r.keywords);
      if (!r.activity_id.is_zero()) {
        r.activity_id.append_to(w.lit(",\"activity\":\"").flush());
        w.ch('"');
      }
      if (!r.related_activity_id.is_zero()) {
        r.related_activity_id.append_to(w.lit(",\"related_activity\":\"").flush());
        w.ch('"');
      }
      w.lit(",\"fields\":").flush() += fields.empty() ? std::string_view("{}") : std::string_view(fields);
      if (d.kind != Described::Kind::decoded || d.trailing) {
        w.lit(",\"status\":\"").flush() +=
            d.kind == Described::Kind::malformed ? "malformed" : d.kind == Described::Kind::unknown ? "unknown" : "decoded";
        append_json_escaped(w.lit("\",\"note\":\"").flush(), note);
        w.ch('"');
      }
      if (d.kind == Described::Kind::unknown) {  // what no decoder describes is shown, not dropped
        static constexpr char kHex[] = "0123456789abcdef";
        w.lit(",\"payload\":\"");
        for (std::uint8_t b : r.payload) w.ch(kHex[b >> 4]).ch(kHex[b & 15]);
        w.ch('"');
      }
      if (!r.stack.empty()) {  // often most of the line
        w.lit(",\"stack\":[");
        for (std::size_t i = 0, n = r.stack_depth(); i < n; ++i) {
          if (i) w.ch(',');
          const std::uint64_t address = r.stack_frame(i);
          w.put(AddressTexts::kMost, [&](char* p) { return addresses.write(p, address); });
        }
        w.ch(']');
      }
      w.ch('}').flush();
      break;
    }
    case LineFormat::csv: {
      const std::string& head = describer.line_head(r, d, format);
      Pieces w(out);
      w.fixed4(ms).bytes(head.data(), head.size());
      w.dec(r.process_id).ch(',').dec(r.thread_id).ch(',');
      if (r.processor != kUnrecorded) w.dec(r.processor);  // an empty cell where no processor was recorded
      w.ch(',').flush();
      if (!note.empty() && !fields.empty()) {  // "fields [note]"
        fields += " [";
        fields += note;
        fields += ']';
      }
      append_csv(out, fields.empty() ? note : fields);
      break;
    }
  }
}

}  // namespace clretw
