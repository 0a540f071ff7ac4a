// The Prometheus textfile: families of gauges rendered from the report document (see
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

namespace rd = reportdoc;

// Per-hour rates and prices keep "per_hour" in their names: prices are quoted per hour and a
// per-second price would be a number nobody reads. Durations and energy use base units.
constexpr PromFeatureMetric kFeatureMetrics[] = {
    {"gpu_samples", "gpucost_gpu_samples", 1, "GPU sample rows (nvidia-smi dmon or --query-gpu) in the analyzed window."},
    {"gpu_sampled_s", "gpucost_gpu_sampled_seconds", 1, "Time covered by GPU samples in the analyzed window."},
    {"gpu_util_mean_pct", "gpucost_gpu_utilization_mean_ratio", 0.01, "Mean SM utilization over the samples (0-1)."},
    {"gpu_idle_fraction", "gpucost_gpu_idle_ratio", 1,
     "Share of GPU samples at or below the idle threshold of the report (0-1)."},
    {"gpu_power_mean_w", "gpucost_gpu_power_mean_watts", 1, "Mean board power over the samples."},
    {"gpu_energy_kwh", "gpucost_gpu_energy_joules", 3.6e6, "Energy the GPU drew over the sampled time."},
    {"gpu_temp_max_c", "gpucost_gpu_temperature_max_celsius", 1, "Highest GPU core temperature sampled."},
    {"gpu_time_above_temp_s", "gpucost_gpu_time_above_temperature_seconds", 1,
     "Sampled time above the temperature threshold of the report."},
    {"gpu_busy_s", "gpucost_gpu_busy_seconds", 1, "Sampled time above the idle threshold of the report."},
    {"gpu_idle_s", "gpucost_gpu_idle_seconds", 1, "Sampled time at or below the idle threshold of the report."},
    {"gpu_thermal_violation_fraction", "gpucost_gpu_thermal_violation_ratio", 1,
     "Share of GPU samples with thermal slowdown (clocks held down by temperature, 0-1)."},
    {"gpu_lost_s", "gpucost_gpu_lost_seconds", 1, "GPU time lost to a GPU that fell off the bus or was reset."},
    {"xid_events", "gpucost_xid_events", 1, "Distinct NVIDIA Xid events in the analyzed window."},
    {"xid_memory_ecc_events", "gpucost_xid_memory_ecc_events", 1,
     "Xid events of the memory/ECC class (48, 63, 64, 94, 95: uncorrectable ECC, row remapping pending a reset)."},
    {"xid_bus_events", "gpucost_xid_bus_events", 1, "Xid events of the bus class (74 NVLink, 79 fallen off the bus)."},
    {"fallen_off_bus_events", "gpucost_fallen_off_bus_events", 1, "GPU has fallen off the bus messages."},
    {"ac_switches", "gpucost_ac_switches", 1, "AC adapter plug/unplug events in the analyzed window."},
    {"ac_switches_per_hour", "gpucost_ac_switches_per_hour", 1, "AC adapter switches per hour of the window."},
    {"lid_closes", "gpucost_lid_closes", 1, "Laptop lid closes in the analyzed window."},
    {"suspends", "gpucost_suspends", 1, "System suspends in the analyzed window."},
    {"suspended_s", "gpucost_suspended_seconds", 1, "Time the system spent suspended in the analyzed window."},
};

void append_help_text(std::string& out, std::string_view s) {
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
}

// Comment lines carry free text: one line, no control characters (an LF or CR reads as a
// space, every other control as text::escape_control writes it).
void append_comment_text(std::string& out, std::string_view s) {
  std::string line(s);
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
    append_prom_label_value(out, host_);
    out += '"';
    for (const auto& [k, v] : extra) {
      out += ',';
      out += k;
      out += "=\"";
      append_prom_label_value(out, v);
      out += '"';
    }
    out += '}';
  }
  std::string host_;
  std::string out_;
};

// The feature object named `name` in an array of features, if any.
std::optional<rd::Element> find_feature(std::optional<rd::Element> features, std::string_view name) {
  std::optional<rd::Element> found;
  rd::each(features, [&](rd::Element f) {
    if (!found && rd::string(f, "name") == name) found = f;
  });
  return found;
}

std::optional<double> scaled(std::optional<double> v, double scale) {
  if (!v) return v;
  return *v * scale;
}

// `2026-11-29T08:00:00.000000Z` (our writer's form) -> Unix seconds.
std::optional<double> rfc3339_seconds(std::string_view s) {
  unsigned y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' ||
      s.back() != 'Z' || !text::digits(s, 0, 4, y) || !text::digits(s, 5, 2, mo) || !text::digits(s, 8, 2, d) ||
      !text::digits(s, 11, 2, h) || !text::digits(s, 14, 2, mi) || !text::digits(s, 17, 2, se) ||
      !valid_date(y, mo, d))
    return std::nullopt;
  double frac = 0;
  if (s.size() > 21 && s[19] == '.') {
    double scale = 0.1;
    for (std::size_t i = 20; i + 1 < s.size() && text::is_digit(s[i]); ++i, scale /= 10) frac += (s[i] - '0') * scale;
  }
  const double days = static_cast<double>(days_from_civil(y, mo, d));
  return days * 86400.0 + h * 3600.0 + mi * 60.0 + se + frac;
}

