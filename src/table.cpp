#include "gpucost/table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <new>
#include <stdexcept>

namespace gpucost {

std::string_view column_type_name(ColumnType t) noexcept {
  switch (t) {
    case ColumnType::kInt64: return "int64";
    case ColumnType::kFloat64: return "float64";
    case ColumnType::kBool: return "bool";
    case ColumnType::kDict: return "dict";
    case ColumnType::kText: return "text";
  }
  return "?";
}

std::uint64_t StringDictionary::hash(std::string_view s) noexcept {
  // 8 bytes per step, multiply and fold: ps commands and idents are tens of bytes.
  std::uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  // The last 1-7 bytes as fixed-size loads (a variable-length copy would stall the load).
  std::uint64_t tail = 0;
  const std::size_t n = s.size();
  if (i < n) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    if (n >= 8) {
      std::memcpy(&tail, p + n - 8, 8);
    } else if (n >= 4) {
      std::uint32_t a, b;
      std::memcpy(&a, p, 4);
      std::memcpy(&b, p + n - 4, 4);
      tail = a | static_cast<std::uint64_t>(b) << 32;
    } else {
      tail = p[0] | static_cast<std::uint64_t>(p[n / 2]) << 8 | static_cast<std::uint64_t>(p[n - 1]) << 16;
    }
  }
  h = (h ^ tail) * 0x94D049BB133111EBull;
  return h ^ (h >> 29);
}

void StringDictionary::rehash(std::size_t slots) {
  slots_.assign(slots, 0);
  const std::size_t mask = slots - 1;
  for (std::uint32_t code = 0; code < views_.size(); ++code) {
    std::size_t i = hashes_[code] & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = code + 1;
  }
}

std::uint32_t StringDictionary::intern(std::string_view s) {
  if (slots_.empty()) rehash(64);
  const std::uint64_t h = hash(s);
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = h & mask;
  for (; slots_[i] != 0; i = (i + 1) & mask) {
    const std::uint32_t code = slots_[i] - 1;
    if (hashes_[code] == h && views_[code] == s) return code;
  }
  const auto code = static_cast<std::uint32_t>(views_.size());
  strings_.emplace_back(s);
  views_.push_back(strings_.back());
  hashes_.push_back(h);
  if (2 * views_.size() > slots_.size()) rehash(slots_.size() * 2);
  else slots_[i] = code + 1;
  return code;
}

// ---- Validity ----

void Validity::materialize() {
  // Bits past size_ must stay 0: push() only sets bits.
  words_.assign((size_ + 63) / 64, uniform_ ? ~std::uint64_t{0} : 0);
  if (uniform_ && (size_ & 63)) words_.back() = (std::uint64_t{1} << (size_ & 63)) - 1;
}

void Validity::append(const Validity& other) {
  if (other.size_ == 0) return;
  if (words_.empty() && other.words_.empty() && (size_ == 0 || uniform_ == other.uniform_)) {
    if (size_ == 0) uniform_ = other.uniform_;
    size_ += other.size_;
    return;
  }
  if (words_.empty()) materialize();
  if ((size_ & 63) == 0 && !other.words_.empty()) {  // word-aligned: copy whole words
    words_.insert(words_.end(), other.words_.begin(), other.words_.end());
    size_ += other.size_;
    return;
  }
  for (std::size_t i = 0; i < other.size_; ++i) push(other.get(i));
}

void Validity::append_same(bool valid, std::size_t n) {
  if (n == 0) return;
  if (words_.empty() && (size_ == 0 || uniform_ == valid)) {
    uniform_ = valid;
    size_ += n;
    return;
  }
  for (std::size_t i = 0; i < n; ++i) push(valid);
}

void Validity::append_flags(const bool* valid, std::size_t n) {
  if (n == 0) return;
  if (words_.empty()) {
    const bool first = valid ? valid[0] : true;
    bool same = true;
    if (valid)
      for (std::size_t i = 1; i < n && same; ++i) same = valid[i] == first;
    if (same && (size_ == 0 || first == uniform_)) {
      if (size_ == 0) uniform_ = first;
      size_ += n;
      return;
    }
  }
  for (std::size_t i = 0; i < n; ++i) push(valid ? valid[i] : true);
}

