// Internal: primitives shared by the nettrace reader, writer and metadata code.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "clretw/bytes.h"
#include "clretw/guid.h"
#include "clretw/text.h"

namespace clretw::nettrace::detail {

// FastSerialization tags. NetPerf (format 3) opens objects with BeginObject,
// nettrace (formats 4 and 5) with BeginPrivateObject.
inline constexpr std::uint8_t kNullReference = 1;
inline constexpr std::uint8_t kBeginObject = 4;
inline constexpr std::uint8_t kBeginPrivateObject = 5;
inline constexpr std::uint8_t kEndObject = 6;

// V6 block kinds.
enum class BlockKind : std::uint8_t {
  EndOfStream = 0, Trace = 1, Event = 2, Metadata = 3, SequencePoint = 4, Stack = 5, Thread = 6, RemoveThread = 7,
  LabelList = 8,
};

// Compressed event header flags.
inline constexpr std::uint8_t kFlagMetadataId = 0x01;
inline constexpr std::uint8_t kFlagCaptureThreadAndSequence = 0x02;
inline constexpr std::uint8_t kFlagThreadId = 0x04;
inline constexpr std::uint8_t kFlagStackId = 0x08;
inline constexpr std::uint8_t kFlagActivityId = 0x10;  // V6: label list id
inline constexpr std::uint8_t kFlagRelatedActivityId = 0x20;
inline constexpr std::uint8_t kFlagSorted = 0x40;
inline constexpr std::uint8_t kFlagPayloadSize = 0x80;

// V5 metadata tags and V6 optional metadata kinds.
inline constexpr std::uint8_t kTagOpcode = 1;
inline constexpr std::uint8_t kTagV2Params = 2;
enum class OptionalKind : std::uint8_t {
  OpCode = 1, Keyword = 3, MessageTemplate = 4, Description = 5, KeyValue = 6, ProviderGuid = 7, Level = 8, Version = 9,
};

// A bounds-checked reader over a byte range. Every read past the end sets
// `ok` to false and returns zero; callers check `ok` once per record.
class Cursor {
 public:
  Cursor(Bytes data, std::size_t pos = 0) : data_(data), pos_(pos) {}
  bool ok = true;

  std::size_t pos() const noexcept { return pos_; }
  std::size_t remaining() const noexcept { return pos_ <= data_.size() ? data_.size() - pos_ : 0; }
  bool at_end() const noexcept { return pos_ >= data_.size(); }
  const std::uint8_t* here() const noexcept { return data_.data() + pos_; }

  bool need(std::size_t n) {
    if (n > remaining()) ok = false;
    return ok;
  }
  template <class T>
  T get() {
    if (!need(sizeof(T))) return T{};
    T v = load_le<T>(data_.data() + pos_);
    pos_ += sizeof(T);
    return v;
  }
  std::uint8_t u8() { return get<std::uint8_t>(); }
  std::uint16_t u16() { return get<std::uint16_t>(); }
  std::uint32_t u32() { return get<std::uint32_t>(); }
  std::uint64_t u64() { return get<std::uint64_t>(); }
  std::int32_t i32() { return get<std::int32_t>(); }
  std::int64_t i64() { return get<std::int64_t>(); }
  Guid guid() {
    if (!need(16)) return {};
    Guid g = Guid::load(here());
    pos_ += 16;
    return g;
  }
  Bytes bytes(std::size_t n) {
    if (!need(n)) return {};
    Bytes b(here(), n);
    pos_ += n;
    return b;
  }
  void skip(std::size_t n) {
    if (need(n)) pos_ += n;
  }
  // LEB128-style unsigned integer of at most `max_bits` bits. Groups that
  // would carry bits beyond the 64th make it malformed.
  std::uint64_t varuint(unsigned max_bits) {
    std::uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (shift >= 64 || !need(1)) {
        ok = false;
        return 0;
      }
      const std::uint8_t b = data_[pos_++];
      const std::uint64_t group = b & 0x7F;
      if (shift > 57 && (group >> (64 - shift)) != 0) {  // the 10th group has room for one bit
        ok = false;
        return 0;
      }
      v |= group << shift;
      if (!(b & 0x80)) break;
    }
    if (max_bits < 64 && (v >> max_bits) != 0) ok = false;
    return v;
  }
  std::uint32_t varuint32() { return static_cast<std::uint32_t>(varuint(32)); }
  std::uint64_t varuint64() { return varuint(64); }
  // A NUL-terminated UTF-16 string, as UTF-8.
  std::string utf16z() {
    std::size_t n = 0;
    for (;; ++n) {
      if (!need(2 * n + 2)) return {};
      if (load_le<std::uint16_t>(here() + 2 * n) == 0) break;
    }
    std::string s = Utf16View(here(), n).to_utf8();
    pos_ += 2 * n + 2;
    return s;
  }
  // A varuint32-length-prefixed UTF-8 string (V6).
  std::string utf8() {
    const std::uint32_t n = varuint32();
    Bytes b = bytes(n);
    return ok ? std::string(reinterpret_cast<const char*>(b.data()), b.size()) : std::string();
  }

 private:
  Bytes data_;
  std::size_t pos_;
};

inline void put_varuint(ByteWriter& w, std::uint64_t v) {
  do {
    std::uint8_t b = v & 0x7F;
    v >>= 7;
    if (v) b |= 0x80;
    w.put(b);
  } while (v);
}
inline void put_utf16z(ByteWriter& w, std::string_view s) {
  put_utf16(w, s);
  w.put<std::uint16_t>(0);
}
inline void put_utf8(ByteWriter& w, std::string_view s) {
  put_varuint(w, s.size());
  w.bytes(s.data(), s.size());
}

}  // namespace clretw::nettrace::detail