void write_features(Exposition& x, rd::Element root) {
  const auto gpus = rd::child(root, "gpus");
  const auto host_features = rd::child(root, "features");
  for (const auto& m : kFeatureMetrics) {
    // Per-GPU features appear in gpus[].features; host features only at the top.
    std::optional<rd::Element> per_gpu;  // the feature in the first GPU that has it
    rd::each(gpus, [&](rd::Element g) {
      if (!per_gpu) per_gpu = find_feature(rd::child(g, "features"), m.feature);
    });
    const auto host_value = find_feature(host_features, m.feature);
    if (!per_gpu && !host_value) {
      x.comment(fmt::format("absent: feature {} ({}) is not in this build's feature catalog", m.feature, m.metric));
      continue;
    }
    const std::string_view id = rd::string(per_gpu ? *per_gpu : *host_value, "id");
    const std::string_view help = m.help;
    if (per_gpu) {
      x.family(m.metric, fmt::format("{} Feature {} {}, per GPU.", help, id, m.feature));
      rd::each(gpus, [&](rd::Element g) {
        const auto f = find_feature(rd::child(g, "features"), m.feature);
        const Labels labels{{"gpu", fmt::format("{}", rd::integer(g, "index").value_or(-1))}};
        if (!f) return;
        x.value_or_null(m.metric, labels, scaled(rd::number(*f, "value"), m.scale), rd::string(*f, "reason"));
      });
    } else {
      x.family(m.metric, fmt::format("{} Feature {} {}.", help, id, m.feature));
      x.value_or_null(m.metric, {}, scaled(rd::number(*host_value, "value"), m.scale), rd::string(*host_value, "reason"));
    }
  }
}

// Which GPU is which: the model and PCI address as labels of a constant series, so rules can
// group by model without putting them on every metric.
void write_gpu_info(Exposition& x, rd::Element root) {
  x.family("gpucost_gpu_info", "Always 1; the labels name each GPU's model and PCI bus id.");
  rd::each(rd::child(root, "gpus"), [&](rd::Element g) {
    x.sample("gpucost_gpu_info",
             {{"gpu", fmt::format("{}", rd::integer(g, "index").value_or(-1))},
              {"model", std::string(rd::string(g, "name"))},
              {"pci_bus", std::string(rd::string(g, "pci_bus"))}},
             1);
  });
}

void write_cost(Exposition& x, rd::Element root) {
  const auto cost = rd::child(root, "cost");
  if (!cost) {
    x.comment("absent: the report has no cost section");
    return;
  }
  const std::string currency(rd::string(*cost, "currency"));
  const auto local = rd::child(*cost, "local");
  const auto cloud = rd::child(*cost, "cloud");
  const auto be = rd::child(*cost, "break_even");
  const std::string no_work = "infinite or unknown: the GPU does no useful work";

  x.family("gpucost_cost_per_effective_hour",
           "Cost of one hour of useful GPU work, in the currency of the label (docs/cost-model.md).");
  x.value_or_null("gpucost_cost_per_effective_hour", {{"side", "local"}, {"currency", currency}},
                  local ? rd::number(*local, "cost_per_effective_hour") : std::nullopt, no_work);
  x.value_or_null("gpucost_cost_per_effective_hour", {{"side", "cloud"}, {"currency", currency}},
                  cloud ? rd::number(*cloud, "cost_per_effective_hour") : std::nullopt, no_work);

  x.family("gpucost_cost_per_wall_hour",
           "Cost of one hour of use, busy or not: local amortization, electricity, cooling and maintenance; "
           "the cloud's hourly rate.");
  x.value_or_null("gpucost_cost_per_wall_hour", {{"side", "local"}, {"currency", currency}},
                  local ? rd::number(*local, "cost_per_wall_hour") : std::nullopt, "not computed");
  x.value_or_null("gpucost_cost_per_wall_hour", {{"side", "cloud"}, {"currency", currency}},
                  cloud ? rd::number(*cloud, "hourly_rate") : std::nullopt, "no hourly rate");

  x.family("gpucost_local_effective_utilization_ratio",
           "Share of wall time the local GPU does useful work, as the cost model used it (0-1).");
  x.value_or_null("gpucost_local_effective_utilization_ratio", {},
                  local ? rd::number(*local, "effective_utilization") : std::nullopt, "not computed");

  if (const auto v = rd::child(*cost, "verdict")) {
    x.family("gpucost_verdict_info",
             "Always 1; the labels carry the report's two answers: own (keep or rent, for the owner of this GPU) and "
             "buy (buy, rent, never, depends_on_usage or depends_on_price), and the usage basis.");
    x.sample("gpucost_verdict_info",
             {{"own", std::string(rd::string(rd::path(*v, "own", "decision")))},
              {"buy", std::string(rd::string(rd::path(*v, "buy", "decision")))},
              {"usage_basis", std::string(rd::string(rd::path(*cost, "usage", "basis")))}},
             1);
    x.family("gpucost_buy_threshold_monthly_busy_seconds",
             "Busy GPU time a month (one GPU, as seconds) from which buying costs less than renting the same work.");
    x.value_or_null("gpucost_buy_threshold_monthly_busy_seconds", {},
                    scaled(rd::number(rd::path(*v, "buy", "threshold_hours_per_month")), 3600),
                    "buying never pays or no price");
  }
  if (!be) return;
  const std::string verdict(rd::string(*be, "verdict"));
  x.family("gpucost_break_even_info",
           "Always 1; the labels say which side is cheaper (verdict, cheaper_below/cheaper_above the break-even).");
  x.sample("gpucost_break_even_info",
           {{"verdict", verdict},
            {"cheaper_below", std::string(rd::string(*be, "cheaper_below"))},
            {"cheaper_above", std::string(rd::string(*be, "cheaper_above"))},
            {"local", std::string(rd::string(rd::path(*cost, "local_gpu", "preset")))},
            {"cloud", std::string(rd::string(rd::path(*cost, "cloud_offer", "preset")))}},
           1);
  x.family("gpucost_break_even_job_seconds",
           "Job length (local-equivalent busy time) at which local and cloud cost the same.");
  x.value_or_null("gpucost_break_even_job_seconds", {}, scaled(rd::number(*be, "job_hours"), 3600),
                  "no crossover: " + verdict);
  x.family("gpucost_buy_vs_rent_break_even_seconds",
           "Hours of use (as seconds) after which buying the local GPU costs less than renting the cloud one.");
  const auto bvr_reason = rd::string(*be, "buy_vs_rent_reason");
  x.value_or_null("gpucost_buy_vs_rent_break_even_seconds", {}, scaled(rd::number(*be, "buy_vs_rent_hours"), 3600),
                  bvr_reason.empty() ? "buying never pays" : bvr_reason);
}

