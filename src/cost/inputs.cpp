#include "gpucost/cost/inputs.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "gpucost/text/number.hpp"

namespace gpucost::cost {

namespace {
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

// The defaults that are not currency amounts come from the seed article where it states a
// figure (docs/cost-model.md lists them); money defaults come per currency from the presets.
constexpr InputSpec kSpecs[kInputCount] = {
    {InputId::kPurchasePrice, Side::kLocal, "purchase_price", "{cur}", Domain::kNonNegative, true, kNone, "",
     "Purchase price of the local GPU (or of the share of the machine it stands for)"},
    {InputId::kAmortizationHours, Side::kLocal, "amortization_hours", "h", Domain::kPositive, false, 5760,
     "24 months x 30 days x 8 h of use, the article's assumption",
     "Hours of use over which the purchase price is spread"},
    {InputId::kAmortizationMonths, Side::kLocal, "amortization_months", "month", Domain::kPositive, false, 24,
     "the article's 24 months", "Months that the amortization hours span (for the per-month figure)"},
    {InputId::kPowerW, Side::kLocal, "power_w", "W", Domain::kNonNegative, false, kNone, "",
     "Mean power draw of the GPU while in use (idle included)"},
    {InputId::kCoolingW, Side::kLocal, "cooling_w", "W", Domain::kNonNegative, false, 0,
     "no extra cooling counted (the article's laptop needed 22 W of fans)",
     "Extra cooling power while the GPU is in use (fans, air conditioning share)"},
    {InputId::kElectricityPrice, Side::kLocal, "electricity_price", "{cur}/kWh", Domain::kNonNegative, true, kNone, "",
     "Price of electricity"},
    {InputId::kIncidentsPerHour, Side::kLocal, "incidents_per_hour", "1/h", Domain::kNonNegative, false, 12.0 / 5760.0,
     "the article's 12 incidents a year spread over 5760 h of use",
     "Maintenance incidents (driver/firmware errors, hangs, resets) per hour of use"},
    {InputId::kHoursPerIncident, Side::kLocal, "hours_per_incident", "h", Domain::kNonNegative, false, 47.0 / 60.0,
     "the article's 47 min per incident", "Engineer hours lost per incident"},
    {InputId::kEngineerRate, Side::kLocal, "engineer_rate", "{cur}/h", Domain::kNonNegative, true, kNone, "",
     "Value of one engineer hour"},
    {InputId::kEffectiveUtilization, Side::kLocal, "effective_utilization", "ratio", Domain::kRatio, false,
     1 - 0.193 - 0.023 - 0.0174,
     "the article's 1 - 0.193 (idle) - 0.023 (launch queue) - 0.0174 (AC switches); measure yours with analyze",
     "Share of wall time the local GPU does useful work: 1 - idle - launch queue - power events"},
    {InputId::kFixedCostPerJob, Side::kLocal, "fixed_cost_per_job", "{cur}", Domain::kNonNegative, true, 0,
     "no per-job cost (amortization already counts the price)",
     "Fixed cost of each local job (e.g. wear per power cycle)"},
    {InputId::kHourlyRate, Side::kCloud, "hourly_rate", "{cur}/h", Domain::kNonNegative, true, kNone, "",
     "Price of the cloud instance per billed hour"},
    {InputId::kColdStartS, Side::kCloud, "cold_start_s", "s", Domain::kNonNegative, false, 117,
     "the article's 117 s for an A10 instance", "Billed seconds before a cloud job starts working"},
    {InputId::kUtilization, Side::kCloud, "utilization", "ratio", Domain::kRatio, false, 0.92,
     "the article's 92 % for an A10 instance", "Share of billed cloud time the GPU does useful work"},
    {InputId::kRelativeSpeed, Side::kCloud, "relative_speed", "ratio", Domain::kPositive, false, 1,
     "equal speed assumed (no throughput figures for the two GPUs)",
     "Cloud GPU throughput / local GPU throughput on the same job", "--relative-speed"},
    {InputId::kResaleFraction, Side::kLocal, "resale_fraction", "ratio", Domain::kRatio, false, 0,
     "no resale value counted (the whole price is spent); used GPUs often resell for a sizeable share",
     "Share of the purchase price recovered by selling the GPU (or machine) after the amortization months",
     "--resale-fraction"},
    {InputId::kInterestRate, Side::kLocal, "interest_rate", "1/year", Domain::kNonNegative, false, 0,
     "no cost of capital counted", "Yearly cost of capital on the purchase price (0.05 = 5 % a year)",
     "--interest-rate"},
    {InputId::kHoursPerMonth, Side::kLocal, "hours_per_month", "h/month", Domain::kNonNegative, false, kNone, "",
     "Usage: local-equivalent busy GPU-hours a month (measured from the logs by analyze)", "--hours-per-month"},
    {InputId::kJobStallFraction, Side::kCloud, "job_stall_fraction", "ratio", Domain::kRatio, false, 0,
     "no stalls of the job itself counted on the cloud side (analyze measures them from the GPU samples: idle while "
     "the job's process holds its memory, and the launch-queue share of a profiler trace)",
     "Share of the job's time lost to its own stalls (input pipeline, kernel-launch queue): they move to the "
     "cloud with the job",
     "--job-stall-fraction"},
    {InputId::kInterruptionLoss, Side::kCloud, "interruption_loss", "ratio", Domain::kRatio, false, 0,
     "no interruptions (on-demand or committed pricing)",
     "Share of billed time lost to spot interruptions: interruptions per hour x (half a checkpoint interval + a "
     "restart); set by --pricing spot"},
    {InputId::kBillingIncrementS, Side::kCloud, "billing_increment_s", "s", Domain::kNonNegative, false, 0,
     "billing counted as continuous (the offer's catalog row gives its granularity)",
     "Billing granularity: a job is billed in whole increments (1 s, 60 s, 3600 s), half an increment more on "
     "average"},
    {InputId::kStoragePriceGbMonth, Side::kCloud, "storage_price_gb_month", "{cur}/GB-month", Domain::kNonNegative,
     true, 0, "no storage counted (give the provider's price per GB-month)",
     "Price of keeping one GB of the job's data (dataset, checkpoints) in the cloud for a month", "--storage-price"},
    {InputId::kMinimumBillingS, Side::kCloud, "minimum_billing_s", "s", Domain::kNonNegative, false, 0,
     "no minimum (the offer's catalog row gives its minimum)",
     "The shortest time an instance is billed for (60 s on AWS, 1 min on GCP)"},
    {InputId::kStorageGbMonths, Side::kCloud, "storage_gb_months", "GB-month", Domain::kNonNegative, false, 0,
     "no storage counted", "Storage one job keeps: GB kept x months kept (200 GB for a week: 200 x 7 / 30.4375 = 46)",
     "--storage-gb-months"},
    {InputId::kEgressPriceGb, Side::kCloud, "egress_price_gb", "{cur}/GB", Domain::kNonNegative, true, 0,
     "no egress counted (give the provider's price per GB sent out)",
     "Price of one GB sent out of the cloud (results, checkpoints downloaded)", "--egress-price"},
    {InputId::kEgressGb, Side::kCloud, "egress_gb", "GB", Domain::kNonNegative, false, 0, "no egress counted",
     "GB one job sends out of the cloud", "--egress-gb"},
    {InputId::kHostPrice, Side::kLocal, "host_price", "{cur}", Domain::kNonNegative, true, 0,
     "no host counted (the machine class's default applies when the class is known)",
     "Price of the rest of the machine (CPU, board, RAM, PSU, chassis), per GPU it holds", "--host-price"},
    {InputId::kHostPowerW, Side::kLocal, "host_power_w", "W", Domain::kNonNegative, false, 0,
     "no host power counted (the machine class's default applies when the class is known)",
     "Mean draw of the rest of the machine (CPU, RAM, drives, fans) per GPU while in use", "--host-power-w"},
    {InputId::kPsuEfficiency, Side::kLocal, "psu_efficiency", "ratio", Domain::kRatio, false, 1,
     "no power-supply loss counted (the machine class's default applies when the class is known)",
     "Power supply efficiency: DC power delivered / AC power drawn at the wall", "--psu-efficiency"},
    {InputId::kPue, Side::kLocal, "pue", "ratio", Domain::kPositive, false, 1,
     "no facility overhead (home or office: 1.0)",
     "Power usage effectiveness of the room: facility power / IT power (cooling, UPS); 1.0 at home", "--pue"},
    {InputId::kStorageGb, Side::kCloud, "storage_gb", "GB", Domain::kNonNegative, false, 0,
     "no storage kept from month to month counted",
     "GB kept in cloud storage all month (datasets, checkpoints) whether or not a job runs, at "
     "storage_price_gb_month: renting pays it every month, owning does not",
     "--storage-gb"},
    {InputId::kReservedPerMonth, Side::kCloud, "reserved_per_month", "{cur}/month", Domain::kNonNegative, true, 0,
     "no monthly fee counted (on-demand pricing)",
     "Paid to the cloud each month whatever the use: reserved capacity, a subscription, a static IP; renting pays "
     "it every month, owning does not",
     "--reserved-per-month"},
};

std::string origin_text(const InputValue& v) { return v.origin.empty() ? std::string("unset") : v.origin; }
}  // namespace

std::string_view side_name(Side s) noexcept { return s == Side::kLocal ? "local" : "cloud"; }

std::string_view input_basis(const InputValue& v) noexcept {
  if (v.origin.rfind("measured", 0) == 0) return "measured";
  if (v.origin == "cli" || v.origin == "config") return "given";
  return "assumed";
}

std::string_view usage_basis_name(UsageBasis b) noexcept {
  switch (b) {
    case UsageBasis::kMeasured: return "measured";
    case UsageBasis::kGiven: return "given";
    case UsageBasis::kUnknown: return "unknown";
  }
  return "?";
}

std::span<const InputSpec> input_specs() noexcept { return kSpecs; }

const InputSpec& spec(InputId id) noexcept { return kSpecs[static_cast<std::size_t>(id)]; }

std::string input_name(InputId id) {
  const auto& s = spec(id);
  return fmt::format("{}.{}", side_name(s.side), s.key);
}

std::string input_flag(InputId id) {
  std::string f = "--" + input_name(id);
  for (char& c : f)
    if (c == '.' || c == '_') c = '-';
  return f;
}

std::string input_unit(InputId id, std::string_view currency) {
  std::string u(spec(id).unit);
  if (auto p = u.find("{cur}"); p != std::string::npos) u.replace(p, 5, currency);
  return u;
}

std::optional<InputId> find_input(Side side, std::string_view key) noexcept {
  for (const auto& s : kSpecs)
    if (s.side == side && s.key == key) return s.id;
  return std::nullopt;
}

void CostInputs::missing(InputId id) const {
  const auto& v = (*this)[id];
  throw std::invalid_argument(fmt::format("no value for {}{}: give {} (or \"{}\" in --config, or pick a preset)",
                                          input_name(id), v.note.empty() ? "" : " (" + v.origin + ": " + v.note + ")",
                                          input_flag(id), spec(id).key));
}

void CostInputs::set(InputId id, double v, std::string origin, std::string note) {
  auto& iv = (*this)[id];
  iv.value = v;
  iv.origin = std::move(origin);
  iv.note = std::move(note);
  iv.currency.clear();
}

void validate(const CostInputs& in, const CostQuery& q) {
  if (in.currency.empty()) throw std::invalid_argument("the currency code is empty");
  for (const auto& s : kSpecs) {
    const auto& v = in[s.id];
    // Usage may be unknown: the answer is then the threshold (docs/cost-model.md, "Usage").
    if (s.id == InputId::kHoursPerMonth && !v.value) continue;
    const double x = in.get(s.id);
    const std::string unit = input_unit(s.id, in.currency);
    auto bad = [&](std::string_view why) {
      return std::invalid_argument(fmt::format("{} = {} {} ({}) is impossible: {}", input_name(s.id),
                                               format_number(x), unit, origin_text(v), why));
    };
    if (!std::isfinite(x)) throw bad("not a finite number");
    switch (s.domain) {
      case Domain::kNonNegative:
        if (x < 0) throw bad("it must not be negative");
        break;
      case Domain::kPositive:
        if (x <= 0) throw bad("it must be greater than 0");
        break;
      case Domain::kRatio:
        if (x < 0 || x > 1) throw bad("it is a share and must lie between 0 and 1");
        break;
    }
    if (s.money && !v.currency.empty() && v.currency != in.currency)
      throw std::invalid_argument(fmt::format(
          "{} = {} comes from {} in {}, but the report currency is {}; gpucost converts currencies only with "
          "an explicit, dated rate: give {} in {}, pick presets in one currency, or give --fx FILE",
          input_name(s.id), format_number(x), origin_text(v), v.currency, in.currency, input_flag(s.id), in.currency));
  }
  if (in.get(InputId::kPsuEfficiency) <= 0)
    throw std::invalid_argument(
        fmt::format("local.psu_efficiency = 0 ({}) is impossible: no power would reach the "
                    "machine",
                    origin_text(in[InputId::kPsuEfficiency])));
  if (in.get(InputId::kPue) < 1)
    throw std::invalid_argument(
        fmt::format("local.pue = {} ({}) is impossible: a room cannot draw less than its machines (PUE >= 1)",
                    format_number(in.get(InputId::kPue)), origin_text(in[InputId::kPue])));
  if (const auto& h = in[InputId::kHoursPerMonth]; h.value && *h.value > kMaxHoursPerMonth)
    throw std::invalid_argument(fmt::format(
        "local.hours_per_month = {} h/month ({}) is impossible: a month has at most {} hours (31 days); give the "
        "busy GPU-hours of one GPU in a month",
        format_number(*h.value), origin_text(h), format_number(kMaxHoursPerMonth)));
  if (in.get(InputId::kInterruptionLoss) >= 1)
    throw std::invalid_argument(fmt::format(
        "cloud.interruption_loss = {} ({}) is impossible: interruptions would leave no time for work",
        format_number(in.get(InputId::kInterruptionLoss)), origin_text(in[InputId::kInterruptionLoss])));
  if (in.get(InputId::kJobStallFraction) >= 1)
    throw std::invalid_argument(fmt::format(
        "cloud.job_stall_fraction = {} ({}) is impossible: a job that only stalls does no work anywhere",
        format_number(in.get(InputId::kJobStallFraction)), origin_text(in[InputId::kJobStallFraction])));
  if (in.get(InputId::kEffectiveUtilization) == 0 && in.get(InputId::kUtilization) == 0)
    throw std::invalid_argument(
        "local.effective_utilization and cloud.utilization are both 0: neither GPU does any work, so no job "
        "can be priced");
  if (!std::isfinite(q.job_hours) || q.job_hours <= 0)
    throw std::invalid_argument(fmt::format("--job-hours = {} h ({}) is impossible: it must be greater than 0",
                                            format_number(q.job_hours), q.job_hours_origin));
  if (!std::isfinite(q.target_premium) || q.target_premium <= -1)
    throw std::invalid_argument(fmt::format(
        "--target-premium = {} ({}) is impossible: a premium (local / cloud - 1) is greater than -1",
        format_number(q.target_premium), q.target_premium_origin));
}

}  // namespace gpucost::cost
