// The cost block in JSON, CSV rows and a table; the same data in each (see gpucost/report/cost_section.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "gpucost/report/cost_section.hpp"
#include "gpucost/text/csv.hpp"
#include "gpucost/text/json.hpp"
#include "gpucost/text/number.hpp"

namespace gpucost::cost {

namespace {

// Finite values as numbers, everything else (infinity: a side that does no work) as null.
void number_or_null(JsonWriter& w, std::string_view key, std::optional<double> v) {
  w.key(key);
  if (v && std::isfinite(*v)) w.value(*v);
  else w.null();
}
void number_or_null(JsonWriter& w, std::string_view key, double v) { number_or_null(w, key, std::optional<double>(v)); }

void text_or_null(JsonWriter& w, std::string_view key, const std::string& s) {
  w.key(key);
  if (s.empty()) w.null();
  else w.value(s);
}

// C001-C015 for the inputs the report always had, C080 and up for later ones (C016 onwards is taken).
std::string input_row_id(InputId id) {
  const auto k = static_cast<std::size_t>(id);
  return k < kFirstLaterInput ? fmt::format("C{:03}", k + 1) : fmt::format("C{:03}", 80 + (k - kFirstLaterInput));
}

std::string short_num(std::optional<double> v) {
  if (!v) return "-";
  if (std::isinf(*v)) return "inf";
  return fmt::format("{:.6g}", *v);
}

void write_input(JsonWriter& w, const CostInputs& in, InputId id) {
  const auto& v = in[id];
  w.key(spec(id).key).begin_object();
  number_or_null(w, "value", v.value);
  w.kv("unit", input_unit(id, in.currency));
  text_or_null(w, "origin", v.origin);
  w.kv("basis", input_basis(v));
  text_or_null(w, "note", v.note);
  w.end_object();
}

void write_percentiles(JsonWriter& w, const Percentiles& p) {
  number_or_null(w, "p5", p.p5);
  number_or_null(w, "p50", p.p50);
  number_or_null(w, "p95", p.p95);
}

void write_speed_case(JsonWriter& w, std::string_view key, const std::optional<SpeedCase>& c) {
  w.key(key);
  if (!c) {
    w.null();
    return;
  }
  w.begin_object();
  number_or_null(w, "relative_speed", c->relative_speed);
  w.kv("verdict", verdict_name(c->verdict));
  number_or_null(w, "job_hours", c->job_hours);
  w.key("cheaper_below");
  if (c->cheaper_below) w.value(side_name(*c->cheaper_below)); else w.null();
  number_or_null(w, "usage_threshold_hours_per_month", c->usage_threshold_hours_per_month);
  w.kv("buy_pays", c->buy_pays);
  w.end_object();
}

// The presets chosen and every input with its origin, in the form `breakeven --config` reads back.
void write_inputs_json(JsonWriter& w, const CostResult& r) {
  const CostInputs& in = r.inputs;
  w.kv("currency", in.currency);
  text_or_null(w, "scenario", in.scenario);
  text_or_null(w, "selection_note", in.selection_note);
  w.key("local_gpu").begin_object();
  text_or_null(w, "preset", in.local_gpu);
  text_or_null(w, "label", in.local_label);
  w.kv("count", in.gpu_count);
  text_or_null(w, "machine_class", in.machine_class);
  text_or_null(w, "count_note", in.gpu_count_note);
  text_or_null(w, "price_observed_on", in.local_price_observed_on);
  w.end_object();
  w.key("cloud_offer").begin_object();
  text_or_null(w, "preset", in.cloud_offer);
  text_or_null(w, "label", in.cloud_label);
  w.end_object();

  w.key("inputs").begin_object();
  w.key("currency").begin_object().kv("value", in.currency).kv("origin", in.currency_origin).end_object();
  for (Side side : {Side::kLocal, Side::kCloud}) {
    w.key(side_name(side)).begin_object();
    for (const auto& s : input_specs())
      if (s.side == side) write_input(w, in, s.id);
    w.end_object();
  }
  w.key("query").begin_object();
  w.key("job_hours").begin_object().kv("value", r.query.job_hours).kv("unit", "h").kv("origin", r.query.job_hours_origin).end_object();
  w.key("target_premium").begin_object().kv("value", r.query.target_premium).kv("unit", "ratio");
  w.kv("origin", r.query.target_premium_origin).end_object();
  w.end_object();
  // What else decides the verdict, in the form `breakeven --config` reads back: the presets (for
  // the speed bracket and the labels), the Monte Carlo's ranges, seed and draws.
  text_or_null(w, "preset", in.scenario);
  text_or_null(w, "local_preset", in.local_gpu);
  text_or_null(w, "cloud_preset", in.cloud_offer);
  w.key("ranges").begin_object();
  for (const auto& sp : input_specs()) {
    const auto& rg = in.ranges[static_cast<std::size_t>(sp.id)];
    if (!rg) continue;
    w.key(input_name(sp.id));
    if (rg->kind == InputRange::Kind::kUniform) {
      w.begin_array().value(rg->a).value(rg->b).end_array();
    } else {
      w.begin_object().key("gamma").begin_array().value(rg->a).value(rg->b).end_array().end_object();
    }
  }
  w.end_object();
  w.kv("seed", r.query.seed).kv("draws", r.query.draws);
  w.end_object();
}

// Cost per hour of each side, and what it is made of.
void write_sides_json(JsonWriter& w, const CostResult& r) {
  const CostInputs& in = r.inputs;
  const std::string per_h = in.currency + "/h";
  const LocalCost& l = r.local;
  w.key("local").begin_object();
  w.kv("unit", per_h);
  number_or_null(w, "capital_cost", l.capital_cost);
  number_or_null(w, "amortization_per_hour", l.amortization_per_hour);
  number_or_null(w, "wall_power_w", l.wall_power_w);
  w.kv("power_used", power_used(in));
  number_or_null(w, "electricity_per_hour", l.electricity_per_hour);
  number_or_null(w, "cooling_per_hour", l.cooling_per_hour);
  number_or_null(w, "maintenance_per_hour", l.maintenance_per_hour);
  number_or_null(w, "cost_per_wall_hour", l.cost_per_wall_hour);
  number_or_null(w, "running_per_wall_hour", l.running_per_wall_hour);
  number_or_null(w, "effective_utilization", l.effective_utilization);
  number_or_null(w, "cost_per_effective_hour", l.cost_per_effective_hour);
  number_or_null(w, "running_per_effective_hour", l.running_per_effective_hour);
  number_or_null(w, "fixed_cost_per_job", l.fixed_per_job);
  w.end_object();

  w.key("cloud").begin_object();
  w.kv("unit", per_h);
  number_or_null(w, "hourly_rate", in[InputId::kHourlyRate].value);
  number_or_null(w, "cost_per_effective_hour", r.cloud.cost_per_effective_hour);
  number_or_null(w, "cold_start_hours", r.cloud.cold_start_hours);
  number_or_null(w, "cold_start_cost", r.cloud.cold_start_cost);
  number_or_null(w, "billing_rounding_cost", r.cloud.billing_rounding_cost);
  number_or_null(w, "fixed_cost_per_job", r.cloud.fixed_per_job);
  number_or_null(w, "monthly_cost", r.cloud.monthly_cost);
  w.kv("pricing", in.pricing);
  text_or_null(w, "price_observed_on", in.cloud_price_observed_on);
  w.end_object();
}

void write_break_even_json(JsonWriter& w, const CostResult& r) {
  const BreakEven& b = r.break_even;
  w.key("break_even").begin_object();
  w.kv("verdict", verdict_name(b.verdict));
  w.kv("explanation", b.explanation);
  number_or_null(w, "job_hours", b.job_hours);
  w.key("cheaper_below");
  if (b.cheaper_below) w.value(side_name(*b.cheaper_below)); else w.null();
  w.key("cheaper_above");
  if (b.cheaper_below) w.value(side_name(*b.cheaper_below == Side::kCloud ? Side::kLocal : Side::kCloud)); else w.null();
  number_or_null(w, "query_job_hours", b.query_job_hours);
  number_or_null(w, "local_job_cost", b.local_job_cost);
  number_or_null(w, "cloud_job_cost", b.cloud_job_cost);
  number_or_null(w, "cloud_job_cost_billed", b.cloud_job_cost_billed);
  number_or_null(w, "premium_at_job_hours", b.premium_at_job_hours);
  text_or_null(w, "premium_reason", b.premium_reason);
  number_or_null(w, "target_premium", b.target_premium);
  number_or_null(w, "job_hours_at_target_premium", b.job_hours_at_target_premium);
  text_or_null(w, "target_premium_reason", b.target_premium_reason);
  number_or_null(w, "premium_short_jobs", b.premium_short_jobs);
  number_or_null(w, "premium_long_jobs", b.premium_long_jobs);
  number_or_null(w, "buy_vs_rent_hours", b.buy_vs_rent_hours);
  number_or_null(w, "buy_vs_rent_hours_per_month", b.buy_vs_rent_hours_per_month);
  text_or_null(w, "buy_vs_rent_reason", b.buy_vs_rent_reason);
  number_or_null(w, "lifetime_effective_hours", b.lifetime_effective_hours);
  w.key("buy_pays_within_amortization");
  if (b.buy_vs_rent_hours) w.value(*b.buy_vs_rent_hours <= b.lifetime_effective_hours); else w.value(false);
  w.key("usage_threshold_hours_per_month").begin_object();
  number_or_null(w, "value", b.usage_threshold_hours_per_month);
  text_or_null(w, "reason", b.usage_threshold_hours_per_month ? std::string() : b.buy_vs_rent_reason);
  write_percentiles(w, r.uncertainty.usage_threshold_hours_per_month);
  w.end_object();
  number_or_null(w, "max_purchase_price", b.max_purchase_price);
  w.end_object();
}

// Usage (measured and used) and the relative speed of the two GPUs, with both bounds.
void write_usage_and_speed_json(JsonWriter& w, const CostResult& r) {
  const CostInputs& in = r.inputs;
  const BreakEven& b = r.break_even;
  const Usage& u = in.usage;
  w.key("usage").begin_object();
  w.kv("unit", "h/month");
  w.kv("basis", usage_basis_name(u.basis));
  w.key("hours_per_month").begin_object();
  number_or_null(w, "value", b.hours_per_month);
  w.kv("reason", u.reason);
  number_or_null(w, "span_days", u.span_days);
  w.end_object();
  text_or_null(w, "origin", in[InputId::kHoursPerMonth].origin);
  number_or_null(w, "min_span_days", u.min_span_days);
  number_or_null(w, "window_busy_share", u.window_busy_share);
  number_or_null(w, "window_busy_s", u.window_busy_s);
  number_or_null(w, "window_sampled_s", u.window_covered_s);
  w.key("per_gpu").begin_array();
  for (const auto& g : u.gpus) {
    w.begin_object().kv("gpu", g.gpu);
    number_or_null(w, "busy_s", g.busy_s);
    number_or_null(w, "sampled_s", g.covered_s);
    number_or_null(w, "span_days", g.span_s / 86400);
    number_or_null(w, "hours_per_month", g.hours_per_month);
    w.end_object();
  }
  w.end_array();
  number_or_null(w, "measured_hours_per_month", in.measured_hours_per_month);
  text_or_null(w, "measured_note", in.measured_usage_note);
  w.end_object();

  w.key("relative_speed").begin_object();
  w.kv("unit", "ratio");
  number_or_null(w, "compute_bound", in.speed.compute_bound);
  text_or_null(w, "compute_bound_note", in.speed.compute_note);
  number_or_null(w, "bandwidth_bound", in.speed.bandwidth_bound);
  text_or_null(w, "bandwidth_bound_note", in.speed.bandwidth_note);
  w.key("used").begin_object();
  number_or_null(w, "value", in[InputId::kRelativeSpeed].value);
  text_or_null(w, "origin", in[InputId::kRelativeSpeed].origin);
  text_or_null(w, "note", in[InputId::kRelativeSpeed].note);
  w.end_object();
  write_speed_case(w, "at_compute_bound", r.at_compute_bound);
  write_speed_case(w, "at_bandwidth_bound", r.at_bandwidth_bound);
  w.end_object();
}

void write_uncertainty_json(JsonWriter& w, const CostResult& r) {
  const Uncertainty& u = r.uncertainty;
  w.key("uncertainty").begin_object();
  w.kv("seed", u.seed).kv("draws", u.draws);
  number_or_null(w, "probability_buy_cheaper", u.probability_buy_cheaper);
  w.key("varied").begin_array();
  for (const auto& v : u.varied) w.value(v);
  w.end_array();
  w.key("usage_threshold_hours_per_month").begin_object();
  write_percentiles(w, u.usage_threshold_hours_per_month);
  w.end_object();
  w.key("job_break_even_hours").begin_object();
  write_percentiles(w, u.job_break_even_hours);
  number_or_null(w, "share_with_crossover", u.draws ? std::optional<double>(u.share_with_crossover) : std::nullopt);
  w.end_object();
  w.end_object();
}

void write_verdict_json(JsonWriter& w, const CostResult& r) {
  const CostInputs& in = r.inputs;
  const BreakEven& b = r.break_even;
  w.key("verdict").begin_object();
  w.kv("summary", r.summary);
  const OwnVerdict& o = r.own;
  w.key("own").begin_object();
  w.kv("question", "I already have this GPU: keep running it, or rent the same work?");
  w.kv("decision", own_decision_name(o.decision));
  w.kv("summary", o.summary);
  number_or_null(w, "running_per_effective_hour", o.running_per_effective_hour);
  number_or_null(w, "cloud_per_effective_hour", o.cloud_per_effective_hour);
  number_or_null(w, "saving_per_month", o.saving_per_month);
  number_or_null(w, "resale_value", o.resale_value);
  w.end_object();
  const BuyVerdict& by = r.buy;
  w.key("buy").begin_object();
  w.kv("question", "Should I buy this GPU, or rent?");
  w.kv("decision", buy_decision_name(by.decision));
  w.kv("summary", by.summary);
  number_or_null(w, "threshold_hours_per_month", by.threshold_hours_per_month);
  number_or_null(w, "machine_threshold_hours_per_month", by.machine_threshold_hours_per_month);
  number_or_null(w, "hours_per_month", by.hours_per_month);
  w.kv("usage_basis", usage_basis_name(in.usage.basis));
  number_or_null(w, "payback_months", by.payback_months);
  number_or_null(w, "max_purchase_price", by.max_purchase_price);
  number_or_null(w, "probability", by.probability);
  text_or_null(w, "probability_reason", by.probability_reason);
  text_or_null(w, "flips", by.flips);
  w.end_object();
  w.key("warnings").begin_array();
  for (const auto& wm : in.warnings) w.value(wm);
  w.end_array();
  w.kv("buy_pays", b.buy_pays);
  w.kv("flips_within_speed_bracket", r.flips_within_speed_bracket);
  w.kv("price_unknown", in.price_unknown);
  w.kv("local_gpu_from_logs", in.local_gpu_from_logs);
  w.end_object();
}

void write_sensitivity_json(JsonWriter& w, const CostResult& r) {
  const CostInputs& in = r.inputs;
  const Sensitivity& s = r.sensitivity;
  w.key("sensitivity").begin_object();
  w.kv("metric", s.metric).kv("unit", s.unit).kv("step", s.step);
  number_or_null(w, "base", s.base_metric);
  w.key("rows").begin_array();
  for (const auto& row : s.rows) {
    w.begin_object();
    w.kv("input", input_name(row.input)).kv("unit", input_unit(row.input, in.currency));
    number_or_null(w, "base_value", row.base);
    number_or_null(w, "low_value", row.low);
    number_or_null(w, "high_value", row.high);
    number_or_null(w, "low", row.low_metric);
    number_or_null(w, "high", row.high_metric);
    w.kv("low_verdict", verdict_name(row.low_verdict)).kv("high_verdict", verdict_name(row.high_verdict));
    number_or_null(w, "effect", row.effect);
    w.kv("changes_verdict", row.low_verdict != r.break_even.verdict || row.high_verdict != r.break_even.verdict);
    number_or_null(w, "low_usage_threshold_hours_per_month", row.low_usage_threshold);
    number_or_null(w, "high_usage_threshold_hours_per_month", row.high_usage_threshold);
    w.kv("low_buy_pays", row.low_buy_pays).kv("high_buy_pays", row.high_buy_pays);
    w.kv("changes_buy_verdict", row.low_buy_pays != r.break_even.buy_pays || row.high_buy_pays != r.break_even.buy_pays);
    text_or_null(w, "note", row.note);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

// The computation, step by step (formula and numbers), and the verdict in words.
void write_steps_json(JsonWriter& w, const CostResult& r) {
  w.key("steps").begin_array();
  for (const auto& st : r.steps) {
    w.begin_object().kv("name", st.name).kv("formula", st.formula).kv("numbers", st.numbers);
    number_or_null(w, "value", st.value);
    w.kv("unit", st.unit).end_object();
  }
  w.end_array();
  w.kv("verdict_text", r.verdict_text);
}

}  // namespace

void write_cost_json(JsonWriter& w, const CostResult& r) {
  w.begin_object();
  write_inputs_json(w, r);
  write_sides_json(w, r);
  write_break_even_json(w, r);
  write_usage_and_speed_json(w, r);
  write_uncertainty_json(w, r);
  write_verdict_json(w, r);
  write_sensitivity_json(w, r);
  write_steps_json(w, r);
  w.end_object();
}

void write_cost_csv_rows(CsvWriter& c, const CostResult& r) {
  const CostInputs& in = r.inputs;
  const std::string per_h = in.currency + "/h";
  auto row = [&](std::string id, std::string_view name, std::optional<double> v, std::string_view unit,
                 std::string_view reason) {
    c.field(id).field(name);
    if (v && std::isfinite(*v)) c.number(*v); else c.field("");
    c.field(unit).field("cost").field(reason).field("host").end_row();
  };
  // Inputs: C001-C015 in input order, then the query; the reason column says where each came from.
  for (const auto& s : input_specs()) {
    const auto& v = in[s.id];
    const std::string reason = fmt::format("origin {}{}{}", v.origin.empty() ? "unset" : v.origin,
                                           v.note.empty() ? "" : ": ", v.note);
    row(input_row_id(s.id), "input." + input_name(s.id), v.value,
        input_unit(s.id, in.currency), reason);
  }
  row("C016", "input.query.job_hours", r.query.job_hours, "h", "origin " + r.query.job_hours_origin);
  row("C017", "input.query.target_premium", r.query.target_premium, "ratio", "origin " + r.query.target_premium_origin);

  const LocalCost& l = r.local;
  row("C029", "local.capital_cost", l.capital_cost, in.currency, "");
  row("C020", "local.amortization_per_hour", l.amortization_per_hour, per_h, "");
  row("C021", "local.electricity_per_hour", l.electricity_per_hour, per_h, "");
  row("C022", "local.cooling_per_hour", l.cooling_per_hour, per_h, "");
  row("C023", "local.maintenance_per_hour", l.maintenance_per_hour, per_h, "");
  row("C024", "local.cost_per_wall_hour", l.cost_per_wall_hour, per_h, "");
  row("C025", "local.effective_utilization", l.effective_utilization, "ratio", "");
  row("C026", "local.cost_per_effective_hour", l.cost_per_effective_hour, per_h,
      std::isfinite(l.cost_per_effective_hour) ? "" : "infinite: the local GPU does no useful work");
  row("C027", "local.running_per_effective_hour", l.running_per_effective_hour, per_h,
      std::isfinite(l.running_per_effective_hour) ? "" : "infinite: the local GPU does no useful work");
  row("C028", "local.fixed_cost_per_job", l.fixed_per_job, in.currency, "");
  row("C030", "cloud.cost_per_effective_hour", r.cloud.cost_per_effective_hour, per_h,
      std::isfinite(r.cloud.cost_per_effective_hour) ? "" : "infinite: the cloud GPU does no useful work");
  row("C031", "cloud.cold_start_cost", r.cloud.cold_start_cost, in.currency, "");
  row("C032", "cloud.billing_rounding_cost", r.cloud.billing_rounding_cost, in.currency, "");
  row("C033", "cloud.fixed_cost_per_job", r.cloud.fixed_per_job, in.currency, "pricing " + in.pricing);
  row("C034", "cloud.monthly_cost", r.cloud.monthly_cost, in.currency + "/month",
      "storage kept and fees paid every month: renting pays them, owning does not");

  const BreakEven& b = r.break_even;
  row("C040", "break_even.verdict", std::nullopt, "", verdict_name(b.verdict));
  row("C041", "break_even.job_hours", b.job_hours, "h",
      b.job_hours ? fmt::format("{} is cheaper below", side_name(*b.cheaper_below))
                  : fmt::format("no crossover: {}", verdict_name(b.verdict)));
  row("C042", "break_even.local_job_cost", b.local_job_cost, in.currency, "");
  row("C043", "break_even.cloud_job_cost", b.cloud_job_cost, in.currency, "");
  row("C053", "break_even.cloud_job_cost_billed", b.cloud_job_cost_billed, in.currency,
      "whole billing increments and the minimum");
  row("C044", "break_even.premium_at_job_hours", b.premium_at_job_hours, "ratio", b.premium_reason);
  row("C045", "break_even.job_hours_at_target_premium", b.job_hours_at_target_premium, "h", b.target_premium_reason);
  row("C046", "break_even.buy_vs_rent_hours", b.buy_vs_rent_hours, "h", b.buy_vs_rent_reason);
  row("C047", "break_even.buy_vs_rent_hours_per_month", b.buy_vs_rent_hours_per_month, "h/month", b.buy_vs_rent_reason);
  row("C048", "break_even.lifetime_effective_hours", b.lifetime_effective_hours, "h", "");
  row("C049", "break_even.usage_threshold_hours_per_month", b.usage_threshold_hours_per_month, "h/month",
      b.usage_threshold_hours_per_month ? r.summary : b.buy_vs_rent_reason);
  row("C050", "usage.hours_per_month", b.hours_per_month, "h/month",
      fmt::format("basis {}: {}", usage_basis_name(in.usage.basis), in.usage.reason));
  row("C051", "usage.measured_hours_per_month", in.measured_hours_per_month, "h/month", in.measured_usage_note);
  row("C060", "relative_speed.compute_bound", in.speed.compute_bound, "ratio", in.speed.compute_note);
  row("C061", "relative_speed.bandwidth_bound", in.speed.bandwidth_bound, "ratio", in.speed.bandwidth_note);
  row("C062", "relative_speed.used", in[InputId::kRelativeSpeed].value, "ratio",
      "origin " + in[InputId::kRelativeSpeed].origin);
  row("C063", "verdict.flips_within_speed_bracket", r.flips_within_speed_bracket ? 1.0 : 0.0, "bool", r.summary);
  const Uncertainty& u = r.uncertainty;
  const std::string mc = fmt::format("seed {}, {} draws", u.seed, u.draws);
  row("C070", "uncertainty.probability_buy_cheaper", u.probability_buy_cheaper, "ratio", mc);
  row("C071", "uncertainty.usage_threshold_hours_per_month.p5", u.usage_threshold_hours_per_month.p5, "h/month", mc);
  row("C072", "uncertainty.usage_threshold_hours_per_month.p50", u.usage_threshold_hours_per_month.p50, "h/month", mc);
  row("C073", "uncertainty.usage_threshold_hours_per_month.p95", u.usage_threshold_hours_per_month.p95, "h/month", mc);
  row("C074", "uncertainty.job_break_even_hours.p5", u.job_break_even_hours.p5, "h", mc);
  row("C075", "uncertainty.job_break_even_hours.p50", u.job_break_even_hours.p50, "h", mc);
  row("C076", "uncertainty.job_break_even_hours.p95", u.job_break_even_hours.p95, "h", mc);
  row("C052", "break_even.max_purchase_price", b.max_purchase_price, in.currency,
      b.max_purchase_price ? "" : b.hours_per_month ? "no purchase price pays at this usage" : "the usage is unknown");
  row("C054", "verdict.own.decision", std::nullopt, "", fmt::format("{}: {}", own_decision_name(r.own.decision), r.own.summary));
  row("C055", "verdict.buy.decision", std::nullopt, "", fmt::format("{}: {}", buy_decision_name(r.buy.decision), r.buy.summary));
  row("C056", "verdict.buy.payback_months", r.buy.payback_months, "month", "");
  row("C057", "verdict.buy.machine_threshold_hours_per_month", r.buy.machine_threshold_hours_per_month, "h/month",
      fmt::format("{} GPU(s): {}", in.gpu_count, in.gpu_count_note));

  // Sensitivity: C1xx, two rows per input (low, high), in tornado order.
  for (const auto& sr : r.sensitivity.rows) {
    const int k = static_cast<int>(sr.input);
    const std::string base = fmt::format("sensitivity.{}.{}", input_name(sr.input), r.sensitivity.metric);
    auto why = [&](Verdict v) {
      std::string s = fmt::format("verdict {}", verdict_name(v));
      if (!sr.note.empty()) s += "; " + sr.note;
      return s;
    };
    row(fmt::format("C{}", 100 + 2 * k), base + ".low", sr.low_metric, r.sensitivity.unit,
        fmt::format("{} at {} {}; {}", input_name(sr.input), short_num(sr.low), input_unit(sr.input, in.currency),
                    why(sr.low_verdict)));
    row(fmt::format("C{}", 101 + 2 * k), base + ".high", sr.high_metric, r.sensitivity.unit,
        fmt::format("{} at {} {}; {}", input_name(sr.input), short_num(sr.high), input_unit(sr.input, in.currency),
                    why(sr.high_verdict)));
  }
}

void write_cost_table(std::string& out, const CostResult& r) {
  const CostInputs& in = r.inputs;
  auto line = [&]<typename... Args>(fmt::format_string<Args...> f, Args&&... args) {
    fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
    out += '\n';
  };
  line("Cost model (currency {}{}{})", in.currency, in.scenario.empty() ? "" : "; scenario " + in.scenario,
       "; no currency conversion");
  if (!in.local_label.empty() || !in.cloud_label.empty())
    line("  local: {}   cloud: {}", in.local_label.empty() ? "-" : in.local_label,
         in.cloud_label.empty() ? "-" : in.cloud_label);
  if (!in.selection_note.empty()) line("  ({})", in.selection_note);
  line("");
  line("Inputs");
  for (const auto& s : input_specs()) {
    const auto& v = in[s.id];
    line("  {:<28} {:>12} {:<9} {:<8} {:<26} {}", input_name(s.id), short_num(v.value), input_unit(s.id, in.currency),
         input_basis(v), v.origin.empty() ? "unset" : v.origin, v.note);
  }
  line("  {:<28} {:>12} {:<9} {}", "query.job_hours", short_num(r.query.job_hours), "h", r.query.job_hours_origin);
  line("  {:<28} {:>12} {:<9} {}", "query.target_premium", short_num(r.query.target_premium), "ratio",
       r.query.target_premium_origin);
  line("");
  line("Steps");
  for (const auto& st : r.steps) {
    line("  {} = {}", st.name, st.formula);
    line("      = {}  ->  {} {}", st.numbers, short_num(st.value), st.value ? st.unit : std::string());
  }
  line("");
  const BreakEven& b = r.break_even;
  line("Break-even: {}{}", verdict_name(b.verdict),
       b.job_hours ? fmt::format(" at {} h = {} ({} cheaper below)", short_num(b.job_hours),
                                 human_duration(*b.job_hours), side_name(*b.cheaper_below))
                   : std::string());
  line("");
  const Sensitivity& s = r.sensitivity;
  line("Sensitivity of {} ({}; base {}) to each input at -{:g} % and +{:g} %, largest effect first", s.metric, s.unit,
       short_num(s.base_metric), 100 * s.step, 100 * s.step);
  line("  {:<28} {:>12} {:>12} {:>12} {:>12} {:>12}  {}", "input", "low value", "metric", "high value", "metric",
       "effect", "note");
  for (const auto& row : s.rows) {
    const bool changes = row.low_verdict != b.verdict || row.high_verdict != b.verdict;
    std::string note = row.note;
    if (changes)
      note = fmt::format("verdict {} / {}{}{}", verdict_name(row.low_verdict), verdict_name(row.high_verdict),
                         note.empty() ? "" : "; ", note);
    if (row.low_buy_pays != b.buy_pays || row.high_buy_pays != b.buy_pays)
      note = fmt::format("buying pays: {} / {}{}{}", row.low_buy_pays ? "yes" : "no", row.high_buy_pays ? "yes" : "no",
                         note.empty() ? "" : "; ", note);
    line("  {:<28} {:>12} {:>12} {:>12} {:>12} {:>12}  {}", input_name(row.input), short_num(row.low),
         short_num(row.low_metric), short_num(row.high), short_num(row.high_metric),
         std::isinf(row.effect) ? std::string("verdict") : short_num(row.effect), note);
  }
  line("");
  line("Usage ({}): {}", usage_basis_name(in.usage.basis),
       b.hours_per_month ? fmt::format("{} a month per GPU; {}", human_duration(*b.hours_per_month), in.usage.reason)
                         : in.usage.reason);
  line("Buying pays above: {}{}", b.usage_threshold_hours_per_month
                                      ? human_duration(*b.usage_threshold_hours_per_month) + " a month"
                                  : in.price_unknown ? std::string("depends on the purchase price (none is known)")
                                                     : std::string("never"),
       b.max_purchase_price ? fmt::format("; at this usage it pays if it cost less than {} {}",
                                          short_num(b.max_purchase_price), in.currency)
                            : std::string());
  line("Relative speed used: {} ({}); compute-bound {} ({}), bandwidth-bound {} ({}){}",
       short_num(in[InputId::kRelativeSpeed].value), in[InputId::kRelativeSpeed].origin,
       short_num(in.speed.compute_bound), in.speed.compute_note, short_num(in.speed.bandwidth_bound),
       in.speed.bandwidth_note, r.flips_within_speed_bracket ? "; THE VERDICT FLIPS WITHIN THIS BRACKET" : "");
  const Uncertainty& u = r.uncertainty;
  if (u.draws > 0) {
    auto pct3 = [](const Percentiles& p, auto fmt_one) {
      auto one = [&](const std::optional<double>& v) { return v ? fmt_one(*v) : std::string("never"); };
      return fmt::format("{} / {} / {}", one(p.p5), one(p.p50), one(p.p95));
    };
    line("Uncertainty ({} draws, seed {}): buying is cheaper in {:.1f} % of draws; usage threshold 5/50/95 %: {} a month; "
         "job break-even 5/50/95 %: {} (in {:.1f} % of draws)",
         u.draws, u.seed, 100 * u.probability_buy_cheaper.value_or(0),
         pct3(u.usage_threshold_hours_per_month, [](double h) { return human_duration(h); }),
         pct3(u.job_break_even_hours, [](double h) { return human_duration(h); }), 100 * u.share_with_crossover);
    for (const auto& v : u.varied) line("  drawn: {}", v);
    if (u.varied.empty()) line("  (every input is a point value: give ranges with --range NAME=LOW:HIGH)");
  }
  line("");
  for (const auto& wmsg : r.price_warnings) line("Warning: {}", wmsg);
  for (const auto& wmsg : in.warnings) line("Warning: {}", wmsg);
  line("Job length (a detail of the cost, not an answer): {}", r.verdict_text);
  line("");
  line("Own it? {}", r.own.summary);
  line("Buy it? {}", r.buy.summary);
}

std::vector<double> answer_hours(const CostResult& r) {
  std::vector<double> hours = {50, 100, 200, 400, 730.5};
  if (const auto& t = r.break_even.usage_threshold_hours_per_month; t && *t <= kMaxHoursPerMonth) hours.push_back(*t);
  if (const auto& u = r.break_even.hours_per_month) hours.push_back(*u);
  std::sort(hours.begin(), hours.end());
  hours.erase(std::unique(hours.begin(), hours.end()), hours.end());
  return hours;
}

void write_answer_table(std::string& out, const CostResult& r, std::string_view indent) {
  const CostInputs& in = r.inputs;
  const BreakEven& b = r.break_even;
  const std::string& cur = in.currency;
  auto line = [&]<typename... Args>(fmt::format_string<Args...> f, Args&&... args) {
    out += indent;
    fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
    out += '\n';
  };
  auto upper = [](std::string_view s) {
    std::string u(s);
    for (auto& ch : u) ch = ch == '_' ? ' ' : static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return u;
  };
  line("Compared: {} against {}{}.", in.local_label.empty() ? "the local GPU" : in.local_label,
       in.cloud_label.empty() ? "the cloud GPU" : in.cloud_label,
       in.selection_note.empty() ? std::string() : " (" + in.selection_note + ")");
  line("Own it?  {}. {}", upper(own_decision_name(r.own.decision)), r.own.summary);
  line("Buy it?  {}. {}", upper(buy_decision_name(r.buy.decision)), r.buy.summary);
  if (in.usage.basis == UsageBasis::kUnknown)
    line("Usage:   unknown: {}. To supply it: --hours-per-month N (busy GPU-hours a month of one GPU), or a range "
         "--range local.hours_per_month=LOW:HIGH; a collection of a week or more (scripts/collect-logs.sh --duration "
         "7d, or the gpucost-recorder service); or your scheduler's GPU-hours.",
         in.usage.reason);
  else
    line("Usage:   {}, {} a month per GPU{}.", usage_basis_name(in.usage.basis), human_duration(*b.hours_per_month),
         in.usage.basis == UsageBasis::kMeasured ? fmt::format(" (over {} days of samples)", sig3(*in.usage.span_days))
                                                 : std::string());
  if (in.gpu_count > 1)
    line("GPUs:    {} ({}); every figure is per GPU, the machine is {} of them.", in.gpu_count, in.gpu_count_note,
         in.gpu_count);
  if (r.buy.probability)
    line("Odds:    buying is cheaper in {} % of {} draws over what is uncertain.", sig3(100 * *r.buy.probability),
         r.uncertainty.draws);
  if (!r.buy.flips.empty()) line("Flips:   {}.", r.buy.flips);
  if (!in.price_unknown && std::isfinite(r.local.running_per_effective_hour) &&
      std::isfinite(r.cloud.cost_per_effective_hour)) {
    line("A month of one GPU ({}), by busy hours a month:", cur);
    std::string hours, own, rent;
    for (double h : answer_hours(r)) {
      const MonthlyCost m = monthly_cost(r, h);
      const bool mark = b.usage_threshold_hours_per_month && h == *b.usage_threshold_hours_per_month;
      const bool used = b.hours_per_month && h == *b.hours_per_month;
      hours += fmt::format("{:>10}", fmt::format("{:.0f} h", h) + (mark ? "*" : used ? "<" : ""));
      own += fmt::format("{:>10}", sig3(m.own));
      rent += fmt::format("{:>10}", sig3(m.rent));
    }
    line("  hours {}", hours);
    line("  own   {}", own);
    line("  rent  {}", rent);
    const bool starred = b.usage_threshold_hours_per_month && *b.usage_threshold_hours_per_month <= kMaxHoursPerMonth;
    line("  ({}{}own = purchase over {} months + running cost)", starred ? "* where buying starts to pay; " : "",
         b.hours_per_month ? "< the usage; " : "", format_number(in.get(InputId::kAmortizationMonths)));
  }
  // The prices' age stays with the cost table: it changes with the day of the run, the answer does not.
  for (const auto& wmsg : in.warnings) line("Warning: {}", wmsg);
}

}  // namespace gpucost::cost
