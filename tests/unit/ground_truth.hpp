#pragma once
// Helpers of the ground-truth tests: truth.json read into plain structs (with simdjson, not the
// project's code), the whole pipeline run once per generated directory, and the check that a
// feature whose log source is missing is null with a reason.

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gpucost/features/features.hpp"
#include "gpucost/pipeline/pipeline.hpp"
#include "unit/sim_test_util.hpp"

namespace gpucost::ground_truth {

namespace fs = std::filesystem;
using Number = std::optional<double>;

/// One injected event of truth.json.
struct TruthEvent {
  std::string kind;
  std::optional<std::int64_t> code;
  std::optional<int> gpu;
  TimeNs ts = kNoTime;
  int boot = 0;  ///< 0 the simulated boot, 1 and 2 previous boots (kern.log.1, kern.log.2.gz)
  std::vector<std::string> sources;
  std::string message;
};

/// A truth container run (the figures F128-F130 are built from).
struct TruthContainer {
  Number start_latency_s;
};

/// truth.json, as plain values.
struct Truth {
  std::string scenario;
  std::vector<TruthEvent> events;
  std::map<std::string, Number> host;                ///< features.host
  std::vector<std::map<std::string, Number>> per_gpu;  ///< features.per_gpu (with "gpu")
  std::vector<std::pair<TimeNs, TimeNs>> suspends;     ///< begin, end
  std::vector<TimeNs> suspend_kernel_sleep_s;          ///< kernel_sleep_s per cycle, in ns
  std::map<std::string, std::int64_t> xid_by_class;
  std::map<std::string, std::int64_t> xid_by_code;
  Number gpu_idle_s, gpu_hot_s;
  std::vector<std::pair<std::int64_t, std::int64_t>> rows_and_idle_rows;  ///< per GPU
  std::vector<std::pair<TimeNs, TimeNs>> first_and_last_row;              ///< per GPU (kNoTime: none)
  std::vector<std::pair<TimeNs, TimeNs>> battery;
  std::int64_t container_starts = 0, cron_lines = 0;
  Number container_start_latency_mean_s;
  std::vector<TruthContainer> containers;
  std::size_t gpus = 0;
  /// nvidia-smi -q values per GPU (pcie_gen_current, pcie_gen_max, pcie_width_current, ...).
  std::vector<std::map<std::string, double>> gpu_specs;

