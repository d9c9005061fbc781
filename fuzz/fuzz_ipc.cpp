// libFuzzer harness: what a diagnostics peer sends - answers (header, then the payloads of
// ProcessInfo 1-3 and CollectTracing), reverse-port advertisements - and a live session's
// nettrace stream, read through Reader::open_stream in chunks the input chooses.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "clretw/nettrace.h"
#include "../runtime/diagnostics/src/ipc.h"

namespace {

namespace ipc = clretw::diagnostics::detail;

// Hands out the input in chunks of 1..16 bytes (from a byte of the input), as a socket might.
class ChunkStream final : public clretw::nettrace::ByteStream {
 public:
  ChunkStream(const std::uint8_t* data, std::size_t size, std::uint8_t chunk) : data_(data), size_(size), chunk_(chunk) {}
  clretw::Result<std::size_t> read_some(void* dst, std::size_t n) override {
    const std::size_t take = std::min({n, size_ - pos_, static_cast<std::size_t>(chunk_ % 16 + 1)});
    std::memcpy(dst, data_ + pos_, take);
    pos_ += take;
    return take;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_, pos_ = 0;
  std::uint8_t chunk_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::uint8_t mode = data[0], chunk = data[1];
  const clretw::Bytes rest(data + 2, size - 2);
  switch (mode % 3) {
    case 0: {  // an answer: a header, then each payload parser on what follows
      auto h = ipc::parse_header(rest);
      const clretw::Bytes payload = rest.size() > ipc::kHeaderSize ? rest.subspan(ipc::kHeaderSize) : clretw::Bytes();
      (void)h;
      for (unsigned n = 1; n <= 3; ++n) (void)ipc::parse_process_info(n, payload);
      (void)ipc::parse_session_id(payload);
      ipc::Answer a;
      if (h) a.header = *h;
      a.payload.assign(payload.begin(), payload.end());
      (void)ipc::answer_error(a, "fuzz");
      break;
    }
    case 1:
      (void)ipc::parse_advertisement(rest);
      break;
    default: {  // a session's stream
      ChunkStream stream(rest.data(), rest.size(), chunk);
      clretw::nettrace::ReaderOptions options;
      options.max_block_size = 1u << 20;
      auto reader = clretw::nettrace::Reader::open_stream(stream, options);
      if (!reader) return 0;
      for (int n = 0; n < 100000; ++n) {
        auto next = (*reader)->next();
        if (!next || !*next) break;
      }
    }
  }
  return 0;
}
