#include "gpucost/cost/model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "gpucost/text/number.hpp"

namespace gpucost::cost {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

// Two costs that differ only by rounding noise are equal (slopes computed along different paths
// from the same inputs must compare equal, or "equal slopes" would never be seen).
bool nearly_equal(double a, double b) { return std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b)); }

std::optional<double> finite_or_null(double v) {
  if (std::isfinite(v)) return v;
  return std::nullopt;
}

// Short numbers for sentences and steps: 6 significant digits.
std::string n(double v) {
  if (std::isinf(v)) return v > 0 ? "infinity" : "-infinity";
  return fmt::format("{:.6g}", v);
}
std::string pct(double v) { return fmt::format("{:+.1f} %", 100 * v); }

double v(const CostInputs& in, InputId id) { return in.get(id); }

// (1 + interest_rate)^(amortization_months / 12): what a unit of money spent on the purchase is
// worth at the end of the period (yearly compounding).
double capital_growth(const CostInputs& in) {
  return std::pow(1 + v(in, InputId::kInterestRate), v(in, InputId::kAmortizationMonths) / 12);
}
}  // namespace

double billed_hours(double hours, double increment_s, double minimum_s) {
  double s = hours * 3600;
  // A product that lands a hair above a whole increment (rounding noise) is that increment.
  if (increment_s > 0) s = std::ceil(s / increment_s - 1e-9) * increment_s;
  return std::max(s, minimum_s) / 3600;
}

std::string human_duration(double hours) {
  if (!std::isfinite(hours)) return "never";
  const double secs = std::round(hours * 3600);
  if (secs < 60) return fmt::format("{:.0f} s", secs);
  if (secs < 3600) return fmt::format("{:.0f} min {:.0f} s", std::floor(secs / 60), std::fmod(secs, 60));
  const double mins = std::round(hours * 60);
  if (mins < 100 * 60) return fmt::format("{:.0f} h {:.0f} min", std::floor(mins / 60), std::fmod(mins, 60));
  return fmt::format("{:.0f} h", std::round(hours));
}

std::string sig3(double v) {
  if (!std::isfinite(v)) return v > 0 ? "infinity" : v < 0 ? "-infinity" : "nan";
  if (v == 0) return "0";
  const int mag = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  const double unit = std::pow(10.0, mag - 2);
  const double r = std::round(v / unit) * unit;
  const int decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(std::fabs(r)))));
  return fmt::format("{:.{}f}", r, decimals);
}

std::string_view verdict_name(Verdict v) noexcept {
  switch (v) {
    case Verdict::kCrossover: return "crossover";
    case Verdict::kLocalAlwaysCheaper: return "local_always_cheaper";
    case Verdict::kCloudAlwaysCheaper: return "cloud_always_cheaper";
    case Verdict::kEqualCost: return "equal_cost";
  }
  return "?";
}

double wall_power_w(const CostInputs& in) {
  return (v(in, InputId::kPowerW) + v(in, InputId::kHostPowerW)) / v(in, InputId::kPsuEfficiency) *
         v(in, InputId::kPue);
}

std::string_view power_used(const CostInputs& in) {
  if (in[InputId::kHostPowerW].origin == "measured:ipmi") return "measured_system";
  const bool board_only =
      v(in, InputId::kHostPowerW) == 0 && v(in, InputId::kPsuEfficiency) == 1 && v(in, InputId::kPue) == 1;
  return board_only ? "gpu_board" : "estimated_at_the_wall";
}

std::string power_used_note(const CostInputs& in) {
  const std::string_view used = power_used(in);
  if (used == "gpu_board") return "GPU board power only: no host, no supply loss, PUE 1";
  if (used == "measured_system")
    return "measured system: the BMC's reading of the whole system at the power supply's input (IPMI DCMI), "
           "its share per GPU, times PUE";
  const auto& host = in[InputId::kHostPowerW];
  const std::string_view part = host.origin == "measured:rapl" ? "the CPUs measured (RAPL), the rest assumed"
                                : input_basis(host) == "given" ? "given"
                                                               : "assumed";
  return fmt::format("estimated at the wall: GPU board + host ({}) through the power supply, times PUE", part);
}

LocalCost local_cost(const CostInputs& in) {
  LocalCost c;
  // The whole machine is bought and resold: the GPU and its share of the host.
  const double price = v(in, InputId::kPurchasePrice) + v(in, InputId::kHostPrice);
  c.capital_cost = price * capital_growth(in) - v(in, InputId::kResaleFraction) * price;
  c.amortization_per_hour = c.capital_cost / v(in, InputId::kAmortizationHours);
  c.wall_power_w = wall_power_w(in);
  c.electricity_per_hour = c.wall_power_w / 1000 * v(in, InputId::kElectricityPrice);
  c.cooling_per_hour = v(in, InputId::kCoolingW) / 1000 * v(in, InputId::kElectricityPrice);
  c.maintenance_per_hour =
      v(in, InputId::kIncidentsPerHour) * v(in, InputId::kHoursPerIncident) * v(in, InputId::kEngineerRate);
  c.running_per_wall_hour = c.electricity_per_hour + c.cooling_per_hour + c.maintenance_per_hour;
  c.cost_per_wall_hour = c.amortization_per_hour + c.running_per_wall_hour;
  c.effective_utilization = v(in, InputId::kEffectiveUtilization);
  // A GPU that does no useful work needs infinitely many wall hours per effective hour, whatever
  // an hour costs (0/0 included): the cost is +infinity, never NaN.
  const double u = c.effective_utilization;
  c.cost_per_effective_hour = u > 0 ? c.cost_per_wall_hour / u : kInf;
  c.running_per_effective_hour = u > 0 ? c.running_per_wall_hour / u : kInf;
  c.fixed_per_job = v(in, InputId::kFixedCostPerJob);
  return c;
}

