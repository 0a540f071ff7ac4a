#pragma once
/// \file model.hpp
/// The cost model and the break-even solver. Every formula is in docs/cost-model.md; the names
/// here are the names there. A job of W local-equivalent busy hours costs
///   local(W) = fixed_cost_per_job + local_per_effective_hour * W
///   cloud(W) = cold_start_cost    + cloud_per_effective_hour * W
/// and the questions are where those two lines cross, how far apart they are at --job-hours, and
/// after how much work buying the GPU has paid for itself against renting.

#ifndef GPUCOST_LAYER_COST
#error "gpucost_cost header: include it only in gpucost_cost or a layer above it (docs/architecture.md, Layers)"
#endif

#include <optional>
#include <string>
#include <vector>

#include "gpucost/cost/inputs.hpp"
#include "gpucost/cost/uncertainty.hpp"

namespace gpucost::cost {

/// Local GPU cost terms, per wall hour of use unless named otherwise (currency/h).
struct LocalCost {
  /// What owning the GPU and its share of the host for the amortization months costs in money, at
  /// their end, with P = purchase_price + host_price:
  /// P * (1 + interest_rate)^(amortization_months / 12) - resale_fraction * P.
  double capital_cost = 0;
  double amortization_per_hour = 0;  ///< capital_cost / amortization_hours
  /// (power_w + host_power_w) / psu_efficiency * pue: what the machine's share draws at the wall,
  /// the room's overhead included, W.
  double wall_power_w = 0;
  double electricity_per_hour = 0;  ///< wall_power_w / 1000 * electricity_price
  double cooling_per_hour = 0;       ///< cooling_w / 1000 * electricity_price
  double maintenance_per_hour = 0;   ///< incidents_per_hour * hours_per_incident * engineer_rate
  double cost_per_wall_hour = 0;     ///< sum of the four
  double running_per_wall_hour = 0;  ///< electricity + cooling + maintenance (no amortization)
  double effective_utilization = 0;
  /// cost_per_wall_hour / effective_utilization; +infinity when the GPU does no useful work.
  double cost_per_effective_hour = 0;
  /// running_per_wall_hour / effective_utilization; +infinity when it does no useful work.
  double running_per_effective_hour = 0;
  double fixed_per_job = 0;          ///< fixed_cost_per_job
};

/// Cloud cost terms.
struct CloudCost {
  /// hourly_rate / (utilization * (1 - job_stall_fraction) * relative_speed), per hour of
  /// local-equivalent work;
  /// +infinity when the cloud GPU does no useful work.
  double cost_per_effective_hour = 0;
  double cold_start_hours = 0;  ///< cold_start_s / 3600
  double cold_start_cost = 0;   ///< hourly_rate * cold_start_hours
  /// hourly_rate * billing_increment_s / 2 / 3600: a job is billed up to the next increment, half
  /// an increment more on average.
  double billing_rounding_cost = 0;
  double storage_cost_per_job = 0;  ///< storage_price_gb_month * storage_gb_months
  double egress_cost_per_job = 0;   ///< egress_price_gb * egress_gb
  /// storage_cost_per_job + egress_cost_per_job: the data one cloud job moves and keeps.
  double data_cost_per_job = 0;
  /// cold_start_cost + billing_rounding_cost + data_cost_per_job: what every cloud job costs
  /// whatever its length (F_C of the break-even).
  double fixed_per_job = 0;
  /// storage_price_gb_month * storage_gb + reserved_per_month: what renting costs each month
  /// whatever the use (M of the buy decision; no job pays it, so the job break-even leaves it out).
  double monthly_cost = 0;
};

/// Which side is cheaper, and for which jobs.
enum class Verdict : std::uint8_t {
  kCrossover,             ///< one side below job_hours, the other above
  kLocalAlwaysCheaper,  ///< local costs less (or the same) for every job length
  kCloudAlwaysCheaper,  ///< cloud costs less (or the same) for every job length
  kEqualCost,            ///< both cost exactly the same for every job length
};
std::string_view verdict_name(Verdict v) noexcept;

/// The answers.
struct BreakEven {
  Verdict verdict = Verdict::kEqualCost;
  /// W where local(W) = cloud(W); set only for a crossover.
  std::optional<double> job_hours;
  /// For a crossover: the side cheaper for jobs shorter than job_hours (`cloud` or `local`).
  std::optional<Side> cheaper_below;
  std::string explanation;  ///< one sentence: why this verdict

