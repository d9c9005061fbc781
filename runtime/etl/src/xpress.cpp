// [MS-XCA] "plain LZ77" (XPRESS): sections 2.3 (compression) and 2.4 (decompression),
// written from the published specification.
//
// The stream is a sequence of groups: a 32-bit little-endian flag word, then the items
// of up to 32 flags, read from the most significant bit down. A 0 flag is one literal
// byte; a 1 flag is a match: a 16-bit little-endian value v with offset (v >> 3) + 1
// (1..8192) and a length code v & 7. Length codes 0..6 are lengths 3..9; code 7 takes
// more length from a half byte (two matches share one byte: the first uses its low
// nibble, the second its high nibble), then, if the half byte is 15, from a byte, then,
// if that byte is 255, from a 16-bit value (which holds the whole length minus 3), and,
// if that is 0, from a 32-bit value (the newer form of the spec). A 1 flag met when the
// input is exhausted ends the stream; the compressor sets every flag after its last
// item to 1, so a stream always ends that way.
#include "xpress.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace clretw::etl::detail {

namespace {

Error bad(std::size_t at, std::string detail) {
  return Error{Errc::bad_format, static_cast<std::uint64_t>(at), {}, std::move(detail)};
}

Error input_ends(std::size_t token, const char* what) {
  return bad(token, std::string("input ends inside ") + what);
}

Error output_overflow(std::size_t token, std::size_t limit) {
  return bad(token, "output larger than " + std::to_string(limit) + " bytes");
}

}  // namespace

Result<std::size_t> xpress_decompress(Bytes in, std::span<std::uint8_t> out) {
  const std::uint8_t* const src = in.data();
  const std::size_t in_size = in.size();
  std::uint8_t* const dst = out.data();
  const std::size_t out_size = out.size();

  std::size_t ip = 0;         // next byte of the input
  std::size_t op = 0;         // next byte of the output
  std::size_t half_byte = 0;  // input position of a half-used length byte; 0 = none (0 is a flag word)
  std::uint32_t flags = 0;
  unsigned flag_count = 0;

  for (;;) {
    if (flag_count == 0) {
      if (in_size - ip < 4) return input_ends(ip, "a flag word");
      flags = load_le<std::uint32_t>(src + ip);
      ip += 4;
      flag_count = 32;
    }
    --flag_count;
    if ((flags & (std::uint32_t{1} << flag_count)) == 0) {
      // Literal. Runs of literals are the common case: take every literal flag of the
      // word that the input and output both have room for in one go.
      if (ip == in_size) return input_ends(ip, "a literal");
      if (op == out_size) return output_overflow(ip, out_size);
      dst[op++] = src[ip++];
      while (flag_count != 0 && (flags & (std::uint32_t{1} << (flag_count - 1))) == 0 && ip != in_size &&
             op != out_size) {
        --flag_count;
        dst[op++] = src[ip++];
      }
      continue;
    }

    if (ip == in_size) return op;  // the end of the stream
    const std::size_t token = ip;
    if (in_size - ip < 2) return input_ends(token, "a match");
    const std::uint16_t v = load_le<std::uint16_t>(src + ip);
    ip += 2;
    const std::size_t offset = (static_cast<std::size_t>(v) >> 3) + 1;
    std::uint64_t length = v & 7u;
    if (length == 7) {
      if (half_byte == 0) {
        if (ip == in_size) return input_ends(token, "a match");
        half_byte = ip;
        length = src[ip++] & 0x0Fu;
      } else {
        length = src[half_byte] >> 4;
        half_byte = 0;
      }
      if (length == 15) {
        if (ip == in_size) return input_ends(token, "a match");
        length = src[ip++];
        if (length == 255) {
          if (in_size - ip < 2) return input_ends(token, "a match");
          length = load_le<std::uint16_t>(src + ip);
          ip += 2;
          if (length == 0) {
            if (in_size - ip < 4) return input_ends(token, "a match");
            length = load_le<std::uint32_t>(src + ip);
            ip += 4;
          }
          // The 16- or 32-bit form holds the whole length minus 3; anything below what
          // the shorter forms reach is not a valid encoding.
          if (length < 15 + 7) return bad(token, "match length field " + std::to_string(length) + " is below 22");
          length -= 15 + 7;
        }
        length += 15;
      }
      length += 7;
    }
    length += 3;

    if (offset > op) {
      return bad(token, "match reaches " + std::to_string(offset - op) + " bytes before the start of the output");
    }
    if (length > out_size - op) return output_overflow(token, out_size);
    const std::size_t n = static_cast<std::size_t>(length);
    std::uint8_t* d = dst + op;
    const std::uint8_t* s = d - offset;
    if (offset >= n) {
      std::memcpy(d, s, n);
    } else if (offset == 1) {
      std::memset(d, *s, n);
    } else {
      // The match overlaps the bytes it writes: copy forward, a byte at a time.
      for (std::size_t i = 0; i < n; ++i) d[i] = s[i];
    }
    op += n;
  }
}