CloudCost cloud_cost(const CostInputs& in) {
  CloudCost c;
  const double rate = v(in, InputId::kHourlyRate);
  // The job's own stalls (input pipeline, launch queue) travel with it; the local-only losses
  // (idle, suspends, AC switches, incidents) do not.
  const double work = v(in, InputId::kUtilization) * (1 - v(in, InputId::kJobStallFraction)) *
                      (1 - v(in, InputId::kInterruptionLoss)) * v(in, InputId::kRelativeSpeed);
  c.cost_per_effective_hour = work > 0 ? rate / work : kInf;
  c.cold_start_hours = v(in, InputId::kColdStartS) / 3600;
  c.cold_start_cost = rate * c.cold_start_hours;
  c.billing_rounding_cost = rate * v(in, InputId::kBillingIncrementS) / 2 / 3600;
  c.storage_cost_per_job = v(in, InputId::kStoragePriceGbMonth) * v(in, InputId::kStorageGbMonths);
  c.egress_cost_per_job = v(in, InputId::kEgressPriceGb) * v(in, InputId::kEgressGb);
  c.data_cost_per_job = c.storage_cost_per_job + c.egress_cost_per_job;
  c.fixed_per_job = c.cold_start_cost + c.billing_rounding_cost + c.data_cost_per_job;
  c.monthly_cost =
      v(in, InputId::kStoragePriceGbMonth) * v(in, InputId::kStorageGb) + v(in, InputId::kReservedPerMonth);
  return c;
}

