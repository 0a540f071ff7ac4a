#pragma once
/// \file rng.hpp
/// The simulator's own pseudo-random numbers: xoshiro256** seeded through splitmix64. The
/// standard library's distributions differ between implementations and libm's transcendental
/// functions may differ in the last bit between platforms, so nothing here uses either: a seed
/// gives the same sequence, and the simulator the same bytes, everywhere.

#ifndef GPUCOST_LAYER_SIM
#error "gpucost_sim header: include it only in gpucost_sim or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>
#include <cstdint>

namespace gpucost::sim {

/// One step of splitmix64 (advances x); used to expand a seed into generator state.
constexpr std::uint64_t splitmix64(std::uint64_t& x) noexcept {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// xoshiro256** (Blackman and Vigna). `stream` separates independent sequences of one seed
/// (each log source draws from its own stream, so adding noise to one file never shifts
/// another file's values).
class Rng {
 public:
  explicit Rng(std::uint64_t seed, std::uint64_t stream = 0) noexcept {
    std::uint64_t x = seed ^ (stream * 0xD1342543DE82EF95ULL + 0x2545F4914F6CDD1DULL);
    for (auto& w : s_) w = splitmix64(x);
  }

  /// 64 random bits.
  std::uint64_t next() noexcept {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// Uniform in [0, 1) with 53 random bits.
  double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [a, b).
  double uniform(double a, double b) noexcept { return a + (b - a) * uniform(); }
  /// Uniform integer in [lo, hi] (hi >= lo).
  std::int64_t range(std::int64_t lo, std::int64_t hi) noexcept {
    const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
    return lo + static_cast<std::int64_t>(span == 0 ? next() : next() % span);
  }
  /// True with probability p.
  bool chance(double p) noexcept { return uniform() < p; }
  /// Approximately normal (Irwin-Hall sum of four uniforms, rescaled to unit variance): no libm.
  double normal(double mean, double sd) noexcept {
    const double s = uniform() + uniform() + uniform() + uniform() - 2.0;
    return mean + sd * s * 1.7320508075688772;  // sqrt(3): the sum's variance is 1/3
  }
  /// An element of a fixed array.
  template <typename T, std::size_t N>
  const T& pick(const T (&a)[N]) noexcept {
    return a[static_cast<std::size_t>(next() % N)];
  }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace gpucost::sim
