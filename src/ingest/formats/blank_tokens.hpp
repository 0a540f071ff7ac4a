#pragma once
// Blank-separated tokens of a line, cut from a bit mask of its blanks computed 64 bytes at a
// time (SSE2 where available): a token is two count-trailing-zeros, not a byte loop whose exit
// the CPU mispredicts on every column of varying width. Tokens are exactly those of repeated
// text::next_token (blanks are text::is_space: space, tab, CR, vertical tab, form feed).

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "gpucost/text.hpp"

namespace gpucost::formats {

class BlankTokens {
 public:
  /// `only_spaces`: only ' ' separates tokens (tabs and other blanks are token bytes).
  explicit BlankTokens(std::string_view s, bool only_spaces = false) noexcept
      : p_(s.data()), n_(s.size()), only_spaces_(only_spaces) {
    load(0);
  }

  /// Where the next token starts (the line's length when none is left): for a last column
  /// that is the rest of the line, whose words need not be cut.
  std::size_t next_start() noexcept { return skip_blanks() ? pos_ : n_; }

  /// Every token of s into out (cleared first), as repeated next() cuts them, in one pass over
  /// the line: 64 bytes at a time, the token starts (a non-blank after a blank) and ends (a blank
  /// after a non-blank) are bit masks, walked in order with count-trailing-zeros.
  static void cut_all(std::string_view s, bool only_spaces, std::vector<std::string_view>& out) {
    out.clear();
    const char* const p = s.data();
    const std::size_t n = s.size();
    std::uint64_t carry = 1;  // bit 0 of `before`: the byte before the window is a blank
    std::size_t open = 0;     // where the token being cut began
    bool carry_in_token = false;  // the window before ended inside a token (that began at `open`)
    for (std::size_t w = 0; w < n; w += 64) {
      const std::uint64_t blank = window_blanks(p, n, w, only_spaces);
      const std::uint64_t before = blank << 1 | carry;  // bit i: byte i - 1 is a blank
      std::uint64_t starts = ~blank & before, ends = blank & ~before;
      carry = blank >> 63;
      // Starts and ends alternate: the k-th end closes the token of the k-th start before it (or
      // the one still open from the window before). Two plain loops, no branch on which is which.
      std::size_t begin[33];  // a window holds at most 32 starts
      std::size_t k = 0, m = 0;
      begin[k++] = open;
      for (; starts != 0; starts &= starts - 1) begin[k++] = w + static_cast<std::size_t>(__builtin_ctzll(starts));
      // When the window began inside a token, its first end closes that one: begin[0].
      if (carry_in_token) m = 0; else m = 1;
      for (; ends != 0; ends &= ends - 1, ++m) {
        const std::size_t e = w + static_cast<std::size_t>(__builtin_ctzll(ends));
        out.emplace_back(p + begin[m], e - begin[m]);
      }
      open = begin[k - 1];
      carry_in_token = carry == 0;
    }
    if (carry_in_token && n % 64 == 0) out.emplace_back(p + open, n - open);  // a token ends the line
  }

  /// The first `max` tokens of s (all of them when it has fewer) into out[0..], as repeated next()
  /// cuts them; returns how many. Like cut_all, but reads no window past the one where the
  /// `max`-th token ends: the columns before a free-text last column (ps's command) are cut
  /// without splitting the words after them.
  static std::size_t cut_first(std::string_view s, bool only_spaces, std::string_view* out, std::size_t max) noexcept {
    const char* const p = s.data();
    const std::size_t n = s.size();
    std::size_t count = 0;
    if (max == 0) return 0;
    std::uint64_t carry = 1;  // bit 0 of `before`: the byte before the window is a blank
    std::size_t open = 0;     // where the token still open at the window's start began
    bool in_token = false;    // a token is open (the window before ended inside it)
    for (std::size_t w = 0; w < n; w += 64) {
      const std::uint64_t blank = window_blanks(p, n, w, only_spaces);
      const std::uint64_t before = blank << 1 | carry;
      std::uint64_t starts = ~blank & before, ends = blank & ~before;
      carry = blank >> 63;
      // A token open from the window before closes at the window's first end (no start can come
      // before it: a start follows a blank); every other end closes the earliest start left.
      for (; ends != 0; ends &= ends - 1) {
        std::size_t b;
        if (in_token) {
          b = open;
          in_token = false;
        } else {
          b = w + static_cast<std::size_t>(__builtin_ctzll(starts));
          starts &= starts - 1;
        }
        out[count++] = std::string_view(p + b, w + static_cast<std::size_t>(__builtin_ctzll(ends)) - b);
        if (count == max) return count;
      }
      if (starts != 0) {  // the one start left opens a token that goes on past the window
        open = w + static_cast<std::size_t>(__builtin_ctzll(starts));
        in_token = true;
      }
    }
    if (in_token) out[count++] = std::string_view(p + open, n - open);  // a token ends the line (n % 64 == 0)
    return count;
  }

