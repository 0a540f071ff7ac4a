#include "gpucost/table/packed_ints.hpp"

#include "gpucost/table/big_buffer.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <stdexcept>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define GPUCOST_HAVE_AVX2_PATH 1
#endif

namespace gpucost {

namespace {

constexpr std::int64_t kPow1000[] = {1, 1'000, 1'000'000, 1'000'000'000};

// The largest e (0-3) with 1000^e dividing v.
unsigned exp_of(std::int64_t v) noexcept {
  if (v % 1'000'000'000 == 0) return 3;
  if (v % 1'000'000 == 0) return 2;
  if (v % 1'000 == 0) return 1;
  return 0;
}

std::int64_t floor_to(std::int64_t v, std::int64_t m) noexcept {
  std::int64_t r = v % m;
  if (r < 0) r += m;
  return v - r;
}

constexpr std::size_t kSlack = 8;  // bytes past cap_: width-3 loads read 4 bytes

}  // namespace

PackedInts::PackedInts(const PackedInts& other)
    : size_(other.size_), base_(other.base_), scale_(other.scale_), limit_(other.limit_), min_(other.min_),
      max_(other.max_), width_(other.width_), exp_(other.exp_), low_mask_(other.low_mask_) {
  const std::size_t bytes = size_ * width_;
  if (bytes) {
    data_ = static_cast<unsigned char*>(big_buffer::allocate(bytes + kSlack));
    std::memcpy(data_, other.data_, bytes);
    cap_ = bytes;
  }
}

PackedInts& PackedInts::operator=(const PackedInts& other) {
  if (this != &other) {
    PackedInts copy(other);
    *this = std::move(copy);
  }
  return *this;
}

PackedInts::PackedInts(PackedInts&& other) noexcept
    : data_(other.data_), size_(other.size_), cap_(other.cap_), base_(other.base_), scale_(other.scale_),
      limit_(other.limit_), min_(other.min_), max_(other.max_), width_(other.width_), exp_(other.exp_),
      low_mask_(other.low_mask_) {
  other.data_ = nullptr;
  other.cap_ = 0;
  other.clear();
}

PackedInts& PackedInts::operator=(PackedInts&& other) noexcept {
  if (this != &other) {
    big_buffer::release(data_, cap_ + kSlack);
    data_ = other.data_;
    size_ = other.size_;
    cap_ = other.cap_;
    base_ = other.base_;
    scale_ = other.scale_;
    limit_ = other.limit_;
    min_ = other.min_;
    max_ = other.max_;
    width_ = other.width_;
    exp_ = other.exp_;
    low_mask_ = other.low_mask_;
    other.data_ = nullptr;
    other.cap_ = 0;
    other.clear();
  }
  return *this;
}

PackedInts::~PackedInts() { big_buffer::release(data_, cap_ + kSlack); }

void PackedInts::clear() noexcept {
  big_buffer::release(data_, cap_ + kSlack);
  data_ = nullptr;
  size_ = cap_ = 0;
  base_ = 0;
  scale_ = 1;
  limit_ = 0;
  min_ = INT64_MAX;
  max_ = INT64_MIN;
  width_ = exp_ = 0;
  low_mask_ = 0;
}

void PackedInts::grow(std::size_t n) {
  // Large blocks move by remapping pages, not by copying them (big_buffer::resize).
  const std::size_t want = std::max({n * width_, cap_ + cap_ / 2, std::size_t{64}});
  data_ = static_cast<unsigned char*>(big_buffer::resize(data_, data_ ? cap_ + kSlack : 0, want + kSlack));
  cap_ = want;
}

void PackedInts::reserve(std::size_t n) {
  if (width_ && n * width_ > cap_) {
    data_ = static_cast<unsigned char*>(big_buffer::resize(data_, data_ ? cap_ + kSlack : 0, n * width_ + kSlack));
    cap_ = n * width_;
  }
}

void PackedInts::trim() noexcept {
  if (data_) big_buffer::trim(data_, cap_ + kSlack, size_ * width_ + kSlack);
}

void PackedInts::widen_for(std::int64_t v) {
  if (min_ > max_) {  // no value yet, only slots that do not matter: v alone sets the encoding
    big_buffer::release(data_, cap_ + kSlack);
    data_ = nullptr;
    cap_ = 0;
    width_ = exp_ = 0;
    scale_ = 1;
    limit_ = 0;
    low_mask_ = 0;
    base_ = v;
    return;
  }
  const std::int64_t lo = std::min(min_, v), hi = std::max(max_, v);
  const unsigned exp = std::min(width_ == 0 ? exp_of(base_) : exp_, exp_of(v));
  const std::int64_t scale = kPow1000[exp];
  std::int64_t base;
  if (width_ > 0 && width_ < 8 && base_ <= lo && base_ % scale == 0) {
    base = base_;
  } else {
    base = lo;
    if (width_ > 0 && v < min_) {
      // Values moving down: leave as much room below as the span, so that a descending run
      // re-encodes a logarithmic number of times, not once per value.
      const auto span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
      if (span <= static_cast<std::uint64_t>(lo) - static_cast<std::uint64_t>(INT64_MIN))
        base = static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) - span);
    }
    base = floor_to(base, scale);
    if (base > lo) base = lo;  // floor_to cannot overflow upwards; keep the invariant anyway
  }
  const std::uint64_t q = (static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(base)) / static_cast<std::uint64_t>(scale);
  unsigned width = q <= 0xFFu ? 1 : q <= 0xFFFFu ? 2 : q <= 0xFFFFFFu ? 3 : q <= 0xFFFFFFFFu ? 4 : 8;
  PackedInts n;
  n.width_ = width;
  n.min_ = min_;
  n.max_ = max_;
  if (width == 8) {
    n.base_ = 0;
    n.scale_ = 1;
    n.exp_ = 0;
    n.limit_ = UINT64_MAX;
  } else {
    n.base_ = base;
    n.scale_ = scale;
    n.exp_ = exp;
    n.limit_ = width == 4 ? 0xFFFFFFFFu : (std::uint64_t{1} << (8 * width)) - 1;
    n.low_mask_ = static_cast<std::uint32_t>(n.limit_);
  }
  n.grow(std::max<std::size_t>(size_ + 1, 16));
  for (std::size_t i = 0; i < size_; ++i) {
    const std::int64_t x = get(i);
    if (x < min_ || x > max_) n.store(i, 0);  // not a value pushed: a slot that does not matter
    else if (width == 8) n.store(i, static_cast<std::uint64_t>(x));
    else n.store(i, (static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(base)) / static_cast<std::uint64_t>(scale));
  }
  n.size_ = size_;
  *this = std::move(n);
}

void PackedInts::push_slow(std::int64_t v) {
  widen_for(v);
  if (width_ == 0) {
    note(v);
    ++size_;
    return;
  }
  if ((size_ + 1) * width_ > cap_) grow(size_ + 1);
  std::uint64_t q = static_cast<std::uint64_t>(v);
  if (width_ != 8) encode(v, q);
  store(size_++, q);
  note(v);
}

void PackedInts::set_slow(std::size_t i, std::int64_t v) {
  widen_for(v);
  note(v);
  if (width_ == 0) return;
  std::uint64_t q = static_cast<std::uint64_t>(v);
  if (width_ != 8) encode(v, q);
  store(i, q);
}

bool PackedInts::scale_all(std::int64_t factor, std::int64_t limit) {
  if (size_ == 0 || min_ > max_) return true;
  if (min_ < -limit / factor || max_ > limit / factor) return false;
  PackedInts n;
  for (std::size_t i = 0; i < size_; ++i) {
    const std::int64_t x = get(i);
    if (x < min_ || x > max_) n.push_any();
    else n.push(x * factor);
  }
  *this = std::move(n);
  return true;
}

void PackedInts::append(const PackedInts& other, const Validity* valid) {
  if (other.size_ == 0) return;
  if (size_ == 0) {
    *this = other;
    return;
  }
  if (width_ > 0 && other.width_ == width_ && other.base_ == base_ && other.exp_ == exp_) {
    if ((size_ + other.size_) * width_ > cap_) grow(size_ + other.size_);
    std::memcpy(data_ + size_ * width_, other.data_, other.size_ * width_);
    size_ += other.size_;
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
    return;
  }
  if (width_ == 0 && other.width_ == 0 && other.base_ == base_) {
    size_ += other.size_;
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
    return;
  }
  // Widen once for both bounds, then append value by value.
  if (other.min_ <= other.max_) {
    std::uint64_t q;
    for (const std::int64_t b : {other.min_, other.max_}) {
      const bool fits = width_ == 0 ? b == base_ && min_ <= max_ : width_ == 8 || encode(b, q);
      if (!fits) widen_for(b);
      note(b);
    }
  }
  reserve(size_ + other.size_);
  for (std::size_t i = 0; i < other.size_; ++i) {
    if (valid && !valid->get(i)) push_any();
    else push(other.get(i));
  }
}

namespace {

// The batch loops of append_values, one instantiation per width, scale and null handling, so
// that each is a straight loop the compiler can unroll. The bounds are taken four values at a
// time with AVX2 where the CPU has it (SSE2 has no 64-bit compare: scalar code makes two
// dependent compares of every value).
template <bool kValid>
void bounds_loop(const std::int64_t* v, const bool* valid, std::size_t n, std::int64_t& lo, std::int64_t& hi) {
  std::int64_t l = INT64_MAX, h = INT64_MIN;
  for (std::size_t i = 0; i < n; ++i) {
    if (kValid && !valid[i]) continue;
    l = std::min(l, v[i]);
    h = std::max(h, v[i]);
  }
  lo = l;
  hi = h;
}

#if defined(GPUCOST_HAVE_AVX2_PATH)
__attribute__((target("avx2"))) void bounds_avx2(const std::int64_t* v, const bool* valid, std::size_t n,
                                                 std::int64_t& lo, std::int64_t& hi) {
  const __m256i kMax = _mm256_set1_epi64x(INT64_MAX), kMin = _mm256_set1_epi64x(INT64_MIN);
  __m256i l = kMax, h = kMin;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v + i));
    __m256i xl = x, xh = x;
    if (valid) {
      std::int32_t flags;  // four bools, 0 or 1 each
      std::memcpy(&flags, valid + i, 4);
      const __m256i use = _mm256_sub_epi64(_mm256_setzero_si256(), _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(flags)));
      xl = _mm256_blendv_epi8(kMax, x, use);
      xh = _mm256_blendv_epi8(kMin, x, use);
    }
    l = _mm256_blendv_epi8(l, xl, _mm256_cmpgt_epi64(l, xl));
    h = _mm256_blendv_epi8(h, xh, _mm256_cmpgt_epi64(xh, h));
  }
  alignas(32) std::int64_t ls[4], hs[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(ls), l);
  _mm256_store_si256(reinterpret_cast<__m256i*>(hs), h);
  std::int64_t tl, th;
  if (valid) bounds_loop<true>(v + i, valid + i, n - i, tl, th);
  else bounds_loop<false>(v + i, nullptr, n - i, tl, th);
  lo = std::min({ls[0], ls[1], ls[2], ls[3], tl});
  hi = std::max({hs[0], hs[1], hs[2], hs[3], th});
}

