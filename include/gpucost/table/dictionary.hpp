#pragma once
/// \file dictionary.hpp
/// StringDictionary: interned strings, a dense uint32 code each (the kDict columns).

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost {

/// Interns strings: the same text always gets the same code; codes are dense from 0.
class StringDictionary {
 public:
  /// The code of s, adding it when new.
  std::uint32_t intern(std::string_view s);
  /// The string of a code (code < size()).
  std::string_view at(std::uint32_t code) const noexcept { return views_[code]; }
  /// Number of distinct strings.
  std::size_t size() const noexcept { return views_.size(); }

 private:
  static std::uint64_t hash(std::string_view s) noexcept;
  void rehash(std::size_t slots);
  std::deque<std::string> strings_;      // deque: the views stay valid as it grows
  std::vector<std::string_view> views_;  // by code
  std::vector<std::uint64_t> hashes_;    // by code
  std::vector<std::uint32_t> slots_;     // open addressing: code + 1, 0 = empty
};

}  // namespace gpucost
