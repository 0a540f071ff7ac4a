// Monthly cloud costs (storage kept all month, reserved capacity) in the buy decision
// (docs/cost-model.md, "Monthly cloud costs"). Every expected value is computed by hand.
#include <gtest/gtest.h>

#include "gpucost/cost/model.hpp"

namespace gpucost::cost {
namespace {

// The RTX 4090 desktop of the machine-class tests: 1599 USD, 450 W at 0.15 USD/kWh (0.0675 USD/h),
// 24 months, against 0.74 USD/h at full utilization; 200 h a month.
CostInputs desktop_4090() {
  CostInputs in;
  for (const auto& s : input_specs()) in.set(s.id, 0, "test");
  in.set(InputId::kPurchasePrice, 1599, "test");
  in.set(InputId::kAmortizationMonths, 24, "test");
  in.set(InputId::kAmortizationHours, 5760, "test");
  in.set(InputId::kPowerW, 450, "test");
  in.set(InputId::kElectricityPrice, 0.15, "test");
  in.set(InputId::kEffectiveUtilization, 1, "test");
  in.set(InputId::kPsuEfficiency, 1, "test");
  in.set(InputId::kPue, 1, "test");
  in.set(InputId::kHourlyRate, 0.74, "test");
  in.set(InputId::kUtilization, 1, "test");
  in.set(InputId::kRelativeSpeed, 1, "test");
  in.set(InputId::kHoursPerMonth, 200, "test");
  return in;
}

BreakEven solve(const CostInputs& in) { return break_even(in, local_cost(in), cloud_cost(in), CostQuery{}); }

constexpr double kSaving = 0.74 - 0.0675;  // 0.6725 USD per hour of work owned instead of rented

TEST(MonthlyCloudCost, IsStorageKeptAllMonthPlusTheMonthlyFee) {
  CostInputs in = desktop_4090();
  in.set(InputId::kStoragePriceGbMonth, 0.07, "test");
  in.set(InputId::kStorageGb, 200, "test");
  EXPECT_NEAR(cloud_cost(in).monthly_cost, 14, 1e-12);  // the audit's 200 GB: 14 USD a month
  in.set(InputId::kReservedPerMonth, 5, "test");
  EXPECT_NEAR(cloud_cost(in).monthly_cost, 19, 1e-12);
  // No job pays it: the job's fixed cost and the job break-even are unchanged.
  EXPECT_NEAR(cloud_cost(in).fixed_per_job, 0, 1e-12);
}

// threshold = (capital - M x months) / (saving x months): 1599 / (0.6725 x 24) = 99.07 h without;
// with 14 USD a month (1599 - 336) / 16.14 = 78.25 h; with 35 USD a month (1599 - 840) / 16.14 = 47.03 h.
TEST(MonthlyCloudCost, LowersTheUsageThresholdByHand) {
  CostInputs in = desktop_4090();
  EXPECT_NEAR(*solve(in).usage_threshold_hours_per_month, 1599 / (kSaving * 24), 1e-9);
  in.set(InputId::kStoragePriceGbMonth, 0.07, "test");
  in.set(InputId::kStorageGb, 200, "test");
  EXPECT_NEAR(*solve(in).usage_threshold_hours_per_month, (1599 - 14 * 24) / (kSaving * 24), 1e-9);
  EXPECT_NEAR(*solve(in).buy_vs_rent_hours, (1599 - 14 * 24) / kSaving, 1e-9);
  in.set(InputId::kStorageGb, 500, "test");
  EXPECT_NEAR(*solve(in).usage_threshold_hours_per_month, (1599 - 35 * 24) / (kSaving * 24), 1e-9);
}

TEST(MonthlyCloudCost, AloneRepayingTheCapitalMakesBuyingPayAtAnyUsage) {
  CostInputs in = desktop_4090();
  in.set(InputId::kReservedPerMonth, 100, "test");  // 2400 USD over 24 months > 1599
  in.set(InputId::kHoursPerMonth, 0, "test");
  const BreakEven b = solve(in);
  ASSERT_TRUE(b.usage_threshold_hours_per_month.has_value());
  EXPECT_EQ(*b.usage_threshold_hours_per_month, 0);
  EXPECT_TRUE(b.buy_pays);
  ASSERT_TRUE(b.payback_months.has_value());
  EXPECT_NEAR(*b.payback_months, 1599.0 / 100, 1e-9);  // 15.99 months on the fee alone
}

// payback = capital / (saving x usage + M); max price = (saving x usage + M) x months / (1 - resale) - host.
TEST(MonthlyCloudCost, EntersPaybackAndTheMaximumPricePerMonth) {
  CostInputs in = desktop_4090();
  in.set(InputId::kReservedPerMonth, 20, "test");
  const BreakEven b = solve(in);
  ASSERT_TRUE(b.payback_months.has_value());
  EXPECT_NEAR(*b.payback_months, 1599 / (kSaving * 200 + 20), 1e-9);  // 1599 / 154.5 = 10.35 months
  ASSERT_TRUE(b.max_purchase_price.has_value());
  EXPECT_NEAR(*b.max_purchase_price, (kSaving * 200 + 20) * 24, 1e-9);  // 3708 USD
}

TEST(MonthlyCloudCost, TheMonthTableAndTheOwnerCountIt) {
  CostInputs in = desktop_4090();
  in.set(InputId::kReservedPerMonth, 20, "test");
  const CostResult r = evaluate(in, CostQuery{});
  const MonthlyCost m = monthly_cost(r, 100);
  EXPECT_NEAR(m.rent, 0.74 * 100 + 20, 1e-9);
  EXPECT_NEAR(m.own, 1599.0 / 24 + 0.0675 * 100, 1e-9);
  ASSERT_TRUE(r.own.saving_per_month.has_value());
  EXPECT_NEAR(*r.own.saving_per_month, kSaving * 200 + 20, 1e-9);
}

TEST(MonthlyCloudCost, InputsHaveConfigKeysAndOptions) {
  EXPECT_EQ(input_name(InputId::kStorageGb), "cloud.storage_gb");
  EXPECT_EQ(input_flag(InputId::kStorageGb), "--cloud-storage-gb");
  EXPECT_EQ(input_name(InputId::kReservedPerMonth), "cloud.reserved_per_month");
  EXPECT_EQ(spec(InputId::kReservedPerMonth).alias, "--reserved-per-month");
  EXPECT_TRUE(spec(InputId::kReservedPerMonth).money);
}

}  // namespace
}  // namespace gpucost::cost
