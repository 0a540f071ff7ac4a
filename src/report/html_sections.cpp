// The sections of the HTML page that read the report's input, findings, timeline, features and
// diagnostics (the cost sections are in html_cost_sections.cpp).
#include "report/html_sections.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <vector>

#include "gpucost/features/feature_ids.hpp"
#include "report/svg.hpp"

namespace gpucost::html {

namespace {

// What a unit means, for the legend of the feature table.
std::string_view unit_meaning(std::string_view u) {
  if (u == "%") return "percent (0-100) of the sampling interval";
  if (u == "ratio") return "share between 0 and 1";
  if (u == "count") return "number of rows or events in the analyzed window";
  if (u == "s") return "seconds";
  if (u == "h") return "hours";
  if (u == "W") return "watts";
  if (u == "kWh") return "kilowatt-hours";
  if (u == "C") return "degrees Celsius";
  if (u == "1/h") return "events per hour of the window";
  if (u == "MB" || u == "MiB") return "megabytes";
  if (u == "ms") return "milliseconds";
  return {};
}

// `2026-11-29T08:00:00.000000Z` -> `2026-11-29 08:00:00Z` (stamps in headings; exact ones in tables).
std::string whole_seconds(std::string_view ts) {
  std::string s(ts.substr(0, 19));
  if (s.size() == 19 && s[10] == 'T') s[10] = ' ';
  return ts.size() > 19 ? s + "Z" : s;
}

// A time as the JSON report writes it; empty for none.
std::string stamp(TimeNs t) { return t == kNoTime ? std::string() : format_rfc3339(t); }

std::string mark_label(std::string_view kind, std::optional<std::int64_t> code) {
  if (kind == "xid") return code ? fmt::format("Xid {}", *code) : "Xid";
  if (kind == "ac_online") return "AC on";
  if (kind == "ac_offline") return "AC off";
  if (kind == "lid_close") return "lid closed";
  if (kind == "lid_open") return "lid open";
  if (kind == "fallen_off_bus") return "off the bus";
  return std::string(kind);
}

// A mark with a time, for the charts, and the GPU it concerns (none: every GPU's chart).
struct MarkItem {
  svg::Mark mark;
  std::optional<std::int64_t> gpu;
};

std::vector<MarkItem> placed_marks(const MarksSection& marks) {
  std::vector<MarkItem> placed;
  for (const auto& m : marks.items) {
    if (m.ts == kNoTime) continue;
    std::string title =
        fmt::format("{} {}{}: {}", stamp(m.ts), m.kind, m.code ? fmt::format(" {}", *m.code) : "", m.text);
    placed.push_back({{m.ts, mark_label(m.kind, m.code), std::move(title), std::string(m.category),
                       m.severity == "critical" || m.severity == "warning"},
                      m.gpu_index ? std::optional<std::int64_t>(*m.gpu_index) : std::nullopt});
  }
  return placed;
}

// The GPU section of a GPU index, or nullptr.
const GpuSection* gpu_of(const ReportModel& m, int index) {
  for (const auto& g : m.gpus)
    if (g.index == index) return &g;
  return nullptr;
}

// Its MIG devices (`nvidia-smi -L`, issue 38), each with its share of the GPU by memory slices.
std::string mig_devices_text(const GpuSection* g) {
  std::string mig;
  if (!g || !g->mig_listing) return mig;
  for (const auto& d : g->mig_listing->mig_devices) {
    const auto share = stated(d.share);
    mig += fmt::format("{}{} (device {}, {} of the GPU)", mig.empty() ? "" : ", ", d.profile, d.device,
                       share ? fmt::format("{:g}", *share) : "an unknown share");
  }
  return mig;
}

// The three panels of a GPU's chart, with its points; `ts` gets the points' times.
std::array<svg::Panel, 3> gpu_panels(const ReportModel& m, const GpuSeries& s, std::vector<TimeNs>& ts) {
  svg::Panel sm, pw, tc;
  sm.title = "SM utilization", sm.unit = "%", sm.lo = 0.0, sm.hi = 100.0, sm.color = svg::color::kBlue;
  sm.empty_text = "no SM utilization in the samples";
  sm.threshold = stated(m.run.idle_threshold_pct);
  sm.threshold_label = "idle threshold";
  pw.title = "Power", pw.unit = "W", pw.lo = 0.0, pw.color = svg::color::kGreen;
  pw.empty_text = "no power in the samples";
  // The GPU's power limit (F068): a board drawing it is power-bound, by design at the default.
  if (const GpuSection* g = gpu_of(m, s.gpu))
    if (const FeatureLine* limit = g->feature(FeatureId::gpu_power_limit_w)) pw.threshold = limit->stated_value();
  pw.threshold_label = "power limit";
  tc.title = "GPU temperature", tc.unit = "°C", tc.color = svg::color::kPurple;
  tc.empty_text = "no temperature in the samples";
  tc.threshold = stated(m.run.temp_threshold_c);
  tc.threshold_label = "hot threshold";
  const double nan = std::nan("");
  for (const auto& pt : s.points) {
    // Through a double, as the page has always read the JSON's times (below a pixel apart).
    ts.push_back(static_cast<TimeNs>(static_cast<double>(pt.ts)));
    sm.values.push_back(stated(pt.sm_pct).value_or(nan));
    pw.values.push_back(stated(pt.power_w).value_or(nan));
    tc.values.push_back(stated(pt.gpu_temp_c).value_or(nan));
  }
  return {sm, pw, tc};
}

// One GPU's chart: SM utilization, power and temperature panels with the marks that concern it.
void write_gpu_chart(Page& p, const ReportModel& m, const GpuSeries& s, const std::vector<MarkItem>& placed) {
  std::vector<TimeNs> ts;
  const auto panels = gpu_panels(m, s, ts);
  // Lines break where points are farther apart than three sampling intervals (or buckets).
  const TimeNs interval = std::max(s.interval_ns, s.bucket_ns);
  const TimeNs gap = interval > 0 ? 3 * interval : 0;
  const GpuSection* g = gpu_of(m, s.gpu);
  const std::string_view name = g ? g->name : std::string_view{};
  p.el("h3", fmt::format("GPU {}{}{}", s.gpu, name.empty() ? "" : ": ", name));
  if (const std::string mig = mig_devices_text(g); !mig.empty())
    p.el("p", "MIG devices: " + mig + "; shares by memory slices of the profile", "note");
  p.el("p",
       fmt::format("{} samples{}", human(static_cast<double>(s.samples)),
                   s.bucket_ns > 0
                       ? fmt::format(", shown as {} points of {:g} s each (mean SM and power, max temperature)",
                                     ts.size(), static_cast<double>(s.bucket_ns) / kNsPerSec)
                       : std::string()),
       "note");
  std::vector<svg::Mark> gm;
  for (const auto& mk : placed)
    if (!mk.gpu || *mk.gpu == s.gpu) gm.push_back(mk.mark);
  // The axis in the machine's zone (the one align used), UTC beneath; UTC alone when it is UTC.
  const std::string_view zone_name = m.run.zone_name;
  Zone zone;
  std::string error;
  const bool local = !zone_name.empty() && zone_name != "UTC" && Zone::parse(zone_name, zone, error);
  p.raw(svg::time_chart(ts, panels, gm, gap,
                        fmt::format("GPU {}: SM utilization, power and temperature over time", s.gpu),
                        local ? &zone : nullptr, zone_name))
      .raw("\n");
}

std::string marks_summary(const MarksSection& marks) {
  std::string summary = fmt::format("{} events", human(static_cast<double>(marks.total)));
  if (marks.unplaced > 0)
    summary += fmt::format("; {} not placed in time (their log has no wall-clock stamp or anchor), so not drawn",
                           human(static_cast<double>(marks.unplaced)));
  if (marks.left_out > 0)
    summary += fmt::format("; {} more left out of this report (errors are kept first): `gpucost timeline` lists all",
                           human(static_cast<double>(marks.left_out)));
  if (marks.benign_left_out > 0)
    summary += fmt::format("; {} known-harmless driver lines not marked (finding R11)",
                           human(static_cast<double>(marks.benign_left_out)));
  return summary + ". Critical and warning events are labelled first.";
}

void write_mark_row(Page& p, const ChartMark& m) {
  p.raw("<tr>");
  if (m.ts == kNoTime) p.el("td", "not placed", "null");
  else p.el("td", stamp(m.ts));
  p.raw(fmt::format("<td><span class=\"swatch\" style=\"background:{};margin-left:0\"></span>",
                    svg::mark_color(m.category)));
  p.text(m.kind).raw("</td>");
  p.el("td", m.severity);
  p.el("td", m.code ? fmt::format("{}", *m.code) : "");
  // A MIG GPU instance (issue 38).
  p.el("td", m.gpu_instance ? fmt::format("{} GPU instance {}", m.gpu, *m.gpu_instance) : std::string(m.gpu));
  p.raw("<td><code>").text(m.text).raw("</code></td>");
  p.el("td", fmt::format("{}:{}", m.file.value_or(std::string_view{}), human(static_cast<double>(m.line))));
  p.raw("</tr>\n");
}

// The marks as a table, placed or not.
void write_marks_table(Page& p, const MarksSection& marks) {
  p.el("h3", "Events marked on the timeline");
  p.raw("<p class=\"note\">Marks:");
  for (auto [cat, what] : {std::pair{"error", "GPU/driver/PCIe errors"}, {"thermal", "thermal"},
                           {"power", "AC, lid, suspend/resume"}, {"system", "boot, shutdown, OOM"}})
    p.raw(fmt::format("<span class=\"swatch\" style=\"background:{}\"></span>{}", svg::mark_color(cat), what));
  p.raw("</p>\n");
  if (marks.total == 0) {
    p.missing("No Xid, thermal, AC, lid, suspend or boot events in the logs (or no kernel log among them).");
    return;
  }
  p.el("p", marks_summary(marks), "note");
  p.raw("<table>").row({"time (UTC)", "kind", "severity", "code", "GPU", "message", "where"}, true);
  for (const auto& m : marks.items) write_mark_row(p, m);
  p.raw("</table>\n");
}

}  // namespace

void write_header(Page& p, const ReportModel& m) {
  const RunSection& run = m.run;
  p.raw("<header>");
  p.el("h1", "GPU cost report");
  p.open("p", "meta").text(fmt::format("Logs: {}  |  host: {}", run.input.empty() ? "-" : run.input, run.host.name));
  if (run.first != kNoTime)
    p.text(fmt::format("  |  {} to {}", whole_seconds(stamp(run.first)), whole_seconds(stamp(run.last))));
  p.text(fmt::format("  |  log time zone {}", run.zone_name));
  p.close("p");
  p.raw("<nav>");
  for (auto [id, name] : {std::pair{"answer", "Answer"}, {"findings", "Findings"}, {"cost", "Cost breakdown"}, {"break-even", "Job length"},
                          {"sensitivity", "Sensitivity"}, {"timeline", "Timeline"}, {"features", "Features"},
                          {"diagnostics", "Diagnostics"}})
    p.raw(fmt::format("<a href=\"#{}\">{}</a>", id, name));
  p.raw("</nav></header>\n");
}

namespace {

void write_finding(Page& p, const findings::Finding& f) {
  const std::string severity(findings::severity_name(f.severity));
  p.open("div", "finding " + severity);
  p.el("h3", fmt::format("[{}] {} {}: {}", severity, f.id, f.rule, f.title));
  const findings::Money& money = f.money;
  if (const auto month = stated(money.per_month)) {
    p.el("p", fmt::format("Cost: {} {} a month ({} {} over the logs). {}", human(*month), money.currency,
                          human(stated(money.over_span)), money.currency, money.basis));
  } else {
    p.el("p", fmt::format("Cost: {}", money.basis), "null");
  }
  p.el("p", fmt::format("Next step: {}", f.next_step));
  if (!f.to_confirm.empty()) p.el("p", fmt::format("To confirm: {}", f.to_confirm), "note");
  std::string evidence;
  for (const auto& e : f.features)
    evidence +=
        fmt::format("{}{} {} = {} {}", evidence.empty() ? "" : "; ", e.id, e.name, human(stated(e.value)), e.unit);
  if (!evidence.empty()) p.el("p", fmt::format("Evidence: {}", evidence), "note");
  for (const auto& e : f.events) {
    p.open("p", "note").raw("<a href=\"#timeline\">").text(whole_seconds(stamp(e.ts))).raw("</a> ");
    p.text(fmt::format("{}:{} ({}): ", e.file, e.line, e.kind));
    p.el("code", e.text).close("p");
  }
  p.close("div");
}

}  // namespace

// What the logs say to do, costliest first as the findings stage ordered them; each finding's
// evidence events link to the timeline chart, where the same instants are marked.
void write_findings(Page& p, const ReportModel& m) {
  p.open("section", {}, "findings").el("h2", "Findings");
  for (const auto& f : m.findings) write_finding(p, f);
  if (m.findings.empty()) p.missing("The report has no findings.");
  p.close("section");
}

void write_timeline(Page& p, const ReportModel& m) {
  p.open("section", {}, "timeline").el("h2", "Timeline: SM utilization, power and temperature");
  const ChartSection empty;
  const ChartSection& charts = m.charts ? *m.charts : empty;
  const std::vector<MarkItem> placed = placed_marks(charts.marks);
  for (const auto& s : charts.series.gpus) write_gpu_chart(p, m, s, placed);
  if (charts.series.gpus.empty())
    p.missing("No timeline chart: no dmon samples (nvidia-smi dmon or --query-gpu) in the logs.");
  write_marks_table(p, charts.marks);
  p.close("section");
}

namespace {

// The line of the same feature among a GPU's, or nullptr (a host-only feature).
const FeatureLine* same_feature(const GpuSection& g, const FeatureLine& f) {
  for (const auto& x : g.features)
    if (x.def == f.def) return &x;
  return nullptr;
}

void write_feature_row(Page& p, const ReportModel& m, const FeatureLine& f) {
  p.raw("<tr>").el("td", f.def->id).el("td", f.def->name).number_cell(f.stated_value(), "null");
  for (const auto& g : m.gpus) {
    if (const FeatureLine* gf = same_feature(g, f)) p.number_cell(gf->stated_value(), "null");
    else p.el("td", "host only", "null");
  }
  p.el("td", f.def->unit);
  if (const auto reason = f.null_reason(); !reason.empty()) p.el("td", reason, "null");
  else p.el("td", f.value->evidence);
  p.raw("</tr>\n");
}

void write_unit_legend(Page& p, const std::map<std::string, bool>& units) {
  p.raw("<p class=\"note\">Units: ");
  bool first = true;
  for (const auto& [u, unused] : units) {
    const auto meaning = unit_meaning(u);
    if (u.empty() || meaning.empty()) continue;
    p.raw(first ? "" : "; ").raw("<b>").text(u).raw("</b> ").text(meaning);
    first = false;
  }
  p.raw(".</p>\n");
}

}  // namespace

void write_features(Page& p, const ReportModel& m) {
  p.open("section", {}, "features").el("h2", "Features");
  p.el("p",
       "Each feature is computed from the logs (docs/features.md has the definitions; `gpucost features` lists "
       "them). A null means the logs lack what the feature needs, and the last column says what; a 0 is a measured "
       "zero. Per-GPU columns appear for features defined per GPU.",
       "note");
  // Group by layer, in the article's order, others after.
  std::vector<std::string> layers = {"hardware", "driver", "runtime", "application", "system", "derived"};
  std::map<std::string, std::vector<const FeatureLine*>> by_layer;
  std::map<std::string, bool> units;
  for (const auto& f : m.features) {
    const std::string layer(layer_name(f.def->layer));
    if (std::find(layers.begin(), layers.end(), layer) == layers.end()) layers.push_back(layer);
    by_layer[layer].push_back(&f);
    units[std::string(f.def->unit)] = true;
  }
  if (by_layer.empty()) p.missing("The report has no features.");
  for (const auto& layer : layers) {
    const auto it = by_layer.find(layer);
    if (it == by_layer.end()) continue;
    p.el("h3", fmt::format("Layer: {}", layer));
    p.raw("<table><tr><th>id</th><th>feature</th><th>all GPUs / host</th>");
    for (const auto& g : m.gpus) p.raw(fmt::format("<th>GPU {}</th>", g.index));
    p.raw("<th>unit</th><th>null because / evidence</th></tr>\n");
    for (const FeatureLine* f : it->second) write_feature_row(p, m, *f);
    p.raw("</table>\n");
  }
  if (!units.empty()) write_unit_legend(p, units);
  p.close("section");
}

namespace {

double count(std::uint64_t n) { return static_cast<double>(n); }

void write_file_row(Page& p, const FileDiagnostics& f) {
  std::string problems;
  for (std::size_t i = 0; i < kProblemCount; ++i)
    if (f.problems[i])
      problems += fmt::format("{}{} {}", problems.empty() ? "" : ", ", human(count(f.problems[i])),
                              problem_name(static_cast<Problem>(i)));
  p.raw("<tr>").raw("<td><code>").text(f.path).raw("</code></td>");
  p.el("td", fmt::format("{} ({}){}", format_name(f.format), human(f.score),
                         f.runner_up == FormatId::unknown || f.runner_up_score == 0
                             ? std::string()
                             : fmt::format("; runner-up {} ({})", format_name(f.runner_up), human(f.runner_up_score))));
  p.number_cell(count(f.lines)).number_cell(count(f.accepted));
  p.number_cell(count(f.continuations)).number_cell(count(f.rejected()));
  p.number_cell(count(f.records)).el("td", problems).raw("</tr>\n");
}

void write_problem_samples(Page& p, const Diagnostics& dg) {
  bool any = false;
  for (const auto& f : dg.files)
    for (const auto& s : f.samples) {
      if (!any) {
        p.el("h3", "Rejected lines and other problems (first samples per file)");
        p.raw("<table>").row({"where", "problem", "reason", "line as read"}, true);
      }
      any = true;
      p.raw("<tr>").el("td", fmt::format("{}:{}", f.path, human(count(s.line))));
      p.el("td", problem_name(s.problem)).el("td", s.reason);
      p.raw("<td><code>").text(s.excerpt).raw("</code></td></tr>\n");
    }
  if (any) p.raw("</table>\n");
}

void write_timings(Page& p, const std::vector<StageTiming>& timings) {
  if (timings.empty()) return;
  p.el("h3", "Stage timings").raw("<table>").row({"stage", "seconds", "rows", "MB/s"}, true);
  for (const auto& t : timings) {
    p.raw("<tr>").el("td", t.stage).number_cell(stated(t.seconds));
    p.number_cell(count(t.rows)).number_cell(stated(stage_mb_per_s(t))).raw("</tr>\n");
  }
  p.raw("</table>\n");
}

}  // namespace

void write_diagnostics(Page& p, const ReportModel& m, const std::vector<StageTiming>& timings) {
  p.open("section", {}, "diagnostics").el("h2", "Diagnostics: what was read");
  const InputSection& in = m.inputs;
  const Diagnostics& dg = *in.diagnostics;
  p.el("p",
       fmt::format("{} files ({} usable), {} lines, {} rejected ({:.2f} %; limit {:.2f} %){}.", human(count(in.files)),
                   human(count(in.usable_files)), human(count(in.lines)), human(count(in.rejected)),
                   100 * stated(in.error_rate).value_or(0), 100 * stated(in.max_error_rate).value_or(0),
                   in.error_rate_exceeded ? ": TOO MANY REJECTED LINES" : ""));
  p.el("p", fmt::format("Time zone: {} ({}). Years: {}.", m.run.zone_name, m.run.zone_reason, m.run.year_reason),
       "note");
  p.el("p",
       fmt::format("Thresholds: idle at or below {} % SM, hot above {} °C.", human(stated(m.run.idle_threshold_pct)),
                   human(stated(m.run.temp_threshold_c))),
       "note");
  p.raw("<table>").row({"file", "format (score)", "lines", "accepted", "continued", "rejected", "records", "problems"},
                       true);
  for (const auto& f : dg.files) write_file_row(p, f);
  p.raw("</table>\n");
  write_problem_samples(p, dg);
  if (!dg.notes.empty()) {
    p.el("h3", "Notes").raw("<ul>");
    for (const auto& n : dg.notes) p.el("li", n);
    p.raw("</ul>\n");
  }
  write_timings(p, timings);
  p.close("section");
}

}  // namespace gpucost::html
