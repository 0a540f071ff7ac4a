// The HTML report: escaping, well-formedness, every section, no external reference, nulls
// explained; and the `series` and `marks` sections of the JSON report that its charts draw.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gpucost/report/html_writer.hpp"
#include "gpucost/report/report.hpp"
#include "gpucost/text/escape.hpp"
#include "report/svg.hpp"
#include "json_reading.hpp"
#include "run_binary.hpp"
#include "xml_check.hpp"

namespace gpucost {
namespace {

using testing::check_xml;
using testing::run_gpucost;
using text::xml_escaped;

// The log directory the report is rendered for: GPUCOST_REPORT_EXAMPLE when set (point it at
// examples/laptop-training), else the copies of real samples in tests/data/report/logs.
std::string example_dir() {
  if (const char* e = std::getenv("GPUCOST_REPORT_EXAMPLE"); e && *e) return e;
  return std::string(GPUCOST_TEST_DATA) + "/report/logs";
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "gpucost_report_html." + std::to_string(::getpid()) + "." + name;
}

std::size_t count(std::string_view hay, std::string_view needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string_view::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

// ---- escaping --------------------------------------------------------------------------------

TEST(XmlEscape, MarkupCharactersBecomeEntities) {
  EXPECT_EQ(xml_escaped(R"(a<b>&"c"'d')"), "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
  EXPECT_EQ(xml_escaped("&amp;"), "&amp;amp;");  // already-escaped text is text
}

TEST(XmlEscape, KeepsUtf8TabsAndNewlines) {
  EXPECT_EQ(xml_escaped("85 \xC2\xB0" "C\tok\r\n\xE6\x9C\x88"), "85 \xC2\xB0" "C\tok\r\n\xE6\x9C\x88");
  EXPECT_EQ(xml_escaped("\xF0\x9F\x94\xA5"), "\xF0\x9F\x94\xA5");  // U+1F525, 4 bytes
}

TEST(XmlEscape, CharactersXmlForbidsBecomeReplacementCharacters) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(xml_escaped(std::string("a\x01" "b\x1b[0m", 7)), "a" + fffd + "b" + fffd + "[0m");
  EXPECT_EQ(xml_escaped(std::string("\0", 1)), fffd);
  EXPECT_EQ(xml_escaped("\x7f"), fffd);
  EXPECT_EQ(xml_escaped("x\xFFy"), "x" + fffd + "y");               // not UTF-8
  EXPECT_EQ(xml_escaped("\xC3"), fffd);                              // truncated sequence
  EXPECT_EQ(xml_escaped("\xC0\xAF"), fffd + fffd);                   // overlong '/'
  EXPECT_EQ(xml_escaped("\xED\xB3\x80"), fffd + fffd + fffd);        // an encoded surrogate
  EXPECT_EQ(xml_escaped("\xEF\xBF\xBF"), fffd + fffd + fffd);        // U+FFFF
}

// ---- chart helpers -----------------------------------------------------------------------------

TEST(SvgAxes, NiceTicksCoverTheRangeInOneTwoFiveSteps) {
  EXPECT_EQ(svg::nice_ticks(0, 97, 4), (std::vector<double>{0, 20, 40, 60, 80, 100}));  // step 24.25 -> 20
  EXPECT_EQ(svg::nice_ticks(41, 73, 4), (std::vector<double>{40, 50, 60, 70, 80}));     // 8 -> 10
  EXPECT_EQ(svg::nice_ticks(0, 0.3, 3), (std::vector<double>{0, 0.1, 0.2, 0.30000000000000004}));
  // A flat series still gets an axis around it: 5 +- 10 %, step 0.2 -> 4.4 .. 5.6.
  EXPECT_NEAR(svg::nice_ticks(5, 5, 4).front(), 4.4, 1e-9);
  EXPECT_NEAR(svg::nice_ticks(5, 5, 4).back(), 5.6, 1e-9);
  EXPECT_EQ(svg::tick_label(0.30000000000000004, 0.1), "0.3");
  EXPECT_EQ(svg::tick_label(1651, 200), "1651");
  EXPECT_EQ(svg::tick_label(-1e-17, 0.1), "0.0");
}

TEST(SvgAxes, TimeTicksFallOnRoundUtcTimes) {
  TimeNs step = 0;
  const TimeNs t0 = 1'795'939'200 * kNsPerSec;  // 2026-11-29T08:00:00Z
  // The example's 18 s: 2 s steps would be 9 intervals (more than 8); 5 s steps from 08:00:01.
  const auto ticks = svg::time_ticks(t0 + kNsPerSec, t0 + 19 * kNsPerSec, 8, step);
  EXPECT_EQ(step, 5 * kNsPerSec);
  ASSERT_EQ(ticks.size(), 3u);
  EXPECT_EQ(ticks[0], t0 + 5 * kNsPerSec);
  EXPECT_EQ(ticks[2], t0 + 15 * kNsPerSec);
  EXPECT_EQ(svg::time_label(ticks[0], step, 18 * kNsPerSec), "08:00:05");
  svg::time_ticks(t0, t0 + 6 * kNsPerHour, 8, step);
  EXPECT_EQ(step, kNsPerHour);
  EXPECT_EQ(svg::time_label(t0 + kNsPerHour, step, 6 * kNsPerHour), "09:00");
  EXPECT_EQ(svg::time_label(t0, kNsPerHour, 3 * kNsPerDay), "11-29 08:00");
  EXPECT_EQ(svg::time_label(t0, kNsPerDay, 30 * kNsPerDay), "2026-11-29");
}

TEST(SvgCharts, AreWellFormedAndEscapeTheirText) {
  const svg::CostLine lines[] = {{"local <A&B>", 0, 1, svg::color::kBlue}, {"cloud", 0.5, 2, svg::color::kVermillion}};
  const std::string cost = svg::cost_chart(lines, 10, 0.5, 1, "EUR");
  EXPECT_EQ(testing::check_xml(cost).error, "");
  EXPECT_NE(cost.find("local &lt;A&amp;B&gt;"), std::string::npos);
  EXPECT_NE(cost.find("break-even: 0.5 h"), std::string::npos);
  EXPECT_NE(cost.find("cost per job (EUR)"), std::string::npos);
  const svg::TornadoBar bars[] = {{"a\"b", "1 h", "2 h", 10.0, 30.0, true}, {"c", "x", "y", std::nullopt, 25.0, false}};
  const std::string t = svg::tornado(bars, 20, "m", "h");
  EXPECT_EQ(testing::check_xml(t).error, "");
  EXPECT_NE(t.find("a&quot;b *"), std::string::npos);  // flips the verdict: starred
  EXPECT_NE(t.find("(metric undefined at one end)"), std::string::npos);
  const TimeNs ts[] = {0, kNsPerSec, 100 * kNsPerSec};
  svg::Panel p;
  p.title = "SM";
  p.unit = "%";
  p.values = {1, 2, 3};
  const svg::Mark m[] = {{kNsPerSec / 2, "Xid 79", "t <x>", "error"}};
  const std::string chart = svg::time_chart(ts, std::span<const svg::Panel>(&p, 1), m, 3 * kNsPerSec, "c");
  EXPECT_EQ(testing::check_xml(chart).error, "");
  EXPECT_EQ(count(chart, "<polyline"), 1u);  // the 99 s gap splits off the last point ...
  EXPECT_EQ(count(chart, "<circle"), 1u);    // ... drawn as a dot
  EXPECT_NE(chart.find("<title>t &lt;x&gt;</title>"), std::string::npos);
}

// ---- the checker itself (so the well-formedness test can fail) --------------------------------

TEST(XmlCheck, RejectsWhatIsNotWellFormed) {
  EXPECT_EQ(check_xml("<!DOCTYPE html>\n<html><p a=\"1\">x &amp; y</p><br/></html>\n").error, "");
  EXPECT_NE(check_xml("<html><p>x</html>").error, "");
  EXPECT_NE(check_xml("<html><p a=1>x</p></html>").error, "");
  EXPECT_NE(check_xml("<html><p a=\"1\" a=\"2\">x</p></html>").error, "");
  EXPECT_NE(check_xml("<html>a & b</html>").error, "");
  EXPECT_NE(check_xml("<html>a < b</html>").error, "");
  EXPECT_NE(check_xml("<html><br></html>").error, "");
  EXPECT_NE(check_xml("<a></a><b></b>").error, "");
}

// ---- the page for the example logs ------------------------------------------------------------

struct Rendered {
  std::string html, json;
};

const Rendered& example() {
  static const Rendered r = [] {
    Rendered x;
    const std::string html = temp_path("example.html"), json = temp_path("example.json");
    const auto a = run_gpucost({"analyze", example_dir(), "--max-error-rate", "0.5", "--format", "html", "-o", html});
    EXPECT_EQ(a.exit_code, 0) << a.err;
    const auto b = run_gpucost({"analyze", example_dir(), "--max-error-rate", "0.5", "--format", "json", "-o", json});
    EXPECT_EQ(b.exit_code, 0) << b.err;
    x.html = read_file(html);
    x.json = read_file(json);
    std::filesystem::remove(html);
    std::filesystem::remove(json);
    return x;
  }();
  return r;
}

TEST(HtmlReport, ExampleIsWellFormedWithEverySection) {
  const std::string& html = example().html;
  ASSERT_FALSE(html.empty());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  const auto check = check_xml(html);
  ASSERT_EQ(check.error, "");
  for (const char* id : {"answer", "findings", "cost", "break-even", "sensitivity", "timeline", "features", "diagnostics"})
    EXPECT_NE(html.find(std::string("<section id=\"") + id + "\">"), std::string::npos) << id;
  // Charts: cost against job length, the tornado, one timeline per GPU of the series.
  EXPECT_GE(count(html, "<svg "), 3u);
  EXPECT_NE(html.find("aria-label=\"cost per job against job length, local and cloud\""), std::string::npos);
  EXPECT_NE(html.find("aria-label=\"sensitivity of "), std::string::npos);
  EXPECT_NE(html.find("aria-label=\"GPU 0: SM utilization, power and temperature over time\""), std::string::npos);
  // Axis labels with units.
  EXPECT_NE(html.find("SM utilization (%)"), std::string::npos);
  EXPECT_NE(html.find("Power (W)"), std::string::npos);
  EXPECT_NE(html.find("job length (h of local-equivalent GPU work)"), std::string::npos);
}

TEST(HtmlReport, ExampleHasNoScriptAndNoExternalReference) {
  const std::string& html = example().html;
  const auto check = check_xml(html);
  ASSERT_EQ(check.error, "");
  for (const auto& e : check.elements) {
    EXPECT_NE(e, "script");
    EXPECT_NE(e, "link");    // no stylesheet or font links
    EXPECT_NE(e, "iframe");
    EXPECT_NE(e, "img");     // images are inline SVG
  }
  for (const auto& a : check.attributes) {
    if (a.name == "href") {
      EXPECT_EQ(a.value.rfind('#', 0), 0u) << a.element << " href=" << a.value;
    }
    EXPECT_NE(a.name, "src") << a.element;
    EXPECT_EQ(a.value.find("://"), std::string::npos) << a.element << " " << a.name << "=" << a.value;
    EXPECT_NE(a.name.rfind("on", 0), 0u) << "event handler " << a.name;  // onload= ...
  }
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("@font-face"), std::string::npos);
  EXPECT_EQ(html.find("javascript:"), std::string::npos);
}

TEST(HtmlReport, ExampleShowsTheJsonReportsFigures) {
  const auto& ex = example();
  simdjson::dom::parser p;
  simdjson::dom::element doc = p.parse(ex.json);
  // The two answers, as the JSON has them (escaped once).
  for (const char* q : {"own", "buy"}) {
    const std::string summary{std::string_view(doc["cost"]["verdict"][q]["summary"])};
    EXPECT_NE(ex.html.find("</b>. " + xml_escaped(summary) + "</p>"), std::string::npos) << summary;
  }
  // Hand-checked from gpu0-dmon.txt: 3 of 10 samples at or below 5 % SM (when the example is ours).
  if (!std::getenv("GPUCOST_REPORT_EXAMPLE")) {
    EXPECT_NE(ex.html.find("<td>F002</td><td>gpu_idle_fraction</td><td class=\"num\" title=\"0.3\">0.3</td>"),
              std::string::npos);
    // The Xids of the raw dmesg (no anchor: placed from the file's mtime, approximately) are listed.
    EXPECT_NE(ex.html.find("<td>31</td>"), std::string::npos);
  }
  // Every file of the diagnostics appears in the page.
  for (auto f : doc["files"].get_array()) {
    std::string_view path = f["path"];
    EXPECT_NE(ex.html.find(xml_escaped(path)), std::string::npos) << path;
  }
}

TEST(HtmlReport, FindingsComeFirstInTheJsonsOrderWithTheirEvidenceLinkedToTheTimeline) {
  const auto& ex = example();
  simdjson::dom::parser p;
  simdjson::dom::element doc = p.parse(ex.json);
  const auto section = ex.html.find("<section id=\"findings\">");
  ASSERT_NE(section, std::string::npos);
  EXPECT_LT(section, ex.html.find("<section id=\"verdict\">"));
  std::size_t at = section, events = 0;
  for (auto f : doc["findings"].get_array()) {
    const std::string title = std::string(std::string_view(f["id"])) + " " + std::string(std::string_view(f["rule"])) +
                              ": " + std::string(std::string_view(f["title"]));
    const auto here = ex.html.find(xml_escaped(title), at);
    ASSERT_NE(here, std::string::npos) << title;
    at = here;
    for (auto e : f["events"].get_array()) {
      const std::string where = std::string(std::string_view(e["file"])) + ":" + std::to_string(int64_t(e["line"]));
      const auto ref = ex.html.find(xml_escaped(where), at);
      ASSERT_NE(ref, std::string::npos) << where;
      EXPECT_NE(ex.html.rfind("<a href=\"#timeline\">", ref), std::string::npos);
      ++events;
    }
  }
  EXPECT_GT(events, 0u);  // the example's Xid 79 and suspends carry their lines
}

// ---- nulls and missing sections ----------------------------------------------------------------

// The model of a run that read nothing.
struct EmptyRun {
  PipelineResult result;
  Report report;
  EmptyRun() {
    report.input = "x";
    report.result = &result;
  }
};

TEST(HtmlReport, AnAlmostEmptyReportRendersEverySectionAndSaysWhatIsMissing) {
  const EmptyRun run;
  const std::string html = render_html(report_model(run.report));
  ASSERT_EQ(check_xml(html).error, "");
  for (const char* id : {"answer", "findings", "cost", "break-even", "sensitivity", "timeline", "features", "diagnostics"})
    EXPECT_NE(html.find(std::string("<section id=\"") + id + "\">"), std::string::npos) << id;
  EXPECT_NE(html.find("No timeline chart: no dmon samples"), std::string::npos);
  EXPECT_NE(html.find("No cost section in the report"), std::string::npos);
  EXPECT_NE(html.find("The report has no features."), std::string::npos);
  EXPECT_NE(html.find("The report has no findings."), std::string::npos);
  EXPECT_EQ(html.find("<svg"), std::string::npos);
}

TEST(HtmlReport, NullFeaturesShowTheirReason) {
  const EmptyRun run;
  ReportModel model = report_model(run.report);
  const FeatureValue xid{.value = std::nullopt, .reason = "no kernel log (dmesg, kern.log, journal)", .evidence = {}};
  model.features = {FeatureLine{&feature_def(FeatureId::xid_events), &xid}};
  const std::string html = render_html(model);
  ASSERT_EQ(check_xml(html).error, "");
  EXPECT_NE(html.find("<h3>Layer: driver</h3>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"null\">null</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"null\">no kernel log (dmesg, kern.log, journal)</td>"), std::string::npos);
  EXPECT_NE(html.find("<b>count</b> number of rows or events"), std::string::npos);
}

// ---- series and marks from a timeline built by hand -----------------------------------------

constexpr TimeNs kT0 = 1'795'939'200 * kNsPerSec;  // 2026-11-29T08:00:00Z

void add_sample(Timeline& t, TimeNs ts, int gpu, std::optional<double> sm, std::optional<double> power,
                std::optional<double> temp, std::optional<TimeNs> interval = kNsPerSec) {
  Table& s = t.samples;
  for (std::size_t c = 0; c < s.column_count(); ++c) {
    Column& col = s.column(c);
    if (c == sample_col::ts_ns) col.push_int(ts);
    else if (c == sample_col::gpu) col.push_int(gpu);
    else if (c == sample_col::interval_ns && interval) col.push_int(*interval);
    else if (c == sample_col::file || c == sample_col::line) col.push_int(0);
    else if (c == sample_metric_col(GpuMetric::sm_pct) && sm) col.push_float(*sm);
    else if (c == sample_metric_col(GpuMetric::power_w) && power) col.push_float(*power);
    else if (c == sample_metric_col(GpuMetric::gpu_temp_c) && temp) col.push_float(*temp);
    else col.push_null();
  }
}

void add_event(Timeline& t, TimeNs ts, EventKind kind, std::optional<std::int64_t> code, std::string_view gpu,
               std::string_view text, std::int64_t line) {
  Table& e = t.events;
  for (std::size_t c = 0; c < e.column_count(); ++c) {
    Column& col = e.column(c);
    if (c == event_col::ts_ns) col.push_int_or_null(ts);
    else if (c == event_col::kind) col.push_int(static_cast<std::int64_t>(kind));
    else if (c == event_col::code && code) col.push_int(*code);
    else if (c == event_col::gpu && !gpu.empty()) col.push_string(gpu);
    else if (c == event_col::text) col.push_string(text);
    else if (c == event_col::file) col.push_int(0);
    else if (c == event_col::line) col.push_int(line);
    else col.push_null();
  }
}

struct HandReport {
  PipelineResult result;
  Report report;
  HandReport() {
    report.input = "hand";
    report.result = &result;
  }
  void finish() { FeatureStage(FeatureOptions{}).run(result.timeline, result.features); }
};

TEST(ReportSeries, FewSamplesArePointsAsTheyAreWithNullsKept) {
  HandReport h;
  add_sample(h.result.timeline, kT0, 0, 10, 100, 50);
  add_sample(h.result.timeline, kT0 + kNsPerSec, 0, 20, std::nullopt, 51);
  add_sample(h.result.timeline, kT0 + 2 * kNsPerSec, 0, std::nullopt, 120, std::nullopt);
  h.finish();
  const std::string json = render_report(h.report, ReportFormat::kJson);
  simdjson::dom::parser p;
  simdjson::dom::element doc = p.parse(json);
  auto g = doc["series"]["gpus"].at(0);
  EXPECT_EQ(int64_t(g["gpu"]), 0);
  EXPECT_EQ(int64_t(g["bucket_ns"]), 0);
  EXPECT_EQ(int64_t(g["interval_ns"]), kNsPerSec);
  simdjson::dom::array pts = g["points"];
  ASSERT_EQ(pts.size(), 3u);
  EXPECT_EQ(int64_t(pts.at(0).at(0)), kT0);
  EXPECT_EQ(double(pts.at(0).at(1)), 10.0);
  EXPECT_TRUE(pts.at(1).at(2).is_null());  // power missing in the second sample
  EXPECT_TRUE(pts.at(2).at(1).is_null());
  EXPECT_TRUE(pts.at(2).at(3).is_null());
  EXPECT_EQ(double(pts.at(2).at(2)), 120.0);
}

TEST(ReportSeries, ManySamplesAreBucketedByTimeWithinTheLimit) {
  HandReport h;
  h.report.max_series_points = 100;
  // GPU 0: 1000 samples, one a second, SM alternating 0/100, temperature rising 0..999.
  for (int i = 0; i < 1000; ++i) add_sample(h.result.timeline, kT0 + i * kNsPerSec, 0, i % 2 ? 100 : 0, 50, i);
  add_sample(h.result.timeline, kT0, 1, 5, 5, 5);  // GPU 1: one sample, kept as it is
  h.finish();
  simdjson::dom::parser p;
  simdjson::dom::element doc = p.parse(render_report(h.report, ReportFormat::kJson));
  auto g0 = doc["series"]["gpus"].at(0);
  // Span 999 s, 100 points at most: bucket = 999 s / 100 + 1 ns, so 10 samples a bucket.
  EXPECT_EQ(int64_t(g0["bucket_ns"]), 9'990'000'001);
  simdjson::dom::array pts = g0["points"];
  ASSERT_EQ(pts.size(), 100u);
  EXPECT_EQ(int64_t(pts.at(0).at(0)), kT0);
  EXPECT_EQ(double(pts.at(0).at(1)), 50.0);   // mean of five 0 and five 100
  EXPECT_EQ(double(pts.at(0).at(3)), 9.0);    // max temperature of samples 0..9
  EXPECT_EQ(double(pts.at(99).at(3)), 999.0);
  auto g1 = doc["series"]["gpus"].at(1);
  EXPECT_EQ(int64_t(g1["gpu"]), 1);
  EXPECT_EQ(simdjson::dom::array(g1["points"]).size(), 1u);
}

// The median interval of a GPU's samples: the value at index n / 2 of the known positive ones,
// sorted. Intervals that repeat are counted in runs, intervals that hardly repeat are selected
// from: both give that value.
TEST(ReportSeries, TheIntervalIsTheMedianOfTheKnownOnesWhetherTheyRepeatOrNot) {
  auto interval_of = [](const std::vector<std::optional<TimeNs>>& intervals) {
    HandReport h;
    for (std::size_t i = 0; i < intervals.size(); ++i)
      add_sample(h.result.timeline, kT0 + static_cast<TimeNs>(i) * kNsPerSec, 0, 1, 1, 1, intervals[i]);
    h.finish();
    simdjson::dom::parser p;
    simdjson::dom::element doc = p.parse(render_report(h.report, ReportFormat::kJson));
    return int64_t(doc["series"]["gpus"].at(0)["interval_ns"]);
  };
  auto repeated = [](std::vector<std::optional<TimeNs>>& v, std::optional<TimeNs> x, int n) { v.insert(v.end(), n, x); };
  // Runs (counted): 3 s ten times, 2 s once, a null and a 0 (not known), 1 s ten times. Sorted:
  // ten 1 s, one 2 s, ten 3 s; index 21 / 2 = 10 is the 2 s.
  std::vector<std::optional<TimeNs>> runs;
  repeated(runs, 3 * kNsPerSec, 10);
  repeated(runs, 2 * kNsPerSec, 1);
  repeated(runs, std::nullopt, 1);
  repeated(runs, 0, 1);
  repeated(runs, 1 * kNsPerSec, 10);
  EXPECT_EQ(interval_of(runs), 2 * kNsPerSec);
  // An even count takes the upper of the two middle values: eight 3 s then eight 1 s -> 3 s.
  std::vector<std::optional<TimeNs>> even;
  repeated(even, 3 * kNsPerSec, 8);
  repeated(even, 1 * kNsPerSec, 8);
  EXPECT_EQ(interval_of(even), 3 * kNsPerSec);
  // Values that hardly repeat (selected from): 7 6 5 4 3 2 1 ms, index 3 of the sorted is 4 ms;
  // 1 1 3 3 s -> 3 s.
  std::vector<std::optional<TimeNs>> distinct;
  for (TimeNs ms = 7; ms >= 1; --ms) distinct.push_back(ms * 1'000'000);
  EXPECT_EQ(interval_of(distinct), 4'000'000);
  EXPECT_EQ(interval_of({kNsPerSec, kNsPerSec, 3 * kNsPerSec, 3 * kNsPerSec}), 3 * kNsPerSec);
  EXPECT_EQ(interval_of({std::nullopt, 0}), 0);
}

// Rows of two GPUs taken in turns (dmon prints every GPU each second): each GPU's series holds
// its own rows only, bucketed from its own first sample, with its own median interval.
TEST(ReportSeries, GpusSampledInTurnsKeepTheirOwnRows) {
  HandReport h;
  h.report.max_series_points = 10;
  for (int i = 0; i < 100; ++i) {
    add_sample(h.result.timeline, kT0 + i * kNsPerSec, 0, 10, 100, i);
    add_sample(h.result.timeline, kT0 + i * kNsPerSec + 500'000'000, 1, 90, 200, 1000 + i, 2 * kNsPerSec);
  }
  add_sample(h.result.timeline, kT0 + 100 * kNsPerSec, 2, std::nullopt, std::nullopt, std::nullopt);  // no time series
  h.finish();
  simdjson::dom::parser p;
  simdjson::dom::element doc = p.parse(render_report(h.report, ReportFormat::kJson));
  simdjson::dom::array gpus = doc["series"]["gpus"];
  ASSERT_EQ(gpus.size(), 3u);
  for (int g = 0; g < 2; ++g) {
    auto s = gpus.at(g);
    EXPECT_EQ(int64_t(s["gpu"]), g);
    EXPECT_EQ(uint64_t(s["samples"]), 100u);
    EXPECT_EQ(int64_t(s["interval_ns"]), g == 0 ? kNsPerSec : 2 * kNsPerSec);
    // Span 99 s, 10 points at most: bucket = 9.9 s + 1 ns, 10 samples a bucket.
    EXPECT_EQ(int64_t(s["bucket_ns"]), 9'900'000'001);
    simdjson::dom::array pts = s["points"];
    ASSERT_EQ(pts.size(), 10u);
    const TimeNs first = kT0 + g * 500'000'000;
    for (std::size_t k = 0; k < pts.size(); ++k) {
      EXPECT_EQ(int64_t(pts.at(k).at(0)), first + static_cast<TimeNs>(k) * 9'900'000'001) << g << " " << k;
      EXPECT_EQ(double(pts.at(k).at(1)), g == 0 ? 10.0 : 90.0);
      EXPECT_EQ(double(pts.at(k).at(2)), g == 0 ? 100.0 : 200.0);
      EXPECT_EQ(double(pts.at(k).at(3)), (g == 0 ? 0 : 1000) + 10.0 * static_cast<double>(k) + 9);
    }
  }
  EXPECT_EQ(uint64_t(gpus.at(2)["samples"]), 1u);
}

TEST(ReportMarks, NotableEventsWithTimesGpusAndTheUnplaced) {
  HandReport h;
  Timeline& t = h.result.timeline;
  GpuDevice dev;
  dev.index = 1;
  dev.pci_bus = "0000:01:00";
  t.devices.push_back(dev);
  t.files.push_back(InputFile{"kern.log", "/x/kern.log", 0, kNoTime, FormatId::syslog});
  add_sample(t, kT0, 0, 50, 100, 60);
  add_sample(t, kT0 + 60 * kNsPerSec, 0, 50, 100, 60);
  add_sample(t, kT0, 1, 50, 100, 60);
  add_sample(t, kT0 + 60 * kNsPerSec, 1, 50, 100, 60);
  add_event(t, kT0 + 10 * kNsPerSec, EventKind::xid, 79, "PCI:0000:01:00", "NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\nmore", 7);
  add_event(t, kT0 + 20 * kNsPerSec, EventKind::ac_offline, std::nullopt, "", "ACPI: AC: AC Adapter [ADP1] (off-line)", 8);
  add_event(t, kT0 + 30 * kNsPerSec, EventKind::cron, std::nullopt, "", "CRON[1]: (root) CMD (true)", 9);
  add_event(t, kNoTime, EventKind::xid, 13, "0000:01:00", "NVRM: Xid (PCI:0000:01:00): 13, bad \xff byte", 10);
  h.finish();
  const std::string json = render_report(h.report, ReportFormat::kJson);
  // The invalid byte is kept in the JSON as a lone surrogate (which simdjson would reject).
  EXPECT_NE(json.find("bad \\udcff byte"), std::string::npos);

  const std::string html = render_report(h.report, ReportFormat::kHtml);
  ASSERT_EQ(check_xml(html).error, "");
  // The Xid names the bus of GPU 1: drawn on GPU 1's chart only; AC (no GPU) on both.
  const auto gpu1 = html.find("<h3>GPU 1</h3>");
  ASSERT_NE(gpu1, std::string::npos);
  const std::string chart0 = html.substr(html.find("<h3>GPU 0</h3>"), gpu1 - html.find("<h3>GPU 0</h3>"));
  const std::string chart1 = html.substr(gpu1, html.find("</svg>", gpu1) - gpu1);
  EXPECT_EQ(chart0.find(">Xid 79</text>"), std::string::npos);
  EXPECT_NE(chart1.find(">Xid 79</text>"), std::string::npos);
  EXPECT_NE(chart0.find(">AC off</text>"), std::string::npos);
  EXPECT_NE(chart1.find(">AC off</text>"), std::string::npos);
  EXPECT_EQ(html.find("CRON"), std::string::npos);  // cron is no mark
  // The unplaced Xid is listed, its invalid byte replaced (the JSON's \udcff became U+FFFD).
  EXPECT_NE(html.find("<td class=\"null\">not placed</td>"), std::string::npos);
  EXPECT_NE(html.find("13, bad \xEF\xBF\xBD byte"), std::string::npos);
  EXPECT_NE(html.find("<td>kern.log:10</td>"), std::string::npos);
  // Only the message's first line is kept.
  EXPECT_EQ(html.find("more"), std::string::npos);
}

TEST(ReportMarks, BeyondTheLimitErrorsAreKeptFirst) {
  HandReport h;
  h.report.max_marks = 2;
  Timeline& t = h.result.timeline;
  add_event(t, kT0 + 1, EventKind::ac_offline, std::nullopt, "", "AC off", 1);
  add_event(t, kT0 + 2, EventKind::ac_online, std::nullopt, "", "AC on", 2);
  add_event(t, kT0 + 3, EventKind::xid, 31, "", "Xid 31", 3);
  add_event(t, kT0 + 4, EventKind::lid_close, std::nullopt, "", "lid", 4);
  add_event(t, kT0 + 5, EventKind::thermal, std::nullopt, "", "hot", 5);
  h.finish();
  const std::string json = render_report(h.report, ReportFormat::kJson);
  simdjson::dom::parser p;
  simdjson::dom::element marks = p.parse(json)["marks"];
  EXPECT_EQ(int64_t(marks["total"]), 5);
  EXPECT_EQ(int64_t(marks["shown"]), 2);
  EXPECT_EQ(int64_t(marks["left_out"]), 3);
  simdjson::dom::array items = marks["items"];
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(std::string_view(items.at(0)["kind"]), "xid");      // time order kept
  EXPECT_EQ(std::string_view(items.at(1)["kind"]), "thermal");
}

// Issue 35: the known-harmless nvidia-modeset lines (R11) are no marks, only a count; each mark
// says how urgent it is, and the chart labels the critical and warning ones even where the
// harmless ones would have crowded them out.
TEST(ReportMarks, BenignDriverLinesAreCountedNotMarkedAndSeverityIsStated) {
  HandReport h;
  Timeline& t = h.result.timeline;
  add_event(t, kT0 + 1, EventKind::driver_error, std::nullopt, "",
            "nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x0000c67d:0:0:0x0000000f", 1);
  add_event(t, kT0 + 2, EventKind::xid, 79, "0000:01:00", "NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.", 2);
  add_event(t, kT0 + 3, EventKind::xid, 31, "0000:01:00", "NVRM: Xid (PCI:0000:01:00): 31, MMU Fault", 3);
  add_event(t, kT0 + 4, EventKind::xid, 154, "0000:01:00",
            "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)", 4);
  add_event(t, kT0 + 5, EventKind::driver_error, std::nullopt, "", "nvidia-drm: ERROR: probe of 0000:01:00.0 failed", 5);
  h.finish();
  const std::string json = render_report(h.report, ReportFormat::kJson);
  simdjson::dom::parser p;
  simdjson::dom::element marks = p.parse(json)["marks"];
  EXPECT_EQ(int64_t(marks["total"]), 4);
  EXPECT_EQ(int64_t(marks["benign_left_out"]), 1);
  simdjson::dom::array items = marks["items"];
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(std::string_view(items.at(0)["severity"]), "critical");  // Xid 79
  EXPECT_EQ(std::string_view(items.at(1)["severity"]), "info");      // Xid 31: the application's
  EXPECT_EQ(std::string_view(items.at(2)["severity"]), "warning");   // Xid 154: reset required
  EXPECT_EQ(std::string_view(items.at(3)["severity"]), "warning");   // a driver error that is no known-harmless one
}

// Issue 35: the power panel draws the GPU's power limit (F068), so that a board held at it shows.
TEST(ReportSeries, ThePowerPanelDrawsTheGpusPowerLimit) {
  HandReport h;
  Timeline& t = h.result.timeline;
  GpuDevice dev;
  dev.index = 0;
  dev.power_limit_w = 300;
  t.devices.push_back(dev);
  for (int i = 0; i < 30; ++i) add_sample(t, kT0 + i * kNsPerSec, 0, 95, 298, 60);
  h.finish();
  const std::string html = render_report(h.report, ReportFormat::kHtml);
  ASSERT_EQ(check_xml(html).error, "");
  EXPECT_NE(html.find(">power limit 300 W</text>"), std::string::npos);
}

// Issue 35: the axis in the machine's zone with UTC beneath it.
TEST(SvgChart, TheAxisIsInTheMachinesZoneWithUtcBeneath) {
  const TimeNs t0 = 1'795'939'200 * kNsPerSec;  // 2026-11-29T08:00:00Z
  const TimeNs ts[] = {t0, t0 + 2 * kNsPerHour};
  svg::Panel p;
  p.title = "SM";
  p.unit = "%";
  p.values = {1, 2};
  const Zone shanghai = Zone::fixed(8 * kNsPerHour);
  const std::string chart = svg::time_chart(ts, std::span<const svg::Panel>(&p, 1), {}, kNsPerHour, "c", &shanghai,
                                            "Asia/Shanghai");
  EXPECT_EQ(testing::check_xml(chart).error, "");
  EXPECT_NE(chart.find(">16:00</text>"), std::string::npos);      // 08:00 UTC on the machine's clock
  EXPECT_NE(chart.find(">08:00 UTC</text>"), std::string::npos);  // and UTC beneath
  EXPECT_NE(chart.find("time (Asia/Shanghai, UTC+08:00; UTC beneath)"), std::string::npos);
  // Without a zone: UTC alone, as before.
  const std::string utc = svg::time_chart(ts, std::span<const svg::Panel>(&p, 1), {}, kNsPerHour, "c");
  EXPECT_NE(utc.find(">08:00</text>"), std::string::npos);
  EXPECT_NE(utc.find("time (UTC)"), std::string::npos);
}

TEST(SvgChart, CriticalAndWarningMarksAreLabelledWhereOthersCrowd) {
  const TimeNs ts[] = {0, 100 * kNsPerSec};
  svg::Panel p;
  p.title = "SM";
  p.unit = "%";
  p.values = {1, 2};
  // Forty info marks a second apart fill the label row; two important ones among them, close
  // together, still get labels (the second on the lower row).
  std::vector<svg::Mark> marks;
  for (int i = 0; i < 40; ++i) marks.push_back({(10 + i) * kNsPerSec, fmt::format("ev{}", i), "", "power"});
  marks.push_back({30 * kNsPerSec, "Xid 79", "", "error", true});
  marks.push_back({31 * kNsPerSec, "Xid 154", "", "error", true});
  std::sort(marks.begin(), marks.end(), [](const svg::Mark& a, const svg::Mark& b) { return a.ts < b.ts; });
  const std::string chart = svg::time_chart(ts, std::span<const svg::Panel>(&p, 1), marks, 3 * kNsPerSec, "c");
  EXPECT_EQ(testing::check_xml(chart).error, "");
  EXPECT_NE(chart.find(">Xid 79</text>"), std::string::npos);
  EXPECT_NE(chart.find(">Xid 154</text>"), std::string::npos);
  EXPECT_NE(chart.find(">ev0</text>"), std::string::npos);     // the first info mark has room
  EXPECT_EQ(chart.find(">ev20</text>"), std::string::npos);    // next to Xid 79: no room left
}

}  // namespace
}  // namespace gpucost