  double query_job_hours = 0;  ///< --job-hours
  /// The cloud job at --job-hours as billed: hourly_rate x billed_hours(cold start + the job's
  /// billed run time) + data_cost_per_job, whole billing increments and the minimum included.
  double cloud_job_cost_billed = 0;
  double local_job_cost = 0;   ///< local(query_job_hours)
  double cloud_job_cost = 0;   ///< cloud(query_job_hours)
  /// local / cloud - 1 at query_job_hours; null when the cloud job costs nothing or a side
  /// cannot do the work.
  std::optional<double> premium_at_job_hours;
  std::string premium_reason;  ///< why premium_at_job_hours is null

  double target_premium = 0;
  /// W at which local / cloud - 1 = target_premium; null when no positive W has it.
  std::optional<double> job_hours_at_target_premium;
  std::string target_premium_reason;  ///< why it is null, with the premium's range
  /// The premium for very short jobs (W -> 0+) and very long ones (W -> infinity); null when
  /// not finite.
  std::optional<double> premium_short_jobs, premium_long_jobs;

  /// purchase_price / (cloud_per_effective_hour - local running_per_effective_hour): hours of
  /// local-equivalent work after which buying has paid for itself; null when it never does.
  std::optional<double> buy_vs_rent_hours;
  std::optional<double> buy_vs_rent_hours_per_month;  ///< buy_vs_rent_hours / amortization_months
  std::string buy_vs_rent_reason;                     ///< why it is null
  /// amortization_hours * effective_utilization: the work the GPU can do in its amortization
  /// period, to compare buy_vs_rent_hours with.
  double lifetime_effective_hours = 0;

