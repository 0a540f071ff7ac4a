#pragma once
// Cost inputs with round numbers, for tests that compute the expected values by hand: local 1000
// over 1000 h (1 per wall hour, nothing else), half the time useful -> 2 per effective hour; cloud
// 4 per hour, 900 s cold start (0.25 h -> 1 per job), full utilization, the same speed.
#include "gpucost/cost/inputs.hpp"

namespace gpucost::cost::test {

inline CostInputs round_cost_inputs(double hours_per_month) {
  CostInputs in;
  in.currency = "EUR";
  auto set = [&](InputId id, double v) { in.set(id, v, "test"); };
  set(InputId::kPurchasePrice, 1000);
  set(InputId::kAmortizationHours, 1000);
  set(InputId::kAmortizationMonths, 10);
  set(InputId::kPowerW, 0);
  set(InputId::kCoolingW, 0);
  set(InputId::kElectricityPrice, 0);
  set(InputId::kIncidentsPerHour, 0);
  set(InputId::kHoursPerIncident, 0);
  set(InputId::kEngineerRate, 0);
  set(InputId::kEffectiveUtilization, 0.5);
  set(InputId::kFixedCostPerJob, 0);
  set(InputId::kHourlyRate, 4);
  set(InputId::kColdStartS, 900);
  set(InputId::kUtilization, 1);
  set(InputId::kRelativeSpeed, 1);
  set(InputId::kResaleFraction, 0);
  set(InputId::kInterestRate, 0);
  set(InputId::kHoursPerMonth, hours_per_month);
  set(InputId::kJobStallFraction, 0);
  set(InputId::kInterruptionLoss, 0);
  set(InputId::kBillingIncrementS, 0);
  set(InputId::kStoragePriceGbMonth, 0);
  set(InputId::kMinimumBillingS, 0);
  set(InputId::kStorageGbMonths, 0);
  set(InputId::kEgressPriceGb, 0);
  set(InputId::kEgressGb, 0);
  set(InputId::kHostPrice, 0);
  set(InputId::kHostPowerW, 0);
  set(InputId::kPsuEfficiency, 1);
  set(InputId::kPue, 1);
  set(InputId::kStorageGb, 0);
  set(InputId::kReservedPerMonth, 0);
  return in;
}

}  // namespace gpucost::cost::test
