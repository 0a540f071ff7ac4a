#pragma once
/// \file packed_ints.hpp
/// PackedInts: int64 values in the narrowest width and scale that hold them all.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "gpucost/table/validity.hpp"

namespace gpucost {

/// int64 values stored as `base + scale × q` with q unsigned in the narrowest width that holds
/// them all (0, 1, 2, 3, 4 or 8 bytes; 0 when every value is the same), scale the largest power of
/// 1000 (up to 10^9) that divides them all: whole-second nanosecond stamps take 3-4 bytes, small
/// counts and codes one. The encoding widens (re-encoding what is stored) when a value does not
/// fit; get() returns exactly what push() or set() stored. push_any() reserves a slot whose value
/// does not matter (a null's): it never widens the encoding, and reads back as some value.
class PackedInts {
 public:
  PackedInts() = default;
  PackedInts(const PackedInts& other);
  PackedInts& operator=(const PackedInts& other);
  PackedInts(PackedInts&& other) noexcept;
  PackedInts& operator=(PackedInts&& other) noexcept;
  ~PackedInts();

  std::size_t size() const noexcept { return size_; }
  std::int64_t get(std::size_t i) const noexcept {
    // Widths 1-4: one 4-byte load and a mask (buffers have slack past the end), no jump table.
    if (width_ - 1u < 4u) return base_ + scale_ * static_cast<std::int64_t>(load<std::uint32_t>(width_ * i) & low_mask_);
    if (width_ == 0) return base_;
    return load<std::int64_t>(8 * i);
  }
  void push(std::int64_t v) {
    std::uint64_t q;
    if (width_ == 0) {
      if (v == base_ && min_ <= max_) {
        ++size_;
        return;
      }
    } else if (width_ == 8) {
      if ((size_ + 1) * 8 > cap_) grow(size_ + 1);
      store(size_++, static_cast<std::uint64_t>(v));
      note(v);
      return;
    } else if (encode(v, q)) {
      if ((size_ + 1) * width_ > cap_) grow(size_ + 1);
      store(size_++, q);
      note(v);
      return;
    }
    push_slow(v);
  }
  /// Appends a slot whose value does not matter.
  void push_any() {
    if (width_ != 0) {
      if ((size_ + 1) * width_ > cap_) grow(size_ + 1);
      store(size_, 0);
    }
    ++size_;
  }
  /// Appends n slots whose values do not matter.
  void push_any(std::size_t n) {
    if (width_ != 0) {
      if ((size_ + n) * width_ > cap_) grow(size_ + n);
      std::memset(data_ + size_ * width_, 0, n * width_);
    }
    size_ += n;
  }
  void set(std::size_t i, std::int64_t v) {
    std::uint64_t q;
    if (width_ == 0) {
      if (v == base_ && min_ <= max_) return;
    } else if (width_ == 8) {
      store(i, static_cast<std::uint64_t>(v));
      note(v);
      return;
    } else if (encode(v, q)) {
      store(i, q);
      note(v);
      return;
    }
    set_slow(i, v);
  }
  /// Multiplies every value by `factor` (> 0); false, with nothing changed, when a value would
  /// leave ±limit.
  bool scale_all(std::int64_t factor, std::int64_t limit);
  /// Appends other's values; where `valid` (other's validity) says null, the slot does not matter.
  void append(const PackedInts& other, const Validity* valid = nullptr);
  /// Appends n values at once; where valid[i] is false (valid == nullptr: none) the slot does
  /// not matter. The encoding is widened once for the batch, then stored in a tight loop.
  void append_values(const std::int64_t* v, const bool* valid, std::size_t n);
  /// Keeps the values at the given indices, in that order.
  void permute(std::span<const std::uint32_t> order);
  void reserve(std::size_t n);
  /// Gives back the memory of capacity not used yet (big_buffer::trim); size and values stay.
  void trim() noexcept;
  void clear() noexcept;
  /// Bytes per value (0 while all values are equal).
  unsigned width() const noexcept { return width_; }
  /// Bytes in use (size × width).
  std::size_t memory_bytes() const noexcept { return size_ * width_; }

 private:
  friend class ColumnReader;
  template <class T>
  T load(std::size_t byte) const noexcept {
    T v;
    std::memcpy(&v, data_ + byte, sizeof(T));  // may read up to 3 bytes past the values: buffers have slack
    return v;
  }
  void store(std::size_t i, std::uint64_t q) noexcept {
    switch (width_) {
      case 1: data_[i] = static_cast<unsigned char>(q); break;
      case 2: { const auto v = static_cast<std::uint16_t>(q); std::memcpy(data_ + 2 * i, &v, 2); break; }
      case 3: { const auto v = static_cast<std::uint32_t>(q); std::memcpy(data_ + 3 * i, &v, 3); break; }
      case 4: { const auto v = static_cast<std::uint32_t>(q); std::memcpy(data_ + 4 * i, &v, 4); break; }
      default: std::memcpy(data_ + 8 * i, &q, 8); break;
    }
  }
  // The stored form of v in the current encoding (0 < width_ < 8), when it has one.
  bool encode(std::int64_t v, std::uint64_t& q) const noexcept {
    if (v < base_) return false;
    q = static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(base_);
    switch (exp_) {  // constant divisors: multiplications, not divisions
      case 0: break;
      case 1: if (q % 1'000u) return false; q /= 1'000u; break;
      case 2: if (q % 1'000'000u) return false; q /= 1'000'000u; break;
      default: if (q % 1'000'000'000u) return false; q /= 1'000'000'000u; break;
    }
    return q <= limit_;
  }
  void note(std::int64_t v) noexcept {
    if (v < min_) min_ = v;
    if (v > max_) max_ = v;
  }
  void grow(std::size_t n);
  bool fits(std::int64_t v) const noexcept {
    std::uint64_t q;
    return width_ == 0 ? min_ <= max_ && v == base_ : width_ == 8 || encode(v, q);
  }
  void push_slow(std::int64_t v);
  void set_slow(std::size_t i, std::int64_t v);
  // Re-encodes every value so that v fits too.
  void widen_for(std::int64_t v);

  unsigned char* data_ = nullptr;  // size_ values of width_ bytes; cap_ bytes usable (+8 slack)
  std::size_t size_ = 0, cap_ = 0;
  std::int64_t base_ = 0;          // the value of every slot while width_ == 0
  std::int64_t scale_ = 1;         // 1000^exp_ (1 at width 8)
  std::uint64_t limit_ = 0;        // largest q of the width
  std::int64_t min_ = INT64_MAX, max_ = INT64_MIN;  // bounds of the values pushed or set (not push_any)
  unsigned width_ = 0, exp_ = 0;
  std::uint32_t low_mask_ = 0;     // the low width_ bytes (widths 1-4)
};

}  // namespace gpucost
