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
    {InputId::purchase_price, Side::local, "purchase_price", "{cur}", Domain::non_negative, true, kNone, "",
     "Purchase price of the local GPU (or of the share of the machine it stands for)"},
    {InputId::amortization_hours, Side::local, "amortization_hours", "h", Domain::positive, false, 5760,
     "24 months x 30 days x 8 h of use, the article's assumption",
     "Hours of use over which the purchase price is spread"},
    {InputId::amortization_months, Side::local, "amortization_months", "month", Domain::positive, false, 24,
     "the article's 24 months", "Months that the amortization hours span (for the per-month figure)"},
    {InputId::power_w, Side::local, "power_w", "W", Domain::non_negative, false, kNone, "",
     "Mean power draw of the GPU while in use (idle included)"},
    {InputId::cooling_w, Side::local, "cooling_w", "W", Domain::non_negative, false, 0,
     "no extra cooling counted (the article's laptop needed 22 W of fans)",
     "Extra cooling power while the GPU is in use (fans, air conditioning share)"},
    {InputId::electricity_price, Side::local, "electricity_price", "{cur}/kWh", Domain::non_negative, true, kNone,
     "", "Price of electricity"},
    {InputId::incidents_per_hour, Side::local, "incidents_per_hour", "1/h", Domain::non_negative, false,
     12.0 / 5760.0, "the article's 12 incidents a year spread over 5760 h of use",
     "Maintenance incidents (driver/firmware errors, hangs, resets) per hour of use"},
    {InputId::hours_per_incident, Side::local, "hours_per_incident", "h", Domain::non_negative, false, 47.0 / 60.0,
     "the article's 47 min per incident", "Engineer hours lost per incident"},
    {InputId::engineer_rate, Side::local, "engineer_rate", "{cur}/h", Domain::non_negative, true, kNone, "",
     "Value of one engineer hour"},
    {InputId::effective_utilization, Side::local, "effective_utilization", "ratio", Domain::ratio, false,
     1 - 0.193 - 0.023 - 0.0174,
     "the article's 1 - 0.193 (idle) - 0.023 (launch queue) - 0.0174 (AC switches); measure yours with analyze",
     "Share of wall time the local GPU does useful work: 1 - idle - launch queue - power events"},
    {InputId::fixed_cost_per_job, Side::local, "fixed_cost_per_job", "{cur}", Domain::non_negative, true, 0,
     "no per-job cost (amortization already counts the price)",
     "Fixed cost of each local job (e.g. wear per power cycle)"},
    {InputId::hourly_rate, Side::cloud, "hourly_rate", "{cur}/h", Domain::non_negative, true, kNone, "",
     "Price of the cloud instance per billed hour"},
    {InputId::cold_start_s, Side::cloud, "cold_start_s", "s", Domain::non_negative, false, 117,
     "the article's 117 s for an A10 instance", "Billed seconds before a cloud job starts working"},
    {InputId::utilization, Side::cloud, "utilization", "ratio", Domain::ratio, false, 0.92,
     "the article's 92 % for an A10 instance", "Share of billed cloud time the GPU does useful work"},
    {InputId::relative_speed, Side::cloud, "relative_speed", "ratio", Domain::positive, false, 1,
     "equal speed assumed (no throughput figures for the two GPUs)",
     "Cloud GPU throughput / local GPU throughput on the same job", "--relative-speed"},
    {InputId::resale_fraction, Side::local, "resale_fraction", "ratio", Domain::ratio, false, 0,
     "no resale value counted (the whole price is spent); used GPUs often resell for a sizeable share",
     "Share of the purchase price recovered by selling the GPU (or machine) after the amortization months",
     "--resale-fraction"},
    {InputId::interest_rate, Side::local, "interest_rate", "1/year", Domain::non_negative, false, 0,
     "no cost of capital counted", "Yearly cost of capital on the purchase price (0.05 = 5 % a year)",
     "--interest-rate"},
    {InputId::hours_per_month, Side::local, "hours_per_month", "h/month", Domain::non_negative, false, kNone, "",
     "Usage: local-equivalent busy GPU-hours a month (measured from the logs by analyze)", "--hours-per-month"},
    {InputId::job_stall_fraction, Side::cloud, "job_stall_fraction", "ratio", Domain::ratio, false, 0,
     "no stalls of the job itself counted on the cloud side (analyze measures the launch-queue share)",
     "Share of the job's time lost to its own stalls (input pipeline, kernel-launch queue): they move to the "
     "cloud with the job",
     "--job-stall-fraction"},
    {InputId::interruption_loss, Side::cloud, "interruption_loss", "ratio", Domain::ratio, false, 0,
     "no interruptions (on-demand or committed pricing)",
     "Share of billed time lost to spot interruptions: interruptions per hour x (half a checkpoint interval + a "
     "restart); set by --pricing spot"},
    {InputId::billing_increment_s, Side::cloud, "billing_increment_s", "s", Domain::non_negative, false, 0,
     "billing counted as continuous (the offer's catalog row gives its granularity)",
     "Billing granularity: a job is billed in whole increments (1 s, 60 s, 3600 s), half an increment more on "
     "average"},
    {InputId::storage_price_gb_month, Side::cloud, "storage_price_gb_month", "{cur}/GB-month", Domain::non_negative,
     true, 0, "no storage counted (give the provider's price per GB-month)",
     "Price of keeping one GB of the job's data (dataset, checkpoints) in the cloud for a month", "--storage-price"},
    {InputId::minimum_billing_s, Side::cloud, "minimum_billing_s", "s", Domain::non_negative, false, 0,
     "no minimum (the offer's catalog row gives its minimum)",
     "The shortest time an instance is billed for (60 s on AWS, 1 min on GCP)"},
    {InputId::storage_gb_months, Side::cloud, "storage_gb_months", "GB-month", Domain::non_negative, false, 0,
     "no storage counted", "Storage one job keeps: GB kept x months kept (200 GB for a week: 200 x 7 / 30.4375 = 46)",
     "--storage-gb-months"},
    {InputId::egress_price_gb, Side::cloud, "egress_price_gb", "{cur}/GB", Domain::non_negative, true, 0,
     "no egress counted (give the provider's price per GB sent out)",
     "Price of one GB sent out of the cloud (results, checkpoints downloaded)", "--egress-price"},
    {InputId::egress_gb, Side::cloud, "egress_gb", "GB", Domain::non_negative, false, 0, "no egress counted",
     "GB one job sends out of the cloud", "--egress-gb"},
};

