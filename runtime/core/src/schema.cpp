#include "clretw/schema.h"

#include <array>
#include <bit>
#include <utility>

#include "clretw/format.h"

namespace clretw {

namespace {

constexpr std::array<std::pair<InType, std::string_view>, 22> kInTypes{{
    {InType::Int8, "win:Int8"},           {InType::UInt8, "win:UInt8"},
    {InType::Int16, "win:Int16"},         {InType::UInt16, "win:UInt16"},
    {InType::Int32, "win:Int32"},         {InType::UInt32, "win:UInt32"},
    {InType::Int64, "win:Int64"},         {InType::UInt64, "win:UInt64"},
    {InType::HexInt32, "win:HexInt32"},   {InType::HexInt64, "win:HexInt64"},
    {InType::Float, "win:Float"},         {InType::Double, "win:Double"},
    {InType::Boolean, "win:Boolean"},     {InType::Guid, "win:GUID"},
    {InType::Pointer, "win:Pointer"},     {InType::FileTime, "win:FILETIME"},
    {InType::SystemTime, "win:SYSTEMTIME"}, {InType::UnicodeString, "win:UnicodeString"},
    {InType::AnsiString, "win:AnsiString"}, {InType::Binary, "win:Binary"},
    {InType::Sid, "win:SID"},             {InType::Struct, "struct"},
}};

constexpr std::array<std::pair<OutType, std::string_view>, 38> kOutTypes{{
    {OutType::Default, ""},
    {OutType::String, "xs:string"},
    {OutType::DateTime, "xs:dateTime"},
    {OutType::Byte, "xs:byte"},
    {OutType::UnsignedByte, "xs:unsignedByte"},
    {OutType::Short, "xs:short"},
    {OutType::UnsignedShort, "xs:unsignedShort"},
    {OutType::Int, "xs:int"},
    {OutType::UnsignedInt, "xs:unsignedInt"},
    {OutType::Long, "xs:long"},
    {OutType::UnsignedLong, "xs:unsignedLong"},
    {OutType::Float, "xs:float"},
    {OutType::Double, "xs:double"},
    {OutType::Boolean, "xs:boolean"},
    {OutType::Guid, "xs:GUID"},
    {OutType::HexBinary, "xs:hexBinary"},
    {OutType::HexInt8, "win:HexInt8"},
    {OutType::HexInt16, "win:HexInt16"},
    {OutType::HexInt32, "win:HexInt32"},
    {OutType::HexInt64, "win:HexInt64"},
    {OutType::Pid, "win:PID"},
    {OutType::Tid, "win:TID"},
    {OutType::Port, "win:Port"},
    {OutType::IPv4, "win:IPv4"},
    {OutType::IPv6, "win:IPv6"},
    {OutType::SocketAddress, "win:SocketAddress"},
    {OutType::CimDateTime, "win:CIMDateTime"},
    {OutType::EtwTime, "win:ETWTIME"},
    {OutType::Xml, "win:Xml"},
    {OutType::ErrorCode, "win:ErrorCode"},
    {OutType::Win32Error, "win:Win32Error"},
    {OutType::NtStatus, "win:NTSTATUS"},
    {OutType::HResult, "win:HResult"},
    {OutType::DateTimeCultureInsensitive, "win:DateTimeCultureInsensitive"},
    {OutType::Json, "win:Json"},
    {OutType::Utf8, "win:Utf8"},
    {OutType::Pkcs7WithTypeInfo, "win:Pkcs7WithTypeInfo"},
    {OutType::CodePointer, "win:CodePointer"},
}};

}  // namespace

std::string_view intype_name(InType t) noexcept {
  for (auto& [k, name] : kInTypes)
    if (k == t) return name;
  return "?";
}

std::string_view outtype_name(OutType t) noexcept {
  for (auto& [k, name] : kOutTypes)
    if (k == t) return name;
  return "?";
}

bool parse_intype(std::string_view name, InType& out) noexcept {
  for (auto& [k, n] : kInTypes)
    if (n == name && k != InType::Struct) return out = k, true;
  return false;
}

bool parse_outtype(std::string_view name, OutType& out) noexcept {
  if (name.empty()) return false;
  for (auto& [k, n] : kOutTypes)
    if (n == name) return out = k, true;
  return false;
}

std::string_view MapDesc::find(std::uint64_t value) const noexcept {
  for (const MapEntry& e : entries)
    if (e.value == value) return e.name;
  return {};
}

void MapDesc::format(std::uint64_t value, std::string& out) const {
  if (!bitmap) {
    std::string_view name = find(value);
    if (!name.empty()) out += name;
    else out += std::to_string(value);
    return;
  }
  if (value == 0) {
    std::string_view zero = find(0);
    out += zero.empty() ? std::string_view("0") : zero;
    return;
  }
  // An entry names its bits when all of them are set, unless a wider entry
  // whose bits are all set covers one of them: an entry of several bits names
  // a value of a bit field (MethodFlags' optimization tier, 0x180 QuickJitted),
  // and hides the entries that name parts of it (0x80, 0x100).
  auto set = [value](const MapEntry& e) { return e.value != 0 && (value & e.value) == e.value; };
  std::uint64_t rest = value;
  bool first = true;
  for (const MapEntry& e : entries) {
    if (!set(e)) continue;
    const int width = std::popcount(e.value);
    bool hidden = false;
    for (const MapEntry& wider : entries)
      hidden |= (wider.value & e.value) != 0 && std::popcount(wider.value) > width && set(wider);
    if (hidden) continue;
    if (!first) out += ", ";
    out += e.name;
    first = false;
    rest &= ~e.value;
  }
  if (rest) {
    if (!first) out += ", ";
    append_hex(out, rest);
  }
}

std::span<const EventDesc> ProviderDesc::versions(std::uint16_t id) const noexcept {
  if (id >= first_version.size() || first_version[id] == kNoEvent) return {};
  std::size_t begin = first_version[id], end = begin;
  while (end < events.size() && events[end].id == id) ++end;
  return events.subspan(begin, end - begin);
}

const EventDesc* ProviderDesc::find(std::uint16_t id, std::uint8_t version) const noexcept {
  const EventDesc* best = nullptr;
  for (const EventDesc& e : versions(id)) {
    if (e.version > version) break;
    best = &e;
  }
  return best;
}

const ProviderDesc* Catalog::provider(const Guid& guid) const noexcept {
  for (const ProviderDesc* p : providers)
    if (p->guid == guid) return p;
  return nullptr;
}

const ProviderDesc* Catalog::provider(std::string_view name) const noexcept {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  for (const ProviderDesc* p : providers) {
    if (p->name.size() != name.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < name.size() && same; ++i) same = lower(p->name[i]) == lower(name[i]);
    if (same) return p;
  }
  return nullptr;
}

EventLookup Catalog::find(const Guid& guid, std::uint16_t id, std::uint8_t version) const noexcept {
  const ProviderDesc* p = provider(guid);
  return {p, p ? p->find(id, version) : nullptr};
}

EventLookup Catalog::find(std::string_view name, std::uint16_t id, std::uint8_t version) const noexcept {
  const ProviderDesc* p = provider(name);
  return {p, p ? p->find(id, version) : nullptr};
}

}  // namespace clretw
