// `gpucost offers GPU`: the catalogs' offers for one GPU, cheapest first, with their sources.
#include "gpucost/cost/offers.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/wait.h>

#include <cstdio>
#include <stdexcept>
#include <string>

#include "gpucost/cost/catalog.hpp"

namespace gpucost::cost {
namespace {

std::vector<std::string> names(const std::vector<const CloudOffer*>& offers) {
  std::vector<std::string> out;
  for (const CloudOffer* o : offers) out.push_back(o->name);
  return out;
}

TEST(CostOffers, H200OffersAreDatedAndCheapestFirstForEachGpuCount) {
  const auto offers = find_offers(builtin_presets(), parse_offer_query("h200"));
  // One GPU: RunPod Community 3.59, Spheron 4.54, RunPod Secure 4.59; then the 8-GPU AWS machine.
  EXPECT_EQ(names(offers), (std::vector<std::string>{"runpod-h200", "spheron-h200", "runpod-h200-secure",
                                                     "aws-p5en.48xlarge"}));
  for (const CloudOffer* o : offers) EXPECT_EQ(o->seen.size(), 10u) << o->name;
  // GPU:COUNT as SkyPilot writes it.
  EXPECT_EQ(names(find_offers(builtin_presets(), parse_offer_query("H200:8"))),
            (std::vector<std::string>{"aws-p5en.48xlarge"}));
}

TEST(CostOffers, AModelTakesItsVariantsAndNamesAreForgiving) {
  const PresetCatalog& c = builtin_presets();
  const auto a100 = find_offers(c, parse_offer_query("a100"));
  bool plain = false, sxm80 = false, pcie80 = false;
  for (const CloudOffer* o : a100) {
    plain = plain || o->accelerator == "A100";
    sxm80 = sxm80 || o->accelerator == "A100-80GB";
    pcie80 = pcie80 || o->accelerator == "A100-80GB-PCIe";
  }
  EXPECT_TRUE(plain && sxm80 && pcie80);
  for (const CloudOffer* o : find_offers(c, parse_offer_query("a100-80gb"))) EXPECT_EQ(o->accelerator, "A100-80GB");
  // `a10` is the A10, not the A100 nor the A10G.
  for (const CloudOffer* o : find_offers(c, parse_offer_query("a10"))) EXPECT_EQ(o->accelerator, "A10") << o->name;
  EXPECT_EQ(names(find_offers(c, parse_offer_query("4090"))), names(find_offers(c, parse_offer_query("RTX-4090"))));
  EXPECT_EQ(names(find_offers(c, parse_offer_query("rtx 4090"))).front(), "runpod-rtx-4090");  // 0.34 < 0.45
  // No GPU: every offer.
  EXPECT_EQ(find_offers(c, OfferQuery{}).size(), c.cloud.size());
}

TEST(CostOffers, AnUnknownGpuOrCountSaysWhatThereIs) {
  try {
    find_offers(builtin_presets(), parse_offer_query("v100"));
    FAIL() << "an unknown GPU was accepted";
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("no offer in the catalogs is of GPU 'v100'"), std::string::npos) << m;
    for (const char* known : {"H200", "RTX4090", "A100-80GB", "T4"}) EXPECT_NE(m.find(known), std::string::npos) << m;
  }
  try {
    find_offers(builtin_presets(), parse_offer_query("h100:4"));
    FAIL() << "a count no offer has was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("have 1, 8 GPUs"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_offer_query("h100:0"), std::invalid_argument);
  EXPECT_THROW(parse_offer_query("h100:eight"), std::invalid_argument);
}

TEST(CostOffers, JsonCsvAndTableCarryEveryFieldWithTheObservationDate) {
  const PresetCatalog& c = builtin_presets();
  const OfferQuery q = parse_offer_query("a10");
  const auto offers = find_offers(c, q);
  simdjson::dom::parser p;
  const std::string json = render_offers(offers, q, "json");
  simdjson::dom::element doc = p.parse(json);
  EXPECT_EQ(std::string_view(doc["gpu"]), "a10");
  EXPECT_TRUE(doc["count"].is_null());
  bool seed = false;
  for (simdjson::dom::element o : doc["offers"]) {
    if (std::string_view(o["name"]) == "alibaba-a10-seed") {
      seed = true;
      EXPECT_TRUE(o["observed_on"].is_null());  // undated: null, not a made-up date
      EXPECT_EQ(std::string_view(o["source_kind"]), "unverified");
      EXPECT_EQ(std::string_view(o["currency"]), "CNY");
      EXPECT_EQ(double(o["on_demand"]), 3.28);
      EXPECT_EQ(double(o["cold_start_s"]), 117);
    }
    if (std::string_view(o["name"]) == "lambda-1x-a10") {
      EXPECT_EQ(std::string_view(o["observed_on"]), "2026-09-20");
      EXPECT_EQ(double(o["billing_increment_s"]), 60);
      EXPECT_TRUE(o["spot"].is_null());
    }
  }
  EXPECT_TRUE(seed);
  const std::string csv = render_offers(offers, q, "csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "name,provider,accelerator,accelerator_count,region,currency,on_demand,spot,committed,billing_increment_s,"
            "minimum_billing_s,cold_start_s,cold_start_source,source_kind,observed_on,source");
  EXPECT_NE(csv.find("lambda-1x-a10,Lambda,A10,1,us,USD,1.29,,,60,60,117,"), std::string::npos) << csv;
  const std::string table = render_offers(offers, q, "table");
  EXPECT_NE(table.find("OBSERVED"), std::string::npos);
  EXPECT_NE(table.find("undated"), std::string::npos);
  EXPECT_NE(table.find("Sources:\n  [1] "), std::string::npos) << table;
  // An offer without a cold start of its own shows the model's default, named as such.
  PresetCatalog mine = c;
  load_catalog_csv(mine,
                   "InstanceType,AcceleratorName,Price,Provider,Currency,Source,ObservedOn\nx,A10,1,P,USD,s,2026-01-01\n",
                   "m.csv");
  const auto with_new = find_offers(mine, q);
  EXPECT_NE(render_offers(with_new, q, "table").find("117 s (default)"), std::string::npos);
  EXPECT_NE(render_offers(with_new, q, "csv").find("default cloud.cold_start_s: "), std::string::npos);
}

struct CliResult {
  int rc = -1;
  std::string out;
};
CliResult gpucost(const std::string& args) {
  CliResult r;
  FILE* p = ::popen((std::string(GPUCOST_BINARY) + " " + args + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(CostOffers, TheCommandListsH200OffersAndRefusesAnUnknownGpuWithExitTwo) {
  const CliResult ok = gpucost("offers h200");
  ASSERT_EQ(ok.rc, 0) << ok.out;
  EXPECT_NE(ok.out.find("runpod-h200"), std::string::npos) << ok.out;
  const CliResult bad = gpucost("offers v100");
  EXPECT_EQ(bad.rc, 2) << bad.out;
  EXPECT_NE(bad.out.find("the GPUs they have: "), std::string::npos) << bad.out;
  const CliResult help = gpucost("offers --help");
  EXPECT_EQ(help.rc, 0);
  EXPECT_NE(help.out.find("gpucost offers H100:8"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace gpucost::cost
