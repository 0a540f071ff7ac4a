#include "gpucost/table/validity.hpp"

#include <algorithm>

namespace gpucost {

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

}  // namespace gpucost
