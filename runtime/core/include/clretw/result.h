// clretw/result.h - errors as values.
//
// Decoding never throws: every operation that can meet bad input returns a
// Result<T>, which holds either a value or an Error naming what went wrong and
// at which byte offset, or - when it has no value to give - a Status, which
// is ok or holds the Error. Errors are small and allocation-free unless they
// carry detail text; message() builds the human-readable text only when asked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace clretw {

enum class Errc : std::uint8_t {
  truncated = 1,        // payload ends before a field that the layout requires
  unterminated_string,  // a NUL-terminated string runs past the end of the payload
  count_too_large,      // an array count or length points past the end of the payload
  count_mismatch,       // encode: a count/length field disagrees with its container
  value_out_of_range,   // encode: a value does not fit its wire type (e.g. pointer at size 4)
  bad_pointer_size,     // pointer size other than 4 or 8
  unknown_event,        // no descriptor for (provider, id, version)
  wrong_event,          // a view was asked to verify an event it does not describe
  too_deep,             // nesting or segment limits exceeded
  bad_format,           // container format error (trace files)
  unsupported_version,  // container format version not understood
  io_error,             // reading a file failed
  connection_failed,    // a diagnostics connection could not be made, or broke
  protocol_error,       // a peer sent bytes the diagnostics protocol does not allow
  command_failed,       // the runtime answered a diagnostics command with an error
  timed_out,            // a peer did not answer in time
  cannot_open,          // a file or stream gives no bytes to read: detail says why (the system's reason,
                        // "is a directory", an empty pipe); its message has no offset
};

std::string_view errc_name(Errc code) noexcept;

struct Error {
  Errc code{};
  std::uint64_t offset = 0;     // byte offset in the payload (or file) where the problem was seen
  std::string_view field = {};  // field name involved, when there is one (points into static tables)
  std::string detail = {};      // optional extra text (only set on cold paths)

  std::string message() const;
};

// The Error for a file or stream that gives no bytes to read, `reason` saying why.
inline Error cannot_open(std::string reason) { return Error{Errc::cannot_open, 0, {}, std::move(reason)}; }

// Either a T or an Error. Deliberately minimal: std::expected is C++23.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : ok_(true) { new (&value_) T(std::move(value)); }  // NOLINT: implicit by design
  Result(Error error) : ok_(false) { new (&error_) Error(std::move(error)); }  // NOLINT
  // A value constructed in place (views verify into the Result they return: no copy).
  explicit Result(std::in_place_t) : ok_(true) { new (&value_) T(); }
  Result(const Result& other) : ok_(other.ok_) {
    if (ok_) new (&value_) T(other.value_);
    else new (&error_) Error(other.error_);
  }
  Result(Result&& other) noexcept(std::is_nothrow_move_constructible_v<T>) : ok_(other.ok_) {
    if (ok_) new (&value_) T(std::move(other.value_));
    else new (&error_) Error(std::move(other.error_));
  }
  Result& operator=(Result other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    destroy();
    ok_ = other.ok_;
    if (ok_) new (&value_) T(std::move(other.value_));
    else new (&error_) Error(std::move(other.error_));
    return *this;
  }
  ~Result() { destroy(); }

  bool ok() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }

  T& value() & { return value_; }
  const T& value() const& { return value_; }
  T&& value() && { return std::move(value_); }
  T& operator*() & { return value_; }
  const T& operator*() const& { return value_; }
  T&& operator*() && { return std::move(value_); }
  T* operator->() { return &value_; }
  const T* operator->() const { return &value_; }

  const Error& error() const& { return error_; }
  Error&& error() && { return std::move(error_); }

 private:
  void destroy() noexcept {
    if (ok_) value_.~T();
    else error_.~Error();
  }
  bool ok_;
  union {
    T value_;
    Error error_;
  };
};

// The outcome of an operation that gives no value: ok, or an Error. An ok Status
// constructs no Error (views and handlers return one per event).
class [[nodiscard]] Status {
 public:
  Status() = default;                                                 // ok
  Status(Error error) : error_(std::move(error)) {}                   // NOLINT: implicit by design
  bool ok() const noexcept { return !error_.has_value(); }
  explicit operator bool() const noexcept { return ok(); }
  const Error& error() const& { return *error_; }
  Error&& error() && { return std::move(*error_); }

 private:
  std::optional<Error> error_;
};

}  // namespace clretw
