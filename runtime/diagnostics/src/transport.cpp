// The transport's parts common to every platform, built on Connection's read_some and write_all.
#include <string>

#include "transport.h"

namespace clretw::diagnostics {

Status Connection::read_exact(void* dst, std::size_t n, Millis timeout, const char* what) {
  auto* out = static_cast<std::uint8_t*>(dst);
  std::size_t done = 0;
  while (done < n) {
    auto got = read_some(out + done, n - done, timeout);
    if (!got) {
      Error e = std::move(got).error();
      e.detail = std::string("waiting for ") + what + ": " + e.detail;
      return e;
    }
    if (*got == 0)
      return Error{Errc::connection_failed, done, {},
                   std::string("the runtime closed the connection after ") + std::to_string(done) + " of the " +
                       std::to_string(n) + " bytes of " + what};
    done += *got;
  }
  return {};
}

Result<detail::Answer> Connection::transact(std::uint8_t command_set, std::uint8_t command_id, Bytes payload,
                                            Millis timeout, std::string_view command) {
  auto request = detail::message(command_set, command_id, payload);
  if (!request) return std::move(request).error();
  if (Status s = write_all(*request, timeout); !s) return std::move(s).error();
  std::uint8_t h[detail::kHeaderSize];
  const std::string what = std::string("the answer's header to ") + std::string(command);
  if (Status s = read_exact(h, sizeof h, timeout, what.c_str()); !s) return std::move(s).error();
  auto header = detail::parse_header(Bytes(h, sizeof h));
  if (!header) return std::move(header).error();
  detail::Answer a;
  a.header = *header;
  a.payload.resize(header->size - detail::kHeaderSize);
  const std::string body = std::string("the answer's payload to ") + std::string(command);
  if (Status s = read_exact(a.payload.data(), a.payload.size(), timeout, body.c_str()); !s) return std::move(s).error();
  return a;
}

}  // namespace clretw::diagnostics
