#include "gpucost/cost/uncertainty.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "gpucost/cost/model.hpp"
#include "gpucost/text/number.hpp"

namespace gpucost::cost {

std::uint64_t SplitMix64::next() noexcept {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double SplitMix64::uniform01() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double SplitMix64::normal() noexcept {
  // 1 - U lies in (0, 1], so the logarithm is finite.
  const double u1 = 1.0 - uniform01(), u2 = uniform01();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
}

double SplitMix64::gamma(double shape, double rate) noexcept {
  if (shape < 1) {
    // Gamma(k) = Gamma(k + 1) x U^(1/k) (Marsaglia and Tsang's boost for k < 1).
    const double g = gamma(shape + 1, 1.0);
    return g * std::pow(1.0 - uniform01(), 1.0 / shape) / rate;
  }
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = normal();
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = 1.0 - uniform01();
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v / rate;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v / rate;
  }
}

Percentiles percentiles(std::vector<double> values) {
  Percentiles p;
  if (values.empty()) return p;
  // Three order statistics, each found in linear time: sorting the draws took about a quarter of
  // the Monte Carlo's time.
  auto at = [&](double q) -> std::optional<double> {
    const auto n = values.size();
    auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(n)));
    rank = std::clamp<std::size_t>(rank, 1, n);
    const auto nth = values.begin() + static_cast<std::ptrdiff_t>(rank - 1);
    std::nth_element(values.begin(), nth, values.end());
    const double v = *nth;
    if (!std::isfinite(v)) return std::nullopt;
    return v;
  };
  p.p5 = at(0.05);
  p.p50 = at(0.50);
  p.p95 = at(0.95);
  return p;
}

Uncertainty monte_carlo(const CostInputs& in, const CostQuery& q) {
  Uncertainty u;
  u.seed = q.seed;
  u.draws = q.draws;
  for (const auto& s : input_specs())
    if (const auto& r = in.ranges[static_cast<std::size_t>(s.id)])
      u.varied.push_back(r->kind == InputRange::Kind::kUniform
                             ? fmt::format("{} uniform {} .. {} {} ({})", input_name(s.id), format_number(r->a),
                                           format_number(r->b), input_unit(s.id, in.currency), r->origin)
                             : fmt::format("{} gamma shape {} rate {} (mean {} {}; {})", input_name(s.id),
                                           format_number(r->a), format_number(r->b), format_number(r->a / r->b),
                                           input_unit(s.id, in.currency), r->origin));
  if (q.draws == 0) return u;

  SplitMix64 rng(q.seed);
  CostInputs var = in;
  std::vector<double> thresholds, jobs;
  thresholds.reserve(q.draws);
  std::size_t buy = 0;
  // The varied inputs in InputId order, one draw each: the sequence is fixed by the seed and the
  // ranges.
  std::vector<std::pair<InputId, InputRange>> varied;
  for (const auto& s : input_specs())
    if (const auto& r = in.ranges[static_cast<std::size_t>(s.id)]) varied.emplace_back(s.id, *r);
  // Uniform inputs are drawn by Latin hypercube: draw i of an input lies in stratum perm[i] of
  // draws equal strata of its range, each input with its own random permutation. Every stratum is
  // drawn once, so a share such as P(buy) is right to about 1 / draws where one input decides it,
  // instead of 1 / sqrt(draws) (plain draws of seed 1 put 31.6 % of 10 000 below 0.3).
  std::vector<std::vector<std::uint32_t>> strata(varied.size());
  const double n = static_cast<double>(q.draws);
  for (std::size_t k = 0; k < varied.size(); ++k) {
    if (varied[k].second.kind != InputRange::Kind::kUniform) continue;
    auto& perm = strata[k];
    perm.resize(q.draws);
    for (std::size_t i = 0; i < q.draws; ++i) perm[i] = static_cast<std::uint32_t>(i);
    for (std::size_t i = q.draws; i > 1; --i)  // Fisher-Yates
      std::swap(perm[i - 1], perm[static_cast<std::size_t>(rng.next() % i)]);
  }
  for (std::size_t i = 0; i < q.draws; ++i) {
    for (std::size_t k = 0; k < varied.size(); ++k) {
      const auto& [id, r] = varied[k];
      var[id].value = r.kind == InputRange::Kind::kUniform
                          ? r.a + (r.b - r.a) * ((static_cast<double>(strata[k][i]) + rng.uniform01()) / n)
                          : rng.gamma(r.a, r.b);
    }
    const LocalCost l = local_cost(var);
    const CloudCost c = cloud_cost(var);
    const BreakEven b = break_even(var, l, c, q, /*explain=*/false);
    thresholds.push_back(b.usage_threshold_hours_per_month ? *b.usage_threshold_hours_per_month
                                                           : std::numeric_limits<double>::infinity());
    if (b.buy_pays) ++buy;
    if (b.job_hours) jobs.push_back(*b.job_hours);
  }
  // Without a usage no draw can say whether buying is cheaper (docs/cost-model.md, "Usage").
  if (in[InputId::kHoursPerMonth].value) u.probability_buy_cheaper = static_cast<double>(buy) / static_cast<double>(q.draws);
  u.share_with_crossover = static_cast<double>(jobs.size()) / static_cast<double>(q.draws);
  u.usage_threshold_hours_per_month = percentiles(std::move(thresholds));
  u.job_break_even_hours = percentiles(std::move(jobs));
  return u;
}

}  // namespace gpucost::cost