void write_report_meta(Exposition& x, rd::Element root) {
  x.family("gpucost_report_info", "Always 1; the labels name the gpucost version and the time zone of the logs.");
  x.sample("gpucost_report_info",
           {{"version", std::string(rd::string(rd::path(root, "tool", "version")))},
            {"zone", std::string(rd::string(rd::path(root, "zone", "name")))}},
           1);
  x.family("gpucost_window_start_timestamp_seconds", "First placed record of the analyzed logs (Unix time).");
  x.value_or_null("gpucost_window_start_timestamp_seconds", {},
                  rfc3339_seconds(rd::string(rd::path(root, "window", "first"))), "no placed record");
  x.family("gpucost_window_end_timestamp_seconds", "Last placed record of the analyzed logs (Unix time).");
  x.value_or_null("gpucost_window_end_timestamp_seconds", {},
                  rfc3339_seconds(rd::string(rd::path(root, "window", "last"))), "no placed record");

  const auto dg = rd::child(root, "diagnostics");
  x.family("gpucost_input_files", "Files read from the log directory.");
  x.value_or_null("gpucost_input_files", {}, dg ? rd::number(*dg, "files") : std::nullopt, "no diagnostics");
  x.family("gpucost_input_lines", "Lines read from the log files.");
  x.value_or_null("gpucost_input_lines", {}, dg ? rd::number(*dg, "lines") : std::nullopt, "no diagnostics");
  x.family("gpucost_input_rejected_lines", "Lines no parser understood (see the JSON or HTML report).");
  x.value_or_null("gpucost_input_rejected_lines", {}, dg ? rd::number(*dg, "rejected") : std::nullopt,
                  "no diagnostics");

  x.family("gpucost_timeline_events", "Distinct events of each kind on the timeline of the analyzed window.");
  rd::each_member(rd::path(root, "timeline", "events_by_kind"), [&](std::string_view kind, rd::Element n) {
    if (auto v = rd::number(n)) x.sample("gpucost_timeline_events", {{"kind", std::string(kind)}}, *v);
  });
}

// One series per finding, so an alert can fire on `gpucost_finding{severity="critical"}`.
void write_findings(Exposition& x, rd::Element root) {
  x.family("gpucost_finding",
           "Always 1: one series per finding of the findings stage, labelled by rule, id and severity "
           "(docs/findings.md).");
  rd::each(rd::child(root, "findings"), [&](rd::Element f) {
    x.sample("gpucost_finding",
             {{"rule", std::string(rd::string(f, "rule"))},
              {"id", std::string(rd::string(f, "id"))},
              {"severity", std::string(rd::string(f, "severity"))}},
             1);
  });
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

std::string render_prom(const reportdoc::Document& doc) {
  const rd::Element root = doc.root();
  std::string host(rd::string(rd::path(root, "host", "name")));
  if (host.empty()) host = "unknown";
  Exposition x(host);
  x.comment(fmt::format("gpucost {} report of {}; all values describe the analyzed window (gauges).",
                        rd::string(rd::path(root, "tool", "version")), rd::string(root, "input")));
  write_features(x, root);
  write_gpu_info(x, root);
  write_cost(x, root);
  write_findings(x, root);
  write_report_meta(x, root);
  return std::move(x.text());
}

}  // namespace gpucost
