// The catalog itself: sequential unique ids, complete fields, the names other modules read, the
// generated docs/features.md, the feature count the other docs state, and null-with-reason
// wherever a source is missing. No test states the count: the catalog is its one source.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "gpucost/pipeline/pipeline.hpp"
#include "timeline_builder.hpp"

namespace gpucost {
namespace {

using namespace test;

bool snake_case(std::string_view s) {
  if (s.empty() || !std::islower(static_cast<unsigned char>(s.front()))) return false;
  for (char c : s)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_')) return false;
  return s.back() != '_' && s.find("__") == std::string_view::npos;
}

// The number of a public id (`F017`: 17), or -1 when it is not `F` and three digits.
int id_number(std::string_view id) {
  if (id.size() != 4 || id[0] != 'F') return -1;
  int n = 0;
  for (char c : id.substr(1)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

// Ids are unique and increasing, not sequential: a retired id leaves a gap and is not reused.
TEST(FeatureCatalog, HasUniqueIncreasingIdsAndCompleteFields) {
  const auto cat = feature_catalog();
  ASSERT_FALSE(cat.empty());
  ASSERT_EQ(cat.size(), kFeatureCount);
  std::set<std::string_view> names;
  int previous = 0;
  for (std::size_t i = 0; i < cat.size(); ++i) {
    const auto& d = cat[i];
    EXPECT_GT(id_number(d.id), previous) << d.id << " after F" << previous;
    previous = id_number(d.id);
    EXPECT_EQ(d.id, feature_code(static_cast<FeatureId>(i)));
    EXPECT_EQ(d.name, feature_name(static_cast<FeatureId>(i)));
    EXPECT_EQ(&feature_def(static_cast<FeatureId>(i)), &d);
    EXPECT_TRUE(snake_case(d.name)) << d.id << " " << d.name;
    EXPECT_TRUE(names.insert(d.name).second) << "duplicate name " << d.name;
    EXPECT_FALSE(d.unit.empty()) << d.id;
    EXPECT_FALSE(d.sources.empty()) << d.id;
    EXPECT_GT(d.definition.size(), 30u) << d.id << ": a definition must be precise enough to recompute";
    EXPECT_NE(layer_name(d.layer), "?") << d.id;
    EXPECT_EQ(feature_index(d.id), i);
    EXPECT_EQ(feature_index(d.name), i);
  }
  EXPECT_EQ(feature_index("no_such_feature"), kNoFeature);
}

// A retired feature's id and name are never used again, and new ids come after it.
TEST(FeatureCatalog, NeverReusesARetiredIdOrName) {
  std::set<std::string_view> live(feature_ids::kCodes.begin(), feature_ids::kCodes.end());
  live.insert(feature_ids::kNames.begin(), feature_ids::kNames.end());
  const int last = id_number(feature_ids::kCodes.back());
  for (std::size_t i = 0; i < feature_ids::kRetiredCodes.size(); ++i) {
    EXPECT_FALSE(live.count(feature_ids::kRetiredCodes[i])) << feature_ids::kRetiredCodes[i] << " is retired";
    EXPECT_FALSE(live.count(feature_ids::kRetiredNames[i])) << feature_ids::kRetiredNames[i] << " is retired";
    EXPECT_LT(id_number(feature_ids::kRetiredCodes[i]), last) << "a new feature gets an id after the retired ones";
  }
}

// Code names a feature by FeatureId (a misspelt name does not compile); its public id (`"F017"`)
// is written only in the table of feature_ids.hpp. A string literal holding one elsewhere in the
// sources would be a lookup that a typo or a renumbering turns silently into a null.
TEST(FeatureCatalog, NoPublicIdLiteralOutsideTheTable) {
  namespace fs = std::filesystem;
  const fs::path root = GPUCOST_SOURCE_DIR;
  const std::regex literal(R"re("F[0-9]{3}")re");
  std::size_t files = 0;
  for (const char* dir : {"src", "include", "apps"}) {
    if (!fs::exists(root / dir)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      if (!e.is_regular_file()) continue;
      const auto ext = e.path().extension();
      if (ext != ".cpp" && ext != ".hpp" && ext != ".in") continue;
      ++files;
      std::ifstream in(e.path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n)
        EXPECT_FALSE(std::regex_search(line, literal)) << e.path().lexically_relative(root).string() << ":" << n << ": " << line;
    }
  }
  EXPECT_GT(files, 50u);
}

// Issue 14: every feature says which decision it informs: the cost verdict, reliability
// (maintenance, what to fix) or capacity (what the machine can take on).
TEST(FeatureCatalog, EveryDefinitionNamesTheDecisionItInforms) {
  for (const auto& d : feature_catalog()) {
    bool names = d.definition.find("Informs: ") != std::string::npos;
    for (const char* tag : {"(cost", "(reliability", "(capacity"}) names = names || d.definition.find(tag) != std::string::npos;
    EXPECT_TRUE(names) << d.id << " " << d.name << " names no decision (cost, reliability, capacity)";
  }
}

TEST(FeatureCatalog, CoversEveryLayer) {
  std::set<Layer> layers;
  for (const auto& d : feature_catalog()) layers.insert(d.layer);
  EXPECT_EQ(layers.size(), 6u);
}

TEST(FeatureCatalog, KeepsTheSeedIdsAndTheAgreedNames) {
  const auto cat = feature_catalog();
  // The seed's public ids, as users and saved reports know them: this test is their record.
  EXPECT_EQ(cat[feature_index("F001")].name, "gpu_util_heat_decay_pct");
  EXPECT_EQ(cat[feature_index("F002")].name, "gpu_idle_fraction");
  EXPECT_EQ(cat[feature_index("F003")].name, "launch_queue_fraction");
  EXPECT_EQ(cat[feature_index("F005")].name, "ac_switches_per_hour");
  EXPECT_EQ(feature_code(FeatureId::gpu_busy_s), "F017");
  EXPECT_EQ(feature_code(FeatureId::gpu_power_mean_w), "F024");
  for (auto name : {"gpu_samples", "gpu_sampled_s", "gpu_util_mean_pct", "gpu_idle_fraction", "gpu_power_mean_w",
                    "gpu_energy_kwh", "gpu_temp_max_c", "gpu_time_above_temp_s", "xid_events", "ac_switches",
                    "ac_switches_per_hour", "lid_closes", "suspends", "suspended_s", "launch_queue_fraction",
                    "power_event_loss_fraction", "effective_utilization", "incidents_per_hour"})
    EXPECT_NE(feature_index(name), kNoFeature) << name;
}

TEST(FeatureCatalog, JsonRenderingListsEveryFeatureWithAllFields) {
  const std::string json = render_feature_catalog("json");
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS);
  simdjson::dom::array arr;
  ASSERT_EQ(doc.get_array().get(arr), simdjson::SUCCESS);
  std::set<std::string> ids;
  for (auto obj : arr) {
    for (const char* key : {"id", "name", "unit", "layer", "scope", "sources", "definition"}) {
      std::string_view v;
      ASSERT_EQ(obj[key].get_string().get(v), simdjson::SUCCESS) << key;
      EXPECT_FALSE(v.empty()) << key;
    }
    ids.insert(std::string(obj["id"].get_string().value()));
  }
  EXPECT_EQ(ids.size(), feature_catalog().size());
}

TEST(FeatureCatalog, CsvAndTableHaveARowPerFeature) {
  const std::string csv = render_feature_catalog("csv");
  EXPECT_EQ(csv.rfind("id,name,unit,layer,scope,sources,definition\n", 0), 0u);
  EXPECT_NE(csv.find("\nF137,idle_energy_fraction,ratio,derived,per_gpu,"), std::string::npos);
  const std::string table = render_feature_catalog("table");
  EXPECT_EQ(static_cast<std::size_t>(std::count(table.begin(), table.end(), '\n')), feature_catalog().size() + 1);
  EXPECT_THROW(render_feature_catalog("yaml"), std::invalid_argument);
}

TEST(FeatureCatalog, DocsFeaturesMdIsCurrent) {
  const std::string path = std::string(GPUCOST_SOURCE_DIR) + "/docs/features.md";
  const std::string expected = render_feature_catalog("md");
  if (std::getenv("GPUCOST_REGENERATE_DOCS")) std::ofstream(path, std::ios::binary) << expected;
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " is missing";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_TRUE(ss.str() == expected)
      << "docs/features.md is stale: run `./build/gpucost features --format md -o docs/features.md` "
         "(or GPUCOST_REGENERATE_DOCS=1 ./build/tests/gpucost_tests --gtest_filter='FeatureCatalog.Docs*')";
  // Every feature appears as a row.
  for (const auto& d : feature_catalog()) EXPECT_NE(ss.str().find(fmt::format("| {} | `{}` |", d.id, d.name)), std::string::npos);
}

// README and the docs state the feature count in prose (`the N features`, `F001..FNNN`); the
// catalog decides it, so a feature added or removed fails here until the prose follows.
TEST(FeatureCatalog, DocsStateTheCatalogsFeatureCount) {
  const std::size_t n = feature_catalog().size();
  const std::string last_id = fmt::format("F{:03}", n);
  std::vector<std::filesystem::path> docs{std::filesystem::path(GPUCOST_SOURCE_DIR) / "README.md"};
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(GPUCOST_SOURCE_DIR) / "docs"))
    if (e.path().extension() == ".md") docs.push_back(e.path());
  const std::regex count(R"((\d+)\s+features\b)"), range(R"(F001\s*(?:\.\.|-|–|to)\s*(F\d{3}))");
  std::size_t statements = 0;
  for (const auto& path : docs) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    for (std::sregex_iterator it(text.begin(), text.end(), count), end; it != end; ++it, ++statements)
      EXPECT_EQ(std::stoul((*it)[1].str()), n) << path << ": `" << it->str() << "`";
    for (std::sregex_iterator it(text.begin(), text.end(), range), end; it != end; ++it, ++statements)
      EXPECT_EQ((*it)[1].str(), last_id) << path << ": `" << it->str() << "`";
  }
  EXPECT_GT(statements, 2u);  // README's and docs/features.md's statements at least are read
}