namespace {

// The slopes (cost per effective hour) and intercepts (fixed cost per job) of the two job-cost
// lines local(W) = fl + a W and cloud(W) = fc + c W.
struct Lines {
  double a, c, fl, fc;
  std::string slopes, fixed;  // both pairs in words, for the explanations
};

Lines lines_of(const LocalCost& local, const CloudCost& cloud, const std::string& cur, bool explain) {
  Lines l{local.cost_per_effective_hour, cloud.cost_per_effective_hour, local.fixed_per_job, cloud.fixed_per_job, {}, {}};
  if (!explain) return l;
  l.slopes = fmt::format("{} vs {} {}/h", n(l.a), n(l.c), cur);
  l.fixed = fmt::format("{} vs {} {}", n(l.fl), n(l.fc), cur);
  return l;
}

// Step 1: where the two lines cross, and which side is cheaper on either side of that.
void solve_crossover(const Lines& l, bool explain, BreakEven& b) {
  if (std::isinf(l.a)) {
    b.verdict = Verdict::kCloudAlwaysCheaper;
    b.explanation = "the local GPU does no useful work (effective utilization 0), so only the cloud can do a job";
  } else if (std::isinf(l.c)) {
    b.verdict = Verdict::kLocalAlwaysCheaper;
    b.explanation = "the cloud GPU does no useful work (utilization 0), so only the local GPU can do a job";
  } else if (nearly_equal(l.a, l.c)) {
    if (nearly_equal(l.fl, l.fc)) {
      b.verdict = Verdict::kEqualCost;
      b.explanation = !explain ? std::string()
                               : fmt::format("both sides cost the same per effective hour ({}) and per job ({})",
                                             l.slopes, l.fixed);
    } else {
      b.verdict = l.fl < l.fc ? Verdict::kLocalAlwaysCheaper : Verdict::kCloudAlwaysCheaper;
      b.explanation = !explain ? std::string() : fmt::format(
          "both sides cost the same per effective hour ({}), so the lower fixed cost per job ({}, local vs cloud) "
          "decides for every job length",
          l.slopes, l.fixed);
    }
  } else if (l.a < l.c) {
    if (l.fl <= l.fc || nearly_equal(l.fl, l.fc)) {
      b.verdict = Verdict::kLocalAlwaysCheaper;
      b.explanation = !explain ? std::string() : fmt::format(
          "the local GPU costs less per effective hour ({}, local vs cloud) and has no higher fixed cost per job "
          "({}), so it is cheaper for every job length",
          l.slopes, l.fixed);
    } else {
      b.verdict = Verdict::kCrossover;
      b.job_hours = (l.fl - l.fc) / (l.c - l.a);
      b.cheaper_below = Side::kCloud;
      b.explanation = !explain ? std::string() : fmt::format(
          "the cloud has the lower fixed cost per job ({}, local vs cloud) but the higher cost per effective hour "
          "({}): jobs shorter than {} h are cheaper in the cloud, longer ones locally",
          l.fixed, l.slopes, n(*b.job_hours));
    }
  } else {
    if (l.fc <= l.fl || nearly_equal(l.fl, l.fc)) {
      b.verdict = Verdict::kCloudAlwaysCheaper;
      b.explanation = !explain ? std::string() : fmt::format(
          "the cloud costs less per effective hour ({}, local vs cloud) and has no higher fixed cost per job ({}), "
          "so it is cheaper for every job length",
          l.slopes, l.fixed);
    } else {
      b.verdict = Verdict::kCrossover;
      b.job_hours = (l.fc - l.fl) / (l.a - l.c);
      b.cheaper_below = Side::kLocal;
      b.explanation = !explain ? std::string() : fmt::format(
          "the local GPU has the lower fixed cost per job ({}, local vs cloud) but the higher cost per effective "
          "hour ({}): jobs shorter than {} h are cheaper locally, longer ones in the cloud",
          l.fixed, l.slopes, n(*b.job_hours));
    }
  }
}

// Step 2a: both jobs at --job-hours, the cloud one also as billed (whole increments, minimum).
void price_query_job(const CostInputs& in, const CloudCost& cloud, const Lines& l, double w, BreakEven& b) {
  b.query_job_hours = w;
  b.local_job_cost = l.fl + l.a * w;
  b.cloud_job_cost = l.fc + l.c * w;
  if (std::isfinite(l.c)) {
    const double rate = v(in, InputId::kHourlyRate);
    // Instance time: the cold start, then the job's work at the cloud's pace (c / rate is billed
    // hours per hour of local-equivalent work).
    const double run_h = cloud.cold_start_hours + (rate > 0 ? l.c / rate * w : 0);
    b.cloud_job_cost_billed =
        rate * billed_hours(run_h, v(in, InputId::kBillingIncrementS), v(in, InputId::kMinimumBillingS)) +
        cloud.data_cost_per_job;
  } else {
    b.cloud_job_cost_billed = kInf;
  }
}

// Step 2b: the premium local / cloud - 1 at --job-hours, its limits, and where it meets the target.
void solve_premium(const Lines& l, const CostQuery& q, bool explain, BreakEven& b) {
  const double a = l.a, c = l.c, fl = l.fl, fc = l.fc;
  if (std::isinf(a) || std::isinf(c)) {
    b.premium_reason = "one side does no useful work, so its job cost is infinite";
  } else if (b.cloud_job_cost <= 0) {
    b.premium_reason = "the cloud job costs nothing, so no ratio exists";
  } else {
    b.premium_at_job_hours = b.local_job_cost / b.cloud_job_cost - 1;
  }
  b.target_premium = q.target_premium;
  if (!std::isfinite(a) || !std::isfinite(c)) {
    b.target_premium_reason = "one side does no useful work, so the premium is not finite";
    return;
  }
  // W -> 0+: the fixed costs decide (or, when both are 0, the slopes); W -> infinity: the slopes.
  if (fc > 0) b.premium_short_jobs = fl / fc - 1;
  else if (fl == 0 && c > 0) b.premium_short_jobs = a / c - 1;
  if (c > 0) b.premium_long_jobs = a / c - 1;
  else if (a == 0 && fc > 0) b.premium_long_jobs = fl / fc - 1;

  const double k = 1 + q.target_premium;
  const double num = fl - k * fc, den = k * c - a;
  if (den != 0 && !nearly_equal(k * c, a)) {
    const double x = num / den;
    if (x > 0 && std::isfinite(x)) {
      b.job_hours_at_target_premium = x;
      return;
    }
  }
  if (!explain) return;
  auto show = [](const std::optional<double>& p) { return p ? pct(*p) : std::string("an unbounded value"); };
  b.target_premium_reason = fmt::format(
      "the premium goes from {} for very short jobs to {} for very long ones and is never {} for a job of "
      "positive length",
      show(b.premium_short_jobs), show(b.premium_long_jobs), pct(q.target_premium));
}

// Step 3: buy vs rent: after how much work the running-cost savings repay the capital cost.
// Returns whether an hour of work costs less owned than rented (before the price).
bool solve_buy_vs_rent(const CostInputs& in, const LocalCost& local, double c, double monthly, bool explain,
                       BreakEven& b) {
  const std::string& cur = in.currency;
  b.lifetime_effective_hours = v(in, InputId::kAmortizationHours) * local.effective_utilization;
  if (std::isinf(c)) {
    b.buy_vs_rent_reason = "the cloud GPU does no useful work, so renting is no alternative to compare with";
    return false;
  }
  if (std::isinf(local.running_per_effective_hour)) {
    b.buy_vs_rent_reason = "the local GPU does no useful work, so buying never pays for itself";
    return false;
  }
  if (c - local.running_per_effective_hour <= 0 || nearly_equal(c, local.running_per_effective_hour)) {
    if (explain)
      b.buy_vs_rent_reason = fmt::format(
          "the cloud costs {} {}/h per effective hour, no more than the local running cost alone ({} {}/h), so "
          "buying never pays for itself",
          n(c), cur, n(local.running_per_effective_hour), cur);
    return false;
  }
  if (in.price_unknown) {
    b.buy_vs_rent_reason =
        "no purchase price is known (give --local-purchase-price): max_purchase_price states the verdict as a price";
    return true;
  }
  // What renting costs each month whatever the use is saved by owning before any hour is worked:
  // when it alone repays the capital over the months, buying pays at any usage.
  const double months = v(in, InputId::kAmortizationMonths);
  b.buy_vs_rent_hours = std::max(0.0, local.capital_cost - monthly * months) / (c - local.running_per_effective_hour);
  b.buy_vs_rent_hours_per_month = *b.buy_vs_rent_hours / months;
  return true;
}

// Step 4: the same as usage: hours a month over the amortization months against the usage, and
// the purchase price below which buying pays at that usage. An unknown usage compares with nothing.
void solve_usage(const CostInputs& in, const LocalCost& local, double c, double monthly, bool saves, BreakEven& b) {
  b.hours_per_month = in[InputId::kHoursPerMonth].value;
  b.usage_threshold_hours_per_month = b.buy_vs_rent_hours_per_month;
  if (!b.hours_per_month) return;
  const double u = *b.hours_per_month;
  b.buy_pays = b.usage_threshold_hours_per_month && u >= *b.usage_threshold_hours_per_month;
  const double keep = capital_growth(in) - v(in, InputId::kResaleFraction);
  if (saves && keep > 0 && (u > 0 || monthly > 0))
    b.max_purchase_price =
        ((c - local.running_per_effective_hour) * u + monthly) * v(in, InputId::kAmortizationMonths) / keep -
        v(in, InputId::kHostPrice);
  // A host that alone costs more than the savings leaves no GPU price that pays.
  if (b.max_purchase_price && *b.max_purchase_price <= 0) b.max_purchase_price.reset();
  const double saving_per_month = (c - local.running_per_effective_hour) * u + monthly;
  if (b.buy_vs_rent_hours && saving_per_month > 0) b.payback_months = local.capital_cost / saving_per_month;
}

}  // namespace

BreakEven break_even(const CostInputs& in, const LocalCost& local, const CloudCost& cloud, const CostQuery& q,
                     bool explain) {
  BreakEven b;
  const Lines l = lines_of(local, cloud, in.currency, explain);
  solve_crossover(l, explain, b);
  price_query_job(in, cloud, l, q.job_hours, b);
  solve_premium(l, q, explain, b);
  const bool saves = solve_buy_vs_rent(in, local, l.c, cloud.monthly_cost, explain, b);
  solve_usage(in, local, l.c, cloud.monthly_cost, saves, b);
  return b;
}