  /// The verdict as usage: buying pays if at least this many local-equivalent busy GPU-hours a
  /// month are run for amortization_months: max(0, capital_cost - cloud_monthly_cost * amortization_months)
  /// / ((cloud_per_eff_h - local_running_per_eff_h) * amortization_months). Null when buying never pays
  /// (buy_vs_rent_reason says why).
  std::optional<double> usage_threshold_hours_per_month;
  /// The usage compared with it (measured or given); null when the usage is unknown.
  std::optional<double> hours_per_month;
  /// hours_per_month >= usage_threshold_hours_per_month: buying costs less than renting the same
  /// work (false when the usage is unknown).
  bool buy_pays = false;
  /// capital_cost / ((cloud_per_eff_h - local_running_per_eff_h) * hours_per_month): months of use
  /// at the usage until the savings have repaid the capital; null when they never do or the usage
  /// or price is unknown.
  std::optional<double> payback_months;
  /// The purchase price below which buying pays at hours_per_month:
  /// (cloud_per_eff_h - local_running_per_eff_h) * hours_per_month * amortization_months
  /// / ((1 + interest_rate)^(amortization_months / 12) - resale_fraction) - host_price; null when no
  /// price does.
  std::optional<double> max_purchase_price;
};

/// Hours billed for `hours` of instance time: whole increments of `increment_s` (0: continuous),
/// at least `minimum_s`. billed_hours(1.25, 3600, 0) = 2; billed_hours(0.004, 1, 60) = 60 s.
double billed_hours(double hours, double increment_s, double minimum_s);

/// A duration in people's units: `45 s`, `4 min 0 s`, `2 h 17 min`, `1344 h`; `never` when not finite.
std::string human_duration(double hours);
/// A number for prose: three significant digits, no exponent (`0.263`, `3.80`, `412`, `35000`).
std::string sig3(double v);

/// One computation written out: name = formula = numbers = value unit.
struct Step {
  std::string name;     ///< `local.electricity_per_hour`
  std::string formula;  ///< `power_w / 1000 * electricity_price`
  std::string numbers;  ///< `115 W / 1000 * 0.62 CNY/kWh`
  std::optional<double> value;
  std::string unit;
};

/// One row of the tornado table: the break-even with one input at -20 % and +20 %.
struct SensitivityRow {
  InputId input;
  double base = 0, low = 0, high = 0;  ///< the input's values (low/high clamped to its domain)
  std::string note;                    ///< clamping, or why a variant could not be computed
  Verdict low_verdict{}, high_verdict{};
  std::optional<double> low_metric, high_metric;  ///< the metric with the input at low / high
  /// The usage threshold (h/month) and whether buying pays, with the input at low / high: the
  /// buy verdict moves with usage too, which the metric above does not.
  std::optional<double> low_usage_threshold, high_usage_threshold;
  bool low_buy_pays = false, high_buy_pays = false;
  /// |high_metric - low_metric|; +infinity when a variant changes the verdict or loses the
  /// metric (such rows sort first); 0 when neither variant has the metric.
  double effect = 0;
};

/// How the break-even moves with each input.
struct Sensitivity {
  /// The metric the rows report: `break_even.job_hours` when the base verdict is a crossover,
  /// else `break_even.buy_vs_rent_hours` when it is finite, else `break_even.premium_at_job_hours`.
  std::string metric;
  std::string unit;  ///< `h` or `ratio`
  std::optional<double> base_metric;
  double step = 0.2;  ///< the relative change (0.2 = -20 % and +20 %)
  std::vector<SensitivityRow> rows;  ///< sorted by effect, largest first; ties in input order
};

/// The verdict with cloud.relative_speed replaced by one end of the speed bracket.
struct SpeedCase {
  double relative_speed = 0;
  Verdict verdict = Verdict::kEqualCost;
  std::optional<double> job_hours;
  std::optional<Side> cheaper_below;
  std::optional<double> usage_threshold_hours_per_month;
  bool buy_pays = false;
};

/// The owner's answer: keep running the GPU, or rent the same work instead.
enum class OwnDecision : std::uint8_t { kKeep, kRent };
/// The buyer's answer.
enum class BuyDecision : std::uint8_t {
  kBuy,             ///< the usage is at or above the threshold
  kRent,            ///< the usage is below the threshold
  kNever,           ///< renting costs no more than running the GPU alone: no usage pays
  kDependsOnUsage,  ///< the usage is unknown: the threshold is the answer
  kDependsOnPrice,  ///< no purchase price is known: the price below which buying pays is the answer
};
std::string_view own_decision_name(OwnDecision d) noexcept;  ///< `keep`, `rent`
std::string_view buy_decision_name(BuyDecision d) noexcept;  ///< `buy`, `rent`, `never`, `depends_on_usage` ...

/// "I already have this GPU": what running it costs per effective hour against renting the same work.
struct OwnVerdict {
  OwnDecision decision = OwnDecision::kKeep;
  /// Energy, cooling and incidents per effective hour (local.running_per_effective_hour): the
  /// purchase is spent whatever the owner does, so it is not counted.
  double running_per_effective_hour = 0;
  double cloud_per_effective_hour = 0;  ///< cloud.cost_per_effective_hour
  /// (cloud - running) x hours_per_month: what keeping saves (negative: costs) a month; null when
  /// the usage is unknown or a side does no work.
  std::optional<double> saving_per_month;
  /// purchase_price x resale_fraction: what selling instead would recover; null when no price or
  /// resale share is known.
  std::optional<double> resale_value;
  std::string summary;  ///< one sentence
};

/// "Should I buy it?": owning against renting per month at the usage.
struct BuyVerdict {
  BuyDecision decision = BuyDecision::kDependsOnUsage;
  std::optional<double> threshold_hours_per_month;          ///< per GPU (break_even.usage_threshold...)
  std::optional<double> machine_threshold_hours_per_month;  ///< GPU-hours of the whole machine: x gpu_count
  std::optional<double> hours_per_month;                    ///< per GPU; null when the usage is unknown
  std::optional<double> payback_months;
  std::optional<double> max_purchase_price;
  /// Share of the Monte Carlo's draws in which buying is cheaper; null when the usage is unknown
  /// (nothing to compare the threshold with) or there are no draws.
  std::optional<double> probability;
  std::string probability_reason;  ///< why probability is null
  std::string flips;    ///< what would change the decision, in words
  std::string summary;  ///< one sentence
};

/// Everything the model says about one set of inputs.
struct CostResult {
  CostInputs inputs;
  CostQuery query;
  LocalCost local;
  CloudCost cloud;
  BreakEven break_even;
  Sensitivity sensitivity;
  std::vector<Step> steps;
  /// The verdict at the compute-bound and the bandwidth-bound speed ratio (null: no such ratio).
  std::optional<SpeedCase> at_compute_bound, at_bandwidth_bound;
  /// The two ends of the speed bracket disagree on the job verdict or on whether buying pays.
  bool flips_within_speed_bracket = false;
  Uncertainty uncertainty;  ///< the Monte Carlo over the inputs' ranges
  std::string verdict_text;  ///< a few plain-language sentences
  /// Prices used that were observed long ago or are undated (shown in the table only: they depend
  /// on the day of the run). Filled by the command line, not by evaluate().
  std::vector<std::string> price_warnings;
  OwnVerdict own;  ///< "I already have this GPU"
  BuyVerdict buy;  ///< "should I buy it"
  /// Both answers, one sentence each: the owner's, then the buyer's.
  std::string summary;
};

/// What a month of `hours` busy GPU-hours on one GPU costs each way: owning is the capital spread
/// over the amortization months plus the running cost of that work, renting is the cloud's price of
/// the same work (per-job fixed costs left out). The two lines cross at the usage threshold.
struct MonthlyCost {
  double hours = 0;
  double own = 0;   ///< capital_cost / amortization_months + running_per_effective_hour x hours
  double rent = 0;  ///< cloud_per_effective_hour x hours
};
MonthlyCost monthly_cost(const CostResult& r, double hours);

/// The owner's and the buyer's answers of a result (its cost terms, break-even and Monte Carlo).
OwnVerdict own_verdict(const CostResult& r);
BuyVerdict buy_verdict(const CostResult& r);

/// (power_w + host_power_w) / psu_efficiency * pue, W (inputs must be valid).
double wall_power_w(const CostInputs& in);
/// Which power the electricity counts: `gpu_board` (the GPU alone: no host, no supply loss, PUE 1),
/// `measured_system` (host_power_w from the BMC's reading of the whole system at the supply's
/// input, origin `measured:ipmi`: the wall power is that reading's share, times PUE) or
/// `estimated_at_the_wall` (board + host through the supply, times PUE; the host a class default,
/// a given value or the CPUs' RAPL reading plus an assumed rest).
std::string_view power_used(const CostInputs& in);
/// power_used in words, naming where the host's part came from (for people: the HTML report).
std::string power_used_note(const CostInputs& in);
/// The local cost terms (inputs must be valid).
LocalCost local_cost(const CostInputs& in);
/// The cloud cost terms (inputs must be valid).
CloudCost cloud_cost(const CostInputs& in);
/// The break-even answers for these cost terms. `explain` false leaves the sentences that say
/// why (explanation, the reasons) empty, and the numbers as they are: the Monte Carlo's 10 000
/// draws read only numbers.
BreakEven break_even(const CostInputs& in, const LocalCost& local, const CloudCost& cloud, const CostQuery& q,
                     bool explain = true);
/// The tornado table (inputs must be valid).
Sensitivity sensitivity(const CostInputs& in, const CostQuery& q, double step = 0.2);
/// The verdict with cloud.relative_speed set to `relative_speed` (inputs must be valid).
SpeedCase speed_case(const CostInputs& in, const CostQuery& q, double relative_speed);
/// Validates (throwing std::invalid_argument) and computes everything.
CostResult evaluate(const CostInputs& in, const CostQuery& q);

}  // namespace gpucost::cost
