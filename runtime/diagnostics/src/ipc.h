// Internal: the diagnostics IPC messages - building requests and checking answers, on bytes only
// (no sockets here, so the fake-server tests and the fuzzer reach all of it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "clretw/bytes.h"
#include "clretw/diagnostics.h"
#include "clretw/result.h"

namespace clretw::diagnostics::detail {

inline constexpr std::size_t kHeaderSize = 20;
inline constexpr char kMagic[14] = "DOTNET_IPC_V1";  // 13 characters and a NUL
inline constexpr std::size_t kAdvertiseSize = 34;
inline constexpr char kAdvertiseMagic[8] = "ADVR_V1";

enum : std::uint8_t { kSetEventPipe = 0x02, kSetProcess = 0x04, kSetServer = 0xFF };
enum : std::uint8_t { kStopTracing = 0x01, kCollectTracing = 0x02 };  // CollectTracingN: 0x02 + N - 1
enum : std::uint8_t { kProcessInfo = 0x00, kResumeRuntime = 0x01, kProcessInfo2 = 0x04, kProcessInfo3 = 0x08 };
enum : std::uint8_t { kOk = 0x00, kError = 0xFF };
inline constexpr std::uint32_t kUnknownCommand = 0x80131385u;
inline constexpr std::uint64_t kDefaultRundownKeywords = 0x80020139ull;

struct Header {
  std::uint16_t size = 0;  // header and payload
  std::uint8_t command_set = 0, command_id = 0;
};

// A whole message; an error when the payload does not fit a uint16 size.
Result<std::vector<std::uint8_t>> message(std::uint8_t command_set, std::uint8_t command_id, Bytes payload);
// Checks the 20 bytes of a header: the magic, a size no shorter than the header.
Result<Header> parse_header(Bytes header);

// An answer: OK with a payload, or the runtime's error HRESULT.
struct Answer {
  Header header;
  std::vector<std::uint8_t> payload;
  bool ok() const noexcept { return header.command_set == kSetServer && header.command_id == kOk; }
  bool error() const noexcept { return header.command_set == kSetServer && header.command_id == kError; }
  std::uint32_t hresult() const noexcept;  // of an error answer (0 when its payload is short)
};
// The error for an answer that is not OK: the HRESULT's text, or a protocol error.
Error answer_error(const Answer& a, std::string_view command);

// Payload encoding: little-endian numbers, strings as uint32 length (in UTF-16 units, with the
// terminating NUL) and UTF-16LE text, or length 0 for an empty string.
class PayloadWriter {
 public:
  void u8(std::uint8_t v) { b_.push_back(v); }
  void u32(std::uint32_t v);
  void u64(std::uint64_t v);
  void string(std::string_view utf8);
  const std::vector<std::uint8_t>& bytes() const noexcept { return b_; }

 private:
  std::vector<std::uint8_t> b_;
};

class PayloadReader {
 public:
  explicit PayloadReader(Bytes b) : b_(b) {}
  Result<std::uint32_t> u32();
  Result<std::uint64_t> u64();
  Result<Guid> guid();
  Result<std::string> string(std::string_view field);  // must end in a NUL
  std::size_t pos() const noexcept { return pos_; }

 private:
  Bytes b_;
  std::size_t pos_ = 0;
};

// CollectTracingN's payload (N in 2..6; format 1 = nettrace).
std::vector<std::uint8_t> collect_payload(unsigned n, const SessionOptions& o);
// The answers.
Result<ProcessInfo> parse_process_info(unsigned n, Bytes payload);  // ProcessInfoN, N in 1..3
Result<std::uint64_t> parse_session_id(Bytes payload);

struct Advertisement {
  Guid runtime_cookie;
  std::uint64_t pid = 0;
};
Result<Advertisement> parse_advertisement(Bytes bytes);  // the 34 bytes of ADVR_V1

}  // namespace clretw::diagnostics::detail
