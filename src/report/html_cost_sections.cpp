// The sections of the HTML page that read the report's cost section: verdict, cost, break-even,
// sensitivity.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "report/html_sections.hpp"
#include "report/svg.hpp"

namespace gpucost::html {

namespace {

using cost::CostResult;
using cost::InputId;

// The step of the cost section that computed `name`, as `formula = numbers`; empty when none.
std::string step_text(const CostResult& c, std::string_view name) {
  for (const auto& s : c.steps)
    if (s.name == name) return fmt::format("{} = {}", s.formula, s.numbers);
  return {};
}

void write_decision(Page& p, std::string_view question, std::string_view decision, std::string_view summary) {
  std::string d(decision);
  for (auto& ch : d) ch = ch == '_' ? ' ' : ch;
  p.raw("<p class=\"verdict\">").text(question).raw(" <b>").text(d).raw("</b>. ");
  p.text(summary).raw("</p>\n");
}

// A month of one GPU, owned or rented, against hours of use a month.
void write_month_chart(Page& p, const CostResult& c) {
  const auto capital = stated(c.local.capital_cost);
  const auto months = stated(c.inputs[InputId::kAmortizationMonths].value);
  const auto running = stated(c.local.running_per_effective_hour);
  const auto rent = stated(c.cloud.cost_per_effective_hour);
  const auto threshold = stated(c.break_even.usage_threshold_hours_per_month);
  const auto used = stated(c.break_even.hours_per_month);
  if (!capital || !months || *months <= 0 || !running || !rent || c.inputs.price_unknown) {
    p.missing("No monthly chart: the purchase price or a side's cost per effective hour is unknown.");
    return;
  }
  const std::vector<svg::CostLine> lines = {
      {"own (purchase over the months + running)", *capital / *months, *running, svg::color::kBlue},
      {"rent the same work", 0, *rent, svg::color::kVermillion}};
  const double x_max = threshold && *threshold > 744 ? 1.25 * *threshold : 744;
  p.raw(svg::cost_chart(lines, x_max, threshold, used, c.inputs.currency,
                        {"a month's cost of one GPU, owned or rented, against busy hours a month",
                         "busy GPU-hours a month (one GPU)", "cost a month", "buying pays from", "your usage"}))
      .raw("\n");
}

}  // namespace

void write_answer(Page& p, const CostResult* c) {
  p.open("section", {}, "answer").el("h2", "The answer");
  if (!c) {
    p.missing("No cost section in the report: no answer.");
    p.close("section");
    return;
  }
  write_decision(p, "Own it?", cost::own_decision_name(c->own.decision), c->own.summary);
  write_decision(p, "Buy it?", cost::buy_decision_name(c->buy.decision), c->buy.summary);
  const std::string_view basis = cost::usage_basis_name(c->inputs.usage.basis);
  p.el("p", fmt::format("Usage ({}): {}", basis, c->inputs.usage.reason));
  if (basis == "unknown")
    p.el("p", "To supply it: --hours-per-month N (busy GPU-hours a month of one GPU) or --range "
              "local.hours_per_month=LOW:HIGH; a collection of a week or more (scripts/collect-logs.sh --duration "
              "7d, or the gpucost-recorder service); or your scheduler's GPU-hours.", "note");
  if (const auto prob = stated(c->buy.probability))
    p.el("p", fmt::format("Odds: buying is cheaper in {:.3g} % of the uncertainty draws.", 100 * *prob));
  if (!c->buy.flips.empty()) p.el("p", fmt::format("What flips it: {}.", c->buy.flips));
  for (const auto& w : c->inputs.warnings) p.el("p", fmt::format("Warning: {}", w), "missing");
  write_month_chart(p, *c);
  p.close("section");
}

namespace {

// Every input with its origin (preset, default, measured from the logs, option).
void write_inputs_table(Page& p, const CostResult& c) {
  const cost::CostInputs& in = c.inputs;
  auto row = [&](std::string_view side, std::string_view key, std::optional<double> value, std::string_view unit,
                 std::string_view basis, std::string_view origin, std::string_view note) {
    p.raw("<tr>").el("td", fmt::format("{}.{}", side, key)).number_cell(stated(value), "unset");
    p.el("td", unit).el("td", basis).el("td", origin).el("td", note).raw("</tr>\n");
  };
  p.raw("<details><summary>Inputs and where each came from</summary><table>");
  p.row({"input", "value", "unit", "basis", "origin", "note"}, true);
  for (cost::Side side : {cost::Side::kLocal, cost::Side::kCloud})
    for (const auto& s : cost::input_specs())
      if (s.side == side) {
        const auto& v = in[s.id];
        row(cost::side_name(side), s.key, v.value, cost::input_unit(s.id, in.currency), cost::input_basis(v), v.origin,
            v.note);
      }
  row("query", "job_hours", c.query.job_hours, "h", {}, c.query.job_hours_origin, {});
  row("query", "target_premium", c.query.target_premium, "ratio", {}, c.query.target_premium_origin, {});
  p.raw("</table></details>\n");
}

}  // namespace

void write_cost(Page& p, const CostResult* c) {
  p.open("section", {}, "cost").el("h2", "Cost breakdown");
  if (!c) {
    p.missing("No cost section in the report.");
    p.close("section");
    return;
  }
  const std::string& cur = c->inputs.currency;
  const std::string per_h = cur + "/h";
  auto row = [&](std::string_view label, std::optional<double> v, std::string_view unit, std::string_view step,
                 bool total = false) {
    p.raw(total ? "<tr class=\"total\">" : "<tr>").el("td", label).number_cell(stated(v), "infinite or unknown");
    p.el("td", unit).el("td", step_text(*c, step)).raw("</tr>\n");
  };
  const cost::LocalCost& l = c->local;
  p.el("h3", fmt::format("Local GPU: {}", c->inputs.local_label));
  p.raw("<table>").row({"term", "value", "unit", "how"}, true);
  row("amortization", l.amortization_per_hour, per_h, "local.amortization_per_hour");
  row("electricity", l.electricity_per_hour, per_h, "local.electricity_per_hour");
  // Which power the electricity counts, in words: the GPU board, the measured system, or an estimate.
  p.raw("<tr>").el("td", "power at the wall").number_cell(stated(l.wall_power_w), "unknown");
  p.el("td", "W").el("td", cost::power_used_note(c->inputs)).raw("</tr>\n");
  row("cooling", l.cooling_per_hour, per_h, "local.cooling_per_hour");
  row("maintenance (incidents)", l.maintenance_per_hour, per_h, "local.maintenance_per_hour");
  row("per wall hour", l.cost_per_wall_hour, per_h, "local.cost_per_wall_hour", true);
  row("effective utilization", l.effective_utilization, "ratio", "");
  row("per effective hour", l.cost_per_effective_hour, per_h, "local.cost_per_effective_hour", true);
  row("fixed cost per job", l.fixed_per_job, cur, "");
  p.raw("</table>\n");

  p.el("h3", fmt::format("Cloud GPU: {}", c->inputs.cloud_label));
  p.raw("<table>").row({"term", "value", "unit", "how"}, true);
  row("hourly rate", c->inputs[InputId::kHourlyRate].value, per_h, "");
  row("per effective hour", c->cloud.cost_per_effective_hour, per_h, "cloud.cost_per_effective_hour", true);
  row("cold start per job", c->cloud.cold_start_cost, cur, "cloud.cold_start_cost");
  p.raw("</table>\n");
  write_inputs_table(p, *c);
  p.close("section");
}

namespace {

void write_break_even_chart(Page& p, const CostResult& c) {
  const cost::BreakEven& be = c.break_even;
  const auto local_eff = stated(c.local.cost_per_effective_hour);
  const auto local_fixed = stated(c.local.fixed_per_job).value_or(0);
  const auto cloud_eff = stated(c.cloud.cost_per_effective_hour);
  const auto cloud_fixed = stated(c.cloud.cold_start_cost).value_or(0);
  const auto job_hours = stated(be.job_hours);
  const auto query = stated(be.query_job_hours);
  std::vector<svg::CostLine> lines;
  if (local_eff) lines.push_back({"local", local_fixed, *local_eff, svg::color::kBlue});
  if (cloud_eff) lines.push_back({"cloud", cloud_fixed, *cloud_eff, svg::color::kVermillion});
  if (lines.empty()) {
    p.missing("No chart: neither side has a finite cost per effective hour.");
    return;
  }
  const double x_max = job_hours ? 2.5 * *job_hours : std::max(10.0, 4 * query.value_or(1));
  p.raw(svg::cost_chart(lines, x_max, job_hours, query, c.inputs.currency)).raw("\n");
  if (lines.size() < 2) p.missing("Only one side is drawn: the other does no useful work (infinite cost).");
}

}  // namespace

void write_break_even(Page& p, const CostResult* c) {
  p.open("section", {}, "break-even").el("h2", "A detail: cost per job against job length");
  if (!c) {
    p.missing("No break-even in the report.");
    p.close("section");
    return;
  }
  const cost::BreakEven& be = c->break_even;
  const std::string& cur = c->inputs.currency;
  write_break_even_chart(p, *c);
  p.el("p", be.explanation);
  p.raw("<table>").row({"figure", "value", "unit"}, true);
  auto row = [&](std::string_view label, std::optional<double> v, std::string_view unit, std::string_view why = {}) {
    p.raw("<tr>").el("td", label).number_cell(stated(v), why.empty() ? "none" : why).el("td", unit).raw("</tr>\n");
  };
  const auto query = stated(be.query_job_hours);
  row("break-even job length", be.job_hours, "h", cost::verdict_name(be.verdict));
  row(fmt::format("local cost of a {} h job", human(query)), be.local_job_cost, cur);
  row(fmt::format("cloud cost of a {} h job", human(query)), be.cloud_job_cost, cur);
  row("local premium over the cloud at that length (local / cloud - 1)", be.premium_at_job_hours, "ratio",
      be.premium_reason);
  row("job length at the target premium", be.job_hours_at_target_premium, "h", be.target_premium_reason);
  row("buying pays after", be.buy_vs_rent_hours, "h of use", be.buy_vs_rent_reason);
  row("... that is, per month of the amortization", be.buy_vs_rent_hours_per_month, "h/month", be.buy_vs_rent_reason);
  row("effective hours over the amortization", be.lifetime_effective_hours, "h");
  p.raw("</table>\n");
  p.close("section");
}

namespace {

bool changes_verdict(const CostResult& c, const cost::SensitivityRow& r) {
  return r.low_verdict != c.break_even.verdict || r.high_verdict != c.break_even.verdict;
}

std::string input_value(const CostResult& c, const cost::SensitivityRow& r, double v) {
  return fmt::format("{} {}", human(stated(v)), cost::input_unit(r.input, c.inputs.currency));
}

void write_sensitivity_rows(Page& p, const CostResult& c) {
  p.raw("<details><summary>All rows</summary><table>");
  p.row({"input", "low value", "metric at low", "high value", "metric at high", "verdicts", "note"}, true);
  for (const auto& r : c.sensitivity.rows) {
    p.raw("<tr>").el("td", cost::input_name(r.input));
    p.el("td", input_value(c, r, r.low)).number_cell(stated(r.low_metric), "none");
    p.el("td", input_value(c, r, r.high)).number_cell(stated(r.high_metric), "none");
    p.el("td", fmt::format("{} / {}", cost::verdict_name(r.low_verdict), cost::verdict_name(r.high_verdict)));
    p.el("td", r.note).raw("</tr>\n");
  }
  p.raw("</table></details>\n");
}

}  // namespace

void write_sensitivity(Page& p, const CostResult* c) {
  p.open("section", {}, "sensitivity").el("h2", "Sensitivity");
  if (!c) {
    p.missing("No sensitivity analysis in the report.");
    p.close("section");
    return;
  }
  const cost::Sensitivity& s = c->sensitivity;
  const auto base = stated(s.base_metric);
  const double step = stated(s.step).value_or(0);
  p.el("p", fmt::format("How {} moves when each input is {:g} % lower or higher, largest effect first. "
                        "A * marks an input whose change flips the verdict.",
                        s.metric, 100 * step));
  std::vector<svg::TornadoBar> bars;
  std::vector<std::string> no_effect;
  for (const auto& r : s.rows) {
    const auto effect = stated(r.effect);
    const bool flips = changes_verdict(*c, r);
    if (!flips && effect && *effect == 0) {
      no_effect.push_back(cost::input_name(r.input));
      continue;
    }
    bars.push_back({cost::input_name(r.input), input_value(*c, r, r.low), input_value(*c, r, r.high),
                    stated(r.low_metric), stated(r.high_metric), flips});
  }
  if (!base) {
    p.missing(fmt::format("No tornado chart: {} has no value at the base inputs.", s.metric));
  } else if (bars.empty()) {
    p.missing("No tornado chart: no input moves the metric.");
  } else {
    p.raw(svg::tornado(bars, *base, s.metric, s.unit)).raw("\n");
  }
  if (!no_effect.empty()) {
    std::string list;
    for (const auto& n : no_effect) list += (list.empty() ? "" : ", ") + n;
    p.el("p", fmt::format("No effect on {}: {}.", s.metric, list), "note");
  }
  write_sensitivity_rows(p, *c);
  p.close("section");
}

}  // namespace gpucost::html
