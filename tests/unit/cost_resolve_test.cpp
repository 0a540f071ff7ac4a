// Where each input comes from: defaults < --preset < --local/--cloud < measured < config < cli.
#include "gpucost/cost/resolve.hpp"
#include "gpucost/features/feature_ids.hpp"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

namespace gpucost::cost {
namespace {

// The features a run computed: those given, the others absent.
FeatureLookup fake(std::map<FeatureId, FeatureReading> features) {
  return [features](FeatureId id) -> std::optional<FeatureReading> {
    auto it = features.find(id);
    if (it == features.end()) return std::nullopt;
    return it->second;
  };
}

// A reading of a catalog feature under its public id.
std::pair<const FeatureId, FeatureReading> reading(FeatureId id, std::optional<double> value, std::string reason = "") {
  return {id, {std::string(feature_code(id)), value, std::move(reason)}};
}
std::string measured(FeatureId id) { return "measured:" + std::string(feature_code(id)); }

const MeasuredInput& find(const std::vector<MeasuredInput>& v, InputId id) {
  for (const auto& m : v)
    if (m.input == id) return m;
  throw std::logic_error("missing");
}

TEST(CostResolve, GenericPairWhenNothingIsPicked) {
  const CostInputs in = resolve_inputs(builtin_presets(), ResolveRequest{});
  EXPECT_EQ(in.local_gpu, builtin_presets().default_local);
  EXPECT_EQ(in.cloud_offer, builtin_presets().default_cloud);
  EXPECT_EQ(in.currency, "USD");
  EXPECT_EQ(in[InputId::kPurchasePrice].origin, "preset:" + in.local_gpu);
  EXPECT_EQ(in[InputId::kHourlyRate].origin, "preset:" + in.cloud_offer);
  EXPECT_EQ(in[InputId::kAmortizationHours].origin, "default");
  EXPECT_EQ(in[InputId::kElectricityPrice].origin, "default");  // from the USD defaults
  // relative speed = the middle of the bracket: cloud / local throughput (compute-bound) and
  // memory bandwidth (bandwidth-bound), issue 34
  const auto* g = builtin_presets().find_local(in.local_gpu);
  const auto* o = builtin_presets().find_cloud(in.cloud_offer);
  EXPECT_DOUBLE_EQ(*in[InputId::kRelativeSpeed].value,
                   (*o->throughput / *g->throughput + *o->memory_bandwidth_gbs / *g->memory_bandwidth_gbs) / 2);
  EXPECT_EQ(in[InputId::kRelativeSpeed].origin, "preset:" + o->name + "/" + g->name);
}

TEST(CostResolve, ScenarioThenEntriesThenMeasuredThenConfigThenCli) {
  ResolveRequest rq;
  rq.selection.preset = "seed-article";
  rq.selection.local = "rtx-4060-laptop";  // same currency; its power replaces the scenario's
  rq.measured = {{InputId::kPowerW, 87.5, measured(FeatureId::gpu_power_mean_w), "mean GPU power", {}, {}},
                 {InputId::kEffectiveUtilization, 0.61, measured(FeatureId::gpu_idle_fraction), "idle", {}, {}},
                 {InputId::kIncidentsPerHour, std::nullopt, "", "not measured: no kernel log", {}, {}}};
  rq.config.values[static_cast<std::size_t>(InputId::kEffectiveUtilization)] = 0.7;
  rq.cli.values[static_cast<std::size_t>(InputId::kCoolingW)] = 10;
  const CostInputs in = resolve_inputs(builtin_presets(), rq);
  EXPECT_EQ(in[InputId::kPurchasePrice].origin, "preset:rtx-4060-laptop");
  EXPECT_EQ(in[InputId::kPowerW].origin, measured(FeatureId::gpu_power_mean_w));  // measured beats presets
  EXPECT_EQ(*in[InputId::kPowerW].value, 87.5);
  EXPECT_EQ(in[InputId::kEffectiveUtilization].origin, "config");  // config beats measured
  EXPECT_EQ(*in[InputId::kEffectiveUtilization].value, 0.7);
  EXPECT_NE(in[InputId::kEffectiveUtilization].note.find("replaces the measured 0.61"), std::string::npos);
  EXPECT_EQ(in[InputId::kCoolingW].origin, "cli");
  EXPECT_EQ(in[InputId::kIncidentsPerHour].origin, "preset:seed-article");  // fell back ...
  EXPECT_NE(in[InputId::kIncidentsPerHour].note.find("not measured: no kernel log"), std::string::npos);  // ... and says so
  EXPECT_EQ(in[InputId::kRelativeSpeed].origin, "preset:alibaba-a10-seed/rtx-4060-laptop");  // --local given
  EXPECT_EQ(in.currency, "CNY");
}

TEST(CostResolve, SeedArticleKeepsItsOwnRelativeSpeed) {
  ResolveRequest rq;
  rq.selection.preset = "seed-article";
  const CostInputs in = resolve_inputs(builtin_presets(), rq);
  EXPECT_EQ(*in[InputId::kRelativeSpeed].value, 1);
  EXPECT_EQ(in[InputId::kRelativeSpeed].origin, "preset:seed-article");
  for (const auto& s : input_specs()) EXPECT_EQ(in[s.id].origin, "preset:seed-article") << input_name(s.id);
}

TEST(CostResolve, ConfigSelectsPresetsAndCliWins) {
  ResolveRequest rq;
  rq.config.preset = "seed-article";
  rq.config.currency = "CNY";
  rq.cli.currency = "CNY";
  rq.config.job_hours = 3;
  rq.cli.target_premium = 0.2;
  CostQuery q;
  const CostInputs in = resolve_inputs(builtin_presets(), rq, &q);
  EXPECT_EQ(in.scenario, "seed-article");
  EXPECT_EQ(in.currency_origin, "cli");
  EXPECT_EQ(q.job_hours, 3);
  EXPECT_EQ(q.job_hours_origin, "config");
  EXPECT_EQ(q.target_premium, 0.2);
  EXPECT_EQ(q.target_premium_origin, "cli");
}

TEST(CostResolve, UnknownPresetNamesSayWhatTheyAre) {
  ResolveRequest rq;
  rq.selection.preset = "rtx-4090";
  try {
    resolve_inputs(builtin_presets(), rq);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("use --local rtx-4090"), std::string::npos) << e.what();
  }
  rq = {};
  rq.selection.cloud = "no-such-cloud";
  EXPECT_THROW(resolve_inputs(builtin_presets(), rq), std::invalid_argument);
}

TEST(CostResolve, LocalGpuWithoutPriceLeavesThePriceUnset) {
  ResolveRequest rq;
  rq.selection.preset = "seed-article";
  rq.selection.local = "l4";  // no public price: the scenario's laptop price must not be reused
  const CostInputs in = resolve_inputs(builtin_presets(), rq);
  // No price: 0 with origin unknown, and the verdict is stated as a price (never the laptop's 4299).
  EXPECT_TRUE(in.price_unknown);
  EXPECT_EQ(in[InputId::kPurchasePrice].origin, "unknown");
  EXPECT_EQ(*in[InputId::kPurchasePrice].value, 0);
  EXPECT_NE(in[InputId::kPurchasePrice].note.find("give --local-purchase-price"), std::string::npos);
}

TEST(CostResolve, ConfigFileParses) {
  const CostOverrides o = load_cost_config(std::string(GPUCOST_TEST_DATA) + "/cost/config/cny-laptop.json");
  EXPECT_EQ(o.currency, "CNY");
  EXPECT_EQ(o.values[static_cast<std::size_t>(InputId::kPowerW)], 90);
  EXPECT_EQ(o.values[static_cast<std::size_t>(InputId::kEffectiveUtilization)], 0.8);
  EXPECT_EQ(o.values[static_cast<std::size_t>(InputId::kHourlyRate)], 2.5);
  EXPECT_EQ(o.job_hours, 2);
  EXPECT_FALSE(o.values[static_cast<std::size_t>(InputId::kCoolingW)]);
}

TEST(CostResolve, ConfigErrorsNameFileAndKey) {
  try {
    load_cost_config(std::string(GPUCOST_TEST_DATA) + "/cost/config/typo.json");
    FAIL();
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("typo.json: local.power_watts: unknown input"), std::string::npos) << m;
    EXPECT_NE(m.find("power_w"), std::string::npos) << m;  // lists the right names
  }
  EXPECT_THROW(parse_cost_config("{\"local\": {\"power_w\": \"90\"}}", "t.json"), std::invalid_argument);
  EXPECT_THROW(parse_cost_config("{\"gpu\": 1}", "t.json"), std::invalid_argument);
  EXPECT_THROW(parse_cost_config("[1]", "t.json"), std::invalid_argument);
  EXPECT_THROW(load_cost_config("/nonexistent.json"), std::invalid_argument);
}

