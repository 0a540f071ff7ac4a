// The Prometheus textfile: families of gauges rendered from the report model (see
// docs/reports.md for the names and why there are no counters).
#include "gpucost/report/prom_writer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <utility>
#include <vector>

#include "gpucost/text.hpp"
#include "gpucost/text/escape.hpp"
#include "gpucost/text/number.hpp"
#include "gpucost/time.hpp"

namespace gpucost {

namespace {

// Per-hour rates and prices keep "per_hour" in their names: prices are quoted per hour and a
// per-second price would be a number nobody reads. Durations and energy use base units.
constexpr PromFeatureMetric kFeatureMetrics[] = {
    {FeatureId::gpu_samples, "gpucost_gpu_samples", 1,
     "GPU sample rows (nvidia-smi dmon or --query-gpu) in the analyzed window."},
    {FeatureId::gpu_sampled_s, "gpucost_gpu_sampled_seconds", 1, "Time covered by GPU samples in the analyzed window."},
    {FeatureId::gpu_util_mean_pct, "gpucost_gpu_utilization_mean_ratio", 0.01,
     "Mean SM utilization over the samples (0-1)."},
    {FeatureId::gpu_idle_fraction, "gpucost_gpu_idle_ratio", 1,
     "Share of GPU samples at or below the idle threshold of the report (0-1)."},
    {FeatureId::gpu_power_mean_w, "gpucost_gpu_power_mean_watts", 1, "Mean board power over the samples."},
    {FeatureId::gpu_energy_kwh, "gpucost_gpu_energy_joules", 3.6e6, "Energy the GPU drew over the sampled time."},
    {FeatureId::gpu_temp_max_c, "gpucost_gpu_temperature_max_celsius", 1, "Highest GPU core temperature sampled."},
    {FeatureId::gpu_time_above_temp_s, "gpucost_gpu_time_above_temperature_seconds", 1,
     "Sampled time above the temperature threshold of the report."},
    {FeatureId::gpu_busy_s, "gpucost_gpu_busy_seconds", 1, "Sampled time above the idle threshold of the report."},
    {FeatureId::gpu_idle_s, "gpucost_gpu_idle_seconds", 1,
     "Sampled time at or below the idle threshold of the report."},
    {FeatureId::gpu_thermal_violation_fraction, "gpucost_gpu_thermal_violation_ratio", 1,
     "Share of GPU samples with thermal slowdown (clocks held down by temperature, 0-1)."},
    {FeatureId::gpu_lost_s, "gpucost_gpu_lost_seconds", 1,
     "GPU time lost to a GPU that fell off the bus or was reset."},
    {FeatureId::xid_events, "gpucost_xid_events", 1, "Distinct NVIDIA Xid events in the analyzed window."},
    {FeatureId::xid_memory_ecc_events, "gpucost_xid_memory_ecc_events", 1,
     "Xid events of the memory/ECC class (48, 63, 64, 94, 95: uncorrectable ECC, row remapping pending a reset)."},
    {FeatureId::xid_bus_events, "gpucost_xid_bus_events", 1,
     "Xid events of the bus class (74 NVLink, 79 fallen off the bus)."},
    {FeatureId::fallen_off_bus_events, "gpucost_fallen_off_bus_events", 1, "GPU has fallen off the bus messages."},
    {FeatureId::ac_switches, "gpucost_ac_switches", 1, "AC adapter plug/unplug events in the analyzed window."},
    {FeatureId::ac_switches_per_hour, "gpucost_ac_switches_per_hour", 1, "AC adapter switches per hour of the window."},
    {FeatureId::lid_closes, "gpucost_lid_closes", 1, "Laptop lid closes in the analyzed window."},
    {FeatureId::suspends, "gpucost_suspends", 1, "System suspends in the analyzed window."},
    {FeatureId::suspended_s, "gpucost_suspended_seconds", 1, "Time the system spent suspended in the analyzed window."},
};

void append_help_text(std::string& out, std::string_view s) {
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
}

// Comment lines carry free text: UTF-8 as the JSON report states it, one line, no control
// characters (an LF or CR reads as a space, every other control as text::escape_control writes it).
void append_comment_text(std::string& out, std::string_view s) {
  std::string line = stated_text(s);
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  text::append_escape_control(out, line);
}

using Labels = std::vector<std::pair<std::string_view, std::string>>;

class Exposition {
 public:
  explicit Exposition(std::string host) : host_(std::move(host)) {}