  /// The next token; false at the end of the line.
  bool next(std::string_view& tok) noexcept {
    if (!skip_blanks()) return false;
    const std::size_t start = pos_;
    for (;;) {  // to the next blank; bits past the end are blanks, so this stops there
      const std::uint64_t blank = mask_ >> (pos_ - win_);
      if (blank) {
        pos_ += static_cast<std::size_t>(__builtin_ctzll(blank));
        break;
      }
      load(win_ + 64);
    }
    tok = std::string_view(p_ + start, pos_ - start);
    return true;
  }

 private:
  // Moves to the next non-blank byte; false when there is none.
  bool skip_blanks() noexcept {
    for (;;) {
      const std::uint64_t nonblank = ~mask_ >> (pos_ - win_);
      if (nonblank) {
        pos_ += static_cast<std::size_t>(__builtin_ctzll(nonblank));
        return true;
      }
      if (win_ + 64 >= n_) return false;
      load(win_ + 64);
    }
  }

  // The mask of the 64 bytes from w on (bits past the end set); pos_ moves to w.
  void load(std::size_t w) noexcept {
    win_ = pos_ = w;
    const std::size_t avail = n_ > w ? n_ - w : 0;
    if (avail >= 64) {
      mask_ = blanks64(p_ + w, only_spaces_);
      return;
    }
    if (avail > 0 && n_ >= 64) {
      // The last 64 bytes of the line instead, overlapping what was read: no copy.
      win_ = n_ - 64;
      mask_ = blanks64(p_ + win_, only_spaces_);
      return;
    }
    if (avail == 0) {
      mask_ = ~std::uint64_t{0};
      return;
    }
    char buf[64];
    std::memset(buf, 'x', sizeof buf);
    std::memcpy(buf, p_ + w, avail);  // a line shorter than 64 bytes
    mask_ = blanks64(buf, only_spaces_) | ~std::uint64_t{0} << avail;
  }

  // The blank mask of the bytes from w on of p[0, n) (w < n), bits past the end set. A last
  // window of less than 64 bytes is read as the line's last 64 bytes, shifted, when the line has
  // that many: no copy.
  static std::uint64_t window_blanks(const char* p, std::size_t n, std::size_t w, bool only_spaces) noexcept {
    const std::size_t left = n - w;
    if (left >= 64) return blanks64(p + w, only_spaces);
    if (n >= 64) return blanks64(p + n - 64, only_spaces) >> (64 - left) | ~std::uint64_t{0} << left;
    char buf[64];
    std::memset(buf, 'x', sizeof buf);
    std::memcpy(buf, p + w, left);
    return blanks64(buf, only_spaces) | ~std::uint64_t{0} << left;  // past the end: blanks
  }

  static std::uint64_t blanks64(const char* p, bool only_spaces) noexcept {
#if defined(__SSE2__)
    if (only_spaces) {
      const __m128i space = _mm_set1_epi8(' ');
      std::uint64_t m = 0;
      for (int k = 0; k < 4; ++k) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
        m |= static_cast<std::uint64_t>(static_cast<std::uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, space)))) << (16 * k);
      }
      return m;
    }
    const __m128i space = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'), four = _mm_set1_epi8(4),
                  nl = _mm_set1_epi8('\n');
    std::uint64_t m = 0;
    for (int k = 0; k < 4; ++k) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
      const __m128i d = _mm_sub_epi8(v, tab);  // '\t'..'\r' become 0..4
      const __m128i ctl = _mm_andnot_si128(_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(_mm_min_epu8(d, four), d));
      const __m128i b = _mm_or_si128(_mm_cmpeq_epi8(v, space), ctl);
      m |= static_cast<std::uint64_t>(static_cast<std::uint16_t>(_mm_movemask_epi8(b))) << (16 * k);
    }
    return m;
#else
    std::uint64_t m = 0;
    for (int i = 0; i < 64; ++i) m |= static_cast<std::uint64_t>(only_spaces ? p[i] == ' ' : text::is_space(p[i])) << i;
    return m;
#endif
  }

  const char* p_;
  std::size_t n_;
  bool only_spaces_;
  std::size_t win_ = 0, pos_ = 0;  // window start; position (win_ <= pos_ < win_ + 64)
  // A window holds the 64 bytes from win_, or the line's last 64 (then it ends at n_ exactly).
  std::uint64_t mask_ = 0;         // bit i: byte win_ + i is a blank
};

}  // namespace gpucost::formats