TEST(CostResolve, MeasuredFromTheCatalogFeatures) {
  const auto m = measured_inputs(fake({reading(FeatureId::gpu_power_mean_w, 91.0),
                                       reading(FeatureId::effective_utilization, 0.7),
                                       reading(FeatureId::incidents_per_hour, std::nullopt, "no kernel log")}));
  ASSERT_EQ(m.size(), 4u);  // the usage has a basis of its own (measure_usage), never a feature read alone
  EXPECT_EQ(find(m, InputId::kPowerW).origin, measured(FeatureId::gpu_power_mean_w));
  EXPECT_EQ(*find(m, InputId::kPowerW).value, 91.0);
  EXPECT_EQ(find(m, InputId::kEffectiveUtilization).origin, measured(FeatureId::effective_utilization));
  EXPECT_FALSE(find(m, InputId::kIncidentsPerHour).value);
  EXPECT_NE(find(m, InputId::kIncidentsPerHour).note.find("is null: no kernel log"), std::string::npos);
}

TEST(CostResolve, MeasuredUsageIsTheValueOnlyWhenItsBasisIsMeasured) {
  // A week of samples: the mean of the GPUs' monthly usage is the value, origin measured.
  ResolveRequest rq;
  Usage u;
  u.basis = UsageBasis::kMeasured;
  u.reason = "measured: a test";
  u.span_days = 8;
  u.gpus = {{0, 100, 200, 8 * 86400.0, 365.25}, {1, 50, 200, 8 * 86400.0, 182.625}};
  rq.usage = u;
  const CostInputs in = resolve_inputs(builtin_presets(), rq);
  EXPECT_EQ(in.usage.basis, UsageBasis::kMeasured);
  EXPECT_DOUBLE_EQ(*in[InputId::kHoursPerMonth].value, (365.25 + 182.625) / 2);
  EXPECT_EQ(in[InputId::kHoursPerMonth].origin, measured(FeatureId::gpu_busy_s));
  // Too short a span: unknown, no value, the reason kept.
  u.basis = UsageBasis::kUnknown;
  u.reason = "the GPU samples span 2 min";
  for (auto& g : u.gpus) g.hours_per_month.reset();
  rq.usage = u;
  const CostInputs short_in = resolve_inputs(builtin_presets(), rq);
  EXPECT_EQ(short_in.usage.basis, UsageBasis::kUnknown);
  EXPECT_FALSE(short_in[InputId::kHoursPerMonth].value);
  EXPECT_EQ(short_in.usage.reason, "the GPU samples span 2 min");
}