TEST(FeatureCatalog, EmptyTimelineGivesNullsWithReasonsNeverZero) {
  const FeatureSet fs = run_features(TimelineBuilder().build());
  ASSERT_EQ(fs.host.size(), feature_catalog().size());
  EXPECT_TRUE(fs.gpus.empty());
  for (std::size_t i = 0; i < fs.host.size(); ++i) {
    EXPECT_FALSE(fs.host[i].value) << feature_catalog()[i].name << " = " << *fs.host[i].value;
    EXPECT_FALSE(fs.host[i].reason.empty()) << feature_catalog()[i].name;
  }
}

// A timeline with every source and a little of everything: every feature has a value with evidence
// or a null with a reason, on the host and per GPU.
TEST(FeatureCatalog, EveryValueHasEvidenceAndEveryNullAReason) {
  TimelineBuilder b;
  const auto dmon = b.file("dmon.txt", FormatId::dmon);
  const auto kern = b.file("kern.log", FormatId::syslog);
  const auto ps = b.file("ps.txt", FormatId::ps);
  const auto pmon = b.file("pmon.txt", FormatId::pmon);
  b.file("smi-q.txt", FormatId::nvidia_smi_q);
  for (int i = 0; i < 120; ++i) {
    const double sm = i % 3 ? 90 : 0, temp = 60 + i * 0.25;
    b.sample(dmon, at(i), 0, {{GpuMetric::sm_pct, sm}, {GpuMetric::gpu_temp_c, temp}, {GpuMetric::power_w, 100 + i},
                              {GpuMetric::pclk_mhz, 1800 - i}, {GpuMetric::fb_mb, 1000}, {GpuMetric::pviol_pct, 0},
                              {GpuMetric::tviol, 0}, {GpuMetric::sbecc, 0}, {GpuMetric::rxpci_mbs, 10}});
    b.sample(dmon, at(i), 1, {{GpuMetric::sm_pct, 50}, {GpuMetric::gpu_temp_c, 70}, {GpuMetric::power_w, 80}});
  }
  b.event(kern, at(30), EventKind::xid, 79, "0000:01:00", "NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.");
  b.event(kern, at(31), EventKind::xid, 13, "0000:02:00");
  b.event(kern, at(40), EventKind::ac_offline);
  b.event(kern, at(60), EventKind::ac_online);
  b.event(kern, at(70), EventKind::driver_error);
  b.process(ps, at(0), 0, 1, 0.1, 0.1, "/sbin/init");
  b.process(ps, at(0), 0, 100, 95, 10, "python train.py", "R");
  b.process(pmon, at(0), 0, 100, std::nullopt, std::nullopt, "python", "", 0, 90);
  GpuDevice d0;
  d0.index = 0;
  d0.pci_bus = "0000:01:00";
  d0.pcie_width_current = 8;
  d0.pcie_width_max = 16;
  b.device(d0);
  const FeatureSet fs = run_features(b.build());
  ASSERT_EQ(fs.gpus, (std::vector<int>{0, 1}));
  const auto cat = feature_catalog();
  std::size_t values = 0;
  auto check = [&](const FeatureValue& v, std::string_view name, std::string_view scope) {
    if (v.value) {
      ++values;
      EXPECT_FALSE(v.evidence.empty()) << name << " " << scope;
      EXPECT_TRUE(v.reason.empty()) << name << " " << scope;
      EXPECT_TRUE(std::isfinite(*v.value)) << name << " " << scope;
    } else {
      EXPECT_FALSE(v.reason.empty()) << name << " " << scope;
    }
  };
  for (std::size_t i = 0; i < cat.size(); ++i) {
    check(fs.host[i], cat[i].name, "host");
    for (std::size_t k = 0; k < fs.gpus.size(); ++k) check(fs.per_gpu[k][i], cat[i].name, "gpu");
  }
  EXPECT_GT(values, 150u);
}

