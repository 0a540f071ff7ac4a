// The whole machine: host price and power, power supply, PUE, lifetime and resale by class
// (docs/cost-model.md, "The whole machine"). Every expected value is computed by hand.
#include "gpucost/cost/machine_class.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "gpucost/cost/model.hpp"
#include "gpucost/cost/resolve.hpp"

namespace gpucost::cost {
namespace {

const MachineClass& cls(std::string_view name) {
  const MachineClass* c = find_machine_class(name);
  if (!c) throw std::logic_error("no class");
  return *c;
}

// An RTX 4090 desktop against RunPod's Secure RTX 4090 (0.74 USD/h), everything else neutral:
// 450 W, 0.15 USD/kWh, 24 months, no incidents, full utilization on both sides.
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

double threshold(const CostInputs& in) {
  const BreakEven b = break_even(in, local_cost(in), cloud_cost(in), CostQuery{});
  if (!b.usage_threshold_hours_per_month) throw std::logic_error("no threshold");
  return *b.usage_threshold_hours_per_month;
}

TEST(MachineClass, ResaleCurvesReadLinearlyBetweenTheirPoints) {
  EXPECT_DOUBLE_EQ(resale_fraction_at(cls("consumer"), 36), 0.574);
  EXPECT_DOUBLE_EQ(resale_fraction_at(cls("consumer"), 30), 0.656 + 0.5 * (0.574 - 0.656));  // 0.615
  EXPECT_DOUBLE_EQ(resale_fraction_at(cls("laptop"), 24), 0.49);
  EXPECT_DOUBLE_EQ(resale_fraction_at(cls("datacenter"), 48), 0.35);
  EXPECT_DOUBLE_EQ(resale_fraction_at(cls("datacenter"), 72), 0.35);  // flat past the last point
  EXPECT_DOUBLE_EQ(resale_fraction_at(cls("datacenter"), 0), 1.0);
  EXPECT_EQ(find_machine_class(""), nullptr);
}

TEST(MachineClass, EveryDefaultNamesItsSource) {
  for (const auto& c : machine_classes()) {
    EXPECT_FALSE(c.host_price_source.empty()) << c.name;
    EXPECT_FALSE(c.host_power_source.empty()) << c.name;
    EXPECT_FALSE(c.psu_source.empty()) << c.name;
    EXPECT_FALSE(c.pue_source.empty()) << c.name;
    EXPECT_FALSE(c.lifetime_source.empty()) << c.name;
    EXPECT_FALSE(c.resale_source.empty()) << c.name;
    EXPECT_GT(c.psu_efficiency, 0);
    EXPECT_LE(c.psu_efficiency, 1);
    EXPECT_GE(c.pue, 1);
  }
}

TEST(MachineClass, WallPowerIsGpuAndHostThroughTheSupplyTimesPue) {
  CostInputs in = desktop_4090();
  in.set(InputId::kHostPowerW, 150, "test");
  in.set(InputId::kPsuEfficiency, 0.9, "test");
  EXPECT_NEAR(wall_power_w(in), 600 / 0.9, 1e-9);  // 666.67 W: the audit's 667 W
  EXPECT_EQ(power_used(in), "estimated_at_the_wall");
  EXPECT_EQ(power_used(desktop_4090()), "gpu_board");
  in.set(InputId::kPue, 1.58, "test");
  EXPECT_NEAR(wall_power_w(in), 600 / 0.9 * 1.58, 1e-9);  // 1053.3 W
  EXPECT_NEAR(local_cost(in).electricity_per_hour, 600 / 0.9 * 1.58 / 1000 * 0.15, 1e-12);
}

TEST(MachineClass, CapitalIsTheGpuAndHostLessTheResaleOfBoth) {
  CostInputs in = desktop_4090();
  in.set(InputId::kHostPrice, 1000, "test");
  in.set(InputId::kResaleFraction, 0.4, "test");
  EXPECT_NEAR(local_cost(in).capital_cost, 2599 * 0.6, 1e-9);  // 1559.4
}

// The audit's worked example (docs/cost-model.md): the threshold moves with each part of the
// machine. run = wall W / 1000 x 0.15; threshold = capital / ((0.74 - run) x 24).
TEST(MachineClass, TheAuditsDesktopThresholdsByHand) {
  CostInputs in = desktop_4090();
  EXPECT_NEAR(threshold(in), 1599 / ((0.74 - 0.0675) * 24), 1e-9);  // 99.07 h
  in.set(InputId::kHostPrice, 1000, "test");
  EXPECT_NEAR(threshold(in), 2599 / ((0.74 - 0.0675) * 24), 1e-9);  // 161.0 h
  in.set(InputId::kHostPowerW, 150, "test");
  in.set(InputId::kPsuEfficiency, 0.9, "test");
  EXPECT_NEAR(threshold(in), 2599 / ((0.74 - 0.1) * 24), 1e-9);  // 169.2 h
  in.set(InputId::kResaleFraction, 0.4, "test");
  EXPECT_NEAR(threshold(in), 2599 * 0.6 / ((0.74 - 0.1) * 24), 1e-9);  // 101.5 h
}

TEST(MachineClass, MaxPurchasePriceLeavesTheHostOut) {
  CostInputs in = desktop_4090();
  in.set(InputId::kHostPrice, 1000, "test");
  const BreakEven b = break_even(in, local_cost(in), cloud_cost(in), CostQuery{});
  ASSERT_TRUE(b.max_purchase_price.has_value());
  EXPECT_NEAR(*b.max_purchase_price, (0.74 - 0.0675) * 200 * 24 - 1000, 1e-9);  // 2228 USD
  in.set(InputId::kHostPrice, 4000, "test");  // the host alone costs more than renting saves
  EXPECT_FALSE(break_even(in, local_cost(in), cloud_cost(in), CostQuery{}).max_purchase_price.has_value());
}

TEST(MachineClass, ResolveGivesADesktopItsClassDefaults) {
  ResolveRequest rq;
  rq.selection.local = "rtx-4090";
  const CostInputs in = resolve_inputs(builtin_presets(), rq);
  EXPECT_EQ(in.machine_class, "consumer");
  EXPECT_EQ(*in[InputId::kHostPrice].value, 1000);
  EXPECT_EQ(in[InputId::kHostPrice].origin, "default");
  EXPECT_NE(in[InputId::kHostPrice].note.find("desktop class"), std::string::npos);
  EXPECT_EQ(*in[InputId::kHostPowerW].value, 150);
  EXPECT_EQ(*in[InputId::kPsuEfficiency].value, 0.9);
  EXPECT_EQ(*in[InputId::kPue].value, 1.0);
  EXPECT_EQ(*in[InputId::kAmortizationMonths].value, 36);
  EXPECT_EQ(*in[InputId::kAmortizationHours].value, 36 * 30 * 8);
  EXPECT_DOUBLE_EQ(*in[InputId::kResaleFraction].value, 0.574);
  EXPECT_EQ(input_basis(in[InputId::kHostPrice]), "assumed");
}

TEST(MachineClass, ADataCentrePartLivesLongerAroundTheClockThanALaptop) {
  ResolveRequest rq;
  rq.selection.local = "h200";
  const CostInputs h = resolve_inputs(builtin_presets(), rq);
  rq.selection.local = "rtx-4060-laptop";
  const CostInputs l = resolve_inputs(builtin_presets(), rq);
  EXPECT_EQ(h.machine_class, "datacenter");
  EXPECT_EQ(*h[InputId::kAmortizationMonths].value, 48);
  EXPECT_DOUBLE_EQ(*h[InputId::kAmortizationHours].value, 48 * kMeanMonthHours);  // 35 064 h, 24/7
  EXPECT_DOUBLE_EQ(*h[InputId::kPue].value, 1.58);
  EXPECT_DOUBLE_EQ(*h[InputId::kResaleFraction].value, 0.35);
  EXPECT_EQ(l.machine_class, "laptop");
  EXPECT_EQ(*l[InputId::kAmortizationMonths].value, 24);
  EXPECT_EQ(*l[InputId::kHostPrice].value, 0);  // the laptop's price is the machine's
  EXPECT_DOUBLE_EQ(*l[InputId::kResaleFraction].value, 0.49);
  EXPECT_GT(*h[InputId::kAmortizationMonths].value, *l[InputId::kAmortizationMonths].value);
}

TEST(MachineClass, AGivenLifetimeReadsTheResaleCurveAtThatAge) {
  ResolveRequest rq;
  rq.selection.local = "rtx-4090";
  rq.cli.values[static_cast<std::size_t>(InputId::kAmortizationMonths)] = 30;
  rq.cli.values[static_cast<std::size_t>(InputId::kHostPrice)] = 600;
  const CostInputs in = resolve_inputs(builtin_presets(), rq);
  EXPECT_DOUBLE_EQ(*in[InputId::kResaleFraction].value, 0.615);
  EXPECT_EQ(*in[InputId::kHostPrice].value, 600);
  EXPECT_EQ(input_basis(in[InputId::kHostPrice]), "given");
}

TEST(MachineClass, ImpossibleSupplyAndPueAreRefused) {
  CostInputs in = desktop_4090();
  in.set(InputId::kPue, 0.9, "cli");
  EXPECT_THROW(validate(in, CostQuery{}), std::invalid_argument);
  in.set(InputId::kPue, 1, "cli");
  in.set(InputId::kPsuEfficiency, 0, "cli");
  EXPECT_THROW(validate(in, CostQuery{}), std::invalid_argument);
}

}  // namespace
}  // namespace gpucost::cost
