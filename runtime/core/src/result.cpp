#include "clretw/result.h"

namespace clretw {

std::string_view errc_name(Errc code) noexcept {
  switch (code) {
    case Errc::truncated: return "payload truncated";
    case Errc::unterminated_string: return "string not terminated within the payload";
    case Errc::count_too_large: return "count or length exceeds the payload";
    case Errc::count_mismatch: return "count or length field disagrees with its data";
    case Errc::value_out_of_range: return "value does not fit its wire type";
    case Errc::bad_pointer_size: return "pointer size must be 4 or 8";
    case Errc::unknown_event: return "unknown event";
    case Errc::wrong_event: return "payload belongs to a different event";
    case Errc::too_deep: return "nesting or variable-item limit exceeded";
    case Errc::bad_format: return "malformed data";
    case Errc::unsupported_version: return "unsupported format version";
    case Errc::io_error: return "I/O error";
    case Errc::connection_failed: return "diagnostics connection failed";
    case Errc::protocol_error: return "diagnostics protocol error";
    case Errc::command_failed: return "the runtime refused the command";
    case Errc::timed_out: return "timed out";
    case Errc::cannot_open: return "cannot open";
  }
  return "unknown error";
}

std::string Error::message() const {
  std::string s(errc_name(code));
  if (!field.empty()) {
    s += " (";
    s += field;
    s += ')';
  }
  // Connections, answers and files that give nothing to read have no byte offset worth naming.
  if (code != Errc::connection_failed && code != Errc::command_failed && code != Errc::timed_out && code != Errc::cannot_open) {
    s += " at offset ";
    s += std::to_string(offset);
  }
  if (!detail.empty()) {
    s += ": ";
    s += detail;
  }
  return s;
}

}  // namespace clretw