std::string origin_text(const InputValue& v) { return v.origin.empty() ? std::string("unset") : v.origin; }
}  // namespace

std::string_view side_name(Side s) noexcept { return s == Side::local ? "local" : "cloud"; }

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

double CostInputs::get(InputId id) const {
  const auto& v = (*this)[id];
  if (!v.value)
    throw std::invalid_argument(fmt::format("no value for {}{}: give {} (or \"{}\" in --config, or pick a preset)",
                                            input_name(id), v.note.empty() ? "" : " (" + v.origin + ": " + v.note + ")",
                                            input_flag(id), spec(id).key));
  return *v.value;
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
    const double x = in.get(s.id);
    const std::string unit = input_unit(s.id, in.currency);
    auto bad = [&](std::string_view why) {
      return std::invalid_argument(fmt::format("{} = {} {} ({}) is impossible: {}", input_name(s.id),
                                               format_number(x), unit, origin_text(v), why));
    };
    if (!std::isfinite(x)) throw bad("not a finite number");
    switch (s.domain) {
      case Domain::non_negative:
        if (x < 0) throw bad("it must not be negative");
        break;
      case Domain::positive:
        if (x <= 0) throw bad("it must be greater than 0");
        break;
      case Domain::ratio:
        if (x < 0 || x > 1) throw bad("it is a share and must lie between 0 and 1");
        break;
    }
    if (s.money && !v.currency.empty() && v.currency != in.currency)
      throw std::invalid_argument(fmt::format(
          "{} = {} comes from {} in {}, but the report currency is {}; gpucost converts currencies only with "
          "an explicit, dated rate: give {} in {}, pick presets in one currency, or give --fx FILE",
          input_name(s.id), format_number(x), origin_text(v), v.currency, in.currency, input_flag(s.id), in.currency));
  }
  if (in.get(InputId::interruption_loss) >= 1)
    throw std::invalid_argument(fmt::format(
        "cloud.interruption_loss = {} ({}) is impossible: interruptions would leave no time for work",
        format_number(in.get(InputId::interruption_loss)), origin_text(in[InputId::interruption_loss])));
  if (in.get(InputId::job_stall_fraction) >= 1)
    throw std::invalid_argument(fmt::format(
        "cloud.job_stall_fraction = {} ({}) is impossible: a job that only stalls does no work anywhere",
        format_number(in.get(InputId::job_stall_fraction)), origin_text(in[InputId::job_stall_fraction])));
  if (in.get(InputId::effective_utilization) == 0 && in.get(InputId::utilization) == 0)
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
