// The built-in presets (data/presets.json compiled in) and user preset files.
#include "gpucost/cost/presets.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace gpucost::cost {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(CostPresets, EmbeddedTextIsTheRepositoryFile) {
  EXPECT_EQ(embedded_presets_json(), read(std::string(GPUCOST_SOURCE_DIR) + "/data/presets.json"));
}

TEST(CostPresets, SeedArticleHoldsExactlyTheArticlesInputs) {
  const Scenario* s = builtin_presets().find_scenario("seed-article");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->currency, "CNY");
  auto v = [&](InputId id) { return s->values.at(id); };
  EXPECT_EQ(v(InputId::kPurchasePrice), 4299);
  EXPECT_EQ(v(InputId::kAmortizationHours), 24 * 30 * 8);
  EXPECT_EQ(v(InputId::kAmortizationMonths), 24);
  EXPECT_EQ(v(InputId::kPowerW), 115);
  EXPECT_EQ(v(InputId::kCoolingW), 22);
  EXPECT_EQ(v(InputId::kElectricityPrice), 0.62);
  EXPECT_DOUBLE_EQ(v(InputId::kIncidentsPerHour), 12.0 / 5760);
  EXPECT_DOUBLE_EQ(v(InputId::kHoursPerIncident), 47.0 / 60);
  EXPECT_EQ(v(InputId::kEngineerRate), 120);
  EXPECT_DOUBLE_EQ(v(InputId::kEffectiveUtilization), 1 - 0.193 - 0.023 - 0.0174);
  EXPECT_EQ(v(InputId::kFixedCostPerJob), 0);
  EXPECT_EQ(v(InputId::kHourlyRate), 3.28);
  EXPECT_EQ(v(InputId::kColdStartS), 117);
  EXPECT_EQ(v(InputId::kUtilization), 0.92);
  EXPECT_EQ(v(InputId::kRelativeSpeed), 1);
  EXPECT_EQ(s->values.size(), kInputCount);  // every input, nothing left to defaults
}

TEST(CostPresets, EveryEntryIsSourced) {
  const PresetCatalog& c = builtin_presets();
  for (const char* name : {"rtx-4060-laptop", "rtx-4070", "rtx-4080", "rtx-4090", "rtx-3090"})
    EXPECT_NE(c.find_local(name), nullptr) << name;
  for (const auto& g : c.local) {
    EXPECT_FALSE(g.label.empty()) << g.name;
    EXPECT_TRUE(g.power_w && g.throughput) << g.name;
    EXPECT_FALSE(g.price_source.empty() || g.power_source.empty() || g.throughput_source.empty()) << g.name;
  }
  int gpus_a10 = 0, gpus_l4 = 0, gpus_t4 = 0, gpus_a100 = 0, gpus_h100 = 0;
  for (const auto& o : c.cloud) {
    EXPECT_TRUE((o.hourly_rate && *o.hourly_rate > 0) || (o.spot_rate && *o.spot_rate > 0)) << o.name;
    EXPECT_FALSE(o.currency.empty() || o.source.empty()) << o.name;
    // Every price has the date it was observed at its source; only the seed article's is undated.
    EXPECT_TRUE(!o.seen.empty() || o.name == "alibaba-a10-seed") << o.name;
    EXPECT_TRUE(o.memory_bandwidth_gbs) << o.name;
    EXPECT_TRUE(o.throughput) << o.name;
    gpus_a10 += o.gpu.rfind("A10", 0) == 0 && o.gpu.find("A100") == std::string::npos;
    gpus_l4 += o.gpu == "L4";
    gpus_t4 += o.gpu == "T4";
    gpus_a100 += o.gpu == "A100";
    gpus_h100 += o.gpu.rfind("H100", 0) == 0;
  }
  EXPECT_GE(gpus_a10, 2);
  EXPECT_GE(gpus_l4, 2);
  EXPECT_GE(gpus_t4, 2);
  EXPECT_GE(gpus_a100, 2);
  EXPECT_GE(gpus_h100, 2);
  EXPECT_NE(c.find_local(c.default_local), nullptr);
  EXPECT_NE(c.find_cloud(c.default_cloud), nullptr);
  EXPECT_NE(c.find_currency("CNY"), nullptr);
  EXPECT_NE(c.find_currency("USD"), nullptr);
}

TEST(CostPresets, UserFileAddsAndReplacesEntries) {
  const PresetCatalog c = load_presets({std::string(GPUCOST_TEST_DATA) + "/cost/presets/extra.json"});
  ASSERT_NE(c.find_local("my-4090"), nullptr);
  EXPECT_EQ(*c.find_local("my-4090")->purchase_price, 1200);
  ASSERT_NE(c.find_cloud("aws-g6.xlarge"), nullptr);
  EXPECT_EQ(*c.find_cloud("aws-g6.xlarge")->hourly_rate, 0.6);  // replaced
  EXPECT_EQ(c.cloud.size(), builtin_presets().cloud.size());    // not duplicated
  EXPECT_NE(c.find_local("rtx-4090"), nullptr);                 // built-ins kept
}

