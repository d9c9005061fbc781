#include "clretw/describe.h"

#include <cstdio>

#include "clretw/format.h"

namespace clretw {

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

void append_ms(std::string& out, double ms, bool padded) {
  char buf[48];
  std::snprintf(buf, sizeof buf, padded ? "%12.4f" : "%.4f", ms);
  out += buf;
}

}  // namespace

Described EventDescriber::describe(const EventRecord& r, FieldVisitor* visitor) const {
  Described d;
  NullVisitor null;
  FieldVisitor& v = visitor ? *visitor : null;
  const EventLookup l = catalogs_.find(r);
  d.provider = l.provider;
  // The catalog's name first: a source may name a provider only by its GUID (ETL).
  d.provider_name = l.provider ? l.provider->name : r.provider_name;
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
    d.event = l.event;
    d.name = std::string(l.event->name);
    d.symbol = l.event->symbol;
    if (!l.event->payload) outcome(std::uint32_t{0});
    else outcome(visit_fields(*l.event->payload, r.payload, r.pointer_size, v));
    return d;
  }
  const SelfDescription* m = r.self_description;
  // CLR runtime events name no fields and have no name in their metadata:
  // without a manifest they are unknown. EventSource events describe themselves.
  if (m && (!m->name().empty() || m->has_fields())) {
    d.self_description = m;
    d.name = m->display_name();
    outcome(m->visit(r.payload, v));
    d.undescribed = !m->has_fields() && size != 0;
    return d;
  }
  d.kind = Described::Kind::unknown;
  d.name = !r.event_name.empty() ? std::string(r.event_name) : "EventID(" + std::to_string(r.id) + ")";
  return d;
}

std::string_view csv_header() { return "ms,provider,id,version,name,pid,tid,cpu,fields"; }

void format_event(const EventRecord& r, const EventDescriber& describer, double ms, LineFormat format, std::string& out,
                  Described* described) {
  std::string fields;
  Described d;
  {
    FieldFormatter f(fields, format == LineFormat::json ? Format::json : Format::text);
    d = describer.describe(r, &f);
    if (d.kind == Described::Kind::decoded) f.finish();
    else fields.clear();
  }
  std::string note;  // why an event is not fully decoded
  if (d.kind == Described::Kind::malformed) note = "malformed: " + d.error.message();
  else if (d.kind == Described::Kind::unknown) note = "unknown event, " + std::to_string(r.payload.size()) + " payload bytes";
  else if (d.undescribed) note = std::to_string(d.trailing) + " payload bytes the trace's metadata lists no fields for";
  else if (d.trailing) note = std::to_string(d.trailing) + " trailing payload bytes";

  switch (format) {
    case LineFormat::text: {
      append_ms(out, ms, true);
      out += "  ";
      out += d.provider_name;
      out += '/';
      out += d.name;
      out += " (" + std::to_string(r.id) + " v" + std::to_string(r.version) + ")";
      out += "  pid=" + std::to_string(r.process_id);
      if (!r.process_name.empty()) {
        out += " (";
        out += r.process_name;
        out += ')';
      }
      out += " tid=" + std::to_string(r.thread_id) +
             " cpu=" + std::to_string(r.processor);
      if (!fields.empty()) out += "  " + fields;
      if (!note.empty()) out += "  [" + note + "]";
      if (!r.stack.empty()) out += "  stack=" + std::to_string(r.stack_depth()) + " frames";
      break;
    }
    case LineFormat::json: {
      out += "{\"provider\":\"";
      append_json_escaped(out, d.provider_name);
      out += "\",\"id\":" + std::to_string(r.id) + ",\"version\":" + std::to_string(r.version) + ",\"name\":\"";
      append_json_escaped(out, d.name);
      out += "\",\"symbol\":\"";
      append_json_escaped(out, d.symbol);
      out += "\",\"ms\":";
      append_ms(out, ms, false);
      out += ",\"timestamp\":" + std::to_string(r.timestamp) + ",\"pid\":" + std::to_string(r.process_id);
      if (!r.process_name.empty()) {
        out += ",\"process\":\"";
        append_json_escaped(out, r.process_name);
        out += '"';
      }
      out += ",\"tid\":" + std::to_string(r.thread_id) + ",\"cpu\":" + std::to_string(r.processor) +
             ",\"level\":" + std::to_string(r.level) + ",\"keywords\":" + std::to_string(r.keywords);
      if (!r.activity_id.is_zero()) out += ",\"activity\":\"" + r.activity_id.to_string() + "\"";
      if (!r.related_activity_id.is_zero()) out += ",\"related_activity\":\"" + r.related_activity_id.to_string() + "\"";
      out += ",\"fields\":";
      out += fields.empty() ? "{}" : fields;
      if (d.kind != Described::Kind::decoded || d.trailing) {
        out += ",\"status\":\"";
        out += d.kind == Described::Kind::malformed ? "malformed" : d.kind == Described::Kind::unknown ? "unknown" : "decoded";
        out += "\",\"note\":\"";
        append_json_escaped(out, note);
        out += '"';
      }
      if (d.kind == Described::Kind::unknown) {  // what no decoder describes is shown, not dropped
        static constexpr char kHex[] = "0123456789abcdef";
        out += ",\"payload\":\"";
        for (std::uint8_t b : r.payload) {
          out += kHex[b >> 4];
          out += kHex[b & 15];
        }
        out += '"';
      }
      if (!r.stack.empty()) {
        out += ",\"stack\":[";
        for (std::size_t i = 0; i < r.stack_depth(); ++i) out += (i ? "," : "") + std::to_string(r.stack_frame(i));
        out += ']';
      }
      out += '}';
      break;
    }
    case LineFormat::csv: {
      append_ms(out, ms, false);
      out += ',';
      append_csv(out, d.provider_name);
      out += "," + std::to_string(r.id) + "," + std::to_string(r.version) + ",";
      append_csv(out, d.name);
      out += "," + std::to_string(r.process_id) + "," + std::to_string(r.thread_id) + "," + std::to_string(r.processor) + ",";
      append_csv(out, note.empty() ? fields : fields.empty() ? note : fields + " [" + note + "]");
      break;
    }
  }
  if (described) *described = std::move(d);
}

}  // namespace clretw
