// The Monte Carlo: its generator against the published splitmix64 sequence, its transforms against
// their moments, and fixed-seed percentiles against closed forms.
#include "gpucost/cost/uncertainty.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "gpucost/cost/model.hpp"
#include "gpucost/cost/presets.hpp"
#include "gpucost/cost/resolve.hpp"
#include "cost_fixtures.hpp"

namespace gpucost::cost {
namespace {

// Round numbers: 1000 over 1000 h, half the time useful; cloud 4 per hour, full utilization.
// Buying repays 1000 at 4 per hour of work: 250 h, over 10 months 25 h a month x relative speed.
CostInputs simple() { return test::round_cost_inputs(75); }

TEST(CostUncertainty, SplitMix64FollowsTheReferenceSequence) {
  // The reference implementation (Vigna's splitmix64.c) from state 0.
  SplitMix64 r(0);
  EXPECT_EQ(r.next(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(r.next(), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(r.next(), 0x06c45d188009454fULL);
}

TEST(CostUncertainty, TransformsHaveTheirMoments) {
  SplitMix64 r(42);
  const int n = 20000;
  double su = 0, sn = 0, sn2 = 0, sg = 0, sg2 = 0, ss = 0;
  for (int i = 0; i < n; ++i) {
    const double u = r.uniform01();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    su += u;
    const double z = r.normal();
    sn += z;
    sn2 += z * z;
    const double g = r.gamma(4, 2);  // mean 4/2 = 2, variance 4/2^2 = 1
    sg += g;
    sg2 += g * g;
    ss += r.gamma(0.5, 1);  // shape below 1: mean 0.5
  }
  EXPECT_NEAR(su / n, 0.5, 0.01);
  EXPECT_NEAR(sn / n, 0.0, 0.03);
  EXPECT_NEAR(sn2 / n, 1.0, 0.04);
  EXPECT_NEAR(sg / n, 2.0, 0.03);
  EXPECT_NEAR(sg2 / n - (sg / n) * (sg / n), 1.0, 0.06);
  EXPECT_NEAR(ss / n, 0.5, 0.02);
}

TEST(CostUncertainty, NearestRankPercentiles) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const Percentiles p = percentiles(v);
  EXPECT_EQ(*p.p5, 5.0);    // rank ceil(0.05 x 100) = 5
  EXPECT_EQ(*p.p50, 50.0);
  EXPECT_EQ(*p.p95, 95.0);
  v.assign(20, std::numeric_limits<double>::infinity());
  EXPECT_FALSE(percentiles(v).p50);  // "never" is not a number
  EXPECT_FALSE(percentiles({}).p5);
}

TEST(CostUncertainty, UniformSpeedGivesAUniformThreshold) {
  // Threshold = 1000 / ((4 / s) x 10) = 25 s: with s uniform on [2, 4] it is uniform on [50, 100],
  // so its 5/50/95 % are 52.5, 75, 97.5, and at 60 h a month buying pays when 25 s <= 60, s <= 2.4:
  // probability (2.4 - 2) / 2 = 0.2.
  CostInputs in = simple();
  in.set(InputId::kHoursPerMonth, 60, "test");
  in.ranges[static_cast<std::size_t>(InputId::kRelativeSpeed)] = InputRange{InputRange::Kind::kUniform, 2, 4, "test"};
  CostQuery q;
  q.seed = 7;
  q.draws = 10000;
  const Uncertainty u = monte_carlo(in, q);
  EXPECT_EQ(u.draws, 10000u);
  EXPECT_EQ(u.seed, 7u);
  ASSERT_TRUE(u.usage_threshold_hours_per_month.p5 && u.usage_threshold_hours_per_month.p95);
  EXPECT_NEAR(*u.usage_threshold_hours_per_month.p5, 52.5, 0.5);
  EXPECT_NEAR(*u.usage_threshold_hours_per_month.p50, 75.0, 0.7);
  EXPECT_NEAR(*u.usage_threshold_hours_per_month.p95, 97.5, 0.5);
  EXPECT_NEAR(*u.probability_buy_cheaper, 0.2, 0.015);
  // The same seed gives the same draws; another seed, other draws.
  const Uncertainty again = monte_carlo(in, q);
  EXPECT_EQ(*again.usage_threshold_hours_per_month.p50, *u.usage_threshold_hours_per_month.p50);
  EXPECT_EQ(*again.probability_buy_cheaper, *u.probability_buy_cheaper);
  q.seed = 8;
  EXPECT_NE(*monte_carlo(in, q).usage_threshold_hours_per_month.p50, *u.usage_threshold_hours_per_month.p50);
}

TEST(CostUncertainty, TenThousandDrawsTakeWellUnderASecond) {
  // The issue asks for well under a second; the bound is generous (a loaded machine), the point is
  // that the draws stay in milliseconds, not that this machine is fast.
  CostInputs in = simple();
  in.ranges[static_cast<std::size_t>(InputId::kRelativeSpeed)] = InputRange{InputRange::Kind::kUniform, 2, 4, "test"};
  in.ranges[static_cast<std::size_t>(InputId::kIncidentsPerHour)] = InputRange{InputRange::Kind::kGamma, 2, 2, "test"};
  const auto t0 = std::chrono::steady_clock::now();
  const Uncertainty u = monte_carlo(in, CostQuery{});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(u.draws, 10000u);
  EXPECT_LT(s, 10.0);
}

TEST(CostUncertainty, UniformUsageGivesTheProbabilityInClosedForm) {
  // Threshold 25 h a month (speed 1); usage uniform on [0, 100]: P(usage >= 25) = 0.75. The
  // per-job break-even is a point: local 2 W + 0 vs cloud 4 W + 1 never cross (local cheaper).
  CostInputs in = simple();
  in.ranges[static_cast<std::size_t>(InputId::kHoursPerMonth)] = InputRange{InputRange::Kind::kUniform, 0, 100, "test"};
  const Uncertainty u = monte_carlo(in, CostQuery{});
  EXPECT_NEAR(*u.probability_buy_cheaper, 0.75, 0.015);
  EXPECT_EQ(*u.usage_threshold_hours_per_month.p5, 25.0);
  EXPECT_EQ(*u.usage_threshold_hours_per_month.p95, 25.0);
  EXPECT_EQ(u.share_with_crossover, 0.0);
  EXPECT_FALSE(u.job_break_even_hours.p50);
}

TEST(CostUncertainty, GammaIncidentRateMovesTheCrossover) {
  // Maintenance = rate x 1 h x 0.5 per wall hour, / 0.5 useful: local slope a = 2 + rate. With a
  // fixed local cost of 3 per job: 3 + a W = 1 + 4 W at W = 2 / (2 - rate), for rate < 2.
  CostInputs in = simple();
  in.set(InputId::kFixedCostPerJob, 3, "test");
  in.set(InputId::kHoursPerIncident, 1, "test");
  in.set(InputId::kEngineerRate, 0.5, "test");
  // Gamma(shape 2, rate 2): P(X <= x) = 1 - e^(-2x) (1 + 2x).
  in.ranges[static_cast<std::size_t>(InputId::kIncidentsPerHour)] = InputRange{InputRange::Kind::kGamma, 2, 2, "test"};
  const Uncertainty u = monte_carlo(in, CostQuery{});
  // Draws with rate >= 2 (P = 5 e^-4 = 0.0916) have no crossover.
  EXPECT_NEAR(u.share_with_crossover, 1 - 5 * std::exp(-4.0), 0.01);
  // The median over the crossing draws is the rate's quantile 0.5 x (1 - 5 e^-4) = 0.45421, at
  // x = 0.76809 (bisection of the CDF): W = 2 / (2 - 0.76809) = 1.62350.
  ASSERT_TRUE(u.job_break_even_hours.p50);
  EXPECT_NEAR(*u.job_break_even_hours.p50, 1.6235, 0.03);
}

TEST(CostUncertainty, ResolveBracketsTheSpeedAndWeighsTheIncidentPosterior) {
  ResolveRequest rq;
  rq.selection = {"", "rtx-4090", "aws-g6.xlarge"};
  rq.measured.push_back({InputId::kIncidentsPerHour, 0.5, "measured:F007", "from the logs", 3.0, 2.0});
  const CostInputs in = resolve_inputs(builtin_presets(), rq);
  // L4 / RTX 4090: 121 / 165.2 TFLOPS and 300 / 1008 GB/s.
  ASSERT_TRUE(in.speed.compute_bound && in.speed.bandwidth_bound);
  EXPECT_NEAR(*in.speed.compute_bound, 121 / 165.2, 1e-12);
  EXPECT_NEAR(*in.speed.bandwidth_bound, 300.0 / 1008, 1e-12);
  const auto& s = in.ranges[static_cast<std::size_t>(InputId::kRelativeSpeed)];
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->a, 300.0 / 1008);
  EXPECT_DOUBLE_EQ(s->b, 121 / 165.2);
  // Posterior Gamma(3 + r0 x 720, 2 + 720) with the default prior r0 = 12 / 5760.
  const auto& g = in.ranges[static_cast<std::size_t>(InputId::kIncidentsPerHour)];
  ASSERT_TRUE(g);
  EXPECT_EQ(g->kind, InputRange::Kind::kGamma);
  EXPECT_NEAR(g->a, 3 + 12.0 / 5760 * 720, 1e-12);
  EXPECT_NEAR(g->b, 722, 1e-12);
  // A speed the user gives is a point value: no bracket range.
  ResolveRequest given = rq;
  given.cli.values[static_cast<std::size_t>(InputId::kRelativeSpeed)] = 0.5;
  EXPECT_FALSE(resolve_inputs(builtin_presets(), given).ranges[static_cast<std::size_t>(InputId::kRelativeSpeed)]);
  // A scenario's own figure (the seed article's equal speed) stays a point value; its bracket is
  // still reported: 600 / 256 GB/s to 125 / 29.1 TFLOPS.
  ResolveRequest seed;
  seed.selection.preset = "seed-article";
  const CostInputs si = resolve_inputs(builtin_presets(), seed);
  EXPECT_FALSE(si.ranges[static_cast<std::size_t>(InputId::kRelativeSpeed)]);
  EXPECT_NEAR(*si.speed.bandwidth_bound, 600.0 / 256, 1e-12);
  EXPECT_NEAR(*si.speed.compute_bound, 125 / 29.1, 1e-12);
  // Ranges given by the user.
  CostOverrides o;
  parse_range("local.hours_per_month=20:60", "--range", o);
  ASSERT_TRUE(o.ranges[static_cast<std::size_t>(InputId::kHoursPerMonth)]);
  EXPECT_EQ(o.ranges[static_cast<std::size_t>(InputId::kHoursPerMonth)]->second, 60);
  EXPECT_THROW(parse_range("local.hours_per_month=60:20", "--range", o), std::invalid_argument);
  EXPECT_THROW(parse_range("local.nothing=1:2", "--range", o), std::invalid_argument);
  EXPECT_THROW(parse_range("local.effective_utilization=0.5:1.5", "--range", o), std::invalid_argument);
}

// Issue 34: every range is centred on the value used, so the Monte Carlo speaks of the same answer
// as the point values: a uniform range's middle is the value, a Gamma posterior's mean is.
TEST(CostUncertainty, EveryRangeIsCentredOnTheValueUsed) {
  ResolveRequest rq;
  rq.selection = {"", "rtx-4090", "aws-g6.xlarge"};
  rq.measured.push_back({InputId::kIncidentsPerHour, 0.5, "measured:F007", "from the logs", 3.0, 2.0});
  const CostInputs in = resolve_inputs(builtin_presets(), rq);
  // The speed is the middle of the bracket (121 / 165.2 TFLOPS, 300 / 1008 GB/s), not an end.
  EXPECT_NEAR(*in[InputId::kRelativeSpeed].value, (121 / 165.2 + 300.0 / 1008) / 2, 1e-12);
  int ranged = 0;
  for (const auto& sp : input_specs()) {
    const auto& r = in.ranges[static_cast<std::size_t>(sp.id)];
    if (!r) continue;
    ++ranged;
    const double v = *in[sp.id].value;
    if (r->kind == InputRange::Kind::kUniform)
      EXPECT_NEAR((r->a + r->b) / 2, v, 1e-9 * std::max(1.0, v)) << input_name(sp.id);
    else EXPECT_NEAR(r->a / r->b, v, 1e-9 * std::max(1.0, v)) << input_name(sp.id);
  }
  // Speed, incidents, and the assumed purchase price, host price, power and resale.
  EXPECT_EQ(ranged, 6);
  for (const InputId id : {InputId::kPurchasePrice, InputId::kHostPrice, InputId::kPowerW, InputId::kResaleFraction})
    EXPECT_TRUE(in.ranges[static_cast<std::size_t>(id)]) << input_name(id);
  // A value the user gives is a point: no spread.
  ResolveRequest given = rq;
  given.cli.values[static_cast<std::size_t>(InputId::kPurchasePrice)] = 1599;
  EXPECT_FALSE(resolve_inputs(builtin_presets(), given).ranges[static_cast<std::size_t>(InputId::kPurchasePrice)]);
}

// P(buy) against its closed form on the audit's case (RTX 4090 against RunPod's 4090): with only
// the purchase price drawn (uniform +-15 %, the other spreads given away as points), the threshold
// is linear in the price, so P(threshold <= usage) is where the usage lies between the thresholds
// at the two ends of the price range.
TEST(CostUncertainty, ProbabilityOfBuyingMatchesItsClosedForm) {
  ResolveRequest rq;
  rq.selection = {"", "rtx-4090", "runpod-rtx-4090"};
  for (const InputId id : {InputId::kHostPrice, InputId::kPowerW, InputId::kResaleFraction}) {
    ResolveRequest probe = rq;
    const CostInputs p = resolve_inputs(builtin_presets(), probe);
    rq.cli.values[static_cast<std::size_t>(id)] = *p[id].value;  // the same value, given: a point
  }
  rq.cli.values[static_cast<std::size_t>(InputId::kHoursPerMonth)] = 200;
  CostInputs in = resolve_inputs(builtin_presets(), rq);
  const auto& r = in.ranges[static_cast<std::size_t>(InputId::kPurchasePrice)];
  ASSERT_TRUE(r);
  int ranged = 0;
  for (const auto& x : in.ranges) ranged += x.has_value();
  ASSERT_EQ(ranged, 1);
  CostQuery q;
  auto threshold_at = [&](double price) {
    CostInputs v = in;
    v[InputId::kPurchasePrice].value = price;
    return *break_even(v, local_cost(v), cloud_cost(v), q, false).usage_threshold_hours_per_month;
  };
  const double lo = threshold_at(r->a), hi = threshold_at(r->b), mid = threshold_at((r->a + r->b) / 2);
  ASSERT_NEAR(mid, (lo + hi) / 2, 1e-6 * hi);  // linear in the price
  // A usage 30 % of the way from the low end's threshold to the high end's: buying pays in the
  // draws whose price lies in the lower 30 % of the range, P(buy) = 0.3.
  in[InputId::kHoursPerMonth].value = lo + 0.3 * (hi - lo);
  EXPECT_NEAR(threshold_at(r->a), lo, 1e-9 * hi);  // the threshold does not depend on the usage
  q.draws = 10000;
  const Uncertainty u = monte_carlo(in, q);
  ASSERT_TRUE(u.probability_buy_cheaper);
  EXPECT_NEAR(*u.probability_buy_cheaper, 0.3, 0.01);
  // The median threshold is the point value's.
  EXPECT_NEAR(*u.usage_threshold_hours_per_month.p50, mid, 0.01 * mid);
}

// Issue 34, measured speed: memory against SM activity while busy picks the bracket's end.
TEST(CostUncertainty, TheLogsActivityPicksTheEndOfTheSpeedBracket) {
  ResolveRequest rq;
  rq.selection = {"", "rtx-4090", "aws-g6.xlarge"};  // L4 / RTX 4090: 121 / 165.2 TFLOPS, 300 / 1008 GB/s
  auto speed = [&](double sm, double mem) {
    ResolveRequest r = rq;
    r.activity = ResolveRequest::Activity{sm, mem, "measured:F023/F016"};
    return resolve_inputs(builtin_presets(), r);
  };
  const CostInputs compute = speed(98, 23);  // the H200 collection's dense bf16 work
  EXPECT_DOUBLE_EQ(*compute[InputId::kRelativeSpeed].value, 121 / 165.2);
  EXPECT_EQ(compute[InputId::kRelativeSpeed].origin, "measured:F023/F016");
  EXPECT_FALSE(compute.ranges[static_cast<std::size_t>(InputId::kRelativeSpeed)]);  // a point
  const CostInputs bandwidth = speed(90, 81);
  EXPECT_DOUBLE_EQ(*bandwidth[InputId::kRelativeSpeed].value, 300.0 / 1008);
  // In between: the middle, drawn over the bracket, and the note says what the logs showed.
  const CostInputs between = speed(90, 50);
  EXPECT_DOUBLE_EQ(*between[InputId::kRelativeSpeed].value, (121 / 165.2 + 300.0 / 1008) / 2);
  EXPECT_TRUE(between.ranges[static_cast<std::size_t>(InputId::kRelativeSpeed)]);
  EXPECT_NE(between[InputId::kRelativeSpeed].note.find("the logs do not tell: memory activity 50 %"), std::string::npos)
      << between[InputId::kRelativeSpeed].note;
  // A speed the user gives wins over the logs.
  ResolveRequest given = rq;
  given.activity = ResolveRequest::Activity{98, 23, "measured:F023/F016"};
  given.cli.values[static_cast<std::size_t>(InputId::kRelativeSpeed)] = 0.5;
  EXPECT_EQ(*resolve_inputs(builtin_presets(), given)[InputId::kRelativeSpeed].value, 0.5);
}

}  // namespace
}  // namespace gpucost::cost