namespace {

std::optional<double> metric_of(const BreakEven& b, std::string_view metric) {
  if (metric == "break_even.job_hours") return b.job_hours;
  if (metric == "break_even.buy_vs_rent_hours") return b.buy_vs_rent_hours;
  return b.premium_at_job_hours;
}

}  // namespace

Sensitivity sensitivity(const CostInputs& in, const CostQuery& q, double step) {
  Sensitivity s;
  s.step = step;
  const LocalCost l0 = local_cost(in);
  const CloudCost c0 = cloud_cost(in);
  const BreakEven b0 = break_even(in, l0, c0, q);
  if (b0.verdict == Verdict::kCrossover) {
    s.metric = "break_even.job_hours";
    s.unit = "h";
  } else if (b0.buy_vs_rent_hours) {
    s.metric = "break_even.buy_vs_rent_hours";
    s.unit = "h";
  } else {
    s.metric = "break_even.premium_at_job_hours";
    s.unit = "ratio";
  }
  s.base_metric = metric_of(b0, s.metric);

  for (const auto& sp : input_specs()) {
    if (!in[sp.id].value) continue;  // an unknown usage: nothing to vary
    SensitivityRow r;
    r.input = sp.id;
    r.base = in.get(sp.id);
    r.low = r.base * (1 - step);
    r.high = r.base * (1 + step);
    if (sp.id == InputId::kPue && r.low < 1) {
      r.low = 1;
      r.note = fmt::format("-{:g} % is clamped to 1 (no room draws less than its machines)", 100 * step);
    }
    if (sp.domain == Domain::kRatio && r.high > 1) {
      r.high = 1;
      r.note = fmt::format("+{:g} % is clamped to 1", 100 * step);
    }
    if (r.base == 0) r.note = "the input is 0, so -20 % and +20 % leave it at 0";
    bool ok[2] = {true, true};
    std::optional<double> m[2];
    Verdict vd[2] = {b0.verdict, b0.verdict};
    const double xs[2] = {r.low, r.high};
    for (int k = 0; k < 2; ++k) {
      CostInputs var = in;
      var[sp.id].value = xs[k];
      try {
        validate(var, q);
        const BreakEven b = break_even(var, local_cost(var), cloud_cost(var), q);
        m[k] = metric_of(b, s.metric);
        vd[k] = b.verdict;
        (k == 0 ? r.low_usage_threshold : r.high_usage_threshold) = b.usage_threshold_hours_per_month;
        (k == 0 ? r.low_buy_pays : r.high_buy_pays) = b.buy_pays;
      } catch (const std::invalid_argument& e) {
        ok[k] = false;
        r.note += (r.note.empty() ? "" : "; ") + std::string(k == 0 ? "low: " : "high: ") + e.what();
      }
    }
    r.low_metric = m[0];
    r.high_metric = m[1];
    r.low_verdict = vd[0];
    r.high_verdict = vd[1];
    if (r.low_metric && r.high_metric) r.effect = std::fabs(*r.high_metric - *r.low_metric);
    else if (!r.low_metric && !r.high_metric && ok[0] && ok[1] && vd[0] == b0.verdict && vd[1] == b0.verdict)
      r.effect = 0;
    else
      r.effect = kInf;
    s.rows.push_back(std::move(r));
  }
  std::stable_sort(s.rows.begin(), s.rows.end(),
                   [](const SensitivityRow& x, const SensitivityRow& y) { return x.effect > y.effect; });
  return s;
}

