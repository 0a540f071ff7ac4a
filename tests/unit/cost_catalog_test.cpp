// Price catalogs (CSV with a source and a date on every row), exchange rates, and the cloud side
// they feed: spot with interruptions, billing granularity, storage and egress; a GPU the logs name
// that has no price.
#include "gpucost/cost/catalog.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "gpucost/cost/model.hpp"
#include "gpucost/cost/presets.hpp"
#include "gpucost/cost/resolve.hpp"

namespace gpucost::cost {
namespace {

constexpr const char* kCloudHeader =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Region,Price,SpotPrice,Provider,Currency,"
    "BillingIncrementS,Source,ObservedOn\n";

TEST(CostCatalog, CsvQuotingAndCurrencyCodes) {
  const auto rows = parse_csv("a,\"b,c\",\"say \"\"hi\"\"\"\r\n\n1,,3\n", "t.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][1], "b,c");
  EXPECT_EQ(rows[0][2], "say \"hi\"");
  EXPECT_EQ(rows[1][1], "");
  EXPECT_THROW(parse_csv("a,\"open\n", "t.csv"), std::invalid_argument);
  EXPECT_EQ(currency_code(" usd"), "USD");
  EXPECT_EQ(days_between("2026-06-04", "2026-12-01"), 180);
  EXPECT_EQ(days_between("2025-12-31", "2026-01-01"), 1);
  EXPECT_FALSE(days_between("June 2026", "2026-12-01"));
}

TEST(CostCatalog, SkyPilotLayoutRowsBecomeOffersWithSpecsFromTheAccelerator) {
  PresetCatalog c = builtin_presets();
  load_catalog_csv(c,
                   std::string(kCloudHeader) +
                       "g6e.xlarge,L40S,1,4,32,us-east-1,1.861,0.75,AWS,usd,1,https://example.org/aws,2026-11-30\n",
                   "mine.csv");
  const CloudOffer* o = c.find_cloud("aws-g6e.xlarge");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(*o->hourly_rate, 1.861);
  EXPECT_EQ(*o->spot_rate, 0.75);
  EXPECT_EQ(o->currency, "USD");  // codes compare without case
  EXPECT_EQ(o->seen, "2026-11-30");
  EXPECT_EQ(*o->billing_increment_s, 1);
  ASSERT_TRUE(o->throughput && o->memory_bandwidth_gbs);
  EXPECT_EQ(*o->throughput, 362.05);  // from the L40S accelerator entry
  EXPECT_EQ(*o->memory_bandwidth_gbs, 864);
  // A price without its source or date is refused, naming file, line and column.
  try {
    load_catalog_csv(c, std::string(kCloudHeader) + "x,L4,1,,,,1,,P,USD,,,2026-01-01\n", "mine.csv");
    FAIL() << "a price without a source must be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("mine.csv: line 2: Source"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_catalog_csv(c, std::string(kCloudHeader) + "x,L4,1,,,,1,,P,USD,,src,last week\n", "m.csv"),
               std::invalid_argument);
  EXPECT_THROW(load_catalog_csv(c, "Foo,Bar\n1,2\n", "m.csv"), std::invalid_argument);
}

TEST(CostCatalog, BuiltInPricesCarryTheirDatesIntoTheInputs) {
  ResolveRequest rq;
  rq.selection = {"", "rtx-4090", "runpod-rtx-4090"};
  const CostInputs in = resolve_inputs(builtin_presets(), rq);
  EXPECT_EQ(in.local_price_observed_on, "2022-09-20");
  EXPECT_EQ(in.cloud_price_observed_on, "2026-03-10");
  EXPECT_NE(in[InputId::kHourlyRate].note.find("on-demand price"), std::string::npos);
  EXPECT_NE(in[InputId::kHourlyRate].note.find("observed 2026-03-10"), std::string::npos);
  // A same-GPU rental: both sides are an RTX 4090, so both speed ratios are 1.
  EXPECT_DOUBLE_EQ(*in.speed.compute_bound, 1.0);
  EXPECT_DOUBLE_EQ(*in.speed.bandwidth_bound, 1.0);
}

TEST(CostCatalog, ThePickedOffersPriceIsAPointNotTheSpreadOfOffers) {
  // RTX 4090 on-demand: RunPod 0.34, Vast.ai 0.45 (USD). The offer picked has a dated price: the
  // Monte Carlo does not draw between the offers (that range would lie all above the value used,
  // and P(buy) would speak of another answer than the point's; issue 34). `offers` lists them.
  ResolveRequest rq;
  rq.selection = {"", "rtx-4090", "runpod-rtx-4090"};
  const CostInputs in = resolve_inputs(builtin_presets(), rq);
  EXPECT_FALSE(in.ranges[static_cast<std::size_t>(InputId::kHourlyRate)]);
  EXPECT_EQ(*in[InputId::kHourlyRate].value, 0.34);
  // A range the user gives is drawn.
  rq.cli.ranges[static_cast<std::size_t>(InputId::kHourlyRate)] = std::pair{0.34, 0.45};
  const CostInputs given = resolve_inputs(builtin_presets(), rq);
  const auto& r = given.ranges[static_cast<std::size_t>(InputId::kHourlyRate)];
  ASSERT_TRUE(r);
  EXPECT_EQ(r->origin, "cli");
}

TEST(CostCatalog, LargeCloudA100H100H200RowsAreSourcedDatedAndCountTheirGpus) {
  const PresetCatalog c = builtin_presets();
  for (const char* name : {"aws-p4d.24xlarge", "aws-p5.4xlarge", "aws-p5.48xlarge", "aws-p5en.48xlarge",
                           "gcp-a2-ultragpu-1g", "gcp-a3-highgpu-8g", "azure-nc24ads-a100-v4", "azure-nd96asr-v4",
                           "azure-nd96isr-h100-v5"}) {
    const CloudOffer* o = c.find_cloud(name);
    ASSERT_NE(o, nullptr) << name;
    EXPECT_NE(o->source.find("https://"), std::string::npos) << name;
    EXPECT_EQ(o->seen.size(), 10u) << name;  // YYYY-MM-DD
    EXPECT_TRUE(o->hourly_rate) << name;
  }
  // An 8-GPU instance: its price and its throughput are the whole instance's.
  const CloudOffer* p5 = c.find_cloud("aws-p5.48xlarge");
  EXPECT_EQ(p5->accelerator_count, 8);
  EXPECT_EQ(*p5->hourly_rate, 55.04);
  EXPECT_NEAR(*p5->throughput, 8 * 989.4, 1e-9);
  EXPECT_NEAR(*p5->memory_bandwidth_gbs, 8 * 3350.0, 1e-9);  // both ends of the speed bracket
  EXPECT_NE(p5->memory_bandwidth_source.find("x 8 GPUs"), std::string::npos);
  EXPECT_EQ(c.find_cloud("aws-p5.4xlarge")->accelerator_count, 1);
  EXPECT_EQ(*c.find_cloud("gcp-a3-highgpu-8g")->spot_rate, 41.60);
  // A row claiming no GPU is refused.
  PresetCatalog bad = builtin_presets();
  EXPECT_THROW(load_catalog_csv(bad, std::string(kCloudHeader) + "x,H100,0,1,1,r,1,,P,USD,1,src,2026-01-01\n", "z.csv"),
               std::invalid_argument);
}

TEST(CostCatalog, TheSameGpuRentalPickedIsAOneGpuOffer) {
  // The same-GPU rental picked for a GPU the logs name is a one-GPU offer, even when a machine of
  // eight is cheaper per instance.
  PresetCatalog c = builtin_presets();
  load_catalog_csv(c, std::string(kCloudHeader) + "big,H100,8,1,1,r,0.5,,P,USD,1,test row,2026-01-01\n", "t.csv");
  ResolveRequest logs;
  logs.detected_gpus = {"NVIDIA H100 80GB HBM3"};
  const CostInputs picked = resolve_inputs(c, logs);
  ASSERT_EQ(picked.local_gpu, "h100-sxm") << picked.selection_note;
  EXPECT_EQ(picked.cloud_offer, "runpod-h100-sxm") << picked.selection_note;
}

TEST(CostCatalog, ColdStartIsTheOffersWhenKnownElseTheStatedDefault) {
  ResolveRequest rq;
  rq.selection = {"", "h100-sxm", "aws-p5.4xlarge"};
  CostInputs in = resolve_inputs(builtin_presets(), rq);
  EXPECT_EQ(*in[InputId::kColdStartS].value, 117);
  EXPECT_EQ(in[InputId::kColdStartS].origin, "default");
  EXPECT_NE(in[InputId::kColdStartS].note.find("aws-p5.4xlarge has no measured cold start in the catalog"),
            std::string::npos)
      << in[InputId::kColdStartS].note;
  EXPECT_NE(in[InputId::kColdStartS].note.find("117 s"), std::string::npos);
  // A catalog row with ColdStartS gives that offer its own.
  PresetCatalog c = builtin_presets();
  load_catalog_csv(c,
                   "InstanceType,AcceleratorName,Price,Provider,Currency,ColdStartS,Source,ObservedOn\n"
                   "fast,H100,2,P,USD,45,test row,2026-01-01\n",
                   "t.csv");
  rq.selection = {"", "h100-sxm", "p-fast"};
  in = resolve_inputs(c, rq);
  EXPECT_EQ(*in[InputId::kColdStartS].value, 45);
  EXPECT_EQ(in[InputId::kColdStartS].origin, "preset:p-fast");
  EXPECT_EQ(in[InputId::kColdStartS].note, "catalog t.csv");
}

TEST(CostCatalog, ForeignMoneyNeedsAnExplicitDatedRate) {
  ResolveRequest rq;
  rq.selection = {"", "rtx-4060-laptop", "aws-g6.xlarge"};  // CNY price, USD offer
  CostInputs in = resolve_inputs(builtin_presets(), rq);
  EXPECT_THROW(validate(in, CostQuery{}), std::invalid_argument);
  rq.fx = parse_fx_csv("From,To,Rate,Source,ObservedOn\ncny,USD,0.14,https://example.org/fx,2026-11-30\n", "fx.csv");
  in = resolve_inputs(builtin_presets(), rq);
  EXPECT_NO_THROW(validate(in, CostQuery{}));
  EXPECT_NEAR(*in[InputId::kPurchasePrice].value, 4299 * 0.14, 1e-9);
  EXPECT_NE(in[InputId::kPurchasePrice].note.find("converted from 4299 CNY at 1 CNY = 0.14 USD"), std::string::npos)
      << in[InputId::kPurchasePrice].note;
  EXPECT_THROW(parse_fx_csv("From,To,Rate,Source,ObservedOn\nCNY,USD,0.14,,\n", "fx.csv"), std::invalid_argument);
}

CostInputs simple() {
  CostInputs in;
  in.currency = "EUR";
  for (const auto& s : input_specs()) in.set(s.id, 0, "test");
  in.set(InputId::kPurchasePrice, 1000, "test");
  in.set(InputId::kAmortizationHours, 1000, "test");
  in.set(InputId::kAmortizationMonths, 10, "test");
  in.set(InputId::kEffectiveUtilization, 0.5, "test");
  in.set(InputId::kHourlyRate, 4, "test");
  in.set(InputId::kColdStartS, 900, "test");
  in.set(InputId::kUtilization, 1, "test");
  in.set(InputId::kRelativeSpeed, 1, "test");
  in.set(InputId::kHoursPerMonth, 30, "test");
  in.set(InputId::kPsuEfficiency, 1, "test");
  in.set(InputId::kPue, 1, "test");
  return in;
}

TEST(CostCatalog, SpotInterruptionsBillingAndDataCosts) {
  // Spot: 0.05 interruptions per hour, a checkpoint every 30 min, a 120 s restart:
  // loss = 0.05 x (0.25 + 120/3600) = 0.0141667.
  PresetCatalog c = builtin_presets();
  load_catalog_csv(c,
                   std::string(kCloudHeader) + "box,RTX4090,1,,,,0.60,0.30,Pod,USD,60,https://example.org,2026-11-30\n",
                   "mine.csv");
  ResolveRequest rq;
  rq.selection = {"", "rtx-4090", "pod-box"};
  rq.cli.pricing = "spot";
  rq.cli.checkpoint_minutes = 30;
  rq.cli.interruptions_per_hour = 0.05;
  rq.cli.values[static_cast<std::size_t>(InputId::kColdStartS)] = 120;
  CostInputs in = resolve_inputs(c, rq);
  EXPECT_EQ(*in[InputId::kHourlyRate].value, 0.30);
  EXPECT_EQ(in.pricing, "spot");
  // The restart is the cold start as resolved before the command line: the offer's 117 s default.
  EXPECT_NEAR(*in[InputId::kInterruptionLoss].value, 0.05 * (0.25 + 117.0 / 3600), 1e-12);
  EXPECT_EQ(*in[InputId::kBillingIncrementS].value, 60);
  rq.cli.pricing = "committed";  // the row has none
  EXPECT_FALSE(resolve_inputs(c, rq)[InputId::kHourlyRate].value);

  // The terms by hand: 4 / (1 x (1 - 0.2) x (1 - 0.0141667) x 1) per effective hour; a job billed
  // per 60 s costs 4 x 60 / 2 / 3600 = 0.0333 more, plus 5 of storage and egress (20 GB-months
  // at 0.1 = 2, 30 GB out at 0.1 = 3).
  CostInputs s = simple();
  s.set(InputId::kInterruptionLoss, 0.05 * (0.25 + 120.0 / 3600), "test");
  s.set(InputId::kJobStallFraction, 0.2, "test");
  s.set(InputId::kBillingIncrementS, 60, "test");
  s.set(InputId::kStoragePriceGbMonth, 0.1, "test");
  s.set(InputId::kStorageGbMonths, 20, "test");
  s.set(InputId::kEgressPriceGb, 0.1, "test");
  s.set(InputId::kEgressGb, 30, "test");
  const CloudCost cc = cloud_cost(s);
  EXPECT_NEAR(cc.cost_per_effective_hour, 4 / (0.8 * (1 - 0.0141666666666667)), 1e-12);
  EXPECT_NEAR(cc.billing_rounding_cost, 4.0 * 60 / 2 / 3600, 1e-15);
  EXPECT_NEAR(cc.fixed_per_job, 1.0 + 4.0 * 60 / 2 / 3600 + 5, 1e-12);  // cold start 4 x 900 s = 1
  // The break-even uses the whole fixed cost: local 3 + 2 W vs cloud 6.0333 + 5.0718 W never cross.
  EXPECT_EQ(evaluate(s, CostQuery{}).break_even.verdict, Verdict::kLocalAlwaysCheaper);
}

TEST(CostCatalog, StorageAndEgressArePricedSeparatelyPerJob) {
  // The docs' example: 200 GB kept for a week at 0.08 per GB-month, 50 GB sent out at 0.09 per GB.
  CostInputs s = simple();
  const double gb_months = 200 * 7 / 30.4375;
  s.set(InputId::kStoragePriceGbMonth, 0.08, "test");
  s.set(InputId::kStorageGbMonths, gb_months, "test");
  s.set(InputId::kEgressPriceGb, 0.09, "test");
  s.set(InputId::kEgressGb, 50, "test");
  const CloudCost c = cloud_cost(s);
  EXPECT_NEAR(c.storage_cost_per_job, 3.679671, 1e-6);  // 200 x 7 / 30.4375 x 0.08
  EXPECT_NEAR(c.egress_cost_per_job, 4.5, 1e-12);       // 50 x 0.09
  EXPECT_NEAR(c.data_cost_per_job, 8.179671, 1e-6);
  EXPECT_NEAR(c.fixed_per_job, 1.0 + 8.179671, 1e-6);  // + the 900 s cold start at 4 per hour
  // A price without a quantity (or the reverse) costs nothing: both are 0 unless given.
  s.set(InputId::kEgressGb, 0, "test");
  EXPECT_NEAR(cloud_cost(s).egress_cost_per_job, 0, 0);
  EXPECT_NEAR(cloud_cost(s).data_cost_per_job, c.storage_cost_per_job, 1e-12);
  // The steps show each term with its inputs.
  const CostResult r = evaluate(s, CostQuery{});
  const auto step = [&](std::string_view name) {
    for (const auto& st : r.steps)
      if (st.name == name) return st;
    ADD_FAILURE() << "no step " << name;
    return Step{};
  };
  EXPECT_EQ(step("cloud.storage_cost_per_job").formula, "storage_price_gb_month * storage_gb_months");
  EXPECT_EQ(step("cloud.egress_cost_per_job").formula, "egress_price_gb * egress_gb");
  EXPECT_NEAR(*step("cloud.data_cost_per_job").value, c.storage_cost_per_job, 1e-12);
}

TEST(CostCatalog, StorageAndEgressDefaultToZeroAndComeFromTheOptions) {
  const PresetCatalog c = builtin_presets();
  ResolveRequest rq;
  CostInputs in = resolve_inputs(c, rq);
  for (InputId id : {InputId::kStoragePriceGbMonth, InputId::kStorageGbMonths, InputId::kEgressPriceGb,
                     InputId::kEgressGb}) {
    EXPECT_EQ(*in[id].value, 0) << input_name(id);
    EXPECT_EQ(in[id].origin, "default") << input_name(id);
  }
  EXPECT_EQ(input_flag(InputId::kStoragePriceGbMonth), "--cloud-storage-price-gb-month");
  EXPECT_EQ(spec(InputId::kEgressGb).alias, "--egress-gb");
  EXPECT_EQ(input_unit(InputId::kStoragePriceGbMonth, "USD"), "USD/GB-month");
  const CostOverrides o = parse_cost_config(
      R"({"cloud": {"storage_price_gb_month": 0.023, "storage_gb_months": 100, "egress_price_gb": 0.09, "egress_gb": 40}})",
      "cfg.json");
  rq.config = o;
  in = resolve_inputs(c, rq);
  EXPECT_EQ(in[InputId::kEgressGb].origin, "config");
  EXPECT_NEAR(cloud_cost(in).data_cost_per_job, 0.023 * 100 + 0.09 * 40, 1e-12);
  // The single input they replace is refused with what to give instead.
  try {
    parse_cost_config(R"({"cloud": {"data_cost_per_job": 5}})", "old.json");
    FAIL() << "data_cost_per_job was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("storage_price_gb_month x storage_gb_months"), std::string::npos) << e.what();
  }
}

TEST(CostCatalog, BilledHoursRoundUpToIncrementsAndTheMinimum) {
  EXPECT_DOUBLE_EQ(billed_hours(1.25, 3600, 0), 2.0);          // per hour: 1 h 15 min bills 2 h
  EXPECT_DOUBLE_EQ(billed_hours(1.25, 60, 0), 1.25);           // per minute: exact
  EXPECT_DOUBLE_EQ(billed_hours(61.5 / 3600, 60, 0), 120.0 / 3600);  // 61.5 s bills 2 min
  EXPECT_DOUBLE_EQ(billed_hours(10.0 / 3600, 1, 60), 60.0 / 3600);   // per second, 60 s minimum
  EXPECT_DOUBLE_EQ(billed_hours(0.5, 0, 0), 0.5);              // continuous
  // A 1 h job on the simple model: 900 s cold start + 1 h of work = 1.25 h of instance time at 4
  // per hour: per hour 2 h = 8, plus 5 of data = 13; per second it is the straight line's 5 + 5.
  CostInputs s = simple();
  s.set(InputId::kBillingIncrementS, 3600, "test");
  s.set(InputId::kEgressPriceGb, 0.5, "test");
  s.set(InputId::kEgressGb, 10, "test");
  EXPECT_DOUBLE_EQ(evaluate(s, CostQuery{}).break_even.cloud_job_cost_billed, 13.0);
  s.set(InputId::kBillingIncrementS, 1, "test");
  EXPECT_NEAR(evaluate(s, CostQuery{}).break_even.cloud_job_cost_billed, 10.0, 1e-12);
}

TEST(CostCatalog, AGpuWithoutAPriceGetsTheVerdictAsAPrice) {
  // The logs name an L40S: a data-center GPU with no public price. The local side is the L40S,
  // the cloud side the same GPU for rent, and the verdict is the price below which buying pays.
  ResolveRequest rq;
  rq.detected_gpus = {"NVIDIA L40S"};
  rq.cli.values[static_cast<std::size_t>(InputId::kHoursPerMonth)] = 400;
  const CostInputs in = resolve_inputs(builtin_presets(), rq);
  EXPECT_EQ(in.local_gpu, "l40s");
  EXPECT_EQ(in.cloud_offer, "runpod-l40s");
  EXPECT_TRUE(in.price_unknown);
  EXPECT_EQ(in[InputId::kPurchasePrice].origin, "unknown");
  const CostResult r = evaluate(in, CostQuery{});
  ASSERT_TRUE(r.break_even.max_purchase_price);
  // (0.79 / 0.92 - running) x 400 x 48 / (1 - 0.35) - 6250: by the model's own terms, with the
  // data-centre class's lifetime, resale share and host (at 200 h the host alone outweighs it).
  const double s = r.cloud.cost_per_effective_hour - r.local.running_per_effective_hour;
  EXPECT_NEAR(*r.break_even.max_purchase_price, s * 400 * 48 / (1 - 0.35) - 6250, 1e-6);
  EXPECT_EQ(r.buy.decision, BuyDecision::kDependsOnPrice);
  EXPECT_NE(r.buy.summary.find("depends on the price, which is unknown"), std::string::npos) << r.buy.summary;
  EXPECT_NE(r.buy.summary.find("(give --local-purchase-price)"), std::string::npos) << r.buy.summary;

  // A GPU no preset describes: the answer is about it (its name and power limit), not another GPU.
  ResolveRequest unknown;
  unknown.detected_gpus = {"NVIDIA Imaginary X1"};
  unknown.detected_power_limits_w = {{"NVIDIA Imaginary X1", 321.0}};
  const CostInputs u = resolve_inputs(builtin_presets(), unknown);
  EXPECT_TRUE(u.local_gpu_from_logs);
  EXPECT_EQ(u.local_label, "NVIDIA Imaginary X1");
  EXPECT_EQ(*u[InputId::kPowerW].value, 321.0);
  EXPECT_TRUE(u.price_unknown);
  EXPECT_NE(u.local_gpu, "rtx-4090");
}

}  // namespace
}  // namespace gpucost::cost
