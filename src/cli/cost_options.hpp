#pragma once
// The cost-model options shared by `gpucost breakeven` and `gpucost analyze`.

#ifndef GPUCOST_LAYER_CLI
#error "gpucost_cli header: include it only in gpucost_cli or a layer above it (docs/architecture.md, Layers)"
#endif

#include <CLI/CLI.hpp>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "gpucost/cost/model.hpp"
#include "gpucost/features/features.hpp"
#include "gpucost/pipeline/pipeline.hpp"

namespace gpucost::cli {

/// Cost options as parsed; an input counts as given only when its option was on the line.
struct CostCliOptions {
  std::string config;                    ///< --config FILE
  std::vector<std::string> preset_files; ///< --presets FILE (repeatable)
  std::vector<std::string> catalog_files; ///< --catalog FILE (repeatable)
  std::string fx_file;                    ///< --fx FILE
  std::string pricing;                    ///< --pricing on-demand|spot|committed
  double checkpoint_minutes = 30, interruptions_per_hour = 0.01;
  CLI::Option* checkpoint_option = nullptr;
  CLI::Option* interruptions_option = nullptr;
  std::string preset, local, cloud;      ///< --preset, --local, --cloud
  std::string currency;                  ///< --currency
  std::array<double, cost::kInputCount> values{};
  std::array<CLI::Option*, cost::kInputCount> value_options{};
  double job_hours = 1.0, target_premium = 0.12;
  double local_throughput = 0, cloud_throughput = 0;  ///< --local-throughput, --cloud-throughput
  std::vector<std::string> ranges;  ///< --range NAME=LOW:HIGH (repeatable)
  std::uint64_t seed = 1;
  std::size_t draws = 10000;
  CLI::Option* seed_option = nullptr;
  CLI::Option* draws_option = nullptr;
  CLI::Option* local_throughput_option = nullptr;
  CLI::Option* cloud_throughput_option = nullptr;
  CLI::Option* currency_option = nullptr;
  CLI::Option* job_hours_option = nullptr;
  CLI::Option* target_premium_option = nullptr;
  bool no_measured = false;  ///< --no-measured (analyze only)
  double incident_prior_hours = 720;  ///< --incident-prior-hours (analyze only)
  double min_usage_span_days = cost::kDefaultMinUsageSpanDays;  ///< --min-usage-span (analyze only)
};

/// Adds the cost options (group "Cost model") to a subcommand; `measured` adds --no-measured.
void add_cost_options(CLI::App& app, CostCliOptions& o, bool measured);

/// The cost stage's setup from the options: loads the presets, catalogs, config and exchange rates
/// once and resolves the preset names, so that mistakes are reported before any log is read;
/// throws std::invalid_argument.
std::shared_ptr<CostSetup> make_cost_setup(const CostCliOptions& o);

/// The cost model on the options alone (breakeven) or with features and detected GPUs (tests):
/// make_cost_setup() then cost::CostStage::run(); throws std::invalid_argument.
std::shared_ptr<const cost::CostResult> compute_cost(
    const CostCliOptions& o, const FeatureSet* features, const std::vector<std::string>& detected_gpus = {},
    const std::vector<std::pair<std::string, double>>& detected_power_limits_w = {});

}  // namespace gpucost::cli
