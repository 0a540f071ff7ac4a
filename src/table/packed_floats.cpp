#include "gpucost/table/packed_floats.hpp"

#include <cmath>

namespace gpucost {

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

}  // namespace gpucost
