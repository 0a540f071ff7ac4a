#pragma once
/// \file text.hpp
/// Allocation-free helpers over std::string_view for the parsers' hot loops.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpucost::text {

/// True for the ASCII blanks that log lines use: space, tab, CR, vertical tab, form feed.
constexpr bool is_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}
constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
constexpr bool is_hex(char c) noexcept {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/// The view without leading blanks.
constexpr std::string_view ltrim(std::string_view s) noexcept {
  std::size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  return s.substr(i);
}
/// The view without trailing blanks.
constexpr std::string_view rtrim(std::string_view s) noexcept {
  std::size_t n = s.size();
  while (n > 0 && is_space(s[n - 1])) --n;
  return s.substr(0, n);
}
/// The view without blanks at either end.
constexpr std::string_view trim(std::string_view s) noexcept { return rtrim(ltrim(s)); }

/// True when the line holds only blanks.
constexpr bool is_blank(std::string_view s) noexcept { return ltrim(s).empty(); }

/// a == b, for the short strings of the per-line paths (idents such as `kernel`, a memo's texts):
/// up to 16 bytes by two overlapping loads each side instead of a call to memcmp.
inline bool same_bytes(std::string_view a, std::string_view b) noexcept {
  const std::size_t n = a.size();
  if (n != b.size()) return false;
  const char* x = a.data();
  const char* y = b.data();
  if (n >= 8 && n <= 16) {
    std::uint64_t a0, a1, b0, b1;
    std::memcpy(&a0, x, 8), std::memcpy(&a1, x + n - 8, 8);
    std::memcpy(&b0, y, 8), std::memcpy(&b1, y + n - 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  if (n >= 4 && n < 8) {
    std::uint32_t a0, a1, b0, b1;
    std::memcpy(&a0, x, 4), std::memcpy(&a1, x + n - 4, 4);
    std::memcpy(&b0, y, 4), std::memcpy(&b1, y + n - 4, 4);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  if (n < 4) {
    for (std::size_t i = 0; i < n; ++i)
      if (x[i] != y[i]) return false;
    return true;
  }
  // Longer: the last 16 bytes first (variants of one message often differ near their end).
  std::uint64_t a0, a1, b0, b1;
  std::memcpy(&a0, x + n - 16, 8), std::memcpy(&a1, x + n - 8, 8);
  std::memcpy(&b0, y + n - 16, 8), std::memcpy(&b1, y + n - 8, 8);
  return ((a0 ^ b0) | (a1 ^ b1)) == 0 && std::memcmp(x, y, n - 16) == 0;
}

/// Position of the first needle in hay, or npos (0 for an empty needle).
///
/// Needles here are short and so are the lines: 16 positions at a time are tested for the
/// needle's first and last bytes (SSE2), and only those that have both are compared whole;
/// glibc's memmem hashes its way through every byte. No byte outside `hay` is read.
inline std::size_t find(std::string_view hay, std::string_view needle) noexcept {
  const std::size_t n = needle.size(), h = hay.size();
  if (n == 0) return 0;
  if (n > h) return std::string_view::npos;
  const char* const p = hay.data();
  if (n == 1) {
    const void* hit = std::memchr(p, needle[0], h);
    return hit ? static_cast<std::size_t>(static_cast<const char*>(hit) - p) : std::string_view::npos;
  }
  const char first = needle[0], last = needle[n - 1];
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i vf = _mm_set1_epi8(first), vl = _mm_set1_epi8(last);
  for (; i + n - 1 + 16 <= h; i += 16) {  // positions i .. i + 15, their last bytes up to i + n + 14
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + n - 1));
    auto mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, vf), _mm_cmpeq_epi8(b, vl))));
    for (; mask; mask &= mask - 1) {
      const std::size_t at = i + static_cast<std::size_t>(__builtin_ctz(mask));
      if (std::memcmp(p + at + 1, needle.data() + 1, n - 2) == 0) return at;
    }
  }
