#include "ipc.h"

#include <cstdio>
#include <cstring>

#include "clretw/text.h"

namespace clretw::diagnostics::detail {

namespace {

Error protocol(std::uint64_t at, std::string what) { return Error{Errc::protocol_error, at, {}, std::move(what)}; }

}  // namespace

Result<std::vector<std::uint8_t>> message(std::uint8_t command_set, std::uint8_t command_id, Bytes payload) {
  if (payload.size() > 0xFFFF - kHeaderSize)
    return Error{Errc::value_out_of_range, 0, {},
                 "a request of " + std::to_string(payload.size()) + " payload bytes does not fit a message (65515 at most)"};
  std::vector<std::uint8_t> m(kHeaderSize);
  std::memcpy(m.data(), kMagic, sizeof kMagic);
  const auto size = static_cast<std::uint16_t>(kHeaderSize + payload.size());
  m[14] = static_cast<std::uint8_t>(size), m[15] = static_cast<std::uint8_t>(size >> 8);
  m[16] = command_set, m[17] = command_id;  // 18, 19: reserved, zero
  m.insert(m.end(), payload.begin(), payload.end());
  return m;
}

Result<Header> parse_header(Bytes h) {
  if (h.size() < kHeaderSize) return protocol(h.size(), "the answer ends inside its 20-byte header");
  if (std::memcmp(h.data(), kMagic, sizeof kMagic) != 0)
    return protocol(0, "the answer does not begin with the magic DOTNET_IPC_V1");
  Header r;
  r.size = load_le<std::uint16_t>(h.data() + 14);
  r.command_set = h[16];
  r.command_id = h[17];
  if (r.size < kHeaderSize)
    return protocol(14, "the answer's size, " + std::to_string(r.size) + ", is shorter than its 20-byte header");
  return r;
}

std::uint32_t Answer::hresult() const noexcept { return payload.size() >= 4 ? load_le<std::uint32_t>(payload.data()) : 0; }

Error answer_error(const Answer& a, std::string_view command) {
  if (a.error()) {
    if (a.payload.size() < 4) return protocol(kHeaderSize, std::string(command) + ": an error answer without its HRESULT");
    return Error{Errc::command_failed, 0, {}, std::string(command) + ": " + hresult_message(a.hresult())};
  }
  char code[16];
  std::snprintf(code, sizeof code, "0x%02X%02X", a.header.command_set, a.header.command_id);
  return protocol(16, std::string(command) + ": the runtime answered with command " + code + ", neither OK nor an error");
}

void PayloadWriter::u32(std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
void PayloadWriter::u64(std::uint64_t v) {
  for (int i = 0; i < 8; ++i) b_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
void PayloadWriter::string(std::string_view utf8) {
  if (utf8.empty()) return u32(0);
  const std::u16string units = utf8_to_utf16(utf8);
  u32(static_cast<std::uint32_t>(units.size() + 1));
  for (char16_t c : units) b_.push_back(static_cast<std::uint8_t>(c)), b_.push_back(static_cast<std::uint8_t>(c >> 8));
  b_.push_back(0), b_.push_back(0);
}

Result<std::uint32_t> PayloadReader::u32() {
  if (b_.size() - pos_ < 4) return protocol(pos_, "the payload ends inside a 4-byte number");
  pos_ += 4;
  return load_le<std::uint32_t>(b_.data() + pos_ - 4);
}
Result<std::uint64_t> PayloadReader::u64() {
  if (b_.size() - pos_ < 8) return protocol(pos_, "the payload ends inside an 8-byte number");
  pos_ += 8;
  return load_le<std::uint64_t>(b_.data() + pos_ - 8);
}
Result<Guid> PayloadReader::guid() {
  if (b_.size() - pos_ < 16) return protocol(pos_, "the payload ends inside a GUID");
  pos_ += 16;
  return Guid::load(b_.data() + pos_ - 16);
}
Result<std::string> PayloadReader::string(std::string_view field) {
  const std::size_t at = pos_;
  auto length = u32();
  if (!length) return std::move(length).error();
  if (*length == 0) return std::string();
  if (*length > (b_.size() - pos_) / 2)
    return protocol(at, std::string(field) + ": a string of " + std::to_string(*length) + " characters runs past the payload");
  const Utf16View text(b_.data() + pos_, *length);
  if (text[*length - 1] != 0) return protocol(at, std::string(field) + ": the string does not end in a NUL");
  pos_ += 2ull * *length;
  return Utf16View(text.data(), *length - 1).to_utf8();
}

std::vector<std::uint8_t> collect_payload(unsigned n, const SessionOptions& o) {
  PayloadWriter w;
  if (n >= 5) w.u32(0);  // a streaming session (not user_events)
  w.u32(o.buffer_mb);
  w.u32(1);  // nettrace
  if (n >= 4) {
    w.u64(o.rundown_keywords ? *o.rundown_keywords : (o.rundown ? kDefaultRundownKeywords : 0));
  } else if (n >= 2) {
    w.u8(o.rundown ? 1 : 0);
  }
  if (n >= 3) w.u8(o.stackwalk ? 1 : 0);
  w.u32(static_cast<std::uint32_t>(o.providers.size()));
  for (const Provider& p : o.providers) {
    w.u64(p.keywords);
    w.u32(p.level);
    w.string(p.name);
    w.string(p.arguments);
    if (n >= 5) w.u8(0), w.u32(0);  // no event-id filter: "disable none"
  }
  if (n >= 6) w.u32(o.buffering == BufferingMode::block ? 1 : 0);
  return w.bytes();
}

Result<ProcessInfo> parse_process_info(unsigned n, Bytes payload) {
  PayloadReader r(payload);
  ProcessInfo info;
  info.command = n;
  if (n >= 3) {
    if (auto version = r.u32(); !version) return std::move(version).error();
  }
  auto pid = r.u64();
  if (!pid) return std::move(pid).error();
  info.pid = *pid;
  auto cookie = r.guid();
  if (!cookie) return std::move(cookie).error();
  info.runtime_cookie = *cookie;
  std::string* fields[] = {&info.command_line, &info.os, &info.arch, &info.entrypoint_assembly, &info.clr_version,
                           &info.runtime_identifier};
  const char* names[] = {"command line", "OS", "architecture", "entry-point assembly", "CLR version", "runtime identifier"};
  const std::size_t count = n >= 3 ? 6 : n == 2 ? 5 : 3;
  for (std::size_t i = 0; i < count; ++i) {
    auto s = r.string(names[i]);
    if (!s) return std::move(s).error();
    *fields[i] = std::move(*s);
  }
  return info;
}

Result<std::uint64_t> parse_session_id(Bytes payload) {
  PayloadReader r(payload);
  return r.u64();
}

Result<Advertisement> parse_advertisement(Bytes b) {
  if (b.size() < kAdvertiseSize) return protocol(b.size(), "the advertisement ends before its 34 bytes");
  if (std::memcmp(b.data(), kAdvertiseMagic, sizeof kAdvertiseMagic) != 0)
    return protocol(0, "the connection does not begin with the advertisement magic ADVR_V1");
  Advertisement a;
  a.runtime_cookie = Guid::load(b.data() + 8);
  a.pid = load_le<std::uint64_t>(b.data() + 24);
  return a;
}

}  // namespace clretw::diagnostics::detail

namespace clretw::diagnostics {

std::string hresult_message(std::uint32_t hr) {
  const char* text = nullptr;
  switch (hr) {
    case 0x80131384u: text = "the runtime could not decode the request (DS_IPC_E_BAD_ENCODING)"; break;
    case 0x80131385u: text = "the runtime does not know this command (DS_IPC_E_UNKNOWN_COMMAND)"; break;
    case 0x80131386u: text = "the runtime did not recognise the message's magic (DS_IPC_E_UNKNOWN_MAGIC)"; break;
    case 0x80131515u: text = "not supported by this runtime (DS_IPC_E_NOTSUPPORTED)"; break;
    case 0x80004005u: text = "the runtime failed to carry out the command (DS_IPC_E_FAIL)"; break;
    case 0x8013135bu: text = "not yet available: the runtime is still starting (DS_IPC_E_NOT_YET_AVAILABLE)"; break;
    case 0x80131371u: text = "the runtime is not initialised yet (DS_IPC_E_RUNTIME_UNINITIALIZED)"; break;
    case 0x80070057u: text = "an argument is invalid (DS_IPC_E_INVALIDARG)"; break;
    case 0x8007007Au: text = "a buffer is too small (DS_IPC_E_INSUFFICIENT_BUFFER)"; break;
    case 0x800000CBu: text = "no such environment variable (DS_IPC_E_ENVVAR_NOT_FOUND)"; break;
    default: break;
  }
  char code[24];
  std::snprintf(code, sizeof code, "HRESULT 0x%08X", hr);
  return text ? std::string(text) + ", " + code : std::string("error ") + code;
}

}  // namespace clretw::diagnostics
