// The sections of the HTML page that read the report's input, findings, timeline, features and
// diagnostics (the cost sections are in html_cost_sections.cpp).
#include "report/html_sections.hpp"

#include <fmt/format.h>

#include <algorithm>
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

std::vector<MarkItem> placed_marks(OptElement marks) {
  std::vector<MarkItem> placed;
  rd::each(marks ? rd::child(*marks, "items") : std::nullopt, [&](Element m) {
    const auto ts = rd::integer(m, "ts_ns");
    if (!ts) return;
    const auto kind = rd::string(m, "kind");
    const auto code = rd::integer(m, "code");
    std::string title = fmt::format("{} {}{}: {}", rd::string(m, "ts"), kind, code ? fmt::format(" {}", *code) : "",
                                    rd::string(m, "text"));
    const auto severity = rd::string(m, "severity");
    placed.push_back({{*ts, mark_label(kind, code), std::move(title), std::string(rd::string(m, "category")),
                       severity == "critical" || severity == "warning"},
                      rd::integer(m, "gpu_index")});
  });
  return placed;
}

// One GPU's chart: SM utilization, power and temperature panels with the marks that concern it.
void write_gpu_chart(Page& p, Element root, Element g, const std::vector<MarkItem>& placed) {
  const auto gpu = rd::integer(g, "gpu");
  std::vector<TimeNs> ts;
  svg::Panel sm, pw, tc;
  sm.title = "SM utilization", sm.unit = "%", sm.lo = 0.0, sm.hi = 100.0, sm.color = svg::color::kBlue;
  sm.empty_text = "no SM utilization in the samples";
  sm.threshold = rd::number(rd::path(root, "thresholds", "idle_threshold_pct"));
  sm.threshold_label = "idle threshold";
  pw.title = "Power", pw.unit = "W", pw.lo = 0.0, pw.color = svg::color::kGreen;
  pw.empty_text = "no power in the samples";
  // The GPU's power limit (F068): a board drawing it is power-bound, by design at the default.
  rd::each(rd::child(root, "gpus"), [&](Element d) {
    if (rd::integer(d, "index") != gpu) return;
    rd::each(rd::child(d, "features"), [&](Element f) {
      if (rd::string(f, "id") == feature_code(FeatureId::gpu_power_limit_w)) pw.threshold = rd::number(f, "value");
    });
  });
  pw.threshold_label = "power limit";
  tc.title = "GPU temperature", tc.unit = "°C", tc.color = svg::color::kPurple;
  tc.empty_text = "no temperature in the samples";
  tc.threshold = rd::number(rd::path(root, "thresholds", "temp_threshold_c"));
  tc.threshold_label = "hot threshold";
  rd::each(rd::child(g, "points"), [&](Element pt) {
    std::vector<std::optional<double>> v;
    rd::each(pt, [&](Element x) { v.push_back(rd::number(x)); });
    if (v.size() < 4 || !v[0]) return;
    ts.push_back(static_cast<TimeNs>(*v[0]));
    const double nan = std::nan("");
    sm.values.push_back(v[1].value_or(nan));
    pw.values.push_back(v[2].value_or(nan));
    tc.values.push_back(v[3].value_or(nan));
  });
  // Lines break where points are farther apart than three sampling intervals (or buckets).
  const TimeNs interval = std::max(rd::integer(g, "interval_ns").value_or(0), rd::integer(g, "bucket_ns").value_or(0));
  const TimeNs gap = interval > 0 ? 3 * interval : 0;
  std::string name;
  rd::each(rd::child(root, "gpus"), [&](Element d) {
    if (rd::integer(d, "index") == gpu && !rd::string(d, "name").empty()) name = rd::string(d, "name");
  });
  const auto bucket = rd::integer(g, "bucket_ns").value_or(0);
  p.el("h3", fmt::format("GPU {}{}{}", gpu.value_or(-1), name.empty() ? "" : ": ", name));
  // Its MIG devices (`nvidia-smi -L`, issue 38), each with its share of the GPU by memory slices.
  std::string mig;
  rd::each(rd::child(root, "gpus"), [&](Element d) {
    if (rd::integer(d, "index") != gpu) return;
    rd::each(rd::child(d, "mig_devices"), [&](Element m) {
      const auto share = rd::number(m, "share");
      mig +=
          fmt::format("{}{} (device {}, {} of the GPU)", mig.empty() ? "" : ", ", rd::string(m, "profile"),
                      rd::integer(m, "device").value_or(-1), share ? fmt::format("{:g}", *share) : "an unknown share");
    });
  });
  if (!mig.empty()) p.el("p", "MIG devices: " + mig + "; shares by memory slices of the profile", "note");
  p.el("p",
       fmt::format("{} samples{}", human(rd::number(g, "samples")),
                   bucket > 0 ? fmt::format(", shown as {} points of {:g} s each (mean SM and power, max temperature)",
                                            ts.size(), static_cast<double>(bucket) / kNsPerSec)
                              : std::string()),
       "note");
  std::vector<svg::Mark> gm;
  for (const auto& m : placed)
    if (!m.gpu || m.gpu == gpu) gm.push_back(m.mark);
  const svg::Panel panels[] = {sm, pw, tc};
  // The axis in the machine's zone (the one align used), UTC beneath; UTC alone when it is UTC.
  const std::string_view zone_name = rd::string(rd::path(root, "zone", "name"));
  Zone zone;
  std::string error;
  const bool local = !zone_name.empty() && zone_name != "UTC" && Zone::parse(zone_name, zone, error);
  p.raw(svg::time_chart(ts, panels, gm, gap,
                        fmt::format("GPU {}: SM utilization, power and temperature over time", gpu.value_or(-1)),
                        local ? &zone : nullptr, zone_name))
      .raw("\n");
}

