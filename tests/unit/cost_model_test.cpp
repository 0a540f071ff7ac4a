// The cost formulas and the break-even solver, against values computed by hand (the comments
// show the arithmetic).
#include "gpucost/cost/model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "gpucost/cost/presets.hpp"
#include "gpucost/cost/resolve.hpp"
#include "cost_fixtures.hpp"

namespace gpucost::cost {
namespace {

// A model with round numbers. Local: 1000 over 1000 h = 1 per wall hour, nothing else, half the
// time useful -> 2 per effective hour. Cloud: 4 per hour, 900 s cold start (0.25 h -> 1 per
// job), full utilization, same speed -> 4 per effective hour.
CostInputs simple() { return test::round_cost_inputs(30); }

// The seed article's inputs, as the built-in scenario holds them.
CostInputs seed() {
  ResolveRequest rq;
  rq.selection.preset = "seed-article";
  return resolve_inputs(builtin_presets(), rq);
}

TEST(CostModel, LocalTermsFollowTheFormulas) {
  CostInputs in = simple();
  in.set(InputId::kPowerW, 250, "test");
  in.set(InputId::kCoolingW, 50, "test");
  in.set(InputId::kElectricityPrice, 0.4, "test");
  in.set(InputId::kIncidentsPerHour, 0.01, "test");
  in.set(InputId::kHoursPerIncident, 2, "test");
  in.set(InputId::kEngineerRate, 30, "test");
  const LocalCost l = local_cost(in);
  EXPECT_DOUBLE_EQ(l.amortization_per_hour, 1.0);      // 1000 / 1000 h
  EXPECT_DOUBLE_EQ(l.electricity_per_hour, 0.1);       // 250 W / 1000 * 0.4
  EXPECT_DOUBLE_EQ(l.cooling_per_hour, 0.02);          // 50 W / 1000 * 0.4
  EXPECT_DOUBLE_EQ(l.maintenance_per_hour, 0.6);       // 0.01/h * 2 h * 30
  EXPECT_DOUBLE_EQ(l.cost_per_wall_hour, 1.72);        // 1 + 0.1 + 0.02 + 0.6
  EXPECT_DOUBLE_EQ(l.running_per_wall_hour, 0.72);     // without amortization
  EXPECT_DOUBLE_EQ(l.cost_per_effective_hour, 3.44);   // 1.72 / 0.5
  EXPECT_DOUBLE_EQ(l.running_per_effective_hour, 1.44);
}

TEST(CostModel, TheJobsOwnStallsMoveToTheCloud) {
  CostInputs in = simple();
  in.set(InputId::kUtilization, 0.8, "test");
  in.set(InputId::kJobStallFraction, 0.2, "test");
  in.set(InputId::kRelativeSpeed, 2.5, "test");
  // 4 / (0.8 * (1 - 0.2) * 2.5) = 4 / 1.6 = 2.5 per hour of local-equivalent work.
  EXPECT_DOUBLE_EQ(cloud_cost(in).cost_per_effective_hour, 2.5);
  in.set(InputId::kJobStallFraction, 1, "test");
  EXPECT_THROW(validate(in, CostQuery{}), std::invalid_argument);
}

TEST(CostModel, CapitalCostCountsResaleAndInterest) {
  CostInputs in = simple();
  in.set(InputId::kAmortizationMonths, 24, "test");
  in.set(InputId::kResaleFraction, 0.3, "test");
  in.set(InputId::kInterestRate, 0.05, "test");
  const LocalCost l = local_cost(in);
  // 1000 * 1.05^(24/12) - 0.3 * 1000 = 1102.5 - 300 = 802.5, spread over 1000 h.
  EXPECT_NEAR(l.capital_cost, 802.5, 1e-9);
  EXPECT_NEAR(l.amortization_per_hour, 0.8025, 1e-12);
  // Defaults (no resale, no interest): the purchase price itself.
  EXPECT_DOUBLE_EQ(local_cost(simple()).capital_cost, 1000.0);
}

TEST(CostModel, UsageThresholdAgainstTheUsage) {
  // Cloud 4 per effective hour, local running cost 0: each hour saves 4, so 1000 is repaid after
  // 250 h, 25 h a month over 10 months. 30 h a month is above it: buying pays.
  CostResult r = evaluate(simple(), CostQuery{});
  ASSERT_TRUE(r.break_even.usage_threshold_hours_per_month);
  EXPECT_DOUBLE_EQ(*r.break_even.usage_threshold_hours_per_month, 25.0);
  EXPECT_DOUBLE_EQ(r.break_even.hours_per_month.value_or(-1), 30.0);
  EXPECT_TRUE(r.break_even.buy_pays);
  // At 30 h a month for 10 months the savings are 4 * 300 = 1200: any price below that pays.
  ASSERT_TRUE(r.break_even.max_purchase_price);
  EXPECT_DOUBLE_EQ(*r.break_even.max_purchase_price, 1200.0);
  EXPECT_EQ(r.buy.decision, BuyDecision::kBuy);
  EXPECT_EQ(r.buy.summary,
            "Buying the local GPU instead of renting the cloud GPU: buy: you use it 30 h 0 min a month per GPU (as "
            "test assumes), at or above the 25 h 0 min a month from which buying pays over 10 months; it pays for "
            "itself in 8.33 months (buying is cheaper in 100 % of the uncertainty draws).");
  EXPECT_EQ(r.own.decision, OwnDecision::kKeep);
  EXPECT_NEAR(*r.own.saving_per_month, 4 * 30, 1e-9);
  EXPECT_NEAR(*r.buy.payback_months, 1000.0 / (4 * 30), 1e-9);

  CostInputs in = simple();
  in.set(InputId::kHoursPerMonth, 20, "cli");
  r = evaluate(in, CostQuery{});
  EXPECT_FALSE(r.break_even.buy_pays);
  EXPECT_DOUBLE_EQ(*r.break_even.max_purchase_price, 800.0);  // 4 * 20 * 10
  EXPECT_EQ(r.buy.decision, BuyDecision::kRent);
  EXPECT_NE(r.buy.summary.find(": rent: you use it 20 h 0 min a month per GPU (as you gave it), below the 25 h 0 min"),
            std::string::npos)
      << r.buy.summary;
}

TEST(CostModel, UsageThresholdWithResaleInterestAndRunningCost) {
  CostInputs in = simple();
  in.set(InputId::kAmortizationMonths, 24, "test");
  in.set(InputId::kResaleFraction, 0.3, "test");
  in.set(InputId::kInterestRate, 0.05, "test");
  in.set(InputId::kPowerW, 500, "test");            // 0.5 kW * 0.4 = 0.2 per wall hour
  in.set(InputId::kElectricityPrice, 0.4, "test");  // / 0.5 useful = 0.4 per effective hour
  in.set(InputId::kHoursPerMonth, 20, "test");
  const CostResult r = evaluate(in, CostQuery{});
  // 802.5 / ((4 - 0.4) * 24) = 802.5 / 86.4 = 9.288194 h a month.
  ASSERT_TRUE(r.break_even.usage_threshold_hours_per_month);
  EXPECT_NEAR(*r.break_even.usage_threshold_hours_per_month, 802.5 / 86.4, 1e-12);
  EXPECT_NEAR(*r.break_even.buy_vs_rent_hours, 802.5 / 3.6, 1e-9);
  EXPECT_TRUE(r.break_even.buy_pays);
  // Price that breaks even at 20 h a month: 3.6 * 20 * 24 / (1.1025 - 0.3) = 1728 / 0.8025.
  EXPECT_NEAR(*r.break_even.max_purchase_price, 1728 / 0.8025, 1e-9);
}

TEST(CostModel, NoUsageThresholdWhenRentingCostsLessThanRunning) {
  CostInputs in = simple();
  in.set(InputId::kHourlyRate, 0.1, "test");  // 0.1 per effective hour
  in.set(InputId::kPowerW, 1000, "test");
  in.set(InputId::kElectricityPrice, 0.5, "test");  // running 0.5 / 0.5 = 1 per effective hour
  const CostResult r = evaluate(in, CostQuery{});
  EXPECT_FALSE(r.break_even.usage_threshold_hours_per_month);
  EXPECT_FALSE(r.break_even.buy_pays);
  EXPECT_FALSE(r.break_even.max_purchase_price);
  EXPECT_NE(r.summary.find("never pays"), std::string::npos) << r.summary;
}

TEST(CostModel, SeedArticleVerdictFlipsWithinTheSpeedBracket) {
  // Bracket 600 / 256 = 2.34375 (bandwidth) to 125 / 29.1 = 4.2955 (compute). Saving per hour of
  // work s(r) = 3.28 / (0.92 r) - running; threshold = 4299 / (s x 24).
  const CostResult r = evaluate(seed(), CostQuery{});
  ASSERT_TRUE(r.at_compute_bound && r.at_bandwidth_bound);
  const double running = (0.0713 + 0.01364 + 1128.0 / 5760) / 0.7666;
  auto threshold = [&](double ratio) { return 4299 / ((3.28 / (0.92 * ratio) - running) * 24); };
  EXPECT_NEAR(*r.at_bandwidth_bound->usage_threshold_hours_per_month, threshold(600.0 / 256), 1e-9);  // 155.1
  EXPECT_NEAR(*r.at_compute_bound->usage_threshold_hours_per_month, threshold(125 / 29.1), 1e-9);    // 386.3
  // The article's 183.984 h a month lies between them: buying pays at one end, not at the other.
  EXPECT_TRUE(r.at_bandwidth_bound->buy_pays);
  EXPECT_FALSE(r.at_compute_bound->buy_pays);
  EXPECT_TRUE(r.flips_within_speed_bracket);
  EXPECT_NE(r.buy.summary.find("the answer flips within the speed bracket"), std::string::npos) << r.buy.summary;
  EXPECT_NE(r.buy.flips.find("the speed ratio"), std::string::npos) << r.buy.flips;
  EXPECT_NE(r.summary.find("56 h 0 min"), std::string::npos) << r.summary;
}

TEST(CostModel, HumanDurations) {
  EXPECT_EQ(human_duration(4.0 / 60), "4 min 0 s");
  EXPECT_EQ(human_duration(2 + 17.0 / 60), "2 h 17 min");
  EXPECT_EQ(human_duration(0.0664), "3 min 59 s");  // 239.04 s
  EXPECT_EQ(human_duration(45.0 / 3600), "45 s");
  EXPECT_EQ(human_duration(0), "0 s");
  EXPECT_EQ(human_duration(1343.9), "1344 h");
  EXPECT_EQ(human_duration(99.9999), "100 h");
  EXPECT_EQ(human_duration(std::numeric_limits<double>::infinity()), "never");
}

TEST(CostModel, CloudTermsFollowTheFormulas) {
  CostInputs in = simple();
  in.set(InputId::kUtilization, 0.8, "test");
  in.set(InputId::kRelativeSpeed, 2.5, "test");
  const CloudCost c = cloud_cost(in);
  EXPECT_DOUBLE_EQ(c.cost_per_effective_hour, 2.0);  // 4 / (0.8 * 2.5)
  EXPECT_DOUBLE_EQ(c.cold_start_hours, 0.25);        // 900 s / 3600
  EXPECT_DOUBLE_EQ(c.cold_start_cost, 1.0);          // 4 * 0.25
}

TEST(CostModel, SeedArticleIntermediateFigures) {
  const CostResult r = evaluate(seed(), CostQuery{});
  // The article's figures that follow from its inputs, to its precision.
  EXPECT_NEAR(r.local.amortization_per_hour, 0.746, 0.0005);  // 4299 / 5760 = 0.74635 (the article prints 0.745)
  EXPECT_NEAR(r.local.electricity_per_hour, 0.071, 0.0005);   // 0.115 kW * 0.62 = 0.0713
  EXPECT_NEAR(r.local.cooling_per_hour, 0.014, 0.0005);       // 0.022 kW * 0.62 = 0.01364
  EXPECT_NEAR(r.local.maintenance_per_hour, 0.196, 0.0005);   // 12 * 47/60 h * 120 / 5760 h = 0.19583
  EXPECT_DOUBLE_EQ(r.local.effective_utilization, 0.7666);    // 1 - 0.193 - 0.023 - 0.0174
  // Exactly: (4299/5760 + 0.0713 + 0.01364 + 1128/5760) / 0.7666 = 1.0271275 / 0.7666.
  EXPECT_NEAR(r.local.cost_per_effective_hour, 1.0271275 / 0.7666, 1e-12);
  // The article's 1.338 comes from its rounded (and mis-rounded: 0.745) terms: 1.026 / 0.7666.
  EXPECT_NEAR(r.local.cost_per_effective_hour, 1.338, 0.002);
  EXPECT_NEAR(r.cloud.cost_per_effective_hour, 3.28 / 0.92, 1e-12);
  EXPECT_NEAR(r.cloud.cold_start_cost, 0.1066, 1e-12);  // 3.28 * 117 / 3600
}

TEST(CostModel, SeedArticleVerdictIsLocalAlwaysCheaper) {
  const CostResult r = evaluate(seed(), CostQuery{});
  const BreakEven& b = r.break_even;
  // Local: 0 + 1.3398 W; cloud: 0.1066 + 3.5652 W. Lower slope and lower fixed cost: no crossing,
  // so the article's 2 h 17 min cannot follow from its inputs.
  EXPECT_EQ(b.verdict, Verdict::kLocalAlwaysCheaper);
  EXPECT_FALSE(b.job_hours);
  const double a = 1.0271275 / 0.7666, c = 3.28 / 0.92;
  ASSERT_TRUE(b.premium_at_job_hours);
  EXPECT_NEAR(*b.premium_at_job_hours, a / (0.1066 + c) - 1, 1e-12);  // at 1 h: -0.6351
  // Premium from -100 % (W -> 0) to a/c - 1 = -62.4 % (W -> infinity): never +12 %.
  EXPECT_FALSE(b.job_hours_at_target_premium);
  EXPECT_NE(b.target_premium_reason.find("-100.0 %"), std::string::npos) << b.target_premium_reason;
  EXPECT_NE(b.target_premium_reason.find("-62.4 %"), std::string::npos) << b.target_premium_reason;
  ASSERT_TRUE(b.premium_short_jobs && b.premium_long_jobs);
  EXPECT_DOUBLE_EQ(*b.premium_short_jobs, -1.0);
  EXPECT_NEAR(*b.premium_long_jobs, a / c - 1, 1e-12);
  // Buy vs rent: 4299 / (3.5652 - (0.0713 + 0.01364 + 0.19583) / 0.7666) = 1343.9 h, 56.0 h a month.
  const double running = (0.0713 + 0.01364 + 1128.0 / 5760) / 0.7666;
  ASSERT_TRUE(b.buy_vs_rent_hours);
  EXPECT_NEAR(*b.buy_vs_rent_hours, 4299 / (c - running), 1e-9);
  EXPECT_NEAR(*b.buy_vs_rent_hours, 1343.9, 0.05);
  EXPECT_NEAR(*b.buy_vs_rent_hours_per_month, 4299 / (c - running) / 24, 1e-9);
  EXPECT_NEAR(b.lifetime_effective_hours, 5760 * 0.7666, 1e-9);
  // As usage: 56.0 h a month for 24 months; the article's 8 h a day is 183.984 effective hours.
  ASSERT_TRUE(b.usage_threshold_hours_per_month);
  EXPECT_NEAR(*b.usage_threshold_hours_per_month, 4299 / (c - running) / 24, 1e-9);
  EXPECT_DOUBLE_EQ(b.hours_per_month.value_or(-1), 183.984);
  EXPECT_TRUE(b.buy_pays);
}

TEST(CostModel, SeedArticleWithWearPerPowerCycleHasACrossover) {
  // The article's 4299 / 3200 = 1.343 per job counted on top of amortization (docs explain why
  // gpucost leaves it out): 1.3434 + 1.3398 W = 0.1066 + 3.5652 W at W = 1.2368 / 2.2254 = 0.5558 h.
  CostInputs in = seed();
  in.set(InputId::kFixedCostPerJob, 4299.0 / 3200, "test");
  const CostResult r = evaluate(in, CostQuery{});
  ASSERT_EQ(r.break_even.verdict, Verdict::kCrossover);
  ASSERT_TRUE(r.break_even.job_hours);
  const double a = 1.0271275 / 0.7666, c = 3.28 / 0.92;
  EXPECT_NEAR(*r.break_even.job_hours, (4299.0 / 3200 - 0.1066) / (c - a), 1e-12);
  EXPECT_NEAR(*r.break_even.job_hours, 0.5558, 0.0001);
  EXPECT_EQ(r.break_even.cheaper_below, Side::kCloud);
}

TEST(CostModel, CrossoverCloudCheaperForShortJobs) {
  CostInputs in = simple();
  in.set(InputId::kFixedCostPerJob, 3, "test");  // local 3 + 2W, cloud 1 + 4W: equal at W = 1
  const CostResult r = evaluate(in, CostQuery{2.0, 0.12});
  const BreakEven& b = r.break_even;
  ASSERT_EQ(b.verdict, Verdict::kCrossover);
  EXPECT_DOUBLE_EQ(*b.job_hours, 1.0);
  EXPECT_EQ(b.cheaper_below, Side::kCloud);
  EXPECT_DOUBLE_EQ(b.local_job_cost, 7.0);  // 3 + 2 * 2
  EXPECT_DOUBLE_EQ(b.cloud_job_cost, 9.0);  // 1 + 4 * 2
  EXPECT_DOUBLE_EQ(*b.premium_at_job_hours, 7.0 / 9 - 1);
  // 3 + 2W = 1.12 (1 + 4W)  ->  W = (3 - 1.12) / (4.48 - 2) = 0.758
  ASSERT_TRUE(b.job_hours_at_target_premium);
  EXPECT_NEAR(*b.job_hours_at_target_premium, 1.88 / 2.48, 1e-12);
  // Buy vs rent: 1000 / (4 - 0) = 250 h, 25 h a month over 10 months.
  EXPECT_DOUBLE_EQ(*b.buy_vs_rent_hours, 250.0);
  EXPECT_DOUBLE_EQ(*b.buy_vs_rent_hours_per_month, 25.0);
  EXPECT_DOUBLE_EQ(b.lifetime_effective_hours, 500.0);  // 1000 h * 0.5
}

TEST(CostModel, CrossoverLocalCheaperForShortJobs) {
  CostInputs in = simple();
  in.set(InputId::kHourlyRate, 1, "test");  // cloud 0.25 + 1W, local 0 + 2W: equal at W = 0.25
  const BreakEven b = evaluate(in, CostQuery{}).break_even;
  ASSERT_EQ(b.verdict, Verdict::kCrossover);
  EXPECT_DOUBLE_EQ(*b.job_hours, 0.25);
  EXPECT_EQ(b.cheaper_below, Side::kLocal);
  // The local running cost is 0, so buying pays after 1000 / (1 - 0) = 1000 h of work: more than
  // the 500 h the GPU can do in its amortization period.
  EXPECT_DOUBLE_EQ(*b.buy_vs_rent_hours, 1000.0);
}

TEST(CostModel, CloudAlwaysCheaper) {
  CostInputs in = simple();
  in.set(InputId::kHourlyRate, 1, "test");
  in.set(InputId::kColdStartS, 0, "test");  // cloud 0 + 1W < local 0 + 2W for every W > 0
  const BreakEven b = evaluate(in, CostQuery{}).break_even;
  EXPECT_EQ(b.verdict, Verdict::kCloudAlwaysCheaper);
  EXPECT_FALSE(b.job_hours);
  EXPECT_DOUBLE_EQ(*b.premium_at_job_hours, 1.0);  // 2 / 1 - 1
}

TEST(CostModel, LocalAlwaysCheaper) {
  const BreakEven b = evaluate(simple(), CostQuery{}).break_even;  // 2W vs 1 + 4W
  EXPECT_EQ(b.verdict, Verdict::kLocalAlwaysCheaper);
  EXPECT_FALSE(b.job_hours);
}

TEST(CostModel, EqualSlopesLetTheFixedCostDecide) {
  CostInputs in = simple();
  in.set(InputId::kHourlyRate, 2, "test");  // 2 per effective hour on both sides
  in.set(InputId::kColdStartS, 0, "test");
  EXPECT_EQ(evaluate(in, CostQuery{}).break_even.verdict, Verdict::kEqualCost);
  in.set(InputId::kColdStartS, 900, "test");  // cloud 0.5 + 2W > local 2W
  EXPECT_EQ(evaluate(in, CostQuery{}).break_even.verdict, Verdict::kLocalAlwaysCheaper);
  in.set(InputId::kFixedCostPerJob, 1, "test");  // local 1 + 2W > cloud 0.5 + 2W
  const BreakEven b = evaluate(in, CostQuery{}).break_even;
  EXPECT_EQ(b.verdict, Verdict::kCloudAlwaysCheaper);
  EXPECT_FALSE(b.job_hours);
  // Premium 1 + 2W = 1.12 (0.5 + 2W) -> W = (1 - 0.56) / (2.24 - 2) = 1.8333 h.
  ASSERT_TRUE(b.job_hours_at_target_premium);
  EXPECT_NEAR(*b.job_hours_at_target_premium, 0.44 / 0.24, 1e-12);
}

TEST(CostModel, ZeroCloudRate) {
  CostInputs in = simple();
  in.set(InputId::kHourlyRate, 0, "test");
  const BreakEven b = evaluate(in, CostQuery{}).break_even;
  EXPECT_EQ(b.verdict, Verdict::kCloudAlwaysCheaper);
  EXPECT_FALSE(b.premium_at_job_hours);  // no ratio to a free cloud job
  EXPECT_FALSE(b.premium_reason.empty());
  EXPECT_FALSE(b.buy_vs_rent_hours);  // 0 - 0: buying never pays
  EXPECT_FALSE(b.buy_vs_rent_reason.empty());
}

TEST(CostModel, ZeroLocalUtilizationIsInfiniteNotNaN) {
  CostInputs in = simple();
  in.set(InputId::kEffectiveUtilization, 0, "test");
  in.set(InputId::kPurchasePrice, 0, "test");  // 0 per wall hour / 0 useful: still infinite, never NaN
  const CostResult r = evaluate(in, CostQuery{});
  EXPECT_TRUE(std::isinf(r.local.cost_per_effective_hour));
  EXPECT_TRUE(std::isinf(r.local.running_per_effective_hour));
  EXPECT_EQ(r.break_even.verdict, Verdict::kCloudAlwaysCheaper);
  EXPECT_FALSE(r.break_even.premium_at_job_hours);
  EXPECT_FALSE(r.break_even.buy_vs_rent_hours);
  for (const auto& s : r.steps)
    if (s.value) {
      EXPECT_FALSE(std::isnan(*s.value)) << s.name;
    }
}

TEST(CostModel, ZeroCloudUtilization) {
  CostInputs in = simple();
  in.set(InputId::kUtilization, 0, "test");
  const BreakEven b = evaluate(in, CostQuery{}).break_even;
  EXPECT_EQ(b.verdict, Verdict::kLocalAlwaysCheaper);
  EXPECT_FALSE(b.buy_vs_rent_hours);
  EXPECT_NE(b.buy_vs_rent_reason.find("renting is no alternative"), std::string::npos);
}

TEST(CostModel, NoJobLengthIsNegativeOrNaN) {
  // Sweep fixed costs and rates across the cases: a job length is positive and finite or absent.
  for (double fl : {0.0, 0.5, 3.0})
    for (double rate : {0.0, 1.0, 2.0, 4.0})
      for (double cold : {0.0, 900.0, 3600.0}) {
        CostInputs in = simple();
        in.set(InputId::kFixedCostPerJob, fl, "test");
        in.set(InputId::kHourlyRate, rate, "test");
        in.set(InputId::kColdStartS, cold, "test");
        const BreakEven b = evaluate(in, CostQuery{}).break_even;
        for (const auto& h : {b.job_hours, b.job_hours_at_target_premium, b.buy_vs_rent_hours})
          if (h) {
            EXPECT_TRUE(std::isfinite(*h) && *h > 0) << fl << " " << rate << " " << cold;
          }
        EXPECT_EQ(b.job_hours.has_value(), b.verdict == Verdict::kCrossover);
      }
}

TEST(CostModel, SensitivityTornadoOfTheJobBreakEven) {
  CostInputs in = simple();
  in.set(InputId::kFixedCostPerJob, 3, "test");  // base: crossover at W = 1
  const Sensitivity s = sensitivity(in, CostQuery{});
  EXPECT_EQ(s.metric, "break_even.job_hours");
  ASSERT_TRUE(s.base_metric);
  EXPECT_DOUBLE_EQ(*s.base_metric, 1.0);
  ASSERT_EQ(s.rows.size(), kInputCount);
  // cloud.hourly_rate 3.2: (3 - 0.8) / (3.2 - 2) = 1.8333; 4.8: (3 - 1.2) / (4.8 - 2) = 0.6429
  // cloud.relative_speed 0.8: 2 / (5 - 2) = 0.6667; 1.2: 2 / (3.3333 - 2) = 1.5
  // local.fixed_cost_per_job 2.4: 1.4 / 2 = 0.7; 3.6: 2.6 / 2 = 1.3
  EXPECT_EQ(s.rows[0].input, InputId::kHourlyRate);
  EXPECT_NEAR(*s.rows[0].low_metric, 2.2 / 1.2, 1e-12);
  EXPECT_NEAR(*s.rows[0].high_metric, 1.8 / 2.8, 1e-12);
  EXPECT_NEAR(s.rows[0].effect, 2.2 / 1.2 - 1.8 / 2.8, 1e-12);
  EXPECT_EQ(s.rows[1].input, InputId::kRelativeSpeed);
  EXPECT_NEAR(s.rows[1].effect, 1.5 - 2.0 / 3, 1e-12);
  EXPECT_EQ(s.rows[2].input, InputId::kFixedCostPerJob);
  EXPECT_NEAR(s.rows[2].effect, 0.6, 1e-12);
  for (std::size_t i = 1; i < s.rows.size(); ++i) EXPECT_GE(s.rows[i - 1].effect, s.rows[i].effect);
  // cloud.utilization 1 * 1.2 is clamped to 1 and says so.
  for (const auto& r : s.rows)
    if (r.input == InputId::kUtilization) {
      EXPECT_DOUBLE_EQ(r.high, 1.0);
      EXPECT_NE(r.note.find("clamped"), std::string::npos);
    }
}

TEST(CostModel, SensitivityRowsThatChangeTheVerdictSortFirst) {
  CostInputs in = simple();
  in.set(InputId::kFixedCostPerJob, 3, "test");
  in.set(InputId::kHourlyRate, 2.2, "test");  // cloud 0.55 + 2.2W, local 3 + 2W: W = 2.45 / 0.2 = 12.25
  const Sensitivity s = sensitivity(in, CostQuery{});
  ASSERT_TRUE(s.base_metric);
  EXPECT_NEAR(*s.base_metric, 12.25, 1e-9);
  // Rate -20 % (1.76 < 2): cloud is cheaper for every job, so no break-even: infinite effect.
  // So do price +20 % (2.4 > 2.2 per effective hour) and utilization -20 % (2.5).
  bool finite_seen = false;
  int infinite = 0;
  for (const auto& r : s.rows) {
    if (std::isinf(r.effect)) {
      EXPECT_FALSE(finite_seen) << "rows with a verdict change must sort first";
      ++infinite;
    } else {
      finite_seen = true;
    }
    if (r.input == InputId::kHourlyRate) {
      EXPECT_TRUE(std::isinf(r.effect));
      EXPECT_EQ(r.low_verdict, Verdict::kCloudAlwaysCheaper);
      EXPECT_FALSE(r.low_metric);
      ASSERT_TRUE(r.high_metric);
      EXPECT_NEAR(*r.high_metric, (3 - 0.66) / 0.64, 1e-9);  // cloud 0.66 + 2.64W
    }
  }
  EXPECT_GE(infinite, 3);
}

TEST(CostModel, StepsShowTheNumbers) {
  const CostResult r = evaluate(seed(), CostQuery{});
  ASSERT_FALSE(r.steps.empty());
  EXPECT_EQ(r.steps[0].name, "local.capital_cost");
  EXPECT_EQ(r.steps[0].numbers, "(4299 CNY + 0 CNY) * (1 + 0)^(24 / 12) - 0 * (4299 + 0)");
  EXPECT_DOUBLE_EQ(*r.steps[0].value, 4299.0);
  EXPECT_EQ(r.steps[1].name, "local.amortization_per_hour");
  EXPECT_EQ(r.steps[1].numbers, "4299 CNY / 5760 h");
  EXPECT_NEAR(*r.steps[1].value, 4299.0 / 5760, 1e-12);
  EXPECT_NE(r.verdict_text.find("Local is cheaper for every job length"), std::string::npos) << r.verdict_text;
}

}  // namespace
}  // namespace gpucost::cost

