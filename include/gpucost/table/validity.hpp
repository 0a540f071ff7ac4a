#pragma once
/// \file validity.hpp
/// Validity: which rows of a column hold a value, stored only once rows differ.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpucost {

/// Validity bits: bit i set when row i holds a value. While every row so far is valid (or every
/// row null) no bits are stored at all: the mask is materialized at the first row that differs.
class Validity {
 public:
  void push(bool valid) {
    if (words_.empty()) {
      if (size_ == 0) uniform_ = valid;
      if (valid == uniform_) {
        ++size_;
        return;
      }
      materialize();
    }
    if ((size_ & 63) == 0) words_.push_back(0);
    if (valid) words_.back() |= std::uint64_t{1} << (size_ & 63);
    ++size_;
  }
  bool get(std::size_t i) const noexcept {
    return words_.empty() ? uniform_ : ((words_[i >> 6] >> (i & 63)) & 1) != 0;
  }
  void set(std::size_t i, bool valid) {
    if (words_.empty()) {
      if (valid == uniform_) return;
      materialize();
    }
    const std::uint64_t bit = std::uint64_t{1} << (i & 63);
    if (valid) words_[i >> 6] |= bit; else words_[i >> 6] &= ~bit;
  }
  std::size_t size() const noexcept { return size_; }
  /// Appends all bits of another mask.
  void append(const Validity& other);
  /// Appends n flags (nullptr: n times true).
  void append_flags(const bool* valid, std::size_t n);
  /// Appends n times the same flag.
  void append_same(bool valid, std::size_t n);
  void reserve(std::size_t n) {
    if (!words_.empty()) words_.reserve((n + 63) / 64);
  }
  void clear() noexcept {
    words_.clear();
    size_ = 0;
    uniform_ = true;
  }
  /// Bytes held.
  std::size_t memory_bytes() const noexcept { return words_.capacity() * sizeof(std::uint64_t); }

 private:
  friend class ColumnReader;
  void materialize();
  std::vector<std::uint64_t> words_;
  std::size_t size_ = 0;
  bool uniform_ = true;  // the value of every row while words_ is empty
};

}  // namespace gpucost
