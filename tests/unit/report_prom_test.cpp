// The Prometheus textfile: a validator of the text exposition format (so the output is checked
// even where promtool cannot be installed), the output for the example logs, nulls and absent
// features, label escaping; and promtool itself when it is on PATH.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "gpucost/report/prom_writer.hpp"
#include "run_binary.hpp"

namespace gpucost {
namespace {

using testing::run_gpucost;

// ---- a validator of the text format (Prometheus exposition format 0.0.4) ----------------------

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;  // values unescaped
  double value = 0;
  std::string value_text;
};

struct Exposition {
  std::string error;  // empty when valid
  std::vector<Sample> samples;
  std::map<std::string, std::string> types, helps;
  std::vector<std::string> comments;  // other comment lines, without "# "
};

bool metric_name(std::string_view n) {
  if (n.empty()) return false;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const char c = n[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
                    (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

bool label_name(std::string_view n) {
  return metric_name(n) && n.find(':') == std::string_view::npos && n.rfind("__", 0) != 0;
}

// A Go ParseFloat number, or +Inf/-Inf/NaN.
bool float_value(std::string_view v, double& out) {
  if (v == "+Inf" || v == "Inf") return out = HUGE_VAL, true;
  if (v == "-Inf") return out = -HUGE_VAL, true;
  if (v == "NaN") return out = std::nan(""), true;
  if (v.empty()) return false;
  for (char c : v)
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) return false;
  char* end = nullptr;
  const std::string s(v);
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

Exposition parse_exposition(std::string_view text) {
  Exposition x;
  std::set<std::string> series, closed_families;
  std::string current_family;
  std::size_t line_no = 0;
  auto fail = [&](std::string why) {
    x.error = "line " + std::to_string(line_no) + ": " + why;
    return x;
  };
  // The family a sample belongs to (histogram/summary suffixes are not used by gpucost).
  auto enter_family = [&](const std::string& f) -> bool {
    if (f == current_family) return true;
    if (closed_families.count(f)) return false;
    if (!current_family.empty()) closed_families.insert(current_family);
    current_family = f;
    return true;
  };
  if (!text.empty() && text.back() != '\n') return fail("the text does not end with a newline");
  while (!text.empty()) {
    ++line_no;
    const auto nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl + 1);
    if (line.empty()) continue;
    if (line[0] == '#') {
      const bool help = line.rfind("# HELP ", 0) == 0, type = line.rfind("# TYPE ", 0) == 0;
      if (!help && !type) {
        x.comments.emplace_back(line.size() > 2 ? line.substr(2) : std::string_view());
        continue;
      }
      std::string_view rest = line.substr(7);
      const auto sp = rest.find(' ');
      const std::string name(rest.substr(0, sp));
      const std::string_view arg = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
      if (!metric_name(name)) return fail("bad metric name in HELP/TYPE: " + name);
      if (!enter_family(name)) return fail("family " + name + " appears twice");
      for (const auto& s : x.samples)
        if (s.name == name) return fail("HELP/TYPE after a sample of " + name);
      if (help) {
        if (x.helps.count(name)) return fail("second HELP for " + name);
        for (std::size_t i = 0; i < arg.size(); ++i)
          if (arg[i] == '\\' && (i + 1 >= arg.size() || (arg[i + 1] != '\\' && arg[i + 1] != 'n')))
            return fail("bad escape in HELP");
          else if (arg[i] == '\\') ++i;
        x.helps[name] = std::string(arg);
      } else {
        if (x.types.count(name)) return fail("second TYPE for " + name);
        if (arg != "counter" && arg != "gauge" && arg != "histogram" && arg != "summary" && arg != "untyped")
          return fail("bad type " + std::string(arg));
        x.types[name] = std::string(arg);
      }
      continue;
    }
    Sample s;
    std::size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
    s.name = std::string(line.substr(0, i));
    if (!metric_name(s.name)) return fail("bad metric name " + s.name);
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (i < line.size() && line[i] != '}') {
        const std::size_t n0 = i;
        while (i < line.size() && line[i] != '=') ++i;
        const std::string lname(line.substr(n0, i - n0));
        if (!label_name(lname)) return fail("bad label name '" + lname + "'");
        if (i + 1 >= line.size() || line[i + 1] != '"') return fail("label value not quoted");
        i += 2;
        std::string value;
        for (; i < line.size() && line[i] != '"'; ++i) {
          if (line[i] == '\\') {
            if (i + 1 >= line.size()) return fail("dangling backslash");
            const char e = line[++i];
            if (e == '\\') value += '\\';
            else if (e == '"') value += '"';
            else if (e == 'n') value += '\n';
            else return fail(std::string("bad escape \\") + e + " in a label value");
          } else {
            value += line[i];
          }
        }
        if (i >= line.size()) return fail("unterminated label value");
        ++i;  // closing quote
        if (!s.labels.emplace(lname, value).second) return fail("label " + lname + " twice");
        if (i < line.size() && line[i] == ',') ++i;
        else if (i < line.size() && line[i] != '}') return fail("expected , or } after a label");
      }
      if (i >= line.size()) return fail("unterminated label set");
      ++i;  // '}'
    }
    if (i >= line.size() || line[i] != ' ') return fail("no value");
    std::string_view rest = line.substr(i + 1);
    const auto sp = rest.find(' ');
    s.value_text = std::string(rest.substr(0, sp));
    if (!float_value(s.value_text, s.value)) return fail("bad value '" + s.value_text + "'");
    if (sp != std::string_view::npos) {
      const std::string_view ts = rest.substr(sp + 1);
      if (ts.empty() || !std::all_of(ts.begin(), ts.end(), [](char c) { return (c >= '0' && c <= '9') || c == '-'; }))
        return fail("bad timestamp");
    }
    if (!enter_family(s.name)) return fail("samples of " + s.name + " are not together");
    std::string key = s.name;
    for (const auto& [k, v] : s.labels) key += "\x1f" + k + "=" + v;
    if (!series.insert(key).second) return fail("duplicate series " + std::string(line));
    x.samples.push_back(std::move(s));
  }
  return x;
}

const Sample* find(const Exposition& x, std::string_view name, const std::map<std::string, std::string>& labels) {
  for (const auto& s : x.samples)
    if (s.name == name && s.labels == labels) return &s;
  return nullptr;
}

std::optional<double> value_of(const Exposition& x, std::string_view name,
                               const std::map<std::string, std::string>& labels) {
  const Sample* s = find(x, name, labels);
  return s ? std::optional<double>(s->value) : std::nullopt;
}

TEST(PromFormatValidator, AcceptsTheFormatAndRejectsItsViolations) {
  const std::string ok =
      "# HELP a_b Help with \\\\ and \\n.\n# TYPE a_b gauge\na_b{x=\"1\",y=\"q\\\"\\\\\\n\"} 1.5\na_b 2e-3\n"
      "# a comment\n# TYPE c counter\nc_total 3 1700000000000\n";
  const auto x = parse_exposition(ok);
  ASSERT_EQ(x.error, "");
  ASSERT_EQ(x.samples.size(), 3u);
  EXPECT_EQ(x.samples[0].labels.at("y"), "q\"\\\n");
  EXPECT_EQ(x.samples[1].value, 0.002);
  for (const char* bad : {
           "1abc 1\n",                                    // name starts with a digit
           "a-b 1\n",                                     // '-' in a name
           "a{x=1} 1\n",                                  // unquoted label value
           "a{x=\"1\",x=\"2\"} 1\n",                      // label twice
           "a{__x=\"1\"} 1\n",                            // reserved label name
           "a{x=\"\\t\"} 1\n",                            // bad escape
           "a one\n",                                     // not a number
           "a 1\na 2\n",                                  // duplicate series
           "a 1\n# TYPE a gauge\n",                       // TYPE after a sample
           "# TYPE a gauge\n# TYPE a gauge\na 1\n",       // TYPE twice
           "# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\na{x=\"1\"} 1\n",  // family split in two
           "# TYPE a gaugeish\na 1\n",                    // bad type
           "a 1",                                         // no final newline
       })
    EXPECT_NE(parse_exposition(bad).error, "") << bad;
}

// ---- output ------------------------------------------------------------------------------------

std::string example_dir() {
  if (const char* e = std::getenv("GPUCOST_REPORT_EXAMPLE"); e && *e) return e;
  return std::string(GPUCOST_TEST_DATA) + "/report/logs";
}

std::string read_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string& example_prom_path() {
  static const std::string path = [] {
    const std::string p = ::testing::TempDir() + "gpucost_report_prom." + std::to_string(::getpid()) + ".prom";
    const auto r = run_gpucost({"analyze", example_dir(), "--max-error-rate", "0.5", "--format", "prom", "-o", p});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return p;
  }();
  return path;
}

TEST(PromReport, ExampleIsValidExpositionWithConventionalNames) {
  const std::string text = read_file(example_prom_path());
  const auto x = parse_exposition(text);
  ASSERT_EQ(x.error, "") << text;
  ASSERT_FALSE(x.samples.empty());
  for (const auto& s : x.samples) {
    EXPECT_EQ(s.name.rfind("gpucost_", 0), 0u) << s.name;
    EXPECT_TRUE(x.helps.count(s.name)) << s.name;
    EXPECT_EQ(x.types.at(s.name), "gauge") << s.name;  // values of a window, not counters
    EXPECT_TRUE(std::isfinite(s.value)) << s.name;     // a missing value is no sample, never NaN
    EXPECT_TRUE(s.labels.count("host")) << s.name;
  }
  EXPECT_EQ(text.find("NaN"), std::string::npos);
  // No unit but base units: no _kwh, _pct, _percent, _celsius only for temperatures.
  for (const auto& [name, type] : x.types) {
    EXPECT_EQ(name.find("_kwh"), std::string::npos) << name;
    EXPECT_EQ(name.find("_pct"), std::string::npos) << name;
    EXPECT_EQ(name.find("_total"), std::string::npos) << name << " (only counters end in _total)";
  }
}

TEST(PromReport, ExampleValuesComeFromTheReport) {
  const auto x = parse_exposition(read_file(example_prom_path()));
  ASSERT_EQ(x.error, "");
  const std::string host = "unknown";  // the example has no manifest
  if (!std::getenv("GPUCOST_REPORT_EXAMPLE")) {
    // Hand-checked from gpu0-dmon.txt: SM (0+3+95+97+99+98+96+5+90+94)/10 = 67.7 %; 3 of 10 idle.
    const Sample* util = find(x, "gpucost_gpu_utilization_mean_ratio", {{"host", host}, {"gpu", "0"}});
    ASSERT_NE(util, nullptr);
    EXPECT_DOUBLE_EQ(util->value, 0.677);
    const Sample* idle = find(x, "gpucost_gpu_idle_ratio", {{"host", host}, {"gpu", "0"}});
    ASSERT_NE(idle, nullptr);
    EXPECT_DOUBLE_EQ(idle->value, 0.3);
    const Sample* samples = find(x, "gpucost_gpu_samples", {{"host", host}, {"gpu", "0"}});
    ASSERT_NE(samples, nullptr);
    EXPECT_EQ(samples->value, 10);
    // Xid 31, 13 (x3), 32 (x2) from the dxvk sample; the Xid 79 file prints no Xid number.
    const Sample* xid = find(x, "gpucost_xid_events", {{"host", host}, {"gpu", "0"}});
    ASSERT_NE(xid, nullptr);
    EXPECT_GE(xid->value, 6);
  }
  for (const char* side : {"local", "cloud"}) {
    const Sample* c = find(x, "gpucost_cost_per_effective_hour", {{"host", host}, {"side", side}, {"currency", "USD"}});
    ASSERT_NE(c, nullptr) << side;
    EXPECT_GT(c->value, 0);
  }
  const auto info = std::find_if(x.samples.begin(), x.samples.end(),
                                 [](const Sample& s) { return s.name == "gpucost_report_info"; });
  ASSERT_NE(info, x.samples.end());
  EXPECT_EQ(info->labels.at("version"), GPUCOST_VERSION);
  EXPECT_FALSE(info->labels.at("zone").empty());
}

TEST(PromReport, NullsAndAbsentFeaturesAreCommentsNotSamples) {
  std::deque<FeatureValue> values;  // what the model's lines point at
  auto line = [&](FeatureId id, std::optional<double> v, std::string reason = {}) {
    values.push_back(FeatureValue{.value = v, .reason = std::move(reason), .evidence = {}});
    return FeatureLine{&feature_def(id), &values.back()};
  };
  ReportModel model;
  model.run.host.name = "lab \"7\"\\gpu";
  GpuSection g0, g1;
  g0.index = 0;
  g0.features = {line(FeatureId::gpu_util_mean_pct, 50),
                 line(FeatureId::gpu_idle_fraction, std::nullopt, "no samples with SM utilization")};
  g1.index = 1;
  g1.features = {line(FeatureId::gpu_util_mean_pct, 25), line(FeatureId::gpu_idle_fraction, 0.5)};
  model.gpus = {g0, g1};
  model.features = {line(FeatureId::gpu_energy_kwh, 2), line(FeatureId::xid_events, std::nullopt, "no kernel log")};
  cost::CostResult c;
  c.inputs.currency = "EUR";
  c.local.cost_per_effective_hour = 1.5;
  c.cloud.cost_per_effective_hour = std::numeric_limits<double>::infinity();  // does no useful work
  model.cost = &c;
  const std::string text = render_prom(model);
  const auto x = parse_exposition(text);
  ASSERT_EQ(x.error, "") << text;
  const std::string host = "lab \"7\"\\gpu";
  EXPECT_NE(text.find("host=\"lab \\\"7\\\"\\\\gpu\""), std::string::npos) << text;
  EXPECT_EQ(value_of(x, "gpucost_gpu_utilization_mean_ratio", {{"host", host}, {"gpu", "1"}}), 0.25);
  EXPECT_EQ(find(x, "gpucost_gpu_idle_ratio", {{"host", host}, {"gpu", "0"}}), nullptr);
  EXPECT_EQ(value_of(x, "gpucost_gpu_idle_ratio", {{"host", host}, {"gpu", "1"}}), 0.5);
  EXPECT_EQ(value_of(x, "gpucost_gpu_energy_joules", {{"host", host}}), 7.2e6);  // 2 kWh
  EXPECT_EQ(find(x, "gpucost_xid_events", {{"host", host}}), nullptr);
  EXPECT_EQ(value_of(x, "gpucost_cost_per_effective_hour", {{"host", host}, {"side", "local"}, {"currency", "EUR"}}),
            1.5);
  EXPECT_EQ(find(x, "gpucost_cost_per_effective_hour", {{"host", host}, {"side", "cloud"}, {"currency", "EUR"}}),
            nullptr);
  EXPECT_EQ(find(x, "gpucost_break_even_job_seconds", {{"host", host}}), nullptr);
  auto has_comment = [&](std::string_view prefix) {
    return std::any_of(x.comments.begin(), x.comments.end(), [&](const std::string& c) { return c.rfind(prefix, 0) == 0; });
  };
  EXPECT_TRUE(has_comment("null: gpucost_gpu_idle_ratio{host=\"lab \\\"7\\\"\\\\gpu\",gpu=\"0\"} no samples with SM"));
  EXPECT_TRUE(has_comment("null: gpucost_xid_events{host=\"lab \\\"7\\\"\\\\gpu\"} no kernel log"));
  EXPECT_TRUE(has_comment("null: gpucost_break_even_job_seconds"));
  EXPECT_TRUE(has_comment("absent: the report has no value of feature suspended_s (gpucost_suspended_seconds)"));
  EXPECT_FALSE(has_comment("absent: the report has no value of feature gpu_energy_kwh"));
}

TEST(PromReport, EveryContractFeatureHasAConventionalName) {
  const std::set<std::string> contract = {"gpu_samples", "gpu_sampled_s", "gpu_util_mean_pct", "gpu_idle_fraction",
                                          "gpu_power_mean_w", "gpu_energy_kwh", "gpu_temp_max_c",
                                          "gpu_time_above_temp_s", "xid_events", "ac_switches", "ac_switches_per_hour",
                                          "lid_closes", "suspends", "suspended_s",
                                          // what deploy/prometheus/rules.yml needs (docs/fleet.md)
                                          "gpu_busy_s", "gpu_idle_s", "gpu_thermal_violation_fraction",
                                          "gpu_lost_s", "xid_memory_ecc_events", "xid_bus_events",
                                          "fallen_off_bus_events"};
  std::set<std::string> seen;
  for (const auto& m : prom_feature_metrics()) {
    seen.insert(std::string(feature_name(m.feature)));
    EXPECT_EQ(m.metric.rfind("gpucost_", 0), 0u);
    EXPECT_TRUE(metric_name(m.metric)) << m.metric;
  }
  EXPECT_EQ(seen, contract);
}

TEST(PromReport, LabelValuesAreEscaped) {
  std::string out;
  append_prom_label_value(out, "a\"b\\c\nd");
  EXPECT_EQ(out, "a\\\"b\\\\c\\nd");
}

// promtool (Debian's `prometheus` package) on the example; tests/report/check-report-tools.sh
// installs it. Skipped, saying so, where it is not installed.
TEST(PromReport, PromtoolAcceptsTheExample) {
  if (std::system("command -v promtool >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "promtool not installed (apt-get install prometheus); the format validator above still ran";
  const std::string cmd = "promtool check metrics < " + example_prom_path() + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = ::pclose(p);
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(out, "") << "promtool lint findings";
}

}  // namespace
}  // namespace gpucost
