#include "gpucost/table/dictionary.hpp"

#include <cstring>

namespace gpucost {

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

}  // namespace gpucost