namespace {

void add_steps(CostResult& r) {
  const CostInputs& in = r.inputs;
  const std::string cur = in.currency;
  auto x = [&](InputId id) { return fmt::format("{} {}", n(in.get(id)), input_unit(id, cur)); };
  auto step = [&](std::string name, std::string formula, std::string numbers, std::optional<double> value,
                  std::string unit) {
    r.steps.push_back(Step{std::move(name), std::move(formula), std::move(numbers), value, std::move(unit)});
  };
  const LocalCost& l = r.local;
  const CloudCost& c = r.cloud;
  const BreakEven& b = r.break_even;
  const std::string per_h = cur + "/h";
  step("local.capital_cost",
       "(purchase_price + host_price) * (1 + interest_rate)^(amortization_months / 12) - resale_fraction * "
       "(purchase_price + host_price)",
       fmt::format("({} + {}) * (1 + {})^({} / 12) - {} * ({} + {})", x(InputId::kPurchasePrice),
                   x(InputId::kHostPrice), n(in.get(InputId::kInterestRate)), n(in.get(InputId::kAmortizationMonths)),
                   n(in.get(InputId::kResaleFraction)), n(in.get(InputId::kPurchasePrice)),
                   n(in.get(InputId::kHostPrice))),
       l.capital_cost, cur);
  step("local.amortization_per_hour", "capital_cost / amortization_hours",
       fmt::format("{} {} / {}", n(l.capital_cost), cur, x(InputId::kAmortizationHours)), l.amortization_per_hour,
       per_h);
  step("local.wall_power_w", "(power_w + host_power_w) / psu_efficiency * pue",
       fmt::format("({} + {}) / {} * {}", x(InputId::kPowerW), x(InputId::kHostPowerW), x(InputId::kPsuEfficiency),
                   x(InputId::kPue)),
       l.wall_power_w, "W");
  step("local.electricity_per_hour", "wall_power_w / 1000 * electricity_price",
       fmt::format("{} W / 1000 * {}", n(l.wall_power_w), x(InputId::kElectricityPrice)), l.electricity_per_hour,
       per_h);
  step("local.cooling_per_hour", "cooling_w / 1000 * electricity_price",
       fmt::format("{} / 1000 * {}", x(InputId::kCoolingW), x(InputId::kElectricityPrice)), l.cooling_per_hour, per_h);
  step("local.maintenance_per_hour", "incidents_per_hour * hours_per_incident * engineer_rate",
       fmt::format("{} * {} * {}", x(InputId::kIncidentsPerHour), x(InputId::kHoursPerIncident),
                   x(InputId::kEngineerRate)),
       l.maintenance_per_hour, per_h);
  step("local.cost_per_wall_hour", "amortization + electricity + cooling + maintenance",
       fmt::format("{} + {} + {} + {}", n(l.amortization_per_hour), n(l.electricity_per_hour), n(l.cooling_per_hour),
                   n(l.maintenance_per_hour)),
       l.cost_per_wall_hour, per_h);
  step("local.cost_per_effective_hour", "cost_per_wall_hour / effective_utilization",
       fmt::format("{} / {}", n(l.cost_per_wall_hour), n(l.effective_utilization)),
       finite_or_null(l.cost_per_effective_hour), per_h);
  step("local.running_per_effective_hour", "(electricity + cooling + maintenance) / effective_utilization",
       fmt::format("{} / {}", n(l.running_per_wall_hour), n(l.effective_utilization)),
       finite_or_null(l.running_per_effective_hour), per_h);
  step("cloud.cost_per_effective_hour",
       "hourly_rate / (utilization * (1 - job_stall_fraction) * (1 - interruption_loss) * relative_speed)",
       fmt::format("{} / ({} * (1 - {}) * (1 - {}) * {})", x(InputId::kHourlyRate), n(in.get(InputId::kUtilization)),
                   n(in.get(InputId::kJobStallFraction)), n(in.get(InputId::kInterruptionLoss)),
                   n(in.get(InputId::kRelativeSpeed))),
       finite_or_null(c.cost_per_effective_hour), per_h);
  step("cloud.cold_start_cost", "hourly_rate * cold_start_s / 3600",
       fmt::format("{} * {} / 3600", x(InputId::kHourlyRate), x(InputId::kColdStartS)), c.cold_start_cost, cur);
  step("cloud.storage_cost_per_job", "storage_price_gb_month * storage_gb_months",
       fmt::format("{} * {}", x(InputId::kStoragePriceGbMonth), x(InputId::kStorageGbMonths)),
       c.storage_cost_per_job, cur);
  step("cloud.egress_cost_per_job", "egress_price_gb * egress_gb",
       fmt::format("{} * {}", x(InputId::kEgressPriceGb), x(InputId::kEgressGb)), c.egress_cost_per_job, cur);
  step("cloud.data_cost_per_job", "storage_cost_per_job + egress_cost_per_job",
       fmt::format("{} + {}", n(c.storage_cost_per_job), n(c.egress_cost_per_job)), c.data_cost_per_job, cur);
  step("cloud.fixed_per_job", "cold_start_cost + hourly_rate * billing_increment_s / 2 / 3600 + data_cost_per_job",
       fmt::format("{} + {} * {} / 2 / 3600 + {}", n(c.cold_start_cost), x(InputId::kHourlyRate),
                   x(InputId::kBillingIncrementS), n(c.data_cost_per_job)),
       c.fixed_per_job, cur);
  step("cloud.monthly_cost", "storage_price_gb_month * storage_gb + reserved_per_month",
       fmt::format("{} * {} + {}", x(InputId::kStoragePriceGbMonth), x(InputId::kStorageGb),
                   x(InputId::kReservedPerMonth)),
       c.monthly_cost, cur + "/month");
  if (b.job_hours)
    step("break_even.job_hours", "|fixed_cost_per_job - cloud_fixed_per_job| / |local_per_eff_h - cloud_per_eff_h|",
         fmt::format("|{} - {}| / |{} - {}|", n(l.fixed_per_job), n(c.fixed_per_job), n(l.cost_per_effective_hour),
                     n(c.cost_per_effective_hour)),
         b.job_hours, "h");
  else
    step("break_even.job_hours", "none: " + std::string(verdict_name(b.verdict)), b.explanation, std::nullopt, "h");
  step("break_even.local_job_cost", "fixed_cost_per_job + local_per_eff_h * job_hours",
       fmt::format("{} + {} * {}", n(l.fixed_per_job), n(l.cost_per_effective_hour), n(b.query_job_hours)),
       finite_or_null(b.local_job_cost), cur);
  step("break_even.cloud_job_cost", "cloud_fixed_per_job + cloud_per_eff_h * job_hours",
       fmt::format("{} + {} * {}", n(c.fixed_per_job), n(c.cost_per_effective_hour), n(b.query_job_hours)),
       finite_or_null(b.cloud_job_cost), cur);
  step("break_even.cloud_job_cost_billed",
       "hourly_rate * billed_hours(cold_start_hours + job_hours * cloud_per_eff_h / hourly_rate, "
       "billing_increment_s, minimum_billing_s) + data_cost_per_job",
       fmt::format("{} * billed_hours({} + {} * {} / {}, {}, {}) + {}", x(InputId::kHourlyRate), n(c.cold_start_hours),
                   n(b.query_job_hours), n(c.cost_per_effective_hour), n(in.get(InputId::kHourlyRate)),
                   x(InputId::kBillingIncrementS), x(InputId::kMinimumBillingS), n(c.data_cost_per_job)),
       finite_or_null(b.cloud_job_cost_billed), cur);
  step("break_even.premium_at_job_hours", "local_job_cost / cloud_job_cost - 1",
       b.premium_at_job_hours ? fmt::format("{} / {} - 1", n(b.local_job_cost), n(b.cloud_job_cost))
                              : b.premium_reason,
       b.premium_at_job_hours, "ratio");
  const double k = 1 + b.target_premium;
  step("break_even.job_hours_at_target_premium",
       "(fixed_cost_per_job - k * cloud_fixed_per_job) / (k * cloud_per_eff_h - local_per_eff_h), k = 1 + target",
       b.job_hours_at_target_premium
           ? fmt::format("({} - {} * {}) / ({} * {} - {})", n(l.fixed_per_job), n(k), n(c.fixed_per_job), n(k),
                         n(c.cost_per_effective_hour), n(l.cost_per_effective_hour))
           : b.target_premium_reason,
       b.job_hours_at_target_premium, "h");
  step("break_even.buy_vs_rent_hours",
       "max(0, capital_cost - cloud_monthly_cost * amortization_months) / (cloud_per_eff_h - local_running_per_eff_h)",
       b.buy_vs_rent_hours
           ? fmt::format("max(0, {} {} - {} * {}) / ({} - {})", n(l.capital_cost), cur, n(c.monthly_cost),
                         x(InputId::kAmortizationMonths), n(c.cost_per_effective_hour), n(l.running_per_effective_hour))
           : b.buy_vs_rent_reason,
       b.buy_vs_rent_hours, "h");
  step("break_even.buy_vs_rent_hours_per_month", "buy_vs_rent_hours / amortization_months",
       b.buy_vs_rent_hours ? fmt::format("{} / {}", n(*b.buy_vs_rent_hours), x(InputId::kAmortizationMonths))
                           : b.buy_vs_rent_reason,
       b.buy_vs_rent_hours_per_month, "h/month");
  step("break_even.lifetime_effective_hours", "amortization_hours * effective_utilization",
       fmt::format("{} * {}", x(InputId::kAmortizationHours), n(l.effective_utilization)), b.lifetime_effective_hours,
       "h");
  step("break_even.usage_threshold_hours_per_month", "buy_vs_rent_hours / amortization_months",
       b.usage_threshold_hours_per_month
           ? fmt::format("{} / {}", n(b.buy_vs_rent_hours.value_or(0)), x(InputId::kAmortizationMonths))
           : b.buy_vs_rent_reason,
       b.usage_threshold_hours_per_month, "h/month");
  step("break_even.max_purchase_price",
       "((cloud_per_eff_h - local_running_per_eff_h) * hours_per_month + cloud_monthly_cost) * amortization_months / "
       "((1 + interest_rate)^(amortization_months / 12) - resale_fraction) - host_price",
       b.max_purchase_price
           ? fmt::format("(({} - {}) * {} + {}) * {} / ((1 + {})^({} / 12) - {}) - {}", n(c.cost_per_effective_hour),
                         n(l.running_per_effective_hour), x(InputId::kHoursPerMonth), n(c.monthly_cost),
                         n(in.get(InputId::kAmortizationMonths)), n(in.get(InputId::kInterestRate)),
                         n(in.get(InputId::kAmortizationMonths)), n(in.get(InputId::kResaleFraction)),
                         x(InputId::kHostPrice))
       : b.hours_per_month ? "none: no purchase price pays at this usage"
                           : "none: the usage is unknown",
       b.max_purchase_price, cur);
  step("break_even.payback_months",
       "capital_cost / ((cloud_per_eff_h - local_running_per_eff_h) * hours_per_month + cloud_monthly_cost)",
       b.payback_months
           ? fmt::format("{} {} / (({} - {}) * {} + {})", n(l.capital_cost), cur, n(c.cost_per_effective_hour),
                         n(l.running_per_effective_hour), x(InputId::kHoursPerMonth), n(c.monthly_cost))
       : !b.hours_per_month           ? "none: the usage is unknown"
       : b.buy_vs_rent_reason.empty() ? "none: the savings never repay the capital"
                                      : "none: " + b.buy_vs_rent_reason,
       b.payback_months, "month");
}

// Where the usage compared with the threshold comes from, in words.
std::string usage_source(const CostInputs& in) {
  const InputValue& u = in[InputId::kHoursPerMonth];
  if (in.usage.basis == UsageBasis::kMeasured)
    return fmt::format("measured over {} days of GPU samples", in.usage.span_days ? sig3(*in.usage.span_days) : "?");
  if (u.origin == "cli" || u.origin == "config") return "as you gave it";
  if (u.origin.rfind("preset:", 0) == 0) return "as the preset " + u.origin.substr(7) + " assumes";
  return "as " + u.origin + " assumes";
}

// Four significant digits are enough for sentences; the steps and the JSON carry the rest.
std::string n4(double v) { return fmt::format("{:.4g}", v); }

std::string verdict_sentences(const CostResult& r) {
  const BreakEven& b = r.break_even;
  const std::string cur = r.inputs.currency;
  std::string s;
  if (r.inputs.price_unknown)
    return "No job-length comparison: the purchase price is unknown, so the local cost of a job is unknown too "
           "(give --local-purchase-price).";
  switch (b.verdict) {
    case Verdict::kLocalAlwaysCheaper: s = "Local is cheaper for every job length"; break;
    case Verdict::kCloudAlwaysCheaper: s = "Cloud is cheaper for every job length"; break;
    case Verdict::kEqualCost: s = "Local and cloud cost the same for every job length"; break;
    case Verdict::kCrossover:
      s = fmt::format("Jobs shorter than {} ({} h) of local-equivalent work are cheaper {}, longer ones {}",
                      human_duration(*b.job_hours), n4(*b.job_hours),
                      *b.cheaper_below == Side::kCloud ? "in the cloud" : "locally",
                      *b.cheaper_below == Side::kCloud ? "locally" : "in the cloud");
      break;
  }
  s += fmt::format(" ({} {}/h per effective hour locally, {} {}/h in the cloud; {} {} vs {} {} fixed per job).",
                   n4(r.local.cost_per_effective_hour), cur, n4(r.cloud.cost_per_effective_hour), cur,
                   n4(r.local.fixed_per_job), cur, n4(r.cloud.fixed_per_job), cur);
  if (b.premium_at_job_hours)
    s += fmt::format(" A {} job costs {} {} locally and {} {} in the cloud: local premium {}.",
                     human_duration(b.query_job_hours),
                     n4(b.local_job_cost), cur, n4(b.cloud_job_cost), cur, pct(*b.premium_at_job_hours));
  if (b.job_hours_at_target_premium)
    s += fmt::format(" The local premium is {} at {}.", pct(b.target_premium),
                     human_duration(*b.job_hours_at_target_premium));
  else
    s += fmt::format(" A local premium of {} is never reached: {}.", pct(b.target_premium), b.target_premium_reason);
  s += fmt::format(" (The purchase is spread over {} h of use: {}.)",
                   n4(r.inputs.get(InputId::kAmortizationHours)), r.inputs[InputId::kAmortizationHours].note);
  return s;
}

}  // namespace