#endif

void batch_bounds(const std::int64_t* v, const bool* valid, std::size_t n, std::int64_t& lo, std::int64_t& hi) {
#if defined(GPUCOST_HAVE_AVX2_PATH)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return bounds_avx2(v, valid, n, lo, hi);
#endif
  if (valid) bounds_loop<true>(v, valid, n, lo, hi);
  else bounds_loop<false>(v, valid, n, lo, hi);
}

// Index of the first value that matters whose offset from base is not a multiple of kScale, or n.
template <std::uint64_t kScale, bool kValid>
std::size_t first_off_scale(const std::int64_t* v, const bool* valid, std::size_t n, std::int64_t base) {
  for (std::size_t i = 0; i < n; ++i)
    if ((!kValid || valid[i]) && (static_cast<std::uint64_t>(v[i]) - static_cast<std::uint64_t>(base)) % kScale != 0)
      return i;
  return n;
}

// Stores the values' q = (v - base) / kScale (0 for a null); false when a value that matters is
// not a multiple of kScale from base (what was stored is then to be stored again).
template <unsigned kWidth, std::uint64_t kScale, bool kValid>
bool store_run(unsigned char* dst, const std::int64_t* v, const bool* valid, std::size_t n, std::int64_t base) {
  std::uint64_t off = 0;  // nonzero once a value is off the scale
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t d = static_cast<std::uint64_t>(v[i]) - static_cast<std::uint64_t>(base);
    std::uint64_t q = d;
    if (kScale != 1) {
      q = d / kScale;
      off |= kValid ? (d - q * kScale) & -static_cast<std::uint64_t>(valid[i]) : d - q * kScale;
    }
    if (kValid && !valid[i]) q = 0;
    if constexpr (kWidth == 1) {
      dst[i] = static_cast<unsigned char>(q);
    } else if constexpr (kWidth == 2) {
      const auto t = static_cast<std::uint16_t>(q);
      std::memcpy(dst + 2 * i, &t, 2);
    } else if constexpr (kWidth == 3) {
      // Four bytes: the fourth is the next value's first (written next) or the buffer's slack.
      const auto t = static_cast<std::uint32_t>(q);
      std::memcpy(dst + 3 * i, &t, 4);
    } else if constexpr (kWidth == 4) {
      const auto t = static_cast<std::uint32_t>(q);
      std::memcpy(dst + 4 * i, &t, 4);
    } else {
      std::memcpy(dst + 8 * i, &q, 8);
    }
  }
  return off == 0;
}

