#include "cli/cost_options.hpp"

#include <fmt/format.h>


#include "gpucost/cost/catalog.hpp"
#include "gpucost/cost/presets.hpp"
#include "gpucost/cost/resolve.hpp"
#include "gpucost/small_file.hpp"

namespace gpucost::cli {

namespace {
constexpr const char* kGroup = "Cost model";

cost::ResolveRequest make_request(const CostCliOptions& o) {
  cost::ResolveRequest rq;
  rq.selection = {o.preset, o.local, o.cloud};
  if (!o.config.empty()) rq.config = cost::load_cost_config(o.config);
  for (std::size_t i = 0; i < cost::kInputCount; ++i)
    if (o.value_options[i] && o.value_options[i]->count() > 0) rq.cli.values[i] = o.values[i];
  if (o.currency_option && o.currency_option->count() > 0) rq.cli.currency = o.currency;
  if (o.job_hours_option && o.job_hours_option->count() > 0) rq.cli.job_hours = o.job_hours;
  if (o.target_premium_option && o.target_premium_option->count() > 0) rq.cli.target_premium = o.target_premium;
  for (const auto& r : o.ranges) cost::parse_range(r, "--range", rq.cli);
  if (!o.pricing.empty()) rq.cli.pricing = o.pricing;
  if (o.checkpoint_option && o.checkpoint_option->count() > 0) rq.cli.checkpoint_minutes = o.checkpoint_minutes;
  if (o.interruptions_option && o.interruptions_option->count() > 0) rq.cli.interruptions_per_hour = o.interruptions_per_hour;
  if (!o.fx_file.empty())
    rq.fx = cost::parse_fx_csv(read_small_file(o.fx_file, kMaxFxFileBytes, "exchange-rate file"), o.fx_file);
  if (o.seed_option && o.seed_option->count() > 0) rq.cli.seed = static_cast<double>(o.seed);
  if (o.draws_option && o.draws_option->count() > 0) rq.cli.draws = static_cast<double>(o.draws);
  if (o.local_throughput_option && o.local_throughput_option->count() > 0) rq.cli.local_throughput = o.local_throughput;
  if (o.cloud_throughput_option && o.cloud_throughput_option->count() > 0) rq.cli.cloud_throughput = o.cloud_throughput;
  return rq;
}
}  // namespace

void add_cost_options(CLI::App& app, CostCliOptions& o, bool measured) {
  app.add_option("--preset", o.preset,
                 "Scenario preset (a complete set of inputs), e.g. seed-article. Without --preset the\n"
                 "generic pair is used: --local rtx-4090 --cloud aws-g6.xlarge (see --list-presets)")
      ->group(kGroup);
  app.add_option("--local", o.local, "Local GPU preset (price, board power, throughput), e.g. rtx-4060-laptop")
      ->group(kGroup);
  app.add_option("--cloud", o.cloud, "Cloud offer preset (hourly rate, cold start, throughput), e.g. aws-g5.xlarge")
      ->group(kGroup);
  app.add_option("--presets", o.preset_files,
                 "JSON file of extra presets in the data/presets.json format (repeatable; same names replace)")
      ->check(CLI::ExistingFile)
      ->group(kGroup);
  app.add_option("--catalog", o.catalog_files,
                 "Price catalog CSV (repeatable): cloud offers in SkyPilot's layout (InstanceType, AcceleratorName,\n"
                 "AcceleratorCount, vCPUs, MemoryGiB, Region, Price, SpotPrice) plus Currency, Source, ObservedOn;\n"
                 "or local GPUs (Name, Price, Currency, Source, ObservedOn). Same names replace built-in rows")
      ->check(CLI::ExistingFile)
      ->group(kGroup);
  app.add_option("--fx", o.fx_file,
                 "Exchange rates CSV (From,To,Rate,Source,ObservedOn): a preset priced in another currency is\n"
                 "converted with it; without one, never")
      ->check(CLI::ExistingFile)
      ->group(kGroup);
  app.add_option("--pricing", o.pricing, "Which price of the cloud offer: on-demand (default), spot or committed")
      ->check(CLI::IsMember({"on-demand", "spot", "committed"}))
      ->group(kGroup);
  o.checkpoint_option = app.add_option("--checkpoint-minutes", o.checkpoint_minutes,
                                       "Spot: minutes between checkpoints; an interruption loses half of it on average "
                                       "(default 30)")
                            ->check(CLI::Range(0.0, 1e6))
                            ->group(kGroup);
  o.interruptions_option = app.add_option("--spot-interruptions-per-hour", o.interruptions_per_hour,
                                          "Spot: interruptions per hour of running (default 0.01, an assumption)")
                               ->check(CLI::Range(0.0, 1e3))
                               ->group(kGroup);
  app.add_option("--config", o.config,
                 "JSON file of inputs: {\"currency\": \"CNY\", \"local\": {\"power_w\": 115, ...}, \"cloud\": {...}}")
      ->check(CLI::ExistingFile)
      ->group(kGroup);
  o.currency_option =
      app.add_option("--currency", o.currency, "Currency code of every amount (no conversion is done), e.g. CNY")
          ->group(kGroup);
  for (const auto& s : cost::input_specs()) {
    const std::string unit = cost::input_unit(s.id, "<currency>");
    std::string help = fmt::format("{} ({})", s.description, unit);
    if (!s.fallback_why.empty()) help += fmt::format(". Default {}: {}", fmt::format("{:g}", s.fallback), s.fallback_why);
    o.value_options[static_cast<std::size_t>(s.id)] =
        app.add_option(cost::input_flag(s.id) + (s.alias.empty() ? std::string() : "," + std::string(s.alias)),
                       o.values[static_cast<std::size_t>(s.id)], help)
            ->group(kGroup);
  }
  o.job_hours_option =
      app.add_option("--job-hours", o.job_hours,
                     "Job length for the premium, in local-equivalent busy hours (default 1)")
          ->group(kGroup);
  o.target_premium_option =
      app.add_option("--target-premium", o.target_premium,
                     "Premium local/cloud - 1 to find the job length of (default 0.12, the article's 12 %)")
          ->group(kGroup);
  o.local_throughput_option =
      app.add_option("--local-throughput", o.local_throughput,
                     "Throughput of your own job on the local GPU (any unit, e.g. samples/s); with\n"
                     "--cloud-throughput it gives the relative speed, which beats the spec-sheet bracket")
          ->group(kGroup);
  o.cloud_throughput_option =
      app.add_option("--cloud-throughput", o.cloud_throughput,
                     "Throughput of the same job on the cloud GPU, in the unit of --local-throughput")
          ->group(kGroup);
  app.add_option("--range", o.ranges,
                 "An input's range for the Monte Carlo, NAME=LOW:HIGH, drawn uniformly (repeatable), e.g.\n"
                 "--range local.hours_per_month=20:60 --range cloud.hourly_rate=0.34:0.69")
      ->group(kGroup);
  o.seed_option = app.add_option("--seed", o.seed, "Seed of the Monte Carlo (default 1; the same seed, the same draws)")
                      ->group(kGroup);
  o.draws_option = app.add_option("--draws", o.draws, "Draws of the Monte Carlo (default 10000; 0 turns it off)")
                       ->check(CLI::Range(std::size_t{0}, std::size_t{1000000}))
                       ->group(kGroup);
  if (measured) {
    app.add_flag("--no-measured", o.no_measured,
                 "Do not take power, effective utilization and incident rate from the logs (presets and defaults)")
        ->group(kGroup);
    app.add_option("--incident-prior-hours", o.incident_prior_hours,
                   "Hours of use the prior incident rate counts as when combined with the incidents counted in the\n"
                   "logs: rate = (incidents + prior_rate x H) / (hours observed + H). Default 720 (a month);\n"
                   "0 uses the raw measured rate. Example: --incident-prior-hours 0")
        ->check(CLI::Range(0.0, 1e7))
        ->group(kGroup);
    app.add_option("--min-usage-span", o.min_usage_span_days,
                   "Days the GPU samples must span before their busy share is taken as the monthly usage\n"
                   "(default 7: a week holds the weekly rhythm of use). Shorter logs leave the usage unknown and\n"
                   "the answer is the usage threshold. Example: --min-usage-span 28")
        ->check(CLI::Range(0.0, 3660.0))
        ->group(kGroup);
  }
}

std::shared_ptr<CostSetup> make_cost_setup(const CostCliOptions& o) {
  auto setup = std::make_shared<CostSetup>();
  setup->catalog = cost::load_presets(o.preset_files, o.catalog_files);
  setup->request = make_request(o);
  setup->request.incident_prior_hours = o.incident_prior_hours;
  setup->request.min_usage_span_days = o.min_usage_span_days;
  setup->measured = !o.no_measured;
  cost::CostQuery q;
  (void)cost::resolve_inputs(setup->catalog, setup->request, &q);  // unknown presets, bad config: say so now
  return setup;
}

std::shared_ptr<const cost::CostResult> compute_cost(
    const CostCliOptions& o, const FeatureSet* features, const std::vector<std::string>& detected_gpus,
    const std::vector<std::pair<std::string, double>>& detected_power_limits_w) {
  const auto setup = make_cost_setup(o);
  setup->request.detected_gpus = detected_gpus;
  setup->request.detected_power_limits_w = detected_power_limits_w;
  return cost::CostStage(*setup).run(nullptr, features);
}

}  // namespace gpucost::cli