// The marks as a table, placed or not.
void write_marks_table(Page& p, OptElement marks) {
  p.el("h3", "Events marked on the timeline");
  p.raw("<p class=\"note\">Marks:");
  for (auto [cat, what] : {std::pair{"error", "GPU/driver/PCIe errors"}, {"thermal", "thermal"},
                           {"power", "AC, lid, suspend/resume"}, {"system", "boot, shutdown, OOM"}})
    p.raw(fmt::format("<span class=\"swatch\" style=\"background:{}\"></span>{}", svg::mark_color(cat), what));
  p.raw("</p>\n");
  const auto total = marks ? rd::number(*marks, "total").value_or(0) : 0;
  if (total == 0) {
    p.missing("No Xid, thermal, AC, lid, suspend or boot events in the logs (or no kernel log among them).");
    return;
  }
  const auto unplaced = rd::number(*marks, "unplaced").value_or(0);
  const auto left_out = rd::number(*marks, "left_out").value_or(0);
  std::string summary = fmt::format("{} events", human(total));
  if (unplaced > 0)
    summary += fmt::format("; {} not placed in time (their log has no wall-clock stamp or anchor), so not drawn",
                           human(unplaced));
  if (left_out > 0)
    summary += fmt::format("; {} more left out of this report (errors are kept first): `gpucost timeline` lists all",
                           human(left_out));
  const auto benign = rd::number(*marks, "benign_left_out").value_or(0);
  if (benign > 0)
    summary += fmt::format("; {} known-harmless driver lines not marked (finding R11)", human(benign));
  p.el("p", summary + ". Critical and warning events are labelled first.", "note");
  p.raw("<table>").row({"time (UTC)", "kind", "severity", "code", "GPU", "message", "where"}, true);
  rd::each(rd::child(*marks, "items"), [&](Element m) {
    const auto ts = rd::string(m, "ts");
    p.raw("<tr>");
    if (ts.empty()) p.el("td", "not placed", "null"); else p.el("td", ts);
    p.raw(fmt::format("<td><span class=\"swatch\" style=\"background:{};margin-left:0\"></span>",
                      svg::mark_color(rd::string(m, "category"))));
    p.text(rd::string(m, "kind")).raw("</td>");
    p.el("td", rd::string(m, "severity"));
    const auto code = rd::integer(m, "code");
    p.el("td", code ? fmt::format("{}", *code) : "");
    const auto instance = rd::integer(m, "gpu_instance");  // a MIG GPU instance (issue 38)
    p.el("td", instance ? fmt::format("{} GPU instance {}", rd::string(m, "gpu"), *instance)
                        : std::string(rd::string(m, "gpu")));
    p.raw("<td><code>").text(rd::string(m, "text")).raw("</code></td>");
    p.el("td", fmt::format("{}:{}", rd::string(m, "file"), human(rd::number(m, "line"))));
    p.raw("</tr>\n");
  });
  p.raw("</table>\n");
}

}  // namespace

