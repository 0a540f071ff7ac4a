// The HTML report: one self-contained page rendered from the report document. No script, no
// external reference (the page must read the same offline and in ten years), charts as inline
// SVG (report/svg.hpp). Every text goes through append_xml_escaped, so the page is also
// well-formed XML.
#include "gpucost/report/html_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "gpucost/text/number.hpp"
#include "gpucost/text/utf8.hpp"
#include "report/svg.hpp"

namespace gpucost {

namespace {

namespace rd = reportdoc;
using rd::Element;
using OptElement = std::optional<Element>;

// Length of the UTF-8 character at s[i] that XML accepts, or 0: well-formed UTF-8 (one decoder,
// text/utf8.hpp) without the controls but tab, LF and CR, DEL, U+FFFE and U+FFFF.
std::size_t xml_char_length(std::string_view s, std::size_t i) {
  const auto [cp, n] = text::decode_utf8(s, i);
  if (n == 1) return (cp >= 0x20 && cp != 0x7F) || cp == '\t' || cp == '\n' || cp == '\r' ? 1 : 0;
  return cp == 0xFFFE || cp == 0xFFFF ? 0 : n;
}

// Numbers for people: integers as integers, others to about three significant digits.
std::string human(double v) {
  if (!std::isfinite(v)) return "-";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<long long>(v));
  const double a = std::fabs(v);
  if (a >= 1000) return fmt::format("{:.0f}", v);
  if (a >= 100) return fmt::format("{:.1f}", v);
  if (a >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);
}
std::string human(std::optional<double> v) { return v ? human(*v) : std::string("-"); }

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

// The first sentence (up to ". " outside parentheses, before a capital letter) and the rest.
std::pair<std::string_view, std::string_view> split_first_sentence(std::string_view t) {
  int depth = 0;
  for (std::size_t i = 0; i + 2 < t.size(); ++i) {
    if (t[i] == '(') ++depth;
    else if (t[i] == ')') depth = std::max(0, depth - 1);
    else if (depth == 0 && t[i] == '.' && t[i + 1] == ' ' && t[i + 2] >= 'A' && t[i + 2] <= 'Z')
      return {t.substr(0, i + 1), t.substr(i + 2)};
  }
  return {t, {}};
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

class Page {
 public:
  std::string out;

  Page& raw(std::string_view s) {
    out += s;
    return *this;
  }
  Page& text(std::string_view s) {
    append_xml_escaped(out, s);
    return *this;
  }
  /// <tag class="cls">text</tag>
  Page& el(std::string_view tag, std::string_view content, std::string_view cls = {}) {
    open(tag, cls);
    text(content);
    if (tag == "td" || tag == "th") {  // cells stay on their row's line
      out += "</";
      out += tag;
      out += '>';
      return *this;
    }
    return close(tag);
  }
  Page& open(std::string_view tag, std::string_view cls = {}, std::string_view id = {}) {
    out += '<';
    out += tag;
    if (!id.empty()) {
      out += " id=\"";
      text(id);
      out += '"';
    }
    if (!cls.empty()) {
      out += " class=\"";
      text(cls);
      out += '"';
    }
    out += '>';
    return *this;
  }
  Page& close(std::string_view tag) {
    out += "</";
    out += tag;
    out += ">\n";
    return *this;
  }
  /// A table row of cells (th for the header row).
  Page& row(std::initializer_list<std::string_view> cells, bool header = false) {
    out += "<tr>";
    for (auto c : cells) el(header ? "th" : "td", c);
    out += "</tr>\n";
    return *this;
  }
  /// A cell with a number: shown rounded, the exact value in the tooltip.
  Page& number_cell(std::optional<double> v, std::string_view null_text = "-") {
    if (!v) return el("td", null_text, "null");
    out += "<td class=\"num\" title=\"";
    text(format_number(*v));
    out += "\">";
    text(human(*v));
    out += "</td>";
    return *this;
  }
  Page& missing(std::string_view why) { return el("p", why, "missing"); }
};

constexpr const char* kStyle = R"(
body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #222; margin: 0 auto; max-width: 1040px; padding: 0 16px 40px; line-height: 1.45; }
h1 { font-size: 1.6em; margin: 0.8em 0 0.2em; }
h2 { font-size: 1.3em; border-bottom: 2px solid #0072B2; padding-bottom: 2px; margin-top: 1.6em; }
h3 { font-size: 1.05em; margin: 1.2em 0 0.3em; }
.meta { color: #555; font-size: 0.9em; margin: 0; }
nav { font-size: 0.9em; margin: 0.6em 0; }
nav a { margin-right: 1em; color: #0072B2; }
.verdict { font-size: 1.25em; font-weight: bold; border-left: 6px solid #0072B2; padding: 8px 12px; background: #f2f7fb; }
.keyfigs { display: flex; flex-wrap: wrap; gap: 12px; margin: 12px 0; }
.keyfig { border: 1px solid #ccc; border-radius: 4px; padding: 6px 12px; min-width: 180px; }
.keyfig b { display: block; font-size: 1.3em; }
table { border-collapse: collapse; margin: 8px 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #eeeeee; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.null, .null { color: #777; font-style: italic; }
tr.total td { font-weight: bold; border-top: 2px solid #555; }
.missing { color: #8a4b00; background: #fff6e6; border: 1px dashed #e69f00; padding: 6px 10px; }
.note { color: #555; font-size: 0.9em; }
.swatch { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: middle; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 0.9em; word-break: break-all; }
details { margin: 8px 0; }
summary { cursor: pointer; color: #0072B2; }
svg { display: block; margin: 8px 0; max-width: 100%; height: auto; }
.finding { border-left: 6px solid #999; padding: 4px 12px; margin: 10px 0; background: #fafafa; }
.finding.critical { border-color: #D55E00; } .finding.warning { border-color: #E69F00; } .finding.info { border-color: #0072B2; }
.finding h3 { margin: 0.2em 0; } .finding p { margin: 0.3em 0; }
footer { margin-top: 3em; color: #777; font-size: 0.85em; border-top: 1px solid #ccc; padding-top: 6px; }
@media print { nav { display: none; } section { break-inside: avoid-page; } details { display: block; } body { max-width: none; } }
)";

// The step of the cost section that computed `name` (formula and numbers), if any.
OptElement find_step(OptElement cost, std::string_view name) {
  OptElement found;
  rd::each(cost ? rd::child(*cost, "steps") : std::nullopt, [&](Element s) {
    if (!found && rd::string(s, "name") == name) found = s;
  });
  return found;
}

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
  for (auto [id, name] : {std::pair{"findings", "Findings"}, {"verdict", "Verdict"}, {"cost", "Cost breakdown"}, {"break-even", "Break-even"},
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

void write_verdict(Page& p, OptElement cost) {
  p.open("section", {}, "verdict").el("h2", "Verdict");
  if (!cost) {
    p.missing("No cost section in the report: no verdict.");
    p.close("section");
    return;
  }
  const auto text = rd::string(*cost, "verdict_text");
  const auto [first, rest] = split_first_sentence(text);
  p.el("p", first.empty() ? "The cost model gave no verdict." : first, "verdict");
  if (!rest.empty()) p.el("p", rest);
  const std::string cur(rd::string(*cost, "currency"));
  const auto be = rd::child(*cost, "break_even");
  p.raw("<div class=\"keyfigs\">");
  auto fig = [&](std::string_view label, std::optional<double> v, std::string_view unit) {
    p.raw("<div class=\"keyfig\">").text(label).raw("<b>");
    p.text(v ? fmt::format("{} {}", human(*v), unit) : std::string("none"));
    p.raw("</b></div>");
  };
  fig("local, per effective hour", rd::number(rd::path(*cost, "local", "cost_per_effective_hour")), cur + "/h");
  fig("cloud, per effective hour", rd::number(rd::path(*cost, "cloud", "cost_per_effective_hour")), cur + "/h");
  fig("break-even job length", be ? rd::number(*be, "job_hours") : std::nullopt, "h");
  fig("buying pays after", be ? rd::number(*be, "buy_vs_rent_hours") : std::nullopt, "h of use");
  p.raw("</div>\n");
  p.close("section");
}

void write_cost(Page& p, OptElement cost) {
  p.open("section", {}, "cost").el("h2", "Cost breakdown");
  if (!cost) {
    p.missing("No cost section in the report.");
    p.close("section");
    return;
  }
  const std::string cur(rd::string(*cost, "currency"));
  const std::string per_h = cur + "/h";
  const auto local = rd::child(*cost, "local");
  const auto cloud = rd::child(*cost, "cloud");
  auto step_text = [&](std::string_view name) {
    const auto s = find_step(cost, name);
    if (!s) return std::string();
    return fmt::format("{} = {}", rd::string(*s, "formula"), rd::string(*s, "numbers"));
  };
  auto row = [&](std::string_view label, std::optional<double> v, std::string_view unit, std::string_view step,
                 bool total = false) {
    p.raw(total ? "<tr class=\"total\">" : "<tr>").el("td", label).number_cell(v, "infinite or unknown");
    p.el("td", unit).el("td", step_text(step)).raw("</tr>\n");
  };
  p.el("h3", fmt::format("Local GPU: {}", rd::string(rd::path(*cost, "local_gpu", "label"))));
  p.raw("<table>").row({"term", "value", "unit", "how"}, true);
  const auto ln = [&](std::string_view k) { return local ? rd::number(*local, k) : std::nullopt; };
  row("amortization", ln("amortization_per_hour"), per_h, "local.amortization_per_hour");
  row("electricity", ln("electricity_per_hour"), per_h, "local.electricity_per_hour");
  row("cooling", ln("cooling_per_hour"), per_h, "local.cooling_per_hour");
  row("maintenance (incidents)", ln("maintenance_per_hour"), per_h, "local.maintenance_per_hour");
  row("per wall hour", ln("cost_per_wall_hour"), per_h, "local.cost_per_wall_hour", true);
  row("effective utilization", ln("effective_utilization"), "ratio", "");
  row("per effective hour", ln("cost_per_effective_hour"), per_h, "local.cost_per_effective_hour", true);
  row("fixed cost per job", ln("fixed_cost_per_job"), cur, "");
  p.raw("</table>\n");

  p.el("h3", fmt::format("Cloud GPU: {}", rd::string(rd::path(*cost, "cloud_offer", "label"))));
  p.raw("<table>").row({"term", "value", "unit", "how"}, true);
  const auto cn = [&](std::string_view k) { return cloud ? rd::number(*cloud, k) : std::nullopt; };
  row("hourly rate", cn("hourly_rate"), per_h, "");
  row("per effective hour", cn("cost_per_effective_hour"), per_h, "cloud.cost_per_effective_hour", true);
  row("cold start per job", cn("cold_start_cost"), cur, "cloud.cold_start_cost");
  p.raw("</table>\n");

  // Every input with its origin (preset, default, measured from the logs, option).
  p.raw("<details><summary>Inputs and where each came from</summary><table>");
  p.row({"input", "value", "unit", "origin", "note"}, true);
  for (std::string_view side : {"local", "cloud", "query"})
    rd::each_member(rd::path(*cost, "inputs", side), [&](std::string_view key, Element in) {
      p.raw("<tr>").el("td", fmt::format("{}.{}", side, key)).number_cell(rd::number(in, "value"), "unset");
      p.el("td", rd::string(in, "unit")).el("td", rd::string(in, "origin")).el("td", rd::string(in, "note"));
      p.raw("</tr>\n");
    });
  p.raw("</table></details>\n");
  p.close("section");
}

void write_break_even(Page& p, OptElement cost) {
  p.open("section", {}, "break-even").el("h2", "Break-even: cost per job against job length");
  const auto be = cost ? rd::child(*cost, "break_even") : std::nullopt;
  if (!be) {
    p.missing("No break-even in the report.");
    p.close("section");
    return;
  }
  const std::string cur(rd::string(*cost, "currency"));
  const auto local_eff = rd::number(rd::path(*cost, "local", "cost_per_effective_hour"));
  const auto local_fixed = rd::number(rd::path(*cost, "local", "fixed_cost_per_job")).value_or(0);
  const auto cloud_eff = rd::number(rd::path(*cost, "cloud", "cost_per_effective_hour"));
  const auto cloud_fixed = rd::number(rd::path(*cost, "cloud", "cold_start_cost")).value_or(0);
  const auto job_hours = rd::number(*be, "job_hours");
  const auto query = rd::number(*be, "query_job_hours");
  std::vector<svg::CostLine> lines;
  if (local_eff) lines.push_back({"local", local_fixed, *local_eff, svg::color::kBlue});
  if (cloud_eff) lines.push_back({"cloud", cloud_fixed, *cloud_eff, svg::color::kVermillion});
  if (lines.empty()) {
    p.missing("No chart: neither side has a finite cost per effective hour.");
  } else {
    const double x_max = job_hours ? 2.5 * *job_hours : std::max(10.0, 4 * query.value_or(1));
    p.raw(svg::cost_chart(lines, x_max, job_hours, query, cur)).raw("\n");
    if (lines.size() < 2) p.missing("Only one side is drawn: the other does no useful work (infinite cost).");
  }
  p.el("p", rd::string(*be, "explanation"));
  p.raw("<table>").row({"figure", "value", "unit"}, true);
  auto row = [&](std::string_view label, std::optional<double> v, std::string_view unit, std::string_view why = {}) {
    p.raw("<tr>").el("td", label).number_cell(v, why.empty() ? "none" : why).el("td", unit).raw("</tr>\n");
  };
  row("break-even job length", job_hours, "h", rd::string(*be, "verdict"));
  row(fmt::format("local cost of a {} h job", human(query)), rd::number(*be, "local_job_cost"), cur);
  row(fmt::format("cloud cost of a {} h job", human(query)), rd::number(*be, "cloud_job_cost"), cur);
  row("cloud premium at that length", rd::number(*be, "premium_at_job_hours"), "ratio",
      rd::string(*be, "premium_reason"));
  row("job length at the target premium", rd::number(*be, "job_hours_at_target_premium"), "h",
      rd::string(*be, "target_premium_reason"));
  row("buying pays after", rd::number(*be, "buy_vs_rent_hours"), "h of use", rd::string(*be, "buy_vs_rent_reason"));
  row("... that is, per month of the amortization", rd::number(*be, "buy_vs_rent_hours_per_month"), "h/month",
      rd::string(*be, "buy_vs_rent_reason"));
  row("effective hours over the amortization", rd::number(*be, "lifetime_effective_hours"), "h");
  p.raw("</table>\n");
  p.close("section");
}

void write_sensitivity(Page& p, OptElement cost) {
  p.open("section", {}, "sensitivity").el("h2", "Sensitivity");
  const auto s = cost ? rd::child(*cost, "sensitivity") : std::nullopt;
  if (!s) {
    p.missing("No sensitivity analysis in the report.");
    p.close("section");
    return;
  }
  const std::string metric(rd::string(*s, "metric")), unit(rd::string(*s, "unit"));
  const auto base = rd::number(*s, "base");
  const double step = rd::number(*s, "step").value_or(0);
  p.el("p", fmt::format("How {} moves when each input is {:g} % lower or higher, largest effect first. "
                        "A * marks an input whose change flips the verdict.",
                        metric, 100 * step));
  std::vector<svg::TornadoBar> bars;
  std::vector<std::string> no_effect;
  rd::each(rd::child(*s, "rows"), [&](Element r) {
    const std::string input(rd::string(r, "input")), iu(rd::string(r, "unit"));
    const auto effect = rd::number(r, "effect");
    const bool flips = rd::boolean(r, "changes_verdict");
    if (!flips && effect && *effect == 0) {
      no_effect.push_back(input);
      return;
    }
    bars.push_back({input, fmt::format("{} {}", human(rd::number(r, "low_value")), iu),
                    fmt::format("{} {}", human(rd::number(r, "high_value")), iu), rd::number(r, "low"),
                    rd::number(r, "high"), flips});
  });
  if (!base) {
    p.missing(fmt::format("No tornado chart: {} has no value at the base inputs.", metric));
  } else if (bars.empty()) {
    p.missing("No tornado chart: no input moves the metric.");
  } else {
    p.raw(svg::tornado(bars, *base, metric, unit)).raw("\n");
  }
  if (!no_effect.empty()) {
    std::string list;
    for (const auto& n : no_effect) list += (list.empty() ? "" : ", ") + n;
    p.el("p", fmt::format("No effect on {}: {}.", metric, list), "note");
  }
  p.raw("<details><summary>All rows</summary><table>");
  p.row({"input", "low value", "metric at low", "high value", "metric at high", "verdicts", "note"}, true);
  rd::each(rd::child(*s, "rows"), [&](Element r) {
    const std::string iu(rd::string(r, "unit"));
    p.raw("<tr>").el("td", rd::string(r, "input"));
    p.el("td", fmt::format("{} {}", human(rd::number(r, "low_value")), iu)).number_cell(rd::number(r, "low"), "none");
    p.el("td", fmt::format("{} {}", human(rd::number(r, "high_value")), iu)).number_cell(rd::number(r, "high"), "none");
    p.el("td", fmt::format("{} / {}", rd::string(r, "low_verdict"), rd::string(r, "high_verdict")));
    p.el("td", rd::string(r, "note")).raw("</tr>\n");
  });
  p.raw("</table></details>\n");
  p.close("section");
}

void write_timeline(Page& p, Element root) {
  p.open("section", {}, "timeline").el("h2", "Timeline: SM utilization, power and temperature");
  const auto marks = rd::child(root, "marks");
  // Marks with a time, for the charts.
  struct MarkItem {
    svg::Mark mark;
    std::optional<std::int64_t> gpu;
  };
  std::vector<MarkItem> placed;
  rd::each(marks ? rd::child(*marks, "items") : std::nullopt, [&](Element m) {
    const auto ts = rd::integer(m, "ts_ns");
    if (!ts) return;
    const auto kind = rd::string(m, "kind");
    const auto code = rd::integer(m, "code");
    std::string title = fmt::format("{} {}{}: {}", rd::string(m, "ts"), kind, code ? fmt::format(" {}", *code) : "",
                                    rd::string(m, "text"));
    placed.push_back({{*ts, mark_label(kind, code), std::move(title), std::string(rd::string(m, "category"))},
                      rd::integer(m, "gpu_index")});
  });

  bool any = false;
  rd::each(rd::path(root, "series", "gpus"), [&](Element g) {
    any = true;
    const auto gpu = rd::integer(g, "gpu");
    std::vector<TimeNs> ts;
    svg::Panel sm, pw, tc;
    sm.title = "SM utilization", sm.unit = "%", sm.lo = 0.0, sm.hi = 100.0, sm.color = svg::color::kBlue;
    sm.empty_text = "no SM utilization in the samples";
    sm.threshold = rd::number(rd::path(root, "thresholds", "idle_threshold_pct"));
    sm.threshold_label = "idle threshold";
    pw.title = "Power", pw.unit = "W", pw.lo = 0.0, pw.color = svg::color::kGreen;
    pw.empty_text = "no power in the samples";
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
    p.raw(svg::time_chart(ts, panels, gm, gap,
                          fmt::format("GPU {}: SM utilization, power and temperature over time", gpu.value_or(-1))))
        .raw("\n");
  });
  if (!any) p.missing("No timeline chart: no dmon samples (nvidia-smi dmon or --query-gpu) in the logs.");

  // The marks as a table, placed or not.
  p.el("h3", "Events marked on the timeline");
  p.raw("<p class=\"note\">Marks:");
  for (auto [cat, what] : {std::pair{"error", "GPU/driver/PCIe errors"}, {"thermal", "thermal"},
                           {"power", "AC, lid, suspend/resume"}, {"system", "boot, shutdown, OOM"}})
    p.raw(fmt::format("<span class=\"swatch\" style=\"background:{}\"></span>{}", svg::mark_color(cat), what));
  p.raw("</p>\n");
  const auto total = marks ? rd::number(*marks, "total").value_or(0) : 0;
  if (total == 0) {
    p.missing("No Xid, thermal, AC, lid, suspend or boot events in the logs (or no kernel log among them).");
    p.close("section");
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
  p.el("p", summary + ".", "note");
  p.raw("<table>").row({"time (UTC)", "kind", "code", "GPU", "message", "where"}, true);
  rd::each(rd::child(*marks, "items"), [&](Element m) {
    const auto ts = rd::string(m, "ts");
    p.raw("<tr>");
    if (ts.empty()) p.el("td", "not placed", "null"); else p.el("td", ts);
    p.raw(fmt::format("<td><span class=\"swatch\" style=\"background:{};margin-left:0\"></span>",
                      svg::mark_color(rd::string(m, "category"))));
    p.text(rd::string(m, "kind")).raw("</td>");
    const auto code = rd::integer(m, "code");
    p.el("td", code ? fmt::format("{}", *code) : "");
    p.el("td", rd::string(m, "gpu"));
    p.raw("<td><code>").text(rd::string(m, "text")).raw("</code></td>");
    p.el("td", fmt::format("{}:{}", rd::string(m, "file"), human(rd::number(m, "line"))));
    p.raw("</tr>\n");
  });
  p.raw("</table>\n");
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

}  // namespace

void append_xml_escaped(std::string& out, std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    switch (c) {
      case '&': out += "&amp;"; ++i; continue;
      case '<': out += "&lt;"; ++i; continue;
      case '>': out += "&gt;"; ++i; continue;
      case '"': out += "&quot;"; ++i; continue;
      case '\'': out += "&#39;"; ++i; continue;
      default: break;
    }
    const std::size_t n = xml_char_length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
}

std::string xml_escaped(std::string_view text) {
  std::string out;
  append_xml_escaped(out, text);
  return out;
}

std::string render_html(const reportdoc::Document& doc) {
  const Element root = doc.root();
  const auto cost = rd::child(root, "cost");
  Page p;
  p.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n");
  // The page needs nothing from outside; the policy makes a browser refuse (and report) any load.
  p.raw("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"/>\n");
  p.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n");
  p.raw("<meta name=\"generator\" content=\"gpucost ").text(rd::string(rd::path(root, "tool", "version"))).raw("\"/>\n");
  p.raw("<title>").text(fmt::format("gpucost report: {}", rd::string(root, "input"))).raw("</title>\n");
  p.raw("<style>").raw(kStyle).raw("</style>\n</head>\n<body>\n");
  write_header(p, root);
  write_findings(p, root);
  write_verdict(p, cost);
  write_cost(p, cost);
  write_break_even(p, cost);
  write_sensitivity(p, cost);
  write_timeline(p, root);
  write_features(p, root);
  write_diagnostics(p, root);
  p.raw("<footer>").text(fmt::format(
      "Generated by gpucost {} from its JSON report (the same data as --format json). This page is self-contained: "
      "no script and nothing fetched from anywhere.",
      rd::string(rd::path(root, "tool", "version"))));
  p.raw("</footer>\n</body>\n</html>\n");
  return std::move(p.out);
}

}  // namespace gpucost
