// Events described by KernelTraceControl-MetaData's EventInfo and EventMapInfo (see event_info.h).
#include "event_info.h"

#include <optional>

#include "clretw/schema.h"
#include "clretw/text.h"

namespace clretw::etl::detail {
namespace {

constexpr std::size_t kInfoHeader = 112, kPropertySize = 24, kMapHeader = 16, kMapEntrySize = 8;
constexpr std::uint32_t kPropStruct = 0x1, kPropParamLength = 0x2, kPropParamCount = 0x4, kPropFixedCount = 0x20,
                        kPropCustomSchema = 0x80;
constexpr std::uint32_t kMapBitmap = 0x2;  // EVENTMAP_INFO_FLAG_MANIFEST_BITMAP (else a value map)

// Offsets in a TRACE_EVENT_INFO.
constexpr std::size_t kAtId = 32, kAtVersion = 34, kAtProviderName = 52, kAtTaskName = 68,
                      kAtOpcodeName = 72, kAtEventName = 92, kAtPropertyCount = 100, kAtTopLevelCount = 104;

// A UTF-16 string at `offset` of `b` (NUL-terminated, or ending with b): empty for offset 0 or past b.
std::string string_at(Bytes b, std::uint32_t offset) {
  if (offset == 0 || offset >= b.size()) return {};
  const std::size_t units = (b.size() - offset) / 2;
  std::size_t n = 0;
  while (n < units && load_le<std::uint16_t>(b.data() + offset + 2 * n) != 0) ++n;
  return Utf16View(b.data() + offset, n).to_utf8();
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

// TDH's in-types (the manifest's win: types, numbered) as the core's.
std::optional<InType> in_type(std::uint16_t t) {
  switch (t) {
    case 1: return InType::UnicodeString;
    case 2: return InType::AnsiString;
    case 3: return InType::Int8;
    case 4: return InType::UInt8;
    case 5: return InType::Int16;
    case 6: return InType::UInt16;
    case 7: return InType::Int32;
    case 8: return InType::UInt32;
    case 9: return InType::Int64;
    case 10: return InType::UInt64;
    case 11: return InType::Float;
    case 12: return InType::Double;
    case 13: return InType::Boolean;
    case 14: return InType::Binary;
    case 15: return InType::Guid;
    case 16: case 30: return InType::Pointer;  // win:Pointer, win:SizeT
    case 17: return InType::FileTime;
    case 18: return InType::SystemTime;
    case 19: return InType::Sid;
    case 20: return InType::HexInt32;
    case 21: return InType::HexInt64;
    default: return std::nullopt;
  }
}

struct Property {
  std::uint32_t flags = 0, name = 0, map_name = 0;
  std::uint16_t type = 0, out = 0;  // a struct: its first member and member count
  std::uint16_t count = 0, length = 0;
};

Property property(Bytes info, std::size_t i) {
  const std::uint8_t* p = info.data() + kInfoHeader + kPropertySize * i;
  return {load_le<std::uint32_t>(p), load_le<std::uint32_t>(p + 4), load_le<std::uint32_t>(p + 12),
          load_le<std::uint16_t>(p + 8), load_le<std::uint16_t>(p + 10), load_le<std::uint16_t>(p + 16),
          load_le<std::uint16_t>(p + 18)};
}

}  // namespace

Guid metadata_provider() {
  static const Guid g = *Guid::parse("bbccf6c1-6cd1-48c4-80ff-839482e37671");
  return g;
}

// The tables of one description: its fields, records and their layouts, with stable addresses.
struct EventInfos::Built {
  EventInfoDescription desc;
  std::deque<std::string> names;
  std::deque<std::vector<FieldDesc>> fields;
  std::deque<LayoutData> layouts;
  std::deque<RecordDesc> records;
};

void EventInfoDescription::append_display_name(std::string& out) const {
  if (name_.empty()) {
    out += "EventID(";
    out += std::to_string(id_);
    out += ')';
  } else {
    out += name_;
  }
  if (!opcode_.empty()) {
    out += '/';
    out += opcode_;
  }
}

Result<std::uint32_t> EventInfoDescription::visit(Bytes payload, FieldVisitor& visitor) const {
  if (!record_) return std::uint32_t{0};
  return visit_fields(*record_, payload, pointer_size_, visitor);
}

Result<std::uint32_t> EventInfoDescription::check(Bytes payload) const {
  if (!record_) return std::uint32_t{0};
  return check_fields(*record_, payload, pointer_size_);
}

EventInfos::EventInfos() = default;
EventInfos::~EventInfos() = default;

void EventInfos::take(const EventRecord& r) {
  const Bytes b = r.payload;
  auto refuse = [&](std::string why) {
    ++refused_;
    last_refusal_ = std::string(r.opcode == kEventInfo ? "EventInfo" : "EventMapInfo") + ": " + why;
  };
  if (r.opcode == kEventInfo) {
    if (b.size() < kInfoHeader)
      return refuse(std::to_string(b.size()) + " bytes, less than a TRACE_EVENT_INFO's " + std::to_string(kInfoHeader));
    const std::uint32_t properties = load_le<std::uint32_t>(b.data() + kAtPropertyCount);
    const std::uint32_t top = load_le<std::uint32_t>(b.data() + kAtTopLevelCount);
    if (properties > (b.size() - kInfoHeader) / kPropertySize)
      return refuse(std::to_string(properties) + " properties; " + std::to_string(b.size()) + " bytes hold at most " +
                    std::to_string((b.size() - kInfoHeader) / kPropertySize));
    if (top > properties)
      return refuse(std::to_string(top) + " top-level properties of " + std::to_string(properties));
    const Key key{guid_key(Guid::load(b.data())), load_le<std::uint16_t>(b.data() + kAtId), b[kAtVersion]};
    auto [it, added] = infos_.try_emplace(key);
    if (!added) return;  // merging tools repeat them: the first is kept
    it->second.bytes.assign(b.begin(), b.end());
    ++taken_;
  } else if (r.opcode == kEventMapInfo) {
    if (b.size() < 16 + kMapHeader)
      return refuse(std::to_string(b.size()) + " bytes, less than a GUID and an EVENT_MAP_INFO's " + std::to_string(kMapHeader));
    const Bytes m = b.subspan(16);
    const std::uint32_t flags = load_le<std::uint32_t>(m.data() + 4), count = load_le<std::uint32_t>(m.data() + 8);
    if (count > (m.size() - kMapHeader) / kMapEntrySize)
      return refuse(std::to_string(count) + " entries; " + std::to_string(m.size()) + " bytes hold at most " +
                    std::to_string((m.size() - kMapHeader) / kMapEntrySize));
    std::string name = string_at(m, load_le<std::uint32_t>(m.data()));
    if (name.empty()) return refuse("a map without a name");
    auto& slot = maps_[{guid_key(Guid::load(b.data())), name}];
    if (slot) return;  // the first is kept
    auto map = std::make_unique<Map>();
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::uint8_t* e = m.data() + kMapHeader + kMapEntrySize * i;
      const std::string& text = map->names.emplace_back(trimmed(string_at(m, load_le<std::uint32_t>(e))));
      map->entries.push_back({load_le<std::uint32_t>(e + 4), text});
    }
    const std::string& stored = map->names.emplace_back(std::move(name));
    map->desc = MapDesc{stored, (flags & kMapBitmap) != 0, map->entries};
    slot = std::move(map);
    ++taken_;
  }
}

const EventInfoDescription* EventInfos::find(const Guid& provider, std::uint16_t id, std::uint8_t version, unsigned pointer_size) {
  if (infos_.empty() || (pointer_size != 4 && pointer_size != 8)) return nullptr;
  const Key key{guid_key(provider), id, version};
  if (last_ && !(key < last_key_) && !(last_key_ < key) && last_->pointer_size_ == pointer_size) return last_;  // runs of one type
  const auto it = infos_.find(key);
  if (it == infos_.end()) return nullptr;
  auto& built = it->second.built[pointer_size == 8];
  if (!built) built = build(it->second, pointer_size);
  last_key_ = key;
  last_ = &built->desc;
  return last_;
}

std::unique_ptr<EventInfos::Built> EventInfos::build(const Info& info, unsigned pointer_size) const {
  const Bytes b = info.bytes;
  auto out = std::make_unique<Built>();
  EventInfoDescription& d = out->desc;
  d.id_ = load_le<std::uint16_t>(b.data() + kAtId);
  d.pointer_size_ = pointer_size;
  d.provider_ = string_at(b, load_le<std::uint32_t>(b.data() + kAtProviderName));
  d.name_ = string_at(b, load_le<std::uint32_t>(b.data() + kAtEventName));
  if (d.name_.empty()) d.name_ = string_at(b, load_le<std::uint32_t>(b.data() + kAtTaskName));
  d.opcode_ = string_at(b, load_le<std::uint32_t>(b.data() + kAtOpcodeName));
  if (d.opcode_ == "win:Info") d.opcode_.clear();
  else if (d.opcode_.starts_with("win:")) d.opcode_.erase(0, 4);
  const GuidKey provider = guid_key(Guid::load(b.data()));
  const std::uint32_t properties = load_le<std::uint32_t>(b.data() + kAtPropertyCount);
  const std::uint32_t top = load_le<std::uint32_t>(b.data() + kAtTopLevelCount);

  std::string problem;
  auto fail = [&problem](std::string why) -> const RecordDesc* {
    problem = std::move(why);
    return nullptr;
  };
  // The record of properties [first, first + n); null (problem set) when they cannot be described.
  auto record = [&](auto& self, std::uint32_t first, std::uint32_t n, unsigned depth) -> const RecordDesc* {
    std::vector<FieldDesc>& fields = out->fields.emplace_back();
    fields.reserve(n);
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint32_t index = first + k;
      const Property p = property(b, index);
      FieldDesc f;
      f.name = out->names.emplace_back(string_at(b, p.name));
      const std::string what = "property " + std::to_string(index) + " ('" + std::string(f.name) + "')";
      if (f.name.empty()) f.name = out->names.emplace_back("Property" + std::to_string(index));
      if (p.flags & kPropCustomSchema) return fail(what + " has a custom schema");
      if (p.flags & kPropStruct) {
        // Members come after the struct (no cycles), within the properties, and nest only so deep.
        if (p.type <= index || p.type > properties || p.out > properties - p.type)
          return fail(what + ": members " + std::to_string(p.type) + " to " + std::to_string(p.type + p.out) +
                           " are not properties after it");
        if (depth + 1 >= kMaxStructDepth) return fail(what + ": structs nest deeper than " + std::to_string(kMaxStructDepth));
        f.type = InType::Struct;
        f.members = self(self, p.type, p.out, depth + 1);
        if (!f.members) return nullptr;
      } else {
        const auto t = in_type(p.type);
        if (!t) return fail(what + ": in-type " + std::to_string(p.type) + " is not one clretw reads");
        f.type = *t;
        f.out = p.out <= static_cast<std::uint16_t>(OutType::CodePointer) ? static_cast<OutType>(p.out) : OutType::Default;
        if (p.map_name) {
          const auto m = maps_.find({provider, string_at(b, p.map_name)});
          if (m != maps_.end()) f.map = &m->second->desc;
        }
      }
      // An extent from an earlier integer property of the same record.
      auto from_property = [&](std::uint16_t ref, const char* which, Extent& e) {
        if (ref < first || ref >= index) {
          problem = what + ": its " + which + " is property " + std::to_string(ref) + ", not an earlier one beside it";
          return false;
        }
        const FieldDesc& source = fields[ref - first];
        if (!is_integer(source.type) || scalar_size(source.type, pointer_size) == 0) {
          problem = what + ": its " + which + " is property " + std::to_string(ref) + ", not an integer";
          return false;
        }
        e = {Extent::Kind::field, ref - first};
        return true;
      };
      if (p.flags & kPropParamCount) {
        if (!from_property(p.count, "count", f.count)) return nullptr;
      } else if ((p.flags & kPropFixedCount) || p.count != 1 || f.type == InType::Struct) {
        f.count = {Extent::Kind::constant, p.count};
      }
      const bool sized = f.type == InType::UnicodeString || f.type == InType::AnsiString || f.type == InType::Binary;
      if (p.flags & kPropParamLength) {
        if (!sized) return fail(what + ": a length from a property for a value of fixed size");
        if (!from_property(p.length, "length", f.length)) return nullptr;
      } else if (sized && p.length != 0) {
        f.length = {Extent::Kind::constant, p.length};
      } else if (f.type == InType::Binary && (depth != 0 || k + 1 != n)) {
        return fail(what + ": binary data of no length that is not the last field");
      }
      if (f.count.kind != Extent::Kind::none && (f.type == InType::Binary || f.type == InType::Sid))
        return fail(what + ": an array of " + std::string(intype_name(f.type)));
      if (f.type == InType::Binary && f.length.kind == Extent::Kind::none && f.count.kind != Extent::Kind::none)
        return fail(what + ": an array of binary data of no length");
      fields.push_back(f);
    }
    RecordDesc& r = out->records.emplace_back();
    r.name = out->names.emplace_back(depth == 0 ? d.name_ : std::string(fields.empty() ? "" : "struct"));
    r.fields = fields;
    for (unsigned wide = 0; wide < 2; ++wide) {
      const LayoutData& l = out->layouts.emplace_back(compute_layout(fields, wide ? 8 : 4));
      r.layout[wide] = Layout{l.places, l.segments, l.min_size};
    }
    if (r.layout[1].segments.size() > kMaxSegments)
      return fail(std::to_string(r.layout[1].segments.size() - 1) + " variable-size items; at most " +
                       std::to_string(kMaxSegments - 1) + " are read");
    return &r;
  };
  d.record_ = record(record, 0, top, 0);
  if (!d.record_) d.problem_ = std::move(problem);
  return out;
}

}  // namespace clretw::etl::detail