void write_header(Page& p, Element root) {
  const auto input = rd::string(root, "input");
  p.raw("<header>");
  p.el("h1", "GPU cost report");
  p.open("p", "meta").text(fmt::format("Logs: {}  |  host: {}", input.empty() ? "-" : input,
                                       rd::string(rd::path(root, "host", "name"))));
  const auto first = rd::string(rd::path(root, "window", "first"));
  const auto last = rd::string(rd::path(root, "window", "last"));
  if (!first.empty()) p.text(fmt::format("  |  {} to {}", whole_seconds(first), whole_seconds(last)));
  p.text(fmt::format("  |  log time zone {}", rd::string(rd::path(root, "zone", "name"))));
  p.close("p");
  p.raw("<nav>");
  for (auto [id, name] : {std::pair{"answer", "Answer"}, {"findings", "Findings"}, {"cost", "Cost breakdown"}, {"break-even", "Job length"},
                          {"sensitivity", "Sensitivity"}, {"timeline", "Timeline"}, {"features", "Features"},
                          {"diagnostics", "Diagnostics"}})
    p.raw(fmt::format("<a href=\"#{}\">{}</a>", id, name));
  p.raw("</nav></header>\n");
}

// What the logs say to do, costliest first as the findings stage ordered them; each finding's
// evidence events link to the timeline chart, where the same instants are marked.
void write_findings(Page& p, Element root) {
  p.open("section", {}, "findings").el("h2", "Findings");
  const auto findings = rd::child(root, "findings");
  bool any = false;
  rd::each(findings, [&](Element f) {
    any = true;
    const std::string severity(rd::string(f, "severity"));
    p.open("div", "finding " + severity);
    p.el("h3", fmt::format("[{}] {} {}: {}", severity, rd::string(f, "id"), rd::string(f, "rule"), rd::string(f, "title")));
    const auto money = rd::child(f, "money");
    if (const auto month = money ? rd::number(*money, "per_month") : std::nullopt) {
      const auto currency = rd::string(*money, "currency");
      p.el("p", fmt::format("Cost: {} {} a month ({} {} over the logs). {}", human(*month), currency,
                            human(rd::number(*money, "over_span")), currency, rd::string(*money, "basis")));
    } else if (money) {
      p.el("p", fmt::format("Cost: {}", rd::string(*money, "basis")), "null");
    }
    p.el("p", fmt::format("Next step: {}", rd::string(f, "next_step")));
    if (const auto confirm = rd::string(f, "to_confirm"); !confirm.empty()) p.el("p", fmt::format("To confirm: {}", confirm), "note");
    std::string evidence;
    rd::each(rd::child(f, "features"), [&](Element e) {
      evidence += fmt::format("{}{} {} = {} {}", evidence.empty() ? "" : "; ", rd::string(e, "id"), rd::string(e, "name"),
                              human(rd::number(e, "value")), rd::string(e, "unit"));
    });
    if (!evidence.empty()) p.el("p", fmt::format("Evidence: {}", evidence), "note");
    rd::each(rd::child(f, "events"), [&](Element e) {
      p.open("p", "note").raw("<a href=\"#timeline\">").text(whole_seconds(rd::string(e, "ts"))).raw("</a> ");
      p.text(fmt::format("{}:{} ({}): ", rd::string(e, "file"), rd::integer(e, "line").value_or(0), rd::string(e, "kind")));
      p.el("code", rd::string(e, "text")).close("p");
    });
    p.close("div");
  });
  if (!any) p.missing("The report has no findings.");
  p.close("section");
}