std::vector<std::uint8_t> xpress_compress(Bytes in) {
  constexpr std::size_t kWindow = 8192;      // the largest offset a match can encode
  constexpr std::size_t kMaxLength = 65538;  // the 16-bit form's limit: readable by every version
  constexpr unsigned kMaxHashBits = 15;

  const std::uint8_t* const src = in.data();
  const std::size_t n = in.size();

  // One candidate per hash of 3 bytes: the last position that had it. A table no larger
  // than the input keeps small inputs cheap.
  unsigned hash_bits = 8;
  while (hash_bits < kMaxHashBits && (std::size_t{1} << hash_bits) < n) ++hash_bits;
  std::vector<std::uint32_t> head(std::size_t{1} << hash_bits, 0);  // last position + 1; 0 = none

  std::vector<std::uint8_t> out;
  out.reserve(n + n / 8 + 8);

  auto hash3 = [&](std::size_t pos) {
    const std::uint32_t x = static_cast<std::uint32_t>(src[pos]) | static_cast<std::uint32_t>(src[pos + 1]) << 8 |
                            static_cast<std::uint32_t>(src[pos + 2]) << 16;
    return (x * 2654435761u) >> (32 - hash_bits);
  };
  auto put16 = [&](std::size_t v) {
    out.push_back(static_cast<std::uint8_t>(v));
    out.push_back(static_cast<std::uint8_t>(v >> 8));
  };

  std::size_t flag_pos = 0;  // where the current group's flag word goes
  std::uint32_t flags = 0;
  unsigned flag_count = 0;
  std::size_t half_byte = 0;  // output position of a length byte whose high nibble is free; 0 = none
  out.resize(4);

  auto end_item = [&](std::uint32_t bit) {
    flags = (flags << 1) | bit;
    if (++flag_count == 32) {
      for (unsigned i = 0; i < 4; ++i) out[flag_pos + i] = static_cast<std::uint8_t>(flags >> (8 * i));
      flag_pos = out.size();
      out.resize(out.size() + 4);
      flags = 0;
      flag_count = 0;
    }
  };

  std::size_t pos = 0;
  while (pos < n) {
    std::size_t best_len = 0, best_off = 0;
    if (n - pos >= 3) {
      const std::uint32_t h = hash3(pos);
      const std::size_t cand = head[h];
      head[h] = static_cast<std::uint32_t>(pos + 1);
      if (cand != 0 && pos - (cand - 1) <= kWindow) {
        const std::size_t from = cand - 1;
        const std::size_t limit = std::min(n - pos, kMaxLength);
        std::size_t len = 0;
        while (len < limit && src[from + len] == src[pos + len]) ++len;
        if (len >= 3) {
          best_len = len;
          best_off = pos - from;
        }
      }
    }

    if (best_len == 0) {
      out.push_back(src[pos++]);
      end_item(0);
      continue;
    }

    std::size_t code = best_len - 3;
    const std::size_t base = (best_off - 1) << 3;
    if (code < 7) {
      put16(base | code);
    } else {
      put16(base | 7);
      code -= 7;
      const std::size_t nibble = std::min<std::size_t>(code, 15);
      if (half_byte == 0) {
        half_byte = out.size();
        out.push_back(static_cast<std::uint8_t>(nibble));
      } else {
        out[half_byte] = static_cast<std::uint8_t>(out[half_byte] | (nibble << 4));
        half_byte = 0;
      }
      if (code >= 15) {
        code -= 15;
        if (code < 255) {
          out.push_back(static_cast<std::uint8_t>(code));
        } else {
          out.push_back(255);
          put16(code + 15 + 7);  // the whole length minus 3; at most 65535 (kMaxLength)
        }
      }
    }
    end_item(1);

    // Index the positions inside the match too, so later data can refer to them.
    const std::size_t end = pos + best_len;
    for (std::size_t p = pos + 1; p < end && n - p >= 3; ++p) head[hash3(p)] = static_cast<std::uint32_t>(p + 1);
    pos = end;
  }

  // Every flag after the last item is 1: the first of them ends the stream.
  const unsigned unused = 32 - flag_count;
  flags = unused == 32 ? ~std::uint32_t{0} : (flags << unused) | ((std::uint32_t{1} << unused) - 1);
  for (unsigned i = 0; i < 4; ++i) out[flag_pos + i] = static_cast<std::uint8_t>(flags >> (8 * i));
  return out;
}

}  // namespace clretw::etl::detail