TEST(CostResolve, YourJobsThroughputOnBothGpusGivesTheSpeed) {
  // 410 samples/s locally, 1230 in the cloud: 3x, origin cli, and no spec-sheet range is drawn.
  ResolveRequest rq;
  rq.cli.local_throughput = 410;
  rq.cli.cloud_throughput = 1230;
  const CostInputs in = resolve_inputs(builtin_presets(), rq);
  EXPECT_DOUBLE_EQ(*in[InputId::kRelativeSpeed].value, 3.0);
  EXPECT_EQ(in[InputId::kRelativeSpeed].origin, "cli");
  EXPECT_FALSE(in.ranges[static_cast<std::size_t>(InputId::kRelativeSpeed)]);
  ASSERT_TRUE(in.speed.compute_bound);  // the bracket is still reported
  // Only one of the two is an error that says what to give.
  rq.cli.cloud_throughput.reset();
  EXPECT_THROW(resolve_inputs(builtin_presets(), rq), std::invalid_argument);
}

TEST(CostResolve, RtxStreetPricesAreCatalogRowsWithSpecs) {
  const LocalGpu* g = builtin_presets().find_local("rtx-5090-street");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->label, "NVIDIA GeForce RTX 5090");
  EXPECT_EQ(*g->purchase_price, 3059);
  EXPECT_EQ(g->price_observed_on, "2026-01-05");
  EXPECT_EQ(*g->memory_bandwidth_gbs, 1792);
  EXPECT_TRUE(g->power_w && g->throughput);
}