void write_timeline(Page& p, Element root) {
  p.open("section", {}, "timeline").el("h2", "Timeline: SM utilization, power and temperature");
  const auto marks = rd::child(root, "marks");
  const std::vector<MarkItem> placed = placed_marks(marks);
  bool any = false;
  rd::each(rd::path(root, "series", "gpus"), [&](Element g) {
    any = true;
    write_gpu_chart(p, root, g, placed);
  });
  if (!any) p.missing("No timeline chart: no dmon samples (nvidia-smi dmon or --query-gpu) in the logs.");
  write_marks_table(p, marks);
  p.close("section");
}

void write_features(Page& p, Element root) {
  p.open("section", {}, "features").el("h2", "Features");
  p.el("p",
       "Each feature is computed from the logs (docs/features.md has the definitions; `gpucost features` lists "
       "them). A null means the logs lack what the feature needs, and the last column says what; a 0 is a measured "
       "zero. Per-GPU columns appear for features defined per GPU.",
       "note");
  struct Gpu {
    std::int64_t index;
    OptElement features;
  };
  std::vector<Gpu> gpus;
  rd::each(rd::child(root, "gpus"), [&](Element g) {
    gpus.push_back({rd::integer(g, "index").value_or(-1), rd::child(g, "features")});
  });
  // Group by layer, in the article's order, others after.
  std::vector<std::string> layers = {"hardware", "driver", "runtime", "application", "system", "derived"};
  std::map<std::string, std::vector<Element>> by_layer;
  std::map<std::string, bool> units;
  rd::each(rd::child(root, "features"), [&](Element f) {
    const std::string layer(rd::string(f, "layer"));
    if (std::find(layers.begin(), layers.end(), layer) == layers.end()) layers.push_back(layer);
    by_layer[layer].push_back(f);
    units[std::string(rd::string(f, "unit"))] = true;
  });
  if (by_layer.empty()) p.missing("The report has no features.");
  for (const auto& layer : layers) {
    const auto it = by_layer.find(layer);
    if (it == by_layer.end()) continue;
    p.el("h3", fmt::format("Layer: {}", layer));
    p.raw("<table><tr><th>id</th><th>feature</th><th>all GPUs / host</th>");
    for (const auto& g : gpus) p.raw(fmt::format("<th>GPU {}</th>", g.index));
    p.raw("<th>unit</th><th>null because / evidence</th></tr>\n");
    for (Element f : it->second) {
      const auto id = rd::string(f, "id");
      const auto reason = rd::string(f, "reason");
      p.raw("<tr>").el("td", id).el("td", rd::string(f, "name")).number_cell(rd::number(f, "value"), "null");
      for (const auto& g : gpus) {
        OptElement gf;
        rd::each(g.features, [&](Element x) {
          if (!gf && rd::string(x, "id") == id) gf = x;
        });
        if (!gf) p.el("td", "host only", "null");
        else p.number_cell(rd::number(*gf, "value"), "null");
      }
      p.el("td", rd::string(f, "unit"));
      if (!reason.empty()) p.el("td", reason, "null");
      else p.el("td", rd::string(f, "evidence"));
      p.raw("</tr>\n");
    }
    p.raw("</table>\n");
  }
  if (!units.empty()) {
    p.raw("<p class=\"note\">Units: ");
    bool first = true;
    for (const auto& [u, unused] : units) {
      const auto m = unit_meaning(u);
      if (u.empty() || m.empty()) continue;
      p.raw(first ? "" : "; ").raw("<b>").text(u).raw("</b> ").text(m);
      first = false;
    }
    p.raw(".</p>\n");
  }
  p.close("section");
}