TEST(CostPresets, MalformedFilesAreUsageErrorsNamingFileAndKey) {
  PresetCatalog c;
  try {
    c.load_json("{\"local\": [{\"name\": \"x\", \"power_watts\": 3}]}", "mine.json");
    FAIL() << "a misspelt numeric key must be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("mine.json: local[x].power_watts"), std::string::npos) << e.what();
  }
  EXPECT_THROW(c.load_json("{\"local\": [", "bad.json"), std::invalid_argument);
  EXPECT_THROW(c.load_json("{\"cloud\": [{\"name\": \"y\", \"hourly_rate\": 1}]}", "nocur.json"), std::invalid_argument);
  EXPECT_THROW(c.load_json("{\"scenarios\": [{\"name\": \"s\", \"local\": {\"nope\": 1}}]}", "s.json"),
               std::invalid_argument);
  EXPECT_THROW(load_presets({"/nonexistent/presets.json"}), std::invalid_argument);
}

TEST(CostPresets, EveryNameFormNvidiaSmiPrintsFindsItsLocalPreset) {
  // nvidia-smi's Product Name (and the catalogs' labels) for each data-center part: model, memory,
  // form factor in any order and spelling; a laptop part is never the desktop card.
  const PresetCatalog& c = builtin_presets();
  const auto match = [&](const char* product) {
    const LocalGpu* g = c.match_local(product);
    return g ? g->name : std::string("(none)");
  };
  EXPECT_EQ(match("NVIDIA A100-SXM4-80GB"), "a100-sxm4-80gb");
  EXPECT_EQ(match("NVIDIA A100-SXM4-40GB"), "a100-sxm4-40gb");
  EXPECT_EQ(match("NVIDIA A100-PCIE-40GB"), "a100-pcie-40gb");
  EXPECT_EQ(match("NVIDIA A100 80GB PCIe"), "a100-pcie-80gb");
  EXPECT_EQ(match("NVIDIA H100 80GB HBM3"), "h100-sxm");  // how nvidia-smi names the SXM5 card
  EXPECT_EQ(match("NVIDIA H100 SXM5 80GB"), "h100-sxm");
  EXPECT_EQ(match("NVIDIA H100 PCIe"), "h100-pcie");
  EXPECT_EQ(match("NVIDIA H100 NVL"), "h100-nvl");
  EXPECT_EQ(match("NVIDIA H200"), "h200");
  EXPECT_EQ(match("NVIDIA L40S"), "l40s");
  EXPECT_EQ(match("NVIDIA L40"), "(none)");  // not the L40S
  EXPECT_EQ(match("NVIDIA RTX 6000 Ada Generation"), "rtx-6000-ada");
  EXPECT_EQ(match("NVIDIA GeForce RTX 4060 Laptop GPU"), "rtx-4060-laptop");
  EXPECT_EQ(match("NVIDIA GeForce RTX 4060"), "(none)");  // the desktop card is another GPU
  EXPECT_EQ(match("NVIDIA GeForce RTX 4090 Laptop GPU"), "(none)");
  EXPECT_EQ(match("NVIDIA GeForce RTX 4090"), "rtx-4090");
  EXPECT_EQ(match("NVIDIA GeForce RTX 4090 D"), "rtx-4090");  // a variant letter the parts do not know
  // The A100 SXM preset brings its spec sheet and the estimated price of an A100.
  const LocalGpu* a100 = c.find_local("a100-sxm4-80gb");
  ASSERT_NE(a100, nullptr);
  EXPECT_EQ(*a100->power_w, 400);
  EXPECT_EQ(*a100->memory_bandwidth_gbs, 2039);
  EXPECT_EQ(a100->price_source_kind, "estimate");
  const LocalGpu* nvl = c.find_local("h100-nvl");
  ASSERT_NE(nvl, nullptr);
  EXPECT_EQ(*nvl->memory_bandwidth_gbs, 3900);
  EXPECT_FALSE(nvl->purchase_price);  // none found: the verdict is a price
}

TEST(CostPresets, ListingNamesEveryEntry) {
  const std::string text = list_presets(builtin_presets());
  for (const auto& o : builtin_presets().cloud) EXPECT_NE(text.find(o.name), std::string::npos) << o.name;
  EXPECT_NE(text.find("seed-article"), std::string::npos);
}

}  // namespace
}  // namespace gpucost::cost
