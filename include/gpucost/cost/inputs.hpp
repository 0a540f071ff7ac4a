#pragma once
/// \file inputs.hpp
/// The inputs of the cost model: what each one means, its unit and default, and where the value
/// of a run came from (a default, a preset, a measurement from the logs, the config file or the
/// command line). docs/cost-model.md explains every one.

#ifndef GPUCOST_LAYER_COST
#error "gpucost_cost header: include it only in gpucost_cost or a layer above it (docs/architecture.md, Layers)"
#endif

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::cost {

/// One numeric input of the model. The order is the order of reports and of the tornado ties.
enum class InputId : std::uint8_t {
  kPurchasePrice,  ///< local: what the GPU (or machine) cost, currency
  kAmortizationHours,  ///< local: hours of use the price is spread over, h
  kAmortizationMonths,  ///< local: months those hours span (for the per-month figure), month
  kPowerW,  ///< local: mean GPU power draw while in use, W
  kCoolingW,  ///< local: extra cooling power while in use (fans, AC share), W
  kElectricityPrice,  ///< local: currency per kWh
  kIncidentsPerHour,  ///< local: maintenance incidents per hour of use, 1/h
  kHoursPerIncident,  ///< local: engineer hours lost per incident, h
  kEngineerRate,  ///< local: value of an engineer hour, currency/h
  kEffectiveUtilization,  ///< local: share of wall time the GPU does useful work, ratio
  kFixedCostPerJob,  ///< local: fixed cost of each job (e.g. wear per power cycle), currency
  kHourlyRate,  ///< cloud: price of the instance, currency/h
  kColdStartS,  ///< cloud: billed seconds before a job starts working, s
  kUtilization,  ///< cloud: share of billed time the GPU does useful work, ratio
  kRelativeSpeed,  ///< cloud: cloud GPU throughput / local GPU throughput, ratio
  kResaleFraction,  ///< local: share of the purchase price recovered by selling after the period, ratio
  kInterestRate,  ///< local: yearly cost of capital on the purchase price, 1/year
  kHoursPerMonth,  ///< local: usage, local-equivalent busy GPU-hours a month, h/month
  kJobStallFraction,  ///< cloud: share of the job's time lost to its own stalls (moves with it), ratio
  kInterruptionLoss,  ///< cloud: share of billed time lost to spot interruptions, ratio
  kBillingIncrementS,  ///< cloud: billing granularity (1 per second, 60 per minute, 3600 per hour), s
  kStoragePriceGbMonth,  ///< cloud: price of keeping one GB for a month, currency/GB-month
  kMinimumBillingS,  ///< cloud: the shortest time billed for an instance, s
  kStorageGbMonths,  ///< cloud: GB-months of storage one job keeps (GB x months kept), GB-month
  kEgressPriceGb,  ///< cloud: price of one GB sent out of the cloud, currency/GB
  kEgressGb,  ///< cloud: GB one job sends out of the cloud, GB
  kHostPrice,  ///< local: the rest of the machine (CPU, board, RAM, PSU, chassis) per GPU, currency
  kHostPowerW,  ///< local: the rest of the machine's draw per GPU while in use, W
  kPsuEfficiency,  ///< local: DC power out / AC power in of the power supply, ratio
  kPue,  ///< local: facility power / IT power (cooling, UPS losses), ratio >= 1
  kStorageGb,  ///< cloud: GB kept in cloud storage all month whatever the use, GB
  kReservedPerMonth,  ///< cloud: reserved capacity or other fees paid each month whatever the use, currency/month
};
inline constexpr std::size_t kInputCount = 32;
/// Inputs before this one keep the report ids they always had (C001-C015); later ones are C080+.
inline constexpr std::size_t kFirstLaterInput = 15;

/// Which machine an input describes.
enum class Side : std::uint8_t { kLocal, kCloud };
std::string_view side_name(Side s) noexcept;

/// What values an input admits (checked by validate()).
enum class Domain : std::uint8_t {
  kNonNegative,  ///< >= 0
  kPositive,      ///< > 0
  kRatio,         ///< in [0, 1]
};

/// The fixed description of one input.
struct InputSpec {
  InputId id;
  Side side;
  std::string_view key;          ///< config key inside "local"/"cloud" (`power_w`)
  std::string_view unit;         ///< unit; `{cur}` stands for the currency code
  Domain domain;
  bool money;                    ///< its value is in the report currency
  double fallback;               ///< the default when nothing else gives a value (NaN: none)
  std::string_view fallback_why; ///< where that default comes from
  std::string_view description;  ///< one line for --help and the docs
  std::string_view alias = {};   ///< a second, shorter option name (`--interest-rate`), or empty
};

/// All inputs, in InputId order.
std::span<const InputSpec> input_specs() noexcept;
/// The description of one input.
const InputSpec& spec(InputId id) noexcept;
/// `local.power_w`
std::string input_name(InputId id);
/// `--local-power-w`
std::string input_flag(InputId id);
/// The unit with the currency filled in (`CNY/kWh`).
std::string input_unit(InputId id, std::string_view currency);
/// An input by its side and config key; nullopt when there is none.
std::optional<InputId> find_input(Side side, std::string_view key) noexcept;

/// The value of one input in a run, and where it came from.
struct InputValue {
  std::optional<double> value;
  /// `default`, `preset:NAME`, `measured:F0xx`, `config` or `cli`.
  std::string origin;
  /// How the value was obtained or why a better source was not used (free text, may be empty).
  std::string note;
  /// For money values taken from a preset: the currency that preset quotes in (checked against
  /// the report currency, since gpucost converts no currency). Empty: the report currency.
  std::string currency;
};

/// How a value was obtained, for the report: `measured` (from the logs), `given` (command line or
/// config file) or `assumed` (a default or a preset, whose note names its source).
std::string_view input_basis(const InputValue& v) noexcept;

/// The values an input may take in the Monte Carlo (docs/cost-model.md, "Uncertainty").
struct InputRange {
  enum class Kind : std::uint8_t {
    kUniform,  ///< a and b: the low and high end, every value between equally likely
    kGamma,    ///< a: shape, b: rate (mean a / b): the incident rate's Gamma-Poisson posterior
  };
  Kind kind = Kind::kUniform;
  double a = 0, b = 0;
  std::string origin;  ///< where the range comes from (`speed bracket`, `cli`, `measured:F007`)
};

/// What the break-even questions are asked about (not inputs of the cost terms).
struct CostQuery {
  double job_hours = 1.0;          ///< W for the premium, local-equivalent busy hours
  double target_premium = 0.12;    ///< local/cloud - 1 sought (the article's 12 %)
  std::uint64_t seed = 1;          ///< the Monte Carlo's seed (--seed)
  std::size_t draws = 10000;       ///< the Monte Carlo's draws (--draws; 0 = none)
  std::string job_hours_origin = "default";
  std::string target_premium_origin = "default";
};

/// The two spec-sheet speed ratios (cloud / local) that bracket a job's real one: peak dense tensor
/// TFLOPS for a compute-bound job, peak memory bandwidth for a bandwidth-bound one.
struct SpeedBracket {
  std::optional<double> compute_bound, bandwidth_bound;
  std::string compute_note, bandwidth_note;  ///< the figures divided, or why there is no ratio
  std::string bound_note;  ///< what the logs said of the job's bound when it picked no end (empty: nothing)
};

/// The longest month (31 days), in hours: usage a month cannot exceed it.
inline constexpr double kMaxHoursPerMonth = 744;
/// The mean month (365.25 / 12 days), in hours: a share of time as hours a month.
inline constexpr double kMeanMonthHours = 730.5;
/// The span of GPU samples from which usage is measured, by default (docs/cost-model.md, "Usage").
inline constexpr double kDefaultMinUsageSpanDays = 7;

/// Where the usage compared with the buy threshold comes from.
enum class UsageBasis : std::uint8_t {
  kMeasured,  ///< GPU samples spanning at least the minimum span (a week by default)
  kGiven,     ///< --hours-per-month, a range, the config file or a scenario preset
  kUnknown,   ///< neither: the answer is the threshold, never a verdict from a guess
};
std::string_view usage_basis_name(UsageBasis b) noexcept;

/// One GPU's use as its own samples show it.
struct GpuUsage {
  int gpu = 0;
  double busy_s = 0;     ///< sampled time the GPU computed (gpu_busy_s)
  double covered_s = 0;  ///< sampled time (gpu_sampled_s)
  double span_s = 0;     ///< first sample to the end of the last one
  /// busy_s / covered_s x kMeanMonthHours when span_s reaches the minimum span; else null.
  std::optional<double> hours_per_month;
};

/// The usage of a run: its basis, the value per GPU and why.
struct Usage {
  UsageBasis basis = UsageBasis::kUnknown;
  /// How it was measured or given, or why it is unknown and how to supply it (always set).
  std::string reason;
  /// The span of the GPU samples, in days (the shortest GPU's); null without samples.
  std::optional<double> span_days;
  /// Busy share of the sampled time within the window the logs cover: what was measured even
  /// when the window is too short to say what a month holds.
  std::optional<double> window_busy_share;
  double window_busy_s = 0, window_covered_s = 0;
  double min_span_days = kDefaultMinUsageSpanDays;
  std::vector<GpuUsage> gpus;
};

/// Every input of one run.
struct CostInputs {
  std::string currency = "USD";
  std::string currency_origin = "default";
  std::array<InputValue, kInputCount> values{};
  /// Names of the presets used (empty when none), for the report.
  std::string scenario, local_gpu, cloud_offer;
  /// The local machine's class (laptop, consumer, workstation, datacenter: the preset's kind), which
  /// picks the host, power-supply, PUE, lifetime and resale defaults; empty when unknown.
  std::string machine_class;
  /// Labels of the local GPU and cloud offer, for the report (`NVIDIA GeForce RTX 4090`).
  std::string local_label, cloud_label;
  /// How the local GPU and cloud offer were chosen, when not by name (empty otherwise).
  std::string selection_note;
  /// Usage measured from the logs (h/month), kept even when a given value replaces it; null with
  /// measured_usage_note saying why (breakeven: no logs).
  std::optional<double> measured_hours_per_month;
  std::string measured_usage_note = "no logs were read";
  /// The usage's basis and its evidence (local.hours_per_month holds the value per GPU, unset
  /// when the basis is unknown).
  Usage usage;
  /// GPUs of the local machine (the logs' GPU count; 1 without logs): the model prices one GPU,
  /// the machine is that many.
  std::size_t gpu_count = 1;
  /// What the inputs contradict (a measured power above the preset's board power ...): shown
  /// beside the answer in every output.
  std::vector<std::string> warnings;
  std::string gpu_count_note = "one GPU: no logs were read";
  SpeedBracket speed;
  /// No purchase price is known for the local GPU: purchase_price is 0 (origin `unknown`) and the
  /// verdict is stated as the price below which buying pays (break_even.max_purchase_price).
  bool price_unknown = false;
  /// The local GPU is the one the logs name, described by the logs alone (no preset matched it).
  bool local_gpu_from_logs = false;
  /// on-demand, spot or committed: which of the offer's prices hourly_rate is.
  std::string pricing = "on-demand";
  /// When the local price and the cloud price were observed at their sources (YYYY-MM-DD; empty:
  /// undated or not from a catalog).
  std::string local_price_observed_on, cloud_price_observed_on;
  /// The ranges of the inputs that are not point values (null: a point value).
  std::array<std::optional<InputRange>, kInputCount> ranges{};

  InputValue& operator[](InputId id) noexcept { return values[static_cast<std::size_t>(id)]; }
  const InputValue& operator[](InputId id) const noexcept { return values[static_cast<std::size_t>(id)]; }
  /// The value; throws std::invalid_argument naming the input and how to give it when unset.
  /// Inline: the Monte Carlo reads about forty values a draw, 10 000 draws.
  double get(InputId id) const {
    const InputValue& v = (*this)[id];
    if (v.value) [[likely]]
      return *v.value;
    missing(id);
  }
  /// Throws what get() throws for an unset value.
  [[noreturn]] void missing(InputId id) const;
  /// Sets a value with its origin (the note and currency are cleared).
  void set(InputId id, double v, std::string origin, std::string note = {});
};

/// Checks every input and the query: throws std::invalid_argument with a one-line message naming
/// the input, its value, unit and origin when one is missing or impossible (negative price,
/// utilization above 1, zero amortization period, both sides doing no work ...).
void validate(const CostInputs& in, const CostQuery& q);

}  // namespace gpucost::cost