template <bool kValid>
bool store_batch(unsigned width, unsigned exp, unsigned char* dst, const std::int64_t* v, const bool* valid,
                 std::size_t n, std::int64_t base) {
#define GPUCOST_STORE(W)                                                    \
  switch (exp) {                                                            \
    case 0: return store_run<W, 1, kValid>(dst, v, valid, n, base);         \
    case 1: return store_run<W, 1'000, kValid>(dst, v, valid, n, base);     \
    case 2: return store_run<W, 1'000'000, kValid>(dst, v, valid, n, base); \
    default: return store_run<W, 1'000'000'000, kValid>(dst, v, valid, n, base); \
  }
  switch (width) {
    case 1: GPUCOST_STORE(1)
    case 2: GPUCOST_STORE(2)
    case 3: GPUCOST_STORE(3)
    case 4: GPUCOST_STORE(4)
    default: return store_run<8, 1, kValid>(dst, v, valid, n, 0);
  }
#undef GPUCOST_STORE
}

// n copies of q (0 where valid says null), kWidth bytes each.
template <unsigned kWidth>
void fill_run(unsigned char* dst, std::uint64_t q, const bool* valid, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t x = valid && !valid[i] ? 0 : q;
    std::memcpy(dst + kWidth * i, &x, kWidth);  // little-endian: the low kWidth bytes
  }
}