namespace gpucost::cost {
namespace {

// The Monte Carlo's draws ask for numbers only: without the sentences, every number and verdict
// is what the explained answer holds, over inputs that reach every verdict and every reason.
TEST(CostModel, BreakEvenWithoutSentencesHasTheSameNumbers) {
  std::vector<CostInputs> cases = {simple(), seed()};
  for (const double rate : {0.5, 2.0, 4.0, 40.0})
    for (const double util : {0.0, 0.3, 1.0}) {
      CostInputs in = simple();
      in.set(InputId::kHourlyRate, rate, "test");
      in.set(InputId::kUtilization, util, "test");
      cases.push_back(in);
    }
  for (const CostInputs& in : cases) {
    CostQuery q;
    q.job_hours = 10;
    q.target_premium = 0.25;
    const LocalCost l = local_cost(in);
    const CloudCost c = cloud_cost(in);
    const BreakEven full = break_even(in, l, c, q), lean = break_even(in, l, c, q, false);
    EXPECT_FALSE(full.explanation.empty());
    EXPECT_TRUE(lean.explanation.empty() || lean.explanation == full.explanation);
    EXPECT_EQ(lean.verdict, full.verdict);
    EXPECT_EQ(lean.job_hours, full.job_hours);
    EXPECT_EQ(lean.cheaper_below, full.cheaper_below);
    EXPECT_EQ(lean.cloud_job_cost_billed, full.cloud_job_cost_billed);
    EXPECT_EQ(lean.local_job_cost, full.local_job_cost);
    EXPECT_EQ(lean.cloud_job_cost, full.cloud_job_cost);
    EXPECT_EQ(lean.premium_at_job_hours, full.premium_at_job_hours);
    EXPECT_EQ(lean.job_hours_at_target_premium, full.job_hours_at_target_premium);
    EXPECT_EQ(lean.premium_short_jobs, full.premium_short_jobs);
    EXPECT_EQ(lean.premium_long_jobs, full.premium_long_jobs);
    EXPECT_EQ(lean.buy_vs_rent_hours, full.buy_vs_rent_hours);
    EXPECT_EQ(lean.buy_vs_rent_hours_per_month, full.buy_vs_rent_hours_per_month);
    EXPECT_EQ(lean.lifetime_effective_hours, full.lifetime_effective_hours);
    EXPECT_EQ(lean.usage_threshold_hours_per_month, full.usage_threshold_hours_per_month);
    EXPECT_EQ(lean.hours_per_month, full.hours_per_month);
    EXPECT_EQ(lean.buy_pays, full.buy_pays);
    EXPECT_EQ(lean.max_purchase_price, full.max_purchase_price);
  }
}

}  // namespace
}  // namespace gpucost::cost