void write_diagnostics(Page& p, Element root) {
  p.open("section", {}, "diagnostics").el("h2", "Diagnostics: what was read");
  const auto dg = rd::child(root, "diagnostics");
  if (dg) {
    p.el("p", fmt::format("{} files ({} usable), {} lines, {} rejected ({:.2f} %; limit {:.2f} %){}.",
                          human(rd::number(*dg, "files")), human(rd::number(*dg, "usable_files")),
                          human(rd::number(*dg, "lines")), human(rd::number(*dg, "rejected")),
                          100 * rd::number(*dg, "error_rate").value_or(0),
                          100 * rd::number(*dg, "max_error_rate").value_or(0),
                          rd::boolean(*dg, "error_rate_exceeded") ? ": TOO MANY REJECTED LINES" : ""));
  }
  p.el("p", fmt::format("Time zone: {} ({}). Years: {}.", rd::string(rd::path(root, "zone", "name")),
                        rd::string(rd::path(root, "zone", "reason")), rd::string(root, "year_reason")),
       "note");
  p.el("p", fmt::format("Thresholds: idle at or below {} % SM, hot above {} °C.",
                        human(rd::number(rd::path(root, "thresholds", "idle_threshold_pct"))),
                        human(rd::number(rd::path(root, "thresholds", "temp_threshold_c")))),
       "note");

  p.raw("<table>").row({"file", "format (score)", "lines", "accepted", "continued", "rejected", "records", "problems"},
                       true);
  std::vector<Element> samples;
  rd::each(rd::child(root, "files"), [&](Element f) {
    std::string problems;
    rd::each_member(rd::child(f, "problems"), [&](std::string_view k, Element n) {
      problems += fmt::format("{}{} {}", problems.empty() ? "" : ", ", human(rd::number(n)), k);
    });
    const auto runner = rd::string(f, "runner_up");
    p.raw("<tr>").raw("<td><code>").text(rd::string(f, "path")).raw("</code></td>");
    p.el("td", fmt::format("{} ({}){}", rd::string(f, "format"), human(rd::number(f, "score")),
                           runner.empty() || rd::number(f, "runner_up_score").value_or(0) == 0
                               ? std::string()
                               : fmt::format("; runner-up {} ({})", runner, human(rd::number(f, "runner_up_score")))));
    p.number_cell(rd::number(f, "lines")).number_cell(rd::number(f, "accepted"));
    p.number_cell(rd::number(f, "continuations")).number_cell(rd::number(f, "rejected"));
    p.number_cell(rd::number(f, "records")).el("td", problems).raw("</tr>\n");
    rd::each(rd::child(f, "samples"), [&](Element s) { samples.push_back(s); });
  });
  p.raw("</table>\n");
  if (!samples.empty()) {
    p.el("h3", "Rejected lines and other problems (first samples per file)");
    p.raw("<table>").row({"where", "problem", "reason", "line as read"}, true);
    for (Element s : samples) {
      p.raw("<tr>").el("td", fmt::format("{}:{}", rd::string(s, "file"), human(rd::number(s, "line"))));
      p.el("td", rd::string(s, "problem")).el("td", rd::string(s, "reason"));
      p.raw("<td><code>").text(rd::string(s, "excerpt")).raw("</code></td></tr>\n");
    }
    p.raw("</table>\n");
  }
  bool notes = false;
  rd::each(dg ? rd::child(*dg, "notes") : std::nullopt, [&](Element n) {
    if (!notes) p.el("h3", "Notes").raw("<ul>");
    notes = true;
    p.el("li", rd::string(std::optional<Element>(n)));
  });
  if (notes) p.raw("</ul>\n");
  bool timings = false;
  rd::each(rd::child(root, "timings"), [&](Element t) {
    if (!timings) p.el("h3", "Stage timings").raw("<table>").row({"stage", "seconds", "rows", "MB/s"}, true);
    timings = true;
    p.raw("<tr>").el("td", rd::string(t, "stage")).number_cell(rd::number(t, "seconds"));
    p.number_cell(rd::number(t, "rows")).number_cell(rd::number(t, "mb_per_s")).raw("</tr>\n");
  });
  if (timings) p.raw("</table>\n");
  p.close("section");
}

}  // namespace gpucost::html
