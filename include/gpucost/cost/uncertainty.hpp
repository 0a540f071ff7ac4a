#pragma once
/// \file uncertainty.hpp
/// The Monte Carlo over the inputs' ranges: how likely buying is cheaper, and the 5/50/95 %
/// values of the usage threshold and the per-job break-even. Deterministic for a seed on every
/// compiler and standard library: the generator (splitmix64) and the transforms (uniform, normal
/// by Box-Muller, gamma by Marsaglia-Tsang) are written here, not taken from <random>, whose
/// distributions differ between libstdc++ and libc++.

#ifndef GPUCOST_LAYER_COST
#error "gpucost_cost header: include it only in gpucost_cost or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpucost/cost/inputs.hpp"

namespace gpucost::cost {

/// splitmix64 (Steele, Lea, Flood 2014): 64-bit state, one add and three xor-shift-multiplies a draw.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) noexcept : state_(seed) {}
  /// The next 64 random bits.
  std::uint64_t next() noexcept;
  /// Uniform in [0, 1): the top 53 bits.
  double uniform01() noexcept;
  /// Standard normal (Box-Muller, one of the pair).
  double normal() noexcept;
  /// Gamma with this shape (> 0) and rate (> 0): Marsaglia-Tsang, with U^(1/shape) below shape 1.
  double gamma(double shape, double rate) noexcept;

 private:
  std::uint64_t state_;
};

/// Nearest-rank percentiles of a sample (+infinity allowed: such a percentile is null).
struct Percentiles {
  std::optional<double> p5, p50, p95;
};
/// The values at ranks ceil(p x n) of the sorted values; all null for an empty sample.
Percentiles percentiles(std::vector<double> values);

/// What the Monte Carlo found.
struct Uncertainty {
  std::uint64_t seed = 0;
  std::size_t draws = 0;
  std::vector<std::string> varied;  ///< one line per input drawn: `cloud.relative_speed uniform 2.2 .. 4.3 (speed bracket)`
  /// Share of draws in which buying costs less than renting at the draw's usage (null: no draws, or
  /// the usage is unknown).
  std::optional<double> probability_buy_cheaper;
  /// The usage threshold over all draws (a draw in which buying never pays counts as +infinity).
  Percentiles usage_threshold_hours_per_month;
  /// The per-job break-even over the draws that have one, and the share of draws that do.
  Percentiles job_break_even_hours;
  double share_with_crossover = 0;
};

/// Draws every ranged input from its range (the others stay at their value), `q.draws` times from
/// `q.seed`, and runs the model on each draw (inputs must be valid). Uniform ranges are drawn by
/// Latin hypercube (one draw per equal stratum, strata in a random order per input); Gamma ones
/// by Marsaglia-Tsang.
Uncertainty monte_carlo(const CostInputs& in, const CostQuery& q);

}  // namespace gpucost::cost