#endif
  for (; i + n <= h; ++i)
    if (p[i] == first && p[i + n - 1] == last && std::memcmp(p + i + 1, needle.data() + 1, n - 2) == 0) return i;
  return std::string_view::npos;
}
/// True when hay contains needle.
inline bool contains(std::string_view hay, std::string_view needle) noexcept {
  return find(hay, needle) != std::string_view::npos;
}

/// ASCII-case-insensitive equality.
bool iequals(std::string_view a, std::string_view b) noexcept;
/// ASCII-case-insensitive search; npos when absent.
std::size_t ifind(std::string_view hay, std::string_view needle) noexcept;

/// Cuts the next blank-separated token off the front of s (s advances past it and its blanks).
constexpr std::string_view next_token(std::string_view& s) noexcept {
  s = ltrim(s);
  std::size_t i = 0;
  while (i < s.size() && !is_space(s[i])) ++i;
  std::string_view tok = s.substr(0, i);
  s = ltrim(s.substr(i));
  return tok;
}

/// Splits s on blanks into at most N tokens; returns how many were found (the rest of the
/// line goes uncounted once N is reached; `rest` receives what follows the last token taken).
template <std::size_t N>
std::size_t split_ws(std::string_view s, std::array<std::string_view, N>& out,
                     std::string_view* rest = nullptr) noexcept {
  std::size_t n = 0;
  s = ltrim(s);
  while (!s.empty() && n < N) out[n++] = next_token(s);
  if (rest) *rest = s;
  return n;
}

/// Whole-view integer parse; nullopt unless every character is consumed.
template <typename Int = std::int64_t>
std::optional<Int> to_int(std::string_view s, int base = 10) noexcept {
  Int v{};
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

/// Whole-view floating-point parse (no locale); nullopt unless every character is consumed.
std::optional<double> to_double(std::string_view s) noexcept;

/// Parses exactly n digits at s[pos..pos+n) into v; false when any is not a digit.
constexpr bool digits(std::string_view s, std::size_t pos, std::size_t n, unsigned& v) noexcept {
  if (pos + n > s.size()) return false;
  unsigned r = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const char c = s[pos + i];
    if (!is_digit(c)) return false;
    r = r * 10 + static_cast<unsigned>(c - '0');
  }
  v = r;
  return true;
}

/// True for binary data rather than a line of text: a NUL byte, or more than one byte in 16 a
/// control character other than tab, CR, FF, VT and ESC (colour codes). Bytes that are not UTF-8
/// are text (Latin-1 logs).
bool looks_binary(std::string_view s) noexcept;

/// A printable excerpt of at most max bytes for diagnostics (control bytes shown as in printable()).
std::string excerpt(std::string_view line, std::size_t max = 120);

/// True for bytes that a terminal acts on instead of showing: C0 controls but tab, and DEL.
constexpr bool is_control(unsigned char c) noexcept { return (c < 0x20 && c != '\t') || c == 0x7f; }

/// s as text that cannot drive a terminal: text::escape_control() (text/escape.hpp: C0 controls
/// but tab, and DEL, as `\xNN`; C1 controls as `\u00NN`, or `\xNN` for a raw C1 byte outside
/// UTF-8, a lone 0x9B); every other byte unchanged. For text from logs and file names in the
/// table report, the timeline CSV and stderr.
std::string printable(std::string_view s);
/// True when printable(s) differs from s (the common case, false, allocates nothing).
bool needs_printable(std::string_view s) noexcept;
/// printable() of each line of s, joined with LF again: for multi-line text (a report, a CSV
/// cell of a multi-line message) whose line ends are meant.
std::string printable_lines(std::string_view s);
/// True when printable_lines(s) differs from s.
bool needs_printable_lines(std::string_view s) noexcept;

/// Lower-cased ASCII copy (for option values, never in hot loops).
std::string to_lower(std::string_view s);

}  // namespace gpucost::text
