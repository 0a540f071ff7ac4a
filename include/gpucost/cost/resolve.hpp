#pragma once
/// \file resolve.hpp
/// Where each input's value comes from. Layers, lowest first (a higher layer replaces a lower
/// one; docs/cost-model.md, "Precedence"):
///   1. default           built-in defaults and the presets' per-currency defaults
///   2. preset:SCENARIO    --preset (a complete scenario such as seed-article)
///   3. preset:GPU/OFFER   --local / --cloud entries (the generic pair when nothing is picked)
///   4. measured:F0xx      values measured from the logs (analyze only; off with --no-measured)
///   5. config             --config FILE
///   6. cli                explicit command-line options
/// Explicit beats measured, measured beats presets.

#ifndef GPUCOST_LAYER_COST
#error "gpucost_cost header: include it only in gpucost_cost or a layer above it (docs/architecture.md, Layers)"
#endif

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpucost/cost/catalog.hpp"
#include "gpucost/cost/inputs.hpp"
#include "gpucost/features/feature_ids.hpp"
#include "gpucost/cost/presets.hpp"

namespace gpucost::cost {

/// Values given explicitly, by a config file or on the command line.
struct CostOverrides {
  std::optional<std::string> currency;
  std::array<std::optional<double>, kInputCount> values{};
  std::optional<double> job_hours, target_premium;
  /// Throughput of the user's own job on each GPU (any unit, the same for both, e.g. samples/s):
  /// together they give cloud.relative_speed = cloud / local (a measured ratio beats the spec sheets).
  std::optional<double> local_throughput, cloud_throughput;
  /// Ranges of inputs for the Monte Carlo (low, high): config `"ranges": {"local.hours_per_month":
  /// [20, 60]}`, command line `--range local.hours_per_month=20:60`.
  std::array<std::optional<std::pair<double, double>>, kInputCount> ranges{};
  /// Gamma ranges (shape, rate), as analyze writes the incident rate's posterior into its inputs.
  std::array<std::optional<std::pair<double, double>>, kInputCount> gamma_ranges{};
  std::optional<double> seed, draws;
  /// on-demand (default), spot or committed: which of the cloud offer's prices to use.
  std::optional<std::string> pricing;
  /// Spot: minutes between checkpoints (work lost on an interruption is half of it on average)
  /// and interruptions per hour of running.
  std::optional<double> checkpoint_minutes, interruptions_per_hour;
  std::optional<std::string> preset, local, cloud;  ///< preset names (config: preset, local_preset, cloud_preset)
  /// Config `"ignore_findings": ["R13", "benign_driver_messages"]` (or one name): rules whose
  /// findings analyze leaves out, as with --ignore-finding (R16 lists them); checked by analyze.
  std::vector<std::string> ignore_findings;
};

/// Parses a config file's text (`{"currency": "CNY", "local": {...}, "cloud": {...}}`); throws
/// std::invalid_argument naming `origin` and the key for malformed JSON, unknown input names and
/// values of the wrong type.
CostOverrides parse_cost_config(std::string_view json, std::string_view origin);
/// `local.power_w` -> InputId::kPowerW; nullopt for an unknown name.
std::optional<InputId> find_named_input(std::string_view name);
/// Parses `local.hours_per_month=20:60` (an input's name, its low and high end) into `into`;
/// throws std::invalid_argument naming the problem.
void parse_range(std::string_view text, std::string_view origin, CostOverrides& into);

/// Reads and parses a config file.
CostOverrides load_cost_config(const std::string& path);

/// A value measured from the logs for one input, or why there is none.
struct MeasuredInput {
  InputId input;
  std::optional<double> value;
  std::string origin;  ///< `measured:F012` when there is a value
  std::string note;    ///< what was measured, or why nothing was (always set)
  /// For a rate (incidents per hour): the events counted and the hours observed, so that
  /// resolve_inputs can weigh the observation against the prior rate (see ResolveRequest).
  std::optional<double> events, exposure_h;
};

/// What a feature lookup returns: the catalog id and the host value.
struct FeatureReading {
  std::string id;                ///< `F012`
  std::optional<double> value;
  std::string reason;            ///< why null
};
/// Looks a feature up; nullopt when the run computed no features.
using FeatureLookup = std::function<std::optional<FeatureReading>(FeatureId id)>;

/// The measured inputs: power_w <- gpu_power_mean_w, effective_utilization <-
/// effective_utilization, job_stall_fraction <- launch_queue_fraction (analyze replaces it with
/// measure_job_stalls), incidents_per_hour <- incidents_per_hour with the count and hours behind
/// it. Always one entry per input, with a note when there is no value.
std::vector<MeasuredInput> measured_inputs(const FeatureLookup& lookup);

/// Which presets a run uses (empty = none picked).
struct PresetSelection {
  std::string preset, local, cloud;
};

/// The MIG device the logs analyze, priced as its share of the GPU (issue 38; mig_slice in
/// from_logs.hpp).
struct MigSlice {
  double share = 1;  ///< of the GPU, by memory slices of the profile
  std::string note;  ///< which device, and how the share was found
};

/// What the logs measured of the rest of the machine's power (measure_host_power in
/// cost/from_logs.hpp), for the whole machine; resolve_inputs turns it into host_power_w per GPU
/// once the power supply's efficiency, the GPU board power and the class are known
/// (docs/cost-model.md §2.1, "Measured host power").
struct MeasuredHostPower {
  /// true: the whole system at the power supply's input (IPMI DCMI), the GPUs included; false:
  /// the CPU packages and their DRAM (RAPL), DC after the supply.
  bool system_wall = false;
  double mean_w = 0;  ///< the whole machine's mean over the window
  std::size_t samples = 0;
  std::string origin;  ///< `measured:ipmi` or `measured:rapl`
  std::string note;  ///< what was read, over which window
};

/// Everything that decides the inputs of one run.
struct ResolveRequest {
  PresetSelection selection;          ///< from the command line
  bool use_generic_pair = true;       ///< without --preset, fall back to the catalog's generic pair
  std::vector<MeasuredInput> measured;
  CostOverrides config, cli;
  /// Product names of the GPUs the logs name (nvidia-smi -q, --query-gpu, the manifest): without
  /// --preset/--local, the first that matches a local preset picks it (analyze only).
  std::vector<std::string> detected_gpus;
  /// What the logs know of those GPUs (nvidia-smi -q): the power limit by product name, used for a
  /// GPU that no preset describes, so that the answer is about it and not about another GPU.
  std::vector<std::pair<std::string, double>> detected_power_limits_w;
  /// The analyzed GPU is a MIG device (mig_slice): a preset's purchase price is scaled by its share.
  std::optional<MigSlice> mig_slice;
  /// Weight, in hours of use, of the prior incident rate (the preset's or default's) when a
  /// measured count and exposure are combined with it: the rate used is the Gamma-Poisson
  /// posterior mean (events + prior_rate x H) / (exposure_h + H). 0 = the raw measured rate.
  double incident_prior_hours = 720;
  /// Exchange rates (--fx FILE): a money value priced in another currency is converted only with one.
  std::vector<FxRate> fx;
  /// Logs were read (analyze): a directory whose logs name no GPU model is then answered for the
  /// GPU the logs measure, never for the generic preset.
  bool logs_read = false;
  /// The usage the logs measure (analyze; see measure_usage in cost/from_logs.hpp): its basis is
  /// `measured` only from samples spanning min_usage_span_days.
  std::optional<Usage> usage;
  double min_usage_span_days = kDefaultMinUsageSpanDays;  ///< --min-usage-span
  /// GPUs of the machine the logs describe (0: not known, one GPU is priced), and how that was told.
  std::size_t gpu_count = 0;
  std::string gpu_count_note;
  /// What the logs say of the job's bound (analyze): the mean SM and memory activity while busy
  /// (F016, F023). Their ratio picks the end of the spec-sheet speed bracket (kComputeBoundMemSm,
  /// kBandwidthBoundMemSm); in between, or without them, the value is the bracket's middle.
  struct Activity {
    double sm_busy_pct = 0, mem_busy_pct = 0;
    std::string origin;  ///< `measured:F023/F016`
  };
  std::optional<Activity> activity;
  /// The host's power the logs measured (analyze; null: none measured, or --no-measured).
  std::optional<MeasuredHostPower> host_power;
};

/// Memory activity at or below this share of the SM activity while busy: the job is compute-bound
/// and runs at the throughput ratio (the H200 collection: 23 % at 98 %, 0.23). An assumption
/// (docs/cost-model.md §3.7): dense tensor work keeps the memory controller busy a fraction of
/// the time it keeps the SMs busy; streaming work keeps both about equally busy.
inline constexpr double kComputeBoundMemSm = 0.4;
/// At or above this share: bandwidth-bound, the memory bandwidth ratio.
inline constexpr double kBandwidthBoundMemSm = 0.7;

/// Defaults of the spot model: a checkpoint every 30 minutes, 0.01 interruptions per hour of
/// running (an assumption: about one a week of round-the-clock use; give your own).
inline constexpr double kDefaultCheckpointMinutes = 30;
inline constexpr double kDefaultInterruptionsPerHour = 0.01;

/// The inputs of a run, layered as described above; throws std::invalid_argument for unknown
/// preset names. Does not validate values (evaluate() does).
CostInputs resolve_inputs(const PresetCatalog& catalog, const ResolveRequest& request, CostQuery* query = nullptr);

}  // namespace gpucost::cost
