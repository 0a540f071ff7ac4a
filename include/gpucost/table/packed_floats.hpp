#pragma once
/// \file packed_floats.hpp
/// PackedFloats: doubles as decimal fixed point in PackedInts while that is exact.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "gpucost/table/packed_ints.hpp"

namespace gpucost {

/// double values stored as decimal fixed point in PackedInts (value = integer / 10^k, k <= 4)
/// while every value round-trips exactly (bit for bit), else as plain doubles. Measurements
/// printed with a few decimals (`45`, `12.3`, `63.25`) take one to four bytes.
class PackedFloats {
 public:
  std::size_t size() const noexcept { return raw_ ? raw_values_.size() : ints_.size(); }
  double get(std::size_t i) const noexcept {
    if (raw_) return raw_values_[i];
    return decode(ints_.get(i), decimals_);
  }
  void push(double v) {
    std::int64_t q;
    if (!raw_ && encode(v, decimals_, q)) ints_.push(q);
    else push_slow(v);
  }
  /// Appends a slot whose value does not matter (see PackedInts::push_any).
  void push_any() {
    if (raw_) raw_values_.push_back(0.0);
    else ints_.push_any();
  }
  void push_any(std::size_t n) {
    if (raw_) raw_values_.resize(raw_values_.size() + n, 0.0);
    else ints_.push_any(n);
  }
  void set(std::size_t i, double v);
  void append(const PackedFloats& other, const Validity* valid = nullptr);
  /// Appends n values at once; where valid[i] is false the slot does not matter.
  void append_values(const double* v, const bool* valid, std::size_t n);
  void permute(std::span<const std::uint32_t> order);
  void reserve(std::size_t n);
  /// Gives back the memory of capacity not used yet (PackedInts::trim).
  void trim() noexcept { ints_.trim(); }
  void clear() noexcept;
  std::size_t memory_bytes() const noexcept { return ints_.memory_bytes() + raw_values_.size() * sizeof(double); }

 private:
  friend class ColumnReader;
  static double decode(std::int64_t q, unsigned k) noexcept {
    return k == 0 ? static_cast<double>(q) : static_cast<double>(q) / kPow10[k];
  }
  static bool encode(double v, unsigned k, std::int64_t& q) noexcept {
    const double x = v * kPow10[k];
    if (!(x > -4.0e15 && x < 4.0e15)) return false;  // also NaN
    q = static_cast<std::int64_t>(x < 0 ? x - 0.5 : x + 0.5);
    return std::bit_cast<std::uint64_t>(decode(q, k)) == std::bit_cast<std::uint64_t>(v);  // -0.0 stays raw
  }
  void push_slow(double v);
  // Makes v encodable (more decimals, or raw); false when raw.
  bool adapt(double v);
  void go_raw();

  static constexpr unsigned kMaxDecimals = 4;
  static constexpr double kPow10[kMaxDecimals + 1] = {1, 10, 100, 1000, 10000};
  PackedInts ints_;
  std::vector<double> raw_values_;
  unsigned decimals_ = 0;
  bool raw_ = false;
};

}  // namespace gpucost