// The evidence is deterministic: the same timeline gives the same text.
TEST(FeatureCatalog, EvidenceIsDeterministicAndNamesTheFirstLine) {
  TimelineBuilder b;
  const auto kern = b.file("logs/dmesg.txt", FormatId::dmesg);
  b.event(kern, at(5), EventKind::xid, 31);
  b.event(kern, at(9), EventKind::xid, 13);
  const Timeline t = b.build();
  const FeatureSet a = run_features(t), c = run_features(t);
  EXPECT_EQ(host(a, "xid_events").evidence, host(c, "xid_events").evidence);
  EXPECT_EQ(host(a, "xid_events").evidence, "2 xid events; first logs/dmesg.txt:1");
}

// On a real directory, a feature none of whose sources is present is null, never 0.
TEST(FeatureCatalog, RealDirectoryHasNoZeroWhereTheSourceIsMissing) {
  PipelineResult r;
  run_pipeline(std::string(GPUCOST_TEST_DATA) + "/real", PipelineOptions{}, r);
  std::set<std::string> present;
  for (const auto& f : r.timeline.files) {
    if (f.format == FormatId::unknown) continue;
    std::string n(format_name(f.format));
    if (n.rfind("journal", 0) == 0) n = "journal";
    present.insert(n);
  }
  ASSERT_FALSE(present.empty());
  const auto cat = feature_catalog();
  std::size_t checked = 0;
  for (std::size_t i = 0; i < cat.size(); ++i) {
    bool any = false;
    std::string_view s = cat[i].sources;
    std::string token;
    for (std::size_t p = 0; p <= s.size(); ++p) {
      if (p < s.size() && (std::isalnum(static_cast<unsigned char>(s[p])) || s[p] == '_')) {
        token += s[p];
        continue;
      }
      if (present.count(token)) any = true;
      token.clear();
    }
    if (any) continue;
    ++checked;
    EXPECT_FALSE(r.features.host[i].value) << cat[i].name << " has a value without its source";
    EXPECT_FALSE(r.features.host[i].reason.empty()) << cat[i].name;
  }
  EXPECT_GT(checked, 0u);
}

}  // namespace
}  // namespace gpucost
