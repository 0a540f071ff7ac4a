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
// the hash table. Where the CPU has AVX-512BW, the same fingerprint covers 64 positions at a
// time, and masked loads read a message's tail without a copy. The answer is the same every way
// (tests/unit/key_prefilter_test.cpp compares them).

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace gpucost {

class KeyPrefilter {
 public:
  /// keys[i] (exactly four bytes each) is bit i of scan()'s answer; at most 64 keys.
  explicit KeyPrefilter(std::span<const std::string_view> keys);

  /// The ways to the one answer.
  enum class Way : std::uint8_t { kPortable, kAvx2, kAvx512 };

  /// Bit i set: keys[i] occurs in t. Uses the fastest way the CPU allows (best_way()).
  std::uint64_t scan(std::string_view t) const noexcept;

  /// The portable way alone (tests compare the ways).
  std::uint64_t scan_portable(std::string_view t) const noexcept { return scan_from(t, 0); }

  /// The given way; where this CPU lacks it (available()), the portable one.
  std::uint64_t scan_with(Way way, std::string_view t) const noexcept;

  /// The fastest way this CPU has.
  static Way best_way() noexcept;
  /// Whether this CPU has the instructions of `way`.
  static bool available(Way way) noexcept;
  /// The way's name, for benchmarks (`AVX2 Teddy`).
  static const char* name(Way way) noexcept;

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
  std::uint64_t scan_avx512(std::string_view t) const noexcept;
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