TEST(CostResolve, UsageIsUnknownUnlessMeasuredOrGiven) {
  // Generic pair, no logs: no usage is invented (the amortization's 8 h a day is not a usage).
  const CostInputs in = resolve_inputs(builtin_presets(), ResolveRequest{});
  EXPECT_FALSE(in[InputId::kHoursPerMonth].value);
  EXPECT_EQ(in[InputId::kHoursPerMonth].origin, "unknown");
  EXPECT_EQ(in.usage.basis, UsageBasis::kUnknown);
  EXPECT_NE(in[InputId::kAmortizationHours].note.find("assumed, since the usage is unknown"), std::string::npos);
  // Given on the command line: basis given, and the purchase is spread over the hours it implies.
  ResolveRequest rq;
  rq.cli.values[static_cast<std::size_t>(InputId::kHoursPerMonth)] = 40;
  const CostInputs in2 = resolve_inputs(builtin_presets(), rq);
  EXPECT_EQ(*in2[InputId::kHoursPerMonth].value, 40);
  EXPECT_EQ(in2.usage.basis, UsageBasis::kGiven);
  const double u = *in2[InputId::kEffectiveUtilization].value, months = *in2[InputId::kAmortizationMonths].value;
  EXPECT_DOUBLE_EQ(*in2[InputId::kAmortizationHours].value, 40 / u * months);
  // A range alone gives its middle as the point value, and the Monte Carlo draws from it.
  ResolveRequest rq3;
  parse_range("local.hours_per_month=20:60", "--range", rq3.cli);
  const CostInputs in3 = resolve_inputs(builtin_presets(), rq3);
  EXPECT_EQ(*in3[InputId::kHoursPerMonth].value, 40);
  EXPECT_EQ(in3.usage.basis, UsageBasis::kGiven);
  EXPECT_TRUE(in3.ranges[static_cast<std::size_t>(InputId::kHoursPerMonth)]);
  // More than a month holds is refused, as a value and as a range.
  EXPECT_THROW(parse_range("local.hours_per_month=20:800", "--range", rq3.cli), std::invalid_argument);
}

TEST(CostResolve, FeaturesNotComputedAreNotMeasured) {
  // Absent features are reported, not invented.
  const auto m = measured_inputs(fake({}));
  ASSERT_EQ(m.size(), 4u);
  for (const auto& x : m) {
    EXPECT_FALSE(x.value);
    EXPECT_NE(x.note.find("not computed in this run"), std::string::npos) << x.note;
  }
}

}  // namespace
}  // namespace gpucost::cost