  std::size_t count(std::string_view kind) const {
    return static_cast<std::size_t>(
        std::count_if(events.begin(), events.end(), [&](const TruthEvent& e) { return e.kind == kind; }));
  }
};

inline Number number(simdjson::dom::element e) {
  if (e.is_null()) return std::nullopt;
  return double(e);
}

inline Truth read_truth(const fs::path& dir) {
  simdjson::dom::parser parser;
  const simdjson::dom::element root = parser.parse(simdjson::padded_string(sim::testing::read_file(dir / "truth.json")));
  Truth t;
  t.scenario = std::string(std::string_view(root["scenario"]));
  for (simdjson::dom::element e : root["events"].get_array()) {
    TruthEvent ev;
    ev.kind = std::string(std::string_view(e["kind"]));
    if (!e["code"].is_null()) ev.code = std::int64_t(e["code"]);
    if (!e["gpu"].is_null()) ev.gpu = static_cast<int>(std::int64_t(e["gpu"]));
    ev.ts = std::int64_t(e["ts_ns"]);
    ev.boot = static_cast<int>(std::int64_t(e["boot"]));
    for (simdjson::dom::element s : e["sources"].get_array()) ev.sources.emplace_back(std::string_view(s));
    ev.message = std::string(std::string_view(e["message"]));
    t.events.push_back(std::move(ev));
  }
  for (auto [k, v] : root["features"]["host"].get_object()) t.host[std::string(k)] = number(v);
  for (simdjson::dom::element g : root["features"]["per_gpu"].get_array()) {
    std::map<std::string, Number> m;
    for (auto [k, v] : g.get_object()) m[std::string(k)] = number(v);
    t.per_gpu.push_back(std::move(m));
  }
  for (simdjson::dom::element s : root["suspends"].get_array()) {
    t.suspends.emplace_back(std::int64_t(s["begin_ns"]), s["end_ns"].is_null() ? kNoTime : std::int64_t(s["end_ns"]));
    t.suspend_kernel_sleep_s.push_back(static_cast<TimeNs>(double(s["kernel_sleep_s"]) * 1e9));
  }
  const simdjson::dom::element x = root["extra"];
  for (auto [k, v] : x["xid_events_by_class"].get_object()) t.xid_by_class[std::string(k)] = std::int64_t(v);
  for (auto [k, v] : x["xid_events_by_code"].get_object()) t.xid_by_code[std::string(k)] = std::int64_t(v);
  t.gpu_idle_s = number(x["gpu_idle_s"]);
  t.gpu_hot_s = number(x["gpu_hot_s"]);
  for (simdjson::dom::element g : x["per_gpu_sums"].get_array()) {
    t.rows_and_idle_rows.emplace_back(std::int64_t(g["rows"]), std::int64_t(g["idle_rows"]));
    auto instant = [](simdjson::dom::element e) { return e.is_null() ? kNoTime : TimeNs(std::int64_t(e)); };
    t.first_and_last_row.emplace_back(instant(g["first_row_ns"]), instant(g["last_row_ns"]));
  }
  for (simdjson::dom::element b : x["battery"].get_array())
    t.battery.emplace_back(std::int64_t(b["begin_ns"]), std::int64_t(b["end_ns"]));
  t.container_starts = std::int64_t(x["container_starts"]);
  t.cron_lines = std::int64_t(x["cron_lines"]);
  t.container_start_latency_mean_s = number(x["container_start_latency_mean_s"]);
  for (simdjson::dom::element c : x["containers"].get_array())
    t.containers.push_back({number(c["container_start_latency_s"])});
  for (simdjson::dom::element g : root["gpus"].get_array()) {
    ++t.gpus;
    std::map<std::string, double> spec;
    for (const char* k : {"pcie_gen_current", "pcie_gen_under_load", "pcie_gen_max", "pcie_width_current", "pcie_width_max", "power_limit_w",
                          "memory_total_mib"})
      if (double v; g[k].get(v) == simdjson::SUCCESS) spec[k] = v;
    t.gpu_specs.push_back(std::move(spec));
  }
  return t;
}

/// A generated scenario and what the pipeline made of it (both once per test process).
struct Case {
  fs::path dir;
  Truth truth;
  std::unique_ptr<PipelineResult> result;
};

inline const Case& pipeline_on(const fs::path& dir) {
  static std::map<fs::path, std::unique_ptr<Case>> done;
  auto& c = done[dir];
  if (!c) {
    c = std::make_unique<Case>();
    c->dir = dir;
    if (fs::exists(dir / "truth.json")) c->truth = read_truth(dir);
    c->result = std::make_unique<PipelineResult>();
    PipelineOptions o;
    o.ingest.threads = 2;
    run_pipeline(dir, o, *c->result);
  }
  return *c;
}

inline const Case& scenario(sim::ScenarioKind kind, std::uint64_t seed, double hours) {
  return pipeline_on(sim::testing::generated(kind, seed, hours));
}

/// The first line of an event text (sources join continuation lines differently).
inline std::string_view first_line(std::string_view s) { return s.substr(0, s.find('\n')); }

/// Whether a log source named in the catalog's `sources` (`dmon`, `query_gpu_csv`, `nvidia_smi_q`,
/// `pmon`, `dmesg`, `syslog`, `journal`, `ps`, `torch_trace`) is among the detected files.
inline bool source_present(const Timeline& t, std::string_view token) {
  for (const auto& f : t.files)
    if (format_name(f.format) == token || (token == "journal" && format_family(f.format) == "journal")) return true;
  return false;
}

/// The groups of a catalog `sources` field that must all be present (each a list of
/// alternatives): `dmon|query_gpu_csv + dmesg|syslog|journal` is two groups; a parenthesized
/// part is optional and left out.
inline std::vector<std::vector<std::string>> required_sources(std::string_view sources) {
  std::string s(sources.substr(0, sources.find('(')));
  std::vector<std::vector<std::string>> groups(1);
  std::string token;
  auto flush = [&] {
    if (!token.empty()) groups.back().push_back(token);
    token.clear();
  };
  for (char c : s) {
    if (c == '|') flush();
    else if (c == '+') flush(), groups.emplace_back();
    else if (c != ' ') token += c;
  }
  flush();
  return groups;
}

/// The first required source group none of whose alternatives is present ("" when all are).
inline std::string missing_source(const Timeline& t, const FeatureDef& d) {
  for (const auto& group : required_sources(d.sources)) {
    bool any = false;
    std::string names;
    for (const auto& s : group) {
      any = any || source_present(t, s);
      names += (names.empty() ? "" : "|") + s;
    }
    if (!any) return names;
  }
  return {};
}

/// Issue 4: no feature is 0 where its source is missing: it is null with a reason. Also: every
/// null carries a reason. Returns how many values were checked as null-for-a-missing-source.
inline std::size_t expect_missing_sources_null(const PipelineResult& r) {
  std::size_t checked = 0;
  const auto catalog = feature_catalog();
  auto check = [&](const FeatureValue& v, const FeatureDef& d, const std::string& scope) {
    if (!v.value) {
      EXPECT_FALSE(v.reason.empty()) << d.name << " " << scope << " is null without a reason";
    }
    const std::string missing = missing_source(r.timeline, d);
    if (missing.empty()) return;
    ++checked;
    EXPECT_FALSE(v.value.has_value()) << d.name << " " << scope << " = " << *v.value << " but no " << missing
                                      << " file is in the directory";
    EXPECT_FALSE(v.reason.empty()) << d.name << " " << scope;
  };
  for (std::size_t i = 0; i < catalog.size(); ++i) {
    check(r.features.host.at(i), catalog[i], "host");
    if (catalog[i].scope == FeatureScope::kPerGpu)
      for (std::size_t g = 0; g < r.features.gpus.size(); ++g)
        check(r.features.per_gpu.at(g).at(i), catalog[i], "GPU " + std::to_string(r.features.gpus[g]));
  }
  return checked;
}

/// Compares a feature with its true value: counts exactly, other figures within 0.5 % (issue 4's
/// tolerance); null must be null (with a reason) and a value a value.
inline void expect_feature(const FeatureValue* got, const Number& want, std::string_view name, const std::string& scope) {
  ASSERT_NE(got, nullptr) << name << " " << scope << ": no such feature";
  if (!want) {
    EXPECT_FALSE(got->value.has_value()) << name << " " << scope << " should be null, is " << *got->value;
    EXPECT_FALSE(got->reason.empty()) << name << " " << scope << " is null without a reason";
    return;
  }
  ASSERT_TRUE(got->value.has_value()) << name << " " << scope << " is null (" << got->reason << "), truth " << *want;
  const std::size_t i = feature_index(name);
  ASSERT_NE(i, kNoFeature) << name;
  if (feature_catalog()[i].unit == "count") {
    EXPECT_EQ(*got->value, *want) << name << " " << scope << " (" << got->evidence << ")";
  } else if (*want == 0) {
    EXPECT_EQ(*got->value, 0) << name << " " << scope << " (" << got->evidence << ")";
  } else {
    EXPECT_NEAR(*got->value, *want, std::abs(*want) * 0.005) << name << " " << scope << " (" << got->evidence << ")";
  }
}

}  // namespace gpucost::ground_truth
