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
  set(InputId::purchase_price, 1000);
  set(InputId::amortization_hours, 1000);
  set(InputId::amortization_months, 10);
  set(InputId::power_w, 0);
  set(InputId::cooling_w, 0);
  set(InputId::electricity_price, 0);
  set(InputId::incidents_per_hour, 0);
  set(InputId::hours_per_incident, 0);
  set(InputId::engineer_rate, 0);
  set(InputId::effective_utilization, 0.5);
  set(InputId::fixed_cost_per_job, 0);
  set(InputId::hourly_rate, 4);
  set(InputId::cold_start_s, 900);
  set(InputId::utilization, 1);
  set(InputId::relative_speed, 1);
  set(InputId::resale_fraction, 0);
  set(InputId::interest_rate, 0);
  set(InputId::hours_per_month, hours_per_month);
  set(InputId::job_stall_fraction, 0);
  set(InputId::interruption_loss, 0);
  set(InputId::billing_increment_s, 0);
  set(InputId::storage_price_gb_month, 0);
  set(InputId::minimum_billing_s, 0);
  set(InputId::storage_gb_months, 0);
  set(InputId::egress_price_gb, 0);
  set(InputId::egress_gb, 0);
  return in;
}

}  // namespace gpucost::cost::test
