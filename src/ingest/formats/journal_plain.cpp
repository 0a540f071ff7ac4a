#include "ingest/formats/journal_plain.hpp"

#include <simdjson.h>

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpucost::formats {
namespace {

/// Byte classes of 64 bytes of a line, one bit per byte.
struct Classes {
  std::uint64_t quote = 0;  ///< `"`
  std::uint64_t bad = 0;    ///< `\` or a control byte (< 0x20): escapes, or not JSON at all
  std::uint64_t high = 0;   ///< bytes >= 0x80: UTF-8 to validate
};

Classes classify64(const char* p) noexcept {
  Classes c;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i is_ctl = _mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl);  // v <= 0x1f, unsigned
    const auto bits = [](__m128i m) {
      return static_cast<std::uint64_t>(static_cast<std::uint16_t>(_mm_movemask_epi8(m)));
    };
    c.quote |= bits(_mm_cmpeq_epi8(v, quote)) << (16 * k);
    c.bad |= bits(_mm_or_si128(_mm_cmpeq_epi8(v, backslash), is_ctl)) << (16 * k);
    c.high |= bits(v) << (16 * k);
  }
#else
  for (int i = 0; i < 64; ++i) {
    const auto b = static_cast<unsigned char>(p[i]);
    c.quote |= static_cast<std::uint64_t>(b == '"') << i;
    c.bad |= static_cast<std::uint64_t>(b == '\\' || b < 0x20) << i;
    c.high |= static_cast<std::uint64_t>(b >= 0x80) << i;
  }
#endif
  return c;
}

}  // namespace

bool read_plain_journal_line(std::string_view line, JournalEntry& e) noexcept {
  const std::size_t n = line.size();
  const char* p = line.data();
  const auto skip_spaces = [&](std::size_t i) {
    while (i < n && p[i] == ' ') ++i;
    return i;
  };
  if (n < 2 || p[0] != '{' || p[n - 1] != '}') return false;
  // Where the next opening quote must be; `{}` and anything odd are the general reader's.
  std::size_t expect = skip_spaces(1);
  if (expect >= n || p[expect] != '"') return false;
  e = JournalEntry{};

  // The quotes are walked in order; each opening quote must sit exactly where the layout puts
  // it: after `{` or `,`, or after the `:` that follows a key (spaces allowed around each).
  enum class State : std::uint8_t { kKeyOpen, kInKey, kValueOpen, kInValue, kDone };
  State state = State::kKeyOpen;
  std::size_t key_start = 0, key_end = 0, value_start = 0;
  std::uint64_t high = 0;

  for (std::size_t w = 0; w < n; w += 64) {
    Classes c;
    if (n - w >= 64) {
      c = classify64(p + w);
    } else {
      char buf[64];
      std::memset(buf, ' ', sizeof buf);
      std::memcpy(buf, p + w, n - w);
      c = classify64(buf);
    }
    if (c.bad) return false;
    high |= c.high;
    for (std::uint64_t q = c.quote; q; q &= q - 1) {
      const std::size_t pos = w + static_cast<std::size_t>(__builtin_ctzll(q));
      switch (state) {
        case State::kKeyOpen:
          if (pos != expect) return false;
          key_start = pos + 1;
          state = State::kInKey;
          break;
        case State::kValueOpen:
          if (pos != expect) return false;
          value_start = pos + 1;
          state = State::kInValue;
          break;
        case State::kInKey: {
          const std::size_t colon = skip_spaces(pos + 1);
          if (colon >= n || p[colon] != ':') return false;
          key_end = pos;
          expect = skip_spaces(colon + 1);
          state = State::kValueOpen;
          break;
        }
        case State::kInValue: {
          const auto slot = journal_field_slot(std::string_view(p + key_start, key_end - key_start));
          if (slot) e.*slot = std::string_view(p + value_start, pos - value_start);
          const std::size_t next = skip_spaces(pos + 1);
          if (next == n - 1) {  // `}`, the line's last byte
            state = State::kDone;
          } else if (p[next] == ',') {
            expect = skip_spaces(next + 1);
            state = State::kKeyOpen;
          } else {
            return false;
          }
          break;
        }
        case State::kDone:
          return false;
      }
    }
  }
  if (state != State::kDone) return false;
  // simdjson rejects a line that is not UTF-8; so must this reader, to agree with it.
  return high == 0 || simdjson::validate_utf8(p, n);
}

}  // namespace gpucost::formats
