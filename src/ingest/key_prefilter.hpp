#pragma once
// Which of up to 64 four-byte keys occur in a message, found in one pass: the recognizer's test
// that lets most log lines (noise) go without trying a single pattern.
//
// Two ways to the same answer. The portable one tests every position against two bitmaps (of
// the keys' first and last byte pairs) and looks up the survivors in a small hash table. Where
// the CPU has AVX2, 32 positions at a time are first narrowed by a nibble fingerprint of the
// four bytes (Hyperscan's "Teddy": each key in one of 8 buckets; a byte's low and high nibble
// each select, by a table lookup, the buckets whose key has that nibble at that offset; a
// position survives when some bucket survives all eight lookups), and only the survivors go to
// the hash table. The answer is the same (tests/unit/key_prefilter_test.cpp compares them).
#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace gpucost {

class KeyPrefilter {
 public:
  /// keys[i] (exactly four bytes each) is bit i of scan()'s answer; at most 64 keys.
  explicit KeyPrefilter(std::span<const std::string_view> keys);

  /// Bit i set: keys[i] occurs in t. Uses the fastest way the CPU allows.
  std::uint64_t scan(std::string_view t) const noexcept;

  /// The portable way alone (tests compare the two).
  std::uint64_t scan_portable(std::string_view t) const noexcept { return scan_from(t, 0); }

  /// True when scan() uses the AVX2 fingerprint on this CPU.
  static bool vectorized() noexcept;

 private:
  static constexpr std::size_t kSlots = 128;
  struct Slot {
    std::uint32_t key = 0;
    std::uint64_t mask = 0;
  };
  using PairBits = std::array<std::uint64_t, 1024>;  // one bit per byte pair

  /// The portable scan of the positions from `from` on.
  std::uint64_t scan_from(std::string_view t, std::size_t from) const noexcept;
  std::uint64_t scan_avx2(std::string_view t) const noexcept;
  /// The keys' bits for the four bytes at p (0 when they are no key).
  std::uint64_t lookup(const char* p) const noexcept;
  void add(std::string_view key, std::size_t bit);

  PairBits head_{}, tail_{};
  std::array<Slot, kSlots> slots_{};
  // Teddy tables: for byte offset j of a key, the buckets whose key has low nibble x there
  // (lo_[j][x]) and high nibble x (hi_[j][x]).
  std::array<std::array<std::uint8_t, 16>, 4> lo_{}, hi_{};
};

}  // namespace gpucost