// ---- PackedInts ----

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
    data_ = static_cast<unsigned char*>(std::malloc(bytes + kSlack));
    if (!data_) throw std::bad_alloc();
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
    std::free(data_);
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

PackedInts::~PackedInts() { std::free(data_); }

void PackedInts::clear() noexcept {
  std::free(data_);
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
  // realloc: large blocks move by remapping pages, not by copying them.
  const std::size_t want = std::max({n * width_, cap_ + cap_ / 2, std::size_t{64}});
  auto* p = static_cast<unsigned char*>(std::realloc(data_, want + kSlack));
  if (!p) throw std::bad_alloc();
  data_ = p;
  cap_ = want;
}

void PackedInts::reserve(std::size_t n) {
  if (width_ && n * width_ > cap_) {
    auto* p = static_cast<unsigned char*>(std::realloc(data_, n * width_ + kSlack));
    if (!p) throw std::bad_alloc();
    data_ = p;
    cap_ = n * width_;
  }
}

void PackedInts::widen_for(std::int64_t v) {
  if (min_ > max_) {  // no value yet, only slots that do not matter: v alone sets the encoding
    std::free(data_);
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
// that each is a straight loop the compiler can unroll.
template <bool kValid>
void batch_bounds(const std::int64_t* v, const bool* valid, std::size_t n, std::int64_t& lo, std::int64_t& hi) {
  std::int64_t l = INT64_MAX, h = INT64_MIN;
  for (std::size_t i = 0; i < n; ++i) {
    if (kValid && !valid[i]) continue;
    l = std::min(l, v[i]);
    h = std::max(h, v[i]);
  }
  lo = l;
  hi = h;
}

// Index of the first value that matters whose offset from base is not a multiple of kScale, or n.
template <std::uint64_t kScale, bool kValid>
std::size_t first_off_scale(const std::int64_t* v, const bool* valid, std::size_t n, std::int64_t base) {
  for (std::size_t i = 0; i < n; ++i)
    if ((!kValid || valid[i]) && (static_cast<std::uint64_t>(v[i]) - static_cast<std::uint64_t>(base)) % kScale != 0)
      return i;
  return n;
}

template <unsigned kWidth, std::uint64_t kScale, bool kValid>
void store_run(unsigned char* dst, const std::int64_t* v, const bool* valid, std::size_t n, std::int64_t base) {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t q = static_cast<std::uint64_t>(v[i]) - static_cast<std::uint64_t>(base);
    if (kScale != 1) q /= kScale;
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
}

template <bool kValid>
void store_batch(unsigned width, unsigned exp, unsigned char* dst, const std::int64_t* v, const bool* valid,
                 std::size_t n, std::int64_t base) {
#define GPUCOST_STORE(W)                                                        \
  switch (exp) {                                                                \
    case 0: store_run<W, 1, kValid>(dst, v, valid, n, base); break;             \
    case 1: store_run<W, 1'000, kValid>(dst, v, valid, n, base); break;         \
    case 2: store_run<W, 1'000'000, kValid>(dst, v, valid, n, base); break;     \
    default: store_run<W, 1'000'000'000, kValid>(dst, v, valid, n, base); break; \
  }
  switch (width) {
    case 1: GPUCOST_STORE(1) break;
    case 2: GPUCOST_STORE(2) break;
    case 3: GPUCOST_STORE(3) break;
    case 4: GPUCOST_STORE(4) break;
    default: store_run<8, 1, kValid>(dst, v, valid, n, 0); break;
  }
#undef GPUCOST_STORE
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
  if (valid) batch_bounds<true>(v, valid, n, lo, hi);
  else batch_bounds<false>(v, valid, n, lo, hi);
  if (lo > hi) {  // no value that matters
    push_any(n);
    return;
  }
  // One encoding for the whole batch: its bounds, and every value's scale.
  for (const std::int64_t b : {lo, hi}) {
    if (!fits(b)) widen_for(b);
    note(b);
  }
  while (width_ != 0 && width_ != 8 && exp_ != 0) {
    const std::size_t bad = valid ? first_off_scale_of<true>(exp_, v, valid, n, base_)
                                  : first_off_scale_of<false>(exp_, v, valid, n, base_);
    if (bad == n) break;
    widen_for(v[bad]);  // a finer scale
  }
  if (width_ == 0) {  // lo == hi == base_
    size_ += n;
    return;
  }
  if ((size_ + n) * width_ > cap_) grow(size_ + n);
  unsigned char* dst = data_ + size_ * width_;
  if (valid) store_batch<true>(width_, exp_, dst, v, valid, n, base_);
  else store_batch<false>(width_, exp_, dst, v, valid, n, base_);
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

// ---- PackedFloats ----

void PackedFloats::go_raw() {
  raw_values_.reserve(ints_.size() + 1);
  for (std::size_t i = 0; i < ints_.size(); ++i) raw_values_.push_back(decode(ints_.get(i), decimals_));
  ints_.clear();
  raw_ = true;
}

bool PackedFloats::adapt(double v) {
  if (raw_) return false;
  std::int64_t q;
  for (unsigned k = decimals_ + 1; k <= kMaxDecimals; ++k)
    if (encode(v, k, q)) {
      // Integers times a power of ten decode to the same doubles with more decimals.
      if (!ints_.scale_all(static_cast<std::int64_t>(kPow10[k - decimals_]), std::int64_t{4'000'000'000'000'000}))
        break;
      decimals_ = k;
      return true;
    }
  go_raw();
  return false;
}

void PackedFloats::push_slow(double v) {
  std::int64_t q;
  if (adapt(v) && encode(v, decimals_, q)) ints_.push(q);
  else raw_values_.push_back(v);
}

void PackedFloats::set(std::size_t i, double v) {
  std::int64_t q;
  if (!raw_ && encode(v, decimals_, q)) {
    ints_.set(i, q);
    return;
  }
  if (adapt(v) && encode(v, decimals_, q)) ints_.set(i, q);
  else raw_values_[i] = v;
}

void PackedFloats::append(const PackedFloats& other, const Validity* valid) {
  if (!raw_ && !other.raw_ && other.decimals_ == decimals_) {
    ints_.append(other.ints_, valid);
    return;
  }
  const std::size_t n = other.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (valid && !valid->get(i)) push_any();
    else push(other.get(i));
  }
}

void PackedFloats::append_values(const double* v, const bool* valid, std::size_t n) {
  constexpr std::size_t kChunk = 256;
  std::int64_t q[kChunk];
  while (n > 0) {
    const std::size_t m = std::min(n, kChunk);
    std::size_t done = 0;
    if (!raw_) {
      std::size_t i = 0;
      for (; i < m; ++i) {
        if (valid && !valid[i]) {
          q[i] = 0;
          continue;
        }
        if (!encode(v[i], decimals_, q[i])) break;
      }
      if (i == m) {
        ints_.append_values(q, valid, m);
        done = m;
      } else {  // a value that needs more decimals or raw doubles: append what fit, then that one
        ints_.append_values(q, valid, i);
        push_slow(v[i]);
        done = i + 1;
      }
    } else {
      for (std::size_t i = 0; i < m; ++i) raw_values_.push_back(valid && !valid[i] ? 0.0 : v[i]);
      done = m;
    }
    v += done;
    if (valid) valid += done;
    n -= done;
  }
}

void PackedFloats::permute(std::span<const std::uint32_t> order) {
  if (!raw_) {
    ints_.permute(order);
    return;
  }
  std::vector<double> f;
  f.reserve(order.size());
  for (auto r : order) f.push_back(raw_values_[r]);
  raw_values_ = std::move(f);
}

void PackedFloats::reserve(std::size_t n) {
  if (raw_) raw_values_.reserve(n);
  else ints_.reserve(n);
}

void PackedFloats::clear() noexcept {
  ints_.clear();
  raw_values_.clear();
  raw_values_.shrink_to_fit();
  decimals_ = 0;
  raw_ = false;
}

// ---- Column ----

Column::Column(std::string name, ColumnType type, std::string unit)
    : name_(std::move(name)), type_(type), unit_(std::move(unit)) {
  if (type_ == ColumnType::kDict) dict_ = std::make_shared<StringDictionary>();
}

void Column::push_null() {
  switch (type_) {
    case ColumnType::kFloat64: floats_.push_any(); break;
    case ColumnType::kText: ints_.push(static_cast<std::int64_t>(arena_.size())); break;
    default: ints_.push_any(); break;  // reads as 0 through get_int(), which checks validity
  }
  valid_.push(false);
}

void Column::push_string(std::string_view v) {
  if (type_ == ColumnType::kDict) {
    ints_.push(dict_->intern(v));
  } else {
    arena_.append(v);
    ints_.push(static_cast<std::int64_t>(arena_.size()));
  }
  valid_.push(true);
}

std::string_view Column::get_string(std::size_t row) const noexcept {
  if (type_ == ColumnType::kDict) return dict_->at(get_code(row));
  const std::size_t begin = row == 0 ? 0 : static_cast<std::size_t>(ints_.get(row - 1));
  const std::size_t end = static_cast<std::size_t>(ints_.get(row));
  return std::string_view(arena_).substr(begin, end - begin);
}

void Column::push_from(const Column& other, std::size_t row) {
  if (!other.is_valid(row)) {
    push_null();
    return;
  }
  switch (type_) {
    case ColumnType::kInt64:
    case ColumnType::kBool: push_int(other.ints_.get(row)); break;  // valid: checked above
    case ColumnType::kFloat64: push_float(other.floats_.get(row)); break;
    case ColumnType::kDict:
    case ColumnType::kText: push_string(other.get_string(row)); break;
  }
}

void Column::append_column(const Column& other) {
  if (other.type_ != type_) throw std::logic_error("Column::append_column: types differ");
  const std::size_t n = other.size();
  switch (type_) {
    case ColumnType::kInt64:
    case ColumnType::kBool:
      ints_.append(other.ints_, &other.valid_);
      break;
    case ColumnType::kFloat64:
      floats_.append(other.floats_, &other.valid_);
      break;
    case ColumnType::kDict: {
      std::vector<std::uint32_t> map(other.dict_->size());
      for (std::uint32_t c = 0; c < map.size(); ++c) map[c] = dict_->intern(other.dict_->at(c));
      ints_.reserve(ints_.size() + n);
      for (std::size_t r = 0; r < n; ++r) {
        if (other.valid_.get(r)) ints_.push(map[static_cast<std::size_t>(other.ints_.get(r))]);
        else ints_.push_any();
      }
      break;
    }
    case ColumnType::kText: {
      const auto base = static_cast<std::int64_t>(arena_.size());
      arena_.append(other.arena_);
      ints_.reserve(ints_.size() + n);
      for (std::size_t r = 0; r < n; ++r) ints_.push(other.ints_.get(r) + base);
      break;
    }
  }
  valid_.append(other.valid_);
}

void Column::append_ints(const std::int64_t* v, const bool* valid, std::size_t n) {
  ints_.append_values(v, valid, n);
  valid_.append_flags(valid, n);
}

void Column::append_floats(const double* v, std::size_t n) {
  constexpr std::size_t kChunk = 256;
  bool valid[kChunk];
  for (std::size_t at = 0; at < n; at += kChunk) {
    const std::size_t m = std::min(kChunk, n - at);
    bool all = true;
    for (std::size_t i = 0; i < m; ++i) {
      valid[i] = v[at + i] == v[at + i];  // NaN means null
      all = all && valid[i];
    }
    floats_.append_values(v + at, all ? nullptr : valid, m);
    valid_.append_flags(all ? nullptr : valid, m);
  }
}

void Column::append_codes(const std::uint32_t* codes, const bool* valid, std::size_t n) {
  constexpr std::size_t kChunk = 256;
  std::int64_t v[kChunk];
  for (std::size_t at = 0; at < n; at += kChunk) {
    const std::size_t m = std::min(kChunk, n - at);
    for (std::size_t i = 0; i < m; ++i) v[i] = codes[at + i];
    ints_.append_values(v, valid ? valid + at : nullptr, m);
    valid_.append_flags(valid ? valid + at : nullptr, m);
  }
}

void Column::append_nulls(std::size_t n) {
  switch (type_) {
    case ColumnType::kFloat64: floats_.push_any(n); break;
    case ColumnType::kText:
      for (std::size_t i = 0; i < n; ++i) ints_.push(static_cast<std::int64_t>(arena_.size()));
      break;
    default: ints_.push_any(n); break;
  }
  valid_.append_same(false, n);
}

void Column::reserve(std::size_t rows) {
  valid_.reserve(rows);
  if (type_ == ColumnType::kFloat64) floats_.reserve(rows); else ints_.reserve(rows);
}

void Column::clear() {
  valid_.clear();
  ints_.clear();
  floats_.clear();
  arena_.clear();
  if (dict_) dict_ = std::make_shared<StringDictionary>();
}

void Column::permute(std::span<const std::uint32_t> order) {
  Validity v;
  for (auto r : order) v.push(valid_.get(r));
  if (type_ == ColumnType::kFloat64) {
    floats_.permute(order);
  } else if (type_ == ColumnType::kText) {
    std::string arena;
    PackedInts ends;
    for (auto r : order) {
      arena.append(get_string(r));
      ends.push(static_cast<std::int64_t>(arena.size()));
    }
    arena_ = std::move(arena);
    ints_ = std::move(ends);
  } else {
    ints_.permute(order);
  }
  valid_ = std::move(v);
}

Table::Table(std::string name) : name_(std::move(name)) {
  columns_.emplace_back("ts_ns", ColumnType::kInt64, "ns");
}

Table::Table(Table&& other) : name_(other.name_), columns_(std::move(other.columns_)) {
  other.columns_ = empty_schema();
}

Table& Table::operator=(Table&& other) {
  if (this != &other) {
    name_ = other.name_;
    columns_ = std::move(other.columns_);
    other.columns_ = empty_schema();
  }
  return *this;
}

std::vector<Column> Table::empty_schema() const {
  std::vector<Column> cols;
  cols.reserve(columns_.size());
  for (const auto& c : columns_) cols.emplace_back(c.name(), c.type(), c.unit());
  return cols;
}

std::size_t Table::add_column(std::string name, ColumnType type, std::string unit) {
  if (rows() != 0) throw std::logic_error("Table::add_column on a non-empty table");
  columns_.emplace_back(std::move(name), type, std::move(unit));
  return columns_.size() - 1;
}

std::size_t Table::find(std::string_view name) const noexcept {
  for (std::size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i].name() == name) return i;
  return npos;
}

bool Table::consistent() const noexcept {
  for (const auto& c : columns_)
    if (c.size() != columns_[0].size()) return false;
  return true;
}

void Table::append(const Table& other) {
  if (other.columns_.size() != columns_.size())
    throw std::logic_error("Table::append: schemas differ");
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (columns_[c].type() != other.columns_[c].type()) throw std::logic_error("Table::append: schemas differ");
    columns_[c].append_column(other.columns_[c]);
  }
}

void Table::append(Table&& other) {
  if (rows() == 0 && other.columns_.size() == columns_.size()) {
    bool same = true;
    for (std::size_t c = 0; c < columns_.size() && same; ++c) same = columns_[c].type() == other.columns_[c].type();
    if (same) {
      columns_ = std::move(other.columns_);
      other.columns_ = empty_schema();
      return;
    }
  }
  append(static_cast<const Table&>(other));
  other.clear();
}

std::size_t Table::memory_bytes() const noexcept {
  std::size_t n = 0;
  for (const auto& c : columns_) n += c.memory_bytes();
  return n;
}

void Table::permute(std::span<const std::uint32_t> order) {
  for (auto& c : columns_) c.permute(order);
}

void Table::reserve(std::size_t rows) {
  for (auto& c : columns_) c.reserve(rows);
}

void Table::clear() {
  for (auto& c : columns_) c.clear();
}

}  // namespace gpucost