SpeedCase speed_case(const CostInputs& in, const CostQuery& q, double relative_speed) {
  CostInputs var = in;
  var[InputId::kRelativeSpeed].value = relative_speed;
  const BreakEven b = break_even(var, local_cost(var), cloud_cost(var), q);
  return SpeedCase{relative_speed, b.verdict, b.job_hours, b.cheaper_below, b.usage_threshold_hours_per_month,
                   b.buy_pays};
}

std::string_view own_decision_name(OwnDecision d) noexcept { return d == OwnDecision::kKeep ? "keep" : "rent"; }

std::string_view buy_decision_name(BuyDecision d) noexcept {
  switch (d) {
    case BuyDecision::kBuy: return "buy";
    case BuyDecision::kRent: return "rent";
    case BuyDecision::kNever: return "never";
    case BuyDecision::kDependsOnUsage: return "depends_on_usage";
    case BuyDecision::kDependsOnPrice: return "depends_on_price";
  }
  return "?";
}

namespace {
std::string local_name(const CostInputs& in) { return in.local_label.empty() ? "the local GPU" : in.local_label; }
std::string cloud_name(const CostInputs& in) { return in.cloud_label.empty() ? "the cloud GPU" : in.cloud_label; }
std::string money(double v, const std::string& cur) { return sig3(v) + " " + cur; }
}  // namespace