  void family(std::string_view name, std::string_view help) {
    out_ += "# HELP ";
    out_ += name;
    out_ += ' ';
    append_help_text(out_, help);
    out_ += "\n# TYPE ";
    out_ += name;
    out_ += " gauge\n";
  }
  void sample(std::string_view name, const Labels& extra, double v) {
    series(out_, name, extra);
    out_ += ' ';
    out_ += format_number(v);
    out_ += '\n';
  }
  // A value the report does not have: no sample (NaN would read as a measurement), a comment.
  void null_sample(std::string_view name, const Labels& extra, std::string_view reason) {
    out_ += "# null: ";
    series(out_, name, extra);
    out_ += ' ';
    append_comment_text(out_, reason.empty() ? "no value" : reason);
    out_ += '\n';
  }
  void comment(std::string_view text) {
    out_ += "# ";
    append_comment_text(out_, text);
    out_ += '\n';
  }
  void value_or_null(std::string_view name, const Labels& extra, std::optional<double> v, std::string_view reason) {
    if (v && std::isfinite(*v)) sample(name, extra, *v);
    else null_sample(name, extra, reason);
  }
  std::string& text() { return out_; }

 private:
  void series(std::string& out, std::string_view name, const Labels& extra) const {
    out += name;
    out += "{host=\"";
    append_prom_label_value(out, stated_text(host_));
    out += '"';
    for (const auto& [k, v] : extra) {
      out += ',';
      out += k;
      out += "=\"";
      append_prom_label_value(out, stated_text(v));
      out += '"';
    }
    out += '}';
  }
  std::string host_;
  std::string out_;
};

std::optional<double> scaled(std::optional<double> v, double scale) {
  if (!v) return v;
  return *v * scale;
}

// Unix seconds of a time, to the microsecond the JSON report writes it with.
std::optional<double> unix_seconds(TimeNs t) {
  if (t == kNoTime) return std::nullopt;
  std::int64_t us = t / 1000;
  if (t % 1000 < 0) --us;  // down to the microsecond, as format_rfc3339 does
  return static_cast<double>(us) / 1e6;
}

std::string gpu_label(const GpuSection& g) { return fmt::format("{}", g.index); }

void write_feature_family(Exposition& x, const PromFeatureMetric& m, const ReportModel& model) {
  // Per-GPU features appear in each GPU's features; host features only at the top.
  const bool per_gpu = !model.gpus.empty() && model.gpus.front().feature(m.feature);
  const FeatureLine* host = model.host_feature(m.feature);
  if (!per_gpu && !host) {
    x.comment(fmt::format("absent: the report has no value of feature {} ({})", feature_name(m.feature), m.metric));
    return;
  }
  const std::string_view id = feature_code(m.feature), name = feature_name(m.feature);
  if (!per_gpu) {
    x.family(m.metric, fmt::format("{} Feature {} {}.", m.help, id, name));
    x.value_or_null(m.metric, {}, scaled(host->stated_value(), m.scale), host->null_reason());
    return;
  }
  x.family(m.metric, fmt::format("{} Feature {} {}, per GPU.", m.help, id, name));
  for (const auto& g : model.gpus) {
    const FeatureLine* f = g.feature(m.feature);
    x.value_or_null(m.metric, {{"gpu", gpu_label(g)}}, scaled(f->stated_value(), m.scale), f->null_reason());
  }
}

void write_features(Exposition& x, const ReportModel& model) {
  for (const auto& m : kFeatureMetrics) write_feature_family(x, m, model);
}

// Which GPU is which: the model and PCI address as labels of a constant series, so rules can
// group by model without putting them on every metric.
void write_gpu_info(Exposition& x, const ReportModel& model) {
  x.family("gpucost_gpu_info", "Always 1; the labels name each GPU's model and PCI bus id.");
  for (const auto& g : model.gpus)
    x.sample("gpucost_gpu_info",
             {{"gpu", gpu_label(g)}, {"model", std::string(g.name)}, {"pci_bus", std::string(g.pci_bus)}}, 1);
}

void write_cost_per_hour(Exposition& x, const cost::CostResult& c) {
  const std::string& currency = c.inputs.currency;
  const std::string no_work = "infinite or unknown: the GPU does no useful work";
  x.family("gpucost_cost_per_effective_hour",
           "Cost of one hour of useful GPU work, in the currency of the label (docs/cost-model.md).");
  x.value_or_null("gpucost_cost_per_effective_hour", {{"side", "local"}, {"currency", currency}},
                  stated(c.local.cost_per_effective_hour), no_work);
  x.value_or_null("gpucost_cost_per_effective_hour", {{"side", "cloud"}, {"currency", currency}},
                  stated(c.cloud.cost_per_effective_hour), no_work);

  x.family("gpucost_cost_per_wall_hour",
           "Cost of one hour of use, busy or not: local amortization, electricity, cooling and maintenance; "
           "the cloud's hourly rate.");
  x.value_or_null("gpucost_cost_per_wall_hour", {{"side", "local"}, {"currency", currency}},
                  stated(c.local.cost_per_wall_hour), "not computed");
  x.value_or_null("gpucost_cost_per_wall_hour", {{"side", "cloud"}, {"currency", currency}},
                  stated(c.inputs[cost::InputId::kHourlyRate].value), "no hourly rate");

  x.family("gpucost_local_effective_utilization_ratio",
           "Share of wall time the local GPU does useful work, as the cost model used it (0-1).");
  x.value_or_null("gpucost_local_effective_utilization_ratio", {}, stated(c.local.effective_utilization),
                  "not computed");
}

void write_verdict(Exposition& x, const cost::CostResult& c) {
  x.family("gpucost_verdict_info",
           "Always 1; the labels carry the report's two answers: own (keep or rent, for the owner of this GPU) and "
           "buy (buy, rent, never, depends_on_usage or depends_on_price), and the usage basis.");
  x.sample("gpucost_verdict_info",
           {{"own", std::string(cost::own_decision_name(c.own.decision))},
            {"buy", std::string(cost::buy_decision_name(c.buy.decision))},
            {"usage_basis", std::string(cost::usage_basis_name(c.inputs.usage.basis))}},
           1);
  x.family("gpucost_buy_threshold_monthly_busy_seconds",
           "Busy GPU time a month (one GPU, as seconds) from which buying costs less than renting the same work.");
  x.value_or_null("gpucost_buy_threshold_monthly_busy_seconds", {},
                  scaled(stated(c.buy.threshold_hours_per_month), 3600), "buying never pays or no price");
}

void write_break_even(Exposition& x, const cost::CostResult& c) {
  const cost::BreakEven& be = c.break_even;
  const std::string verdict(cost::verdict_name(be.verdict));
  auto side = [](std::optional<cost::Side> s) { return s ? std::string(cost::side_name(*s)) : std::string(); };
  const std::optional<cost::Side> above =
      be.cheaper_below
          ? std::optional(*be.cheaper_below == cost::Side::kCloud ? cost::Side::kLocal : cost::Side::kCloud)
          : std::nullopt;
  x.family("gpucost_break_even_info",
           "Always 1; the labels say which side is cheaper (verdict, cheaper_below/cheaper_above the break-even).");
  x.sample("gpucost_break_even_info",
           {{"verdict", verdict},
            {"cheaper_below", side(be.cheaper_below)},
            {"cheaper_above", side(above)},
            {"local", c.inputs.local_gpu},
            {"cloud", c.inputs.cloud_offer}},
           1);
  x.family("gpucost_break_even_job_seconds",
           "Job length (local-equivalent busy time) at which local and cloud cost the same.");
  x.value_or_null("gpucost_break_even_job_seconds", {}, scaled(stated(be.job_hours), 3600), "no crossover: " + verdict);
  x.family("gpucost_buy_vs_rent_break_even_seconds",
           "Hours of use (as seconds) after which buying the local GPU costs less than renting the cloud one.");
  x.value_or_null("gpucost_buy_vs_rent_break_even_seconds", {}, scaled(stated(be.buy_vs_rent_hours), 3600),
                  be.buy_vs_rent_reason.empty() ? "buying never pays" : be.buy_vs_rent_reason);
}

void write_cost(Exposition& x, const ReportModel& model) {
  if (!model.cost) {
    x.comment("absent: the report has no cost section");
    return;
  }
  write_cost_per_hour(x, *model.cost);
  write_verdict(x, *model.cost);
  write_break_even(x, *model.cost);
}

void write_report_meta(Exposition& x, const ReportModel& model) {
  x.family("gpucost_report_info", "Always 1; the labels name the gpucost version and the time zone of the logs.");
  x.sample("gpucost_report_info",
           {{"version", std::string(model.run.version)}, {"zone", std::string(model.run.zone_name)}}, 1);
  x.family("gpucost_window_start_timestamp_seconds", "First placed record of the analyzed logs (Unix time).");
  x.value_or_null("gpucost_window_start_timestamp_seconds", {}, unix_seconds(model.run.first), "no placed record");
  x.family("gpucost_window_end_timestamp_seconds", "Last placed record of the analyzed logs (Unix time).");
  x.value_or_null("gpucost_window_end_timestamp_seconds", {}, unix_seconds(model.run.last), "no placed record");

  const InputSection& in = model.inputs;
  x.family("gpucost_input_files", "Files read from the log directory.");
  x.sample("gpucost_input_files", {}, static_cast<double>(in.files));
  x.family("gpucost_input_lines", "Lines read from the log files.");
  x.sample("gpucost_input_lines", {}, static_cast<double>(in.lines));
  x.family("gpucost_input_rejected_lines", "Lines no parser understood (see the JSON or HTML report).");
  x.sample("gpucost_input_rejected_lines", {}, static_cast<double>(in.rejected));

  x.family("gpucost_timeline_events", "Distinct events of each kind on the timeline of the analyzed window.");
  for (const auto& [kind, n] : model.timeline.events_by_kind)
    x.sample("gpucost_timeline_events", {{"kind", std::string(kind)}}, static_cast<double>(n));
}

// One series per finding, so an alert can fire on `gpucost_finding{severity="critical"}`.
void write_findings(Exposition& x, const ReportModel& model) {
  x.family("gpucost_finding",
           "Always 1: one series per finding of the findings stage, labelled by rule, id and severity "
           "(docs/findings.md).");
  for (const auto& f : model.findings)
    x.sample("gpucost_finding",
             {{"rule", f.rule}, {"id", f.id}, {"severity", std::string(findings::severity_name(f.severity))}}, 1);
}

}  // namespace

std::span<const PromFeatureMetric> prom_feature_metrics() { return kFeatureMetrics; }

void append_prom_label_value(std::string& out, std::string_view v) {
  // LF has the format's own escape; every other control is written as text::escape_control
  // writes it, whose backslash is then escaped like any other: the value reads `\x1b`, and a
  // scraper's parser, which knows no `\x` escape, still reads the line.
  for (std::size_t at = 0;;) {
    const auto nl = v.find('\n', at);
    const std::string piece = text::escape_control(v.substr(at, nl == std::string_view::npos ? nl : nl - at));
    for (char c : piece) {
      if (c == '\\') out += "\\\\";
      else if (c == '"') out += "\\\"";
      else out += c;
    }
    if (nl == std::string_view::npos) return;
    out += "\\n";
    at = nl + 1;
  }
}

std::string render_prom(const ReportModel& model) {
  Exposition x(model.run.host.name.empty() ? std::string("unknown") : model.run.host.name);
  x.comment(fmt::format("gpucost {} report of {}; all values describe the analyzed window (gauges).", model.run.version,
                        model.run.input));
  write_features(x, model);
  write_gpu_info(x, model);
  write_cost(x, model);
  write_findings(x, model);
  write_report_meta(x, model);
  return std::move(x.text());
}

}  // namespace gpucost
