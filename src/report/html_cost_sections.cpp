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

// The step of the cost section that computed `name` (formula and numbers), if any.
OptElement find_step(OptElement cost, std::string_view name) {
  OptElement found;
  rd::each(cost ? rd::child(*cost, "steps") : std::nullopt, [&](Element s) {
    if (!found && rd::string(s, "name") == name) found = s;
  });
  return found;
}

}  // namespace

void write_answer(Page& p, OptElement cost) {
  p.open("section", {}, "answer").el("h2", "The answer");
  if (!cost) {
    p.missing("No cost section in the report: no answer.");
    p.close("section");
    return;
  }
  const auto verdict = rd::child(*cost, "verdict");
  auto decision = [&](std::string_view key, std::string_view question) {
    const auto v = verdict ? rd::child(*verdict, key) : std::nullopt;
    std::string d(v ? rd::string(*v, "decision") : std::string_view("unknown"));
    for (auto& ch : d) ch = ch == '_' ? ' ' : ch;
    p.raw("<p class=\"verdict\">").text(question).raw(" <b>").text(d).raw("</b>. ");
    p.text(v ? rd::string(*v, "summary") : std::string_view()).raw("</p>\n");
  };
  decision("own", "Own it?");
  decision("buy", "Buy it?");
  const auto usage = rd::child(*cost, "usage");
  const std::string_view basis = usage ? rd::string(*usage, "basis") : std::string_view("unknown");
  p.el("p", fmt::format("Usage ({}): {}", basis, usage ? rd::string(rd::path(*usage, "hours_per_month", "reason"))
                                                      : std::string_view()));
  if (basis == "unknown")
    p.el("p", "To supply it: --hours-per-month N (busy GPU-hours a month of one GPU) or --range "
              "local.hours_per_month=LOW:HIGH; a collection of a week or more (scripts/collect-logs.sh --duration "
              "7d, or the gpucost-recorder service); or your scheduler's GPU-hours.", "note");
  const auto buy = verdict ? rd::child(*verdict, "buy") : std::nullopt;
  if (const auto prob = buy ? rd::number(*buy, "probability") : std::nullopt)
    p.el("p", fmt::format("Odds: buying is cheaper in {:.3g} % of the uncertainty draws.", 100 * *prob));
  if (const auto flips = buy ? rd::string(*buy, "flips") : std::string_view(); !flips.empty())
    p.el("p", fmt::format("What flips it: {}.", flips));
  rd::each(verdict ? rd::child(*verdict, "warnings") : std::nullopt,
           [&](Element w) { p.el("p", fmt::format("Warning: {}", rd::string(w)), "missing"); });

  // A month of one GPU, owned or rented, against hours of use a month.
  const std::string cur(rd::string(*cost, "currency"));
  const auto capital = rd::number(rd::path(*cost, "local", "capital_cost"));
  const auto months = rd::number(rd::path(*cost, "inputs", "local", "amortization_months", "value"));
  const auto running = rd::number(rd::path(*cost, "local", "running_per_effective_hour"));
  const auto rent = rd::number(rd::path(*cost, "cloud", "cost_per_effective_hour"));
  const auto threshold = rd::number(rd::path(*cost, "break_even", "usage_threshold_hours_per_month", "value"));
  const auto used = usage ? rd::number(rd::path(*usage, "hours_per_month", "value")) : std::nullopt;
  if (capital && months && *months > 0 && running && rent && !(verdict && rd::boolean(*verdict, "price_unknown"))) {
    const std::vector<svg::CostLine> lines = {{"own (purchase over the months + running)", *capital / *months, *running,
                                               svg::color::kBlue},
                                              {"rent the same work", 0, *rent, svg::color::kVermillion}};
    const double x_max = threshold && *threshold > 744 ? 1.25 * *threshold : 744;
    p.raw(svg::cost_chart(lines, x_max, threshold, used, cur,
                          {"a month's cost of one GPU, owned or rented, against busy hours a month",
                           "busy GPU-hours a month (one GPU)", "cost a month", "buying pays from", "your usage"}))
        .raw("\n");
  } else {
    p.missing("No monthly chart: the purchase price or a side's cost per effective hour is unknown.");
  }
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
  p.row({"input", "value", "unit", "basis", "origin", "note"}, true);
  for (std::string_view side : {"local", "cloud", "query"})
    rd::each_member(rd::path(*cost, "inputs", side), [&](std::string_view key, Element in) {
      p.raw("<tr>").el("td", fmt::format("{}.{}", side, key)).number_cell(rd::number(in, "value"), "unset");
      p.el("td", rd::string(in, "unit")).el("td", rd::string(in, "basis"));
      p.el("td", rd::string(in, "origin")).el("td", rd::string(in, "note"));
      p.raw("</tr>\n");
    });
  p.raw("</table></details>\n");
  p.close("section");
}

void write_break_even(Page& p, OptElement cost) {
  p.open("section", {}, "break-even").el("h2", "A detail: cost per job against job length");
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
  row("local premium over the cloud at that length (local / cloud - 1)", rd::number(*be, "premium_at_job_hours"), "ratio",
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