MonthlyCost monthly_cost(const CostResult& r, double hours) {
  MonthlyCost m;
  m.hours = hours;
  m.own = r.local.capital_cost / r.inputs.get(InputId::kAmortizationMonths) + r.local.running_per_effective_hour * hours;
  m.rent = r.cloud.cost_per_effective_hour * hours + r.cloud.monthly_cost;
  return m;
}

OwnVerdict own_verdict(const CostResult& r) {
  OwnVerdict o;
  const CostInputs& in = r.inputs;
  const std::string& cur = in.currency;
  o.running_per_effective_hour = r.local.running_per_effective_hour;
  o.cloud_per_effective_hour = r.cloud.cost_per_effective_hour;
  const double run = o.running_per_effective_hour, c = o.cloud_per_effective_hour;
  o.decision = run <= c ? OwnDecision::kKeep : OwnDecision::kRent;
  if (const auto& u = r.break_even.hours_per_month; u && std::isfinite(run) && std::isfinite(c))
    o.saving_per_month = (c - run) * *u + r.cloud.monthly_cost;
  const double resale = in.get(InputId::kResaleFraction),
               price = in.get(InputId::kPurchasePrice) + in.get(InputId::kHostPrice);
  if (!in.price_unknown && resale > 0 && price > 0) o.resale_value = resale * price;
  std::string saving, sell;
  if (o.saving_per_month)
    saving = fmt::format("; at {} a month that {} {} a month", human_duration(*r.break_even.hours_per_month),
                         *o.saving_per_month >= 0 ? "saves" : "costs", money(std::fabs(*o.saving_per_month), cur));
  if (o.resale_value)
    sell = fmt::format("; selling it would recover about {} ({} % of its price)", money(*o.resale_value, cur),
                       sig3(100 * resale));
  else
    sell = "; its resale value is not counted (give --local-resale-fraction to weigh selling it)";
  if (!std::isfinite(run)) {
    o.summary = fmt::format("If you own {}: rent instead: it did no useful work in these logs (effective "
                            "utilization 0), so running it cannot be cheaper than renting {}{}.",
                            local_name(in), cloud_name(in), sell);
  } else if (!std::isfinite(c)) {
    o.summary = fmt::format("If you own {}: keep it: the cloud side does no useful work (utilization 0).",
                            local_name(in));
  } else {
    o.summary = fmt::format(
        "If you own {}: {}: running it costs {} per effective hour (energy, cooling, incidents; the purchase is "
        "spent either way) against {} to rent the same work on {}{}{}.",
        local_name(in), o.decision == OwnDecision::kKeep ? "keep it" : "rent instead", money(run, cur),
        money(c, cur), cloud_name(in), saving, sell);
  }
  return o;
}

namespace {
// What would change the buyer's answer: the usage threshold, the speed bracket, and the first input
// of the tornado table that moves whether buying pays.
std::string what_flips(const CostResult& r) {
  const BreakEven& b = r.break_even;
  std::vector<std::string> parts;
  if (b.usage_threshold_hours_per_month && *b.usage_threshold_hours_per_month <= kMeanMonthHours)
    parts.push_back(fmt::format("usage: buying pays from {} a month per GPU",
                                human_duration(*b.usage_threshold_hours_per_month)));
  if (r.flips_within_speed_bracket && r.at_compute_bound && r.at_bandwidth_bound)
    parts.push_back(fmt::format("the speed ratio: at the compute-bound {} buying {}, at the bandwidth-bound {} it {} "
                                "(time your own job on both GPUs: --local-throughput, --cloud-throughput)",
                                sig3(r.at_compute_bound->relative_speed),
                                r.at_compute_bound->buy_pays ? "pays" : "does not pay",
                                sig3(r.at_bandwidth_bound->relative_speed),
                                r.at_bandwidth_bound->buy_pays ? "pays" : "does not"));
  if (b.hours_per_month)
    for (const auto& row : r.sensitivity.rows)
      if (row.low_buy_pays != b.buy_pays || row.high_buy_pays != b.buy_pays) {
        parts.push_back(fmt::format("{} at {} or {} {}", input_name(row.input), sig3(row.low), sig3(row.high),
                                    input_unit(row.input, r.inputs.currency)));
        break;
      }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}
}  // namespace

