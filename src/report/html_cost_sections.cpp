// The sections of the HTML page that read the report's cost block: verdict, cost, break-even,
// sensitivity.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "report/html_sections.hpp"
#include "report/svg.hpp"

namespace gpucost::html {

namespace {

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

// The step of the cost section that computed `name` (formula and numbers), if any.
OptElement find_step(OptElement cost, std::string_view name) {
  OptElement found;
  rd::each(cost ? rd::child(*cost, "steps") : std::nullopt, [&](Element s) {
    if (!found && rd::string(s, "name") == name) found = s;
  });
  return found;
}

}  // namespace

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

}  // namespace gpucost::html