namespace gpucost::cost {
namespace {

TEST(CostResolve, MatchesTheGpuTheLogsNameToALocalPreset) {
  const PresetCatalog& c = builtin_presets();
  ASSERT_NE(c.match_local("NVIDIA GeForce RTX 4060 Laptop GPU"), nullptr);
  EXPECT_EQ(c.match_local("NVIDIA GeForce RTX 4060 Laptop GPU")->name, "rtx-4060-laptop");
  EXPECT_EQ(c.match_local("NVIDIA GeForce RTX 4090")->name, "rtx-4090");
  EXPECT_EQ(c.match_local("GeForce RTX 3090")->name, "rtx-3090");
  // A laptop part is not its desktop namesake, and an unknown card matches nothing.
  EXPECT_EQ(c.match_local("NVIDIA GeForce RTX 4090 Laptop GPU"), nullptr);
  EXPECT_EQ(c.match_local("Tesla T4"), nullptr);
  EXPECT_EQ(c.match_local(""), nullptr);
}

TEST(CostResolve, DetectedGpuPicksTheLocalPresetAndACloudOfferInItsCurrency) {
  ResolveRequest rq;
  rq.detected_gpus = {"NVIDIA GeForce RTX 4060 Laptop GPU"};
  const CostInputs in = resolve_inputs(builtin_presets(), rq);
  EXPECT_EQ(in.local_gpu, "rtx-4060-laptop");
  // The preset is priced in CNY (the article's laptop); the generic cloud offer is in USD, so
  // the first offer priced in CNY is used instead of converting anything.
  EXPECT_EQ(in.currency, "CNY");
  EXPECT_EQ(builtin_presets().find_cloud(in.cloud_offer)->currency, "CNY");
  EXPECT_NE(in.selection_note.find("because the logs name 'NVIDIA GeForce RTX 4060 Laptop GPU'"), std::string::npos);
  // An explicit --local wins over what the logs say.
  rq.selection.local = "rtx-4090";
  EXPECT_EQ(resolve_inputs(builtin_presets(), rq).local_gpu, "rtx-4090");
}

TEST(CostResolve, UnmatchedGpuIsTheGpuTheLogsNameNotAnother) {
  ResolveRequest rq;
  rq.detected_gpus = {"Tesla T4"};
  const CostInputs in = resolve_inputs(builtin_presets(), rq);
  EXPECT_NE(in.local_gpu, builtin_presets().default_local);
  EXPECT_EQ(in.local_label, "Tesla T4");
  EXPECT_TRUE(in.local_gpu_from_logs);
  EXPECT_NE(in.selection_note.find("Tesla T4"), std::string::npos);
}

TEST(CostResolve, MeasuredIncidentRateIsWeighedAgainstThePrior) {
  ResolveRequest rq;
  rq.selection.preset = "seed-article";  // prior rate 12 / 5760 per hour
  MeasuredInput m{InputId::kIncidentsPerHour, 3 / 1.5, measured(FeatureId::incidents_per_hour), "3 incidents in 1.5 h", 3.0, 1.5};
  rq.measured = {m};
  rq.incident_prior_hours = 720;
  const CostInputs in = resolve_inputs(builtin_presets(), rq);
  // (3 + 12/5760 x 720) / (1.5 + 720) = (3 + 1.5) / 721.5
  EXPECT_NEAR(*in[InputId::kIncidentsPerHour].value, 4.5 / 721.5, 1e-12);
  EXPECT_EQ(in[InputId::kIncidentsPerHour].origin, measured(FeatureId::incidents_per_hour));
  EXPECT_NE(in[InputId::kIncidentsPerHour].note.find("(3 + "), std::string::npos);
  rq.incident_prior_hours = 0;  // the raw measured rate
  EXPECT_DOUBLE_EQ(*resolve_inputs(builtin_presets(), rq)[InputId::kIncidentsPerHour].value, 2.0);
}

TEST(CostResolve, IncidentCountAndExposureComeFromTheFeatures) {
  const auto measured = measured_inputs(fake({
      reading(FeatureId::incidents_per_hour, 2.0),
      reading(FeatureId::maintenance_incidents, 3.0),
      reading(FeatureId::gpu_sampled_s, 5400.0),
  }));
  const auto& m = find(measured, InputId::kIncidentsPerHour);
  ASSERT_TRUE(m.events && m.exposure_h);
  EXPECT_EQ(*m.events, 3);
  EXPECT_DOUBLE_EQ(*m.exposure_h, 1.5);
}

}  // namespace
}  // namespace gpucost::cost