BuyVerdict buy_verdict(const CostResult& r) {
  BuyVerdict v;
  const CostInputs& in = r.inputs;
  const BreakEven& b = r.break_even;
  const std::string& cur = in.currency;
  v.threshold_hours_per_month = b.usage_threshold_hours_per_month;
  if (b.usage_threshold_hours_per_month)
    v.machine_threshold_hours_per_month = *b.usage_threshold_hours_per_month * static_cast<double>(in.gpu_count);
  v.hours_per_month = b.hours_per_month;
  v.payback_months = b.payback_months;
  v.max_purchase_price = b.max_purchase_price;
  v.flips = what_flips(r);
  const double months = in.get(InputId::kAmortizationMonths);
  const std::string pair = fmt::format("Buying {} instead of renting {}", local_name(in), cloud_name(in));
  const bool saves = std::isfinite(r.cloud.cost_per_effective_hour) && std::isfinite(r.local.running_per_effective_hour) &&
                     r.cloud.cost_per_effective_hour > r.local.running_per_effective_hour;
  if (!saves) {
    v.decision = BuyDecision::kNever;
    v.summary = fmt::format("{}: never: {}.", pair, b.buy_vs_rent_reason);
  } else if (in.price_unknown) {
    v.decision = BuyDecision::kDependsOnPrice;
    const double keep = std::pow(1 + in.get(InputId::kInterestRate), months / 12) - in.get(InputId::kResaleFraction);
    const double per_100h = keep > 0 ? (r.cloud.cost_per_effective_hour - r.local.running_per_effective_hour) * 100 *
                                           months / keep
                                     : 0;
    v.summary = b.max_purchase_price
                    ? fmt::format("{}: depends on the price, which is unknown: at {} a month ({}) it pays if it cost "
                                  "less than {} (give --local-purchase-price).",
                                  pair, human_duration(*b.hours_per_month), usage_source(in),
                                  money(*b.max_purchase_price, cur))
                    : fmt::format("{}: depends on the price and the usage, both unknown: it pays if it cost less than "
                                  "{} for every 100 h a month of use over {} months (give --local-purchase-price "
                                  "and --hours-per-month).",
                                  pair, money(per_100h, cur), format_number(months));
  } else if (b.usage_threshold_hours_per_month && *b.usage_threshold_hours_per_month > kMeanMonthHours) {
    // A threshold no month can reach: the GPU busy around the clock still does not pay for itself.
    v.decision = BuyDecision::kNever;
    v.summary = fmt::format(
        "{}: never: it would pay only from {} of busy time a month per GPU over {} months, more than a month's {} h "
        "around the clock.",
        pair, human_duration(*b.usage_threshold_hours_per_month), format_number(months),
        format_number(kMeanMonthHours));
  } else if (!b.hours_per_month) {
    v.decision = BuyDecision::kDependsOnUsage;
    v.summary = fmt::format(
        "{}: depends on usage: it pays from {} of busy time a month per GPU over {} months{}; how much you use it "
        "a month is unknown.",
        pair, human_duration(*b.usage_threshold_hours_per_month), format_number(months),
        in.gpu_count > 1 ? fmt::format(" ({} GPU-hours a month for the {} GPUs)",
                                       sig3(*v.machine_threshold_hours_per_month), in.gpu_count)
                         : std::string());
  } else {
    v.decision = b.buy_pays ? BuyDecision::kBuy : BuyDecision::kRent;
    v.summary = fmt::format(
        "{}: {}: you use it {} a month per GPU ({}), {} the {} a month from which buying pays over {} months{}.",
        pair, b.buy_pays ? "buy" : "rent", human_duration(*b.hours_per_month), usage_source(in),
        b.buy_pays ? "at or above" : "below", human_duration(*b.usage_threshold_hours_per_month), format_number(months),
        b.payback_months ? fmt::format("; it pays for itself in {} months", sig3(*b.payback_months)) : std::string());
    if (r.flips_within_speed_bracket) {
      v.summary.pop_back();
      v.summary += ", but the answer flips within the speed bracket: time your own job on both GPUs.";
    }
  }
  const Uncertainty& u = r.uncertainty;
  const bool usage_drawn = in.ranges[static_cast<std::size_t>(InputId::kHoursPerMonth)].has_value();
  if (u.draws == 0) {
    v.probability_reason = "no Monte Carlo draws (--draws 0)";
  } else if (!b.hours_per_month && !usage_drawn) {
    v.probability_reason = "the usage is unknown, so no draw can say whether buying is cheaper";
  } else if (v.decision == BuyDecision::kDependsOnPrice) {
    v.probability_reason = "no purchase price is known";
  } else {
    v.probability = u.probability_buy_cheaper;
  }
  if (v.probability && (v.decision == BuyDecision::kBuy || v.decision == BuyDecision::kRent)) {
    v.summary.pop_back();
    v.summary += fmt::format(" (buying is cheaper in {} % of the uncertainty draws).", sig3(100 * *v.probability));
  }
  return v;
}

CostResult evaluate(const CostInputs& in, const CostQuery& q) {
  validate(in, q);
  CostResult r;
  r.inputs = in;
  r.query = q;
  r.local = local_cost(in);
  r.cloud = cloud_cost(in);
  r.break_even = break_even(in, r.local, r.cloud, q);
  r.sensitivity = sensitivity(in, q);
  add_steps(r);
  if (in.speed.compute_bound) r.at_compute_bound = speed_case(in, q, *in.speed.compute_bound);
  if (in.speed.bandwidth_bound) r.at_bandwidth_bound = speed_case(in, q, *in.speed.bandwidth_bound);
  if (r.at_compute_bound && r.at_bandwidth_bound)
    r.flips_within_speed_bracket = r.at_compute_bound->verdict != r.at_bandwidth_bound->verdict ||
                                   r.at_compute_bound->buy_pays != r.at_bandwidth_bound->buy_pays;
  r.uncertainty = monte_carlo(in, q);
  r.verdict_text = verdict_sentences(r);
  r.own = own_verdict(r);
  r.buy = buy_verdict(r);
  r.summary = r.own.summary + " " + r.buy.summary;
  return r;
}

}  // namespace gpucost::cost