void store_fill(unsigned width, unsigned char* dst, std::uint64_t q, const bool* valid, std::size_t n) {
  switch (width) {
    case 1:
      if (!valid) std::memset(dst, static_cast<unsigned char>(q), n);
      else fill_run<1>(dst, q, valid, n);
      break;
    case 2: fill_run<2>(dst, q, valid, n); break;
    case 3: fill_run<3>(dst, q, valid, n); break;
    case 4: fill_run<4>(dst, q, valid, n); break;
    default: fill_run<8>(dst, q, valid, n); break;
  }
}

template <bool kValid>
std::size_t first_off_scale_of(unsigned exp, const std::int64_t* v, const bool* valid, std::size_t n, std::int64_t base) {
  switch (exp) {
    case 0: return n;
    case 1: return first_off_scale<1'000, kValid>(v, valid, n, base);
    case 2: return first_off_scale<1'000'000, kValid>(v, valid, n, base);
    default: return first_off_scale<1'000'000'000, kValid>(v, valid, n, base);
  }
}

}  // namespace

void PackedInts::append_values(const std::int64_t* v, const bool* valid, std::size_t n) {
  if (n == 0) return;
  std::int64_t lo, hi;
  batch_bounds(v, valid, n, lo, hi);
  if (lo > hi) {  // no value that matters
    push_any(n);
    return;
  }
  // One encoding for the whole batch: its bounds, and every value's scale.
  for (const std::int64_t b : {lo, hi}) {
    if (!fits(b)) widen_for(b);
    note(b);
  }
  if (lo == hi) {  // one value (a constant column, the stamp of a snapshot): one q for all
    while (width_ != 0 && width_ != 8 &&
           (static_cast<std::uint64_t>(lo) - static_cast<std::uint64_t>(base_)) % static_cast<std::uint64_t>(scale_) != 0)
      widen_for(lo);  // a finer scale
    if (width_ == 0) {  // lo == base_
      size_ += n;
      return;
    }
    if ((size_ + n) * width_ > cap_) grow(size_ + n);
    const std::uint64_t q =
        width_ == 8 ? static_cast<std::uint64_t>(lo)
                    : (static_cast<std::uint64_t>(lo) - static_cast<std::uint64_t>(base_)) / static_cast<std::uint64_t>(scale_);
    store_fill(width_, data_ + size_ * width_, q, valid, n);
    size_ += n;
    return;
  }
  // Stored at the current scale, checking each value's remainder on the way; a value off the
  // scale (rare: the scale only ever gets finer) makes it finer, and the batch is stored again.
  for (;;) {
    if ((size_ + n) * width_ > cap_) grow(size_ + n);
    unsigned char* dst = data_ + size_ * width_;
    const bool on_scale = valid ? store_batch<true>(width_, exp_, dst, v, valid, n, base_)
                                : store_batch<false>(width_, exp_, dst, v, valid, n, base_);
    if (on_scale) break;
    const std::size_t bad = valid ? first_off_scale_of<true>(exp_, v, valid, n, base_)
                                  : first_off_scale_of<false>(exp_, v, valid, n, base_);
    widen_for(v[bad]);
  }
  size_ += n;
}

void PackedInts::permute(std::span<const std::uint32_t> order) {
  if (width_ == 0) {
    size_ = order.size();
    return;
  }
  PackedInts n;
  n.width_ = width_;
  n.base_ = base_;
  n.scale_ = scale_;
  n.exp_ = exp_;
  n.limit_ = limit_;
  n.low_mask_ = low_mask_;
  n.min_ = min_;
  n.max_ = max_;
  if (!order.empty()) n.grow(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    std::uint64_t q;
    const std::size_t r = order[i];
    switch (width_) {
      case 1: q = data_[r]; break;
      case 2: q = load<std::uint16_t>(2 * r); break;
      case 3: q = load<std::uint32_t>(3 * r) & 0xFFFFFFu; break;
      case 4: q = load<std::uint32_t>(4 * r); break;
      default: q = load<std::uint64_t>(8 * r); break;
    }
    n.store(i, q);
  }
  n.size_ = order.size();
  *this = std::move(n);
}

}  // namespace gpucost
