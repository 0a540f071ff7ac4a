#include "gpucost/report/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "gpucost/report/cost_section.hpp"
#include "gpucost/report/html_writer.hpp"
#include "gpucost/report/ndjson_writer.hpp"
#include "gpucost/report/prom_writer.hpp"
#include "gpucost/text.hpp"
#include "gpucost/text/csv.hpp"
#include "gpucost/text/json.hpp"
#include "report/chart_data.hpp"

namespace gpucost {

namespace {

void write_ts(JsonWriter& w, std::string_view key, TimeNs t) {
  w.key(key);
  if (t == kNoTime) w.null(); else w.value(format_rfc3339(t));
}

void write_feature(JsonWriter& w, const FeatureDef& d, const FeatureValue& v) {
  w.begin_object();
  w.kv("id", d.id).kv("name", d.name);
  w.key("value");
  if (v.value) w.value(*v.value); else w.null();
  w.kv("unit", d.unit).kv("layer", layer_name(d.layer));
  w.key("reason");
  if (v.value) w.null(); else w.value(v.reason);
  if (!v.evidence.empty()) w.kv("evidence", v.evidence);
  w.end_object();
}

void write_file(JsonWriter& w, const FileDiagnostics& f) {
  w.begin_object();
  w.kv("path", f.path).kv("format", format_name(f.format)).kv("score", f.score);
  w.key("runner_up");
  if (f.runner_up == FormatId::unknown) w.null(); else w.value(format_name(f.runner_up));
  w.kv("runner_up_score", f.runner_up_score);
  w.kv("gzip", f.gzip).kv("bytes", f.bytes).kv("lines", f.lines).kv("blank", f.blank);
  w.kv("accepted", f.accepted).kv("continuations", f.continuations).kv("prompts", f.prompts).kv("records", f.records);
  w.kv("rejected", f.rejected());
  w.key("problems").begin_object();
  for (std::size_t i = 0; i < kProblemCount; ++i)
    if (f.problems[i]) w.kv(problem_name(static_cast<Problem>(i)), f.problems[i]);
  w.end_object();
  w.key("samples").begin_array();
  for (const auto& s : f.samples) {
    w.begin_object();
    w.kv("problem", problem_name(s.problem)).kv("file", f.path).kv("line", s.line).kv("offset", s.offset);
    w.kv("excerpt", s.excerpt).kv("reason", s.reason);
    w.end_object();
  }
  w.end_array();
  write_ts(w, "first", f.first_ts);
  write_ts(w, "last", f.last_ts);
  w.key("notes").begin_array();
  for (const auto& n : f.notes) w.value(n);
  w.end_array();
  w.end_object();
}

void write_finding(JsonWriter& w, const findings::Finding& f) {
  w.begin_object();
  w.kv("id", f.id).kv("rule", f.rule).kv("severity", findings::severity_name(f.severity)).kv("title", f.title);
  w.key("money").begin_object();
  w.key("over_span");
  if (f.money.over_span) w.value(*f.money.over_span); else w.null();
  w.key("per_month");
  if (f.money.per_month) w.value(*f.money.per_month); else w.null();
  w.kv("currency", f.money.currency).kv("basis", f.money.basis);
  w.end_object();
  w.kv("next_step", f.next_step);
  w.key("to_confirm");
  if (f.to_confirm.empty()) w.null(); else w.value(f.to_confirm);
  w.key("features").begin_array();
  for (const auto& e : f.features) {
    w.begin_object().kv("id", e.id).kv("name", e.name);
    w.key("value");
    if (e.value) w.value(*e.value); else w.null();
    w.kv("unit", e.unit).end_object();
  }
  w.end_array();
  w.kv("events_total", f.events_total);
  w.key("events").begin_array();
  for (const auto& e : f.events) {
    w.begin_object().kv("kind", e.kind);
    write_ts(w, "ts", e.ts);
    w.kv("file", e.file).kv("line", e.line).kv("text", e.text).end_object();
  }
  w.end_array();
  w.end_object();
}

void write_input_and_window(JsonWriter& w, const ReportModel& m) {
  const RunSection& run = m.run;
  w.key("tool").begin_object().kv("name", "gpucost").kv("version", run.version).end_object();
  w.kv("input", run.input);
  w.key("host").begin_object().kv("name", run.host.name).kv("source", run.host.source).end_object();
  w.key("zone").begin_object().kv("name", run.zone_name).kv("reason", run.zone_reason).end_object();
  w.kv("year_reason", run.year_reason);
  w.key("window").begin_object();
  write_ts(w, "since", run.since);
  write_ts(w, "until", run.until);
  write_ts(w, "first", run.first);
  write_ts(w, "last", run.last);
  w.end_object();
  w.key("thresholds").begin_object();
  w.kv("idle_threshold_pct", run.idle_threshold_pct);
  w.kv("temp_threshold_c", run.temp_threshold_c);
  w.end_object();
}

void write_diagnostics(JsonWriter& w, const InputSection& in) {
  const Diagnostics& dg = *in.diagnostics;
  w.key("diagnostics").begin_object();
  w.kv("files", in.files).kv("usable_files", in.usable_files);
  w.kv("lines", in.lines).kv("rejected", in.rejected);
  w.kv("error_rate", in.error_rate).kv("max_error_rate", in.max_error_rate);
  w.kv("error_rate_exceeded", in.error_rate_exceeded);
  w.key("problems").begin_object();
  for (std::size_t i = 0; i < kProblemCount; ++i)
    if (auto n = dg.total(static_cast<Problem>(i))) w.kv(problem_name(static_cast<Problem>(i)), n);
  w.end_object();
  w.key("notes").begin_array();
  for (const auto& n : dg.notes) w.value(n);
  w.end_array();
  w.end_object();

  w.key("files").begin_array();
  for (const auto& f : dg.files) write_file(w, f);
  w.end_array();
}

void write_timeline_counts(JsonWriter& w, const TimelineSection& t) {
  w.key("timeline").begin_object();
  w.kv("samples", t.samples).kv("events", t.events).kv("event_rows", t.event_rows).kv("processes", t.processes);
  w.key("events_by_kind").begin_object();
  for (const auto& [k, n] : t.events_by_kind) w.kv(k, n);
  w.end_object();
  w.key("boots").begin_array();
  for (const auto& b : t.boots) {
    w.begin_object().kv("boot_id", b.boot_id);
    write_ts(w, "boot_time", b.boot_wall_ns);
    w.kv("anchors", static_cast<std::uint64_t>(b.anchors)).kv("epochs", static_cast<std::uint64_t>(b.epochs));
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

// `mig_devices`: each MIG device of the GPU (docs/fleet.md), its share of the GPU by memory slices.
void write_mig_devices(JsonWriter& w, const GpuDevice& d) {
  auto optional_int = [&](std::string_view key, const std::optional<int>& v) {
    w.key(key);
    if (v) w.value(static_cast<std::int64_t>(*v));
    else w.null();
  };
  w.key("mig_devices").begin_array();
  for (const auto& m : d.mig_devices) {
    w.begin_object().key("profile");
    if (m.profile.empty()) w.null();  // the nvidia-smi table names no profile
    else w.value(m.profile);
    w.kv("device", static_cast<std::int64_t>(m.device));
    optional_int("gpu_instance", m.gpu_instance);
    optional_int("compute_instance", m.compute_instance);
    // The nvidia-smi table names neither profile nor UUID: what is not printed is null.
    w.key("compute_slices");
    if (m.compute_slices > 0) w.value(static_cast<std::int64_t>(m.compute_slices));
    else w.null();
    w.kv("memory_gb", m.memory_gb);
    w.key("uuid");
    if (m.uuid.empty()) w.null();
    else w.value(m.uuid);
    w.key("share");
    if (m.share) w.value(*m.share);
    else w.null();
    w.kv("share_basis", m.profile.empty() ? "the device's memory over the GPU's (eighths of the GPU's memory)"
                                          : "memory slices of the profile (eighths of the GPU's memory)");
    w.end_object();
  }
  w.end_array();
}

// `processes`: a GPU that several processes shared (time-slicing, MPS), each process's estimated
// part of its busy time from pmon's SM shares (docs/fleet.md).
void write_process_shares(JsonWriter& w, const GpuProcessShares& g) {
  w.key("processes").begin_object();
  w.kv("basis", "estimate: the GPU's busy time split by each process's share of the SM % pmon sampled");
  w.kv("processes", static_cast<std::uint64_t>(g.processes)).kv("others_share", g.others_share);
  w.key("top").begin_array();
  for (const auto& p : g.top) {
    w.begin_object().kv("pid", p.pid).kv("command", p.command).kv("sm_share", p.sm_share);
    w.key("busy_s");
    if (p.busy_s) w.value(*p.busy_s);
    else w.null();
    w.kv("intervals", p.intervals).end_object();
  }
  w.end_array().end_object();
}

// Per GPU (its name and bus from the devices the logs describe, and its features), then the host's.
void write_features(JsonWriter& w, const ReportModel& m) {
  auto text_or_null = [&](std::string_view key, std::string_view v) {
    w.key(key);
    if (v.empty()) w.null();
    else w.value(v);
  };
  w.key("gpus").begin_array();
  for (const auto& g : m.gpus) {
    w.begin_object().kv("index", g.index);
    text_or_null("name", g.name);
    text_or_null("pci_bus", g.pci_bus);
    if (g.mig_listing) write_mig_devices(w, *g.mig_listing);
    if (g.shared) write_process_shares(w, *g.shared);
    w.key("features").begin_array();
    for (const auto& f : g.features) write_feature(w, *f.def, *f.value);
    w.end_array();
    w.end_object();
  }
  w.end_array();

  w.key("features").begin_array();
  for (const auto& f : m.features) write_feature(w, *f.def, *f.value);
  w.end_array();
}

void write_stage_timing(JsonWriter& w, const StageTiming& t) {
  w.begin_object().kv("stage", t.stage).kv("seconds", t.seconds).kv("bytes", t.bytes).kv("rows", t.rows);
  w.kv("mb_per_s", stage_mb_per_s(t));
  w.kv("rows_per_s", t.seconds > 0 && t.rows ? t.rows / t.seconds : 0.0);
  if (t.stage == "ingest") w.kv("lines_per_s", t.seconds > 0 && t.rows ? t.rows / t.seconds : 0.0);
  if (t.peak_rss_bytes) w.kv("peak_rss_bytes", t.peak_rss_bytes);
  w.end_object();
}

// The stages' timings, and the report's own: everything written since `started` (the timings are
// the last key).
void write_timings(JsonWriter& w, std::span<const StageTiming> timings, std::chrono::steady_clock::time_point started) {
  const auto all = report_timings(timings, started);
  if (all.empty()) return;
  w.key("timings").begin_array();
  for (const auto& t : all) write_stage_timing(w, t);
  w.end_array();
}

// The report model as JSON.
void write_report(JsonWriter& w, const ReportModel& m) {
  const auto started = std::chrono::steady_clock::now();
  w.begin_object();
  write_input_and_window(w, m);
  write_diagnostics(w, m.inputs);
  write_timeline_counts(w, m.timeline);
  write_features(w, m);
  w.key("findings").begin_array();
  for (const auto& f : m.findings) write_finding(w, f);
  w.end_array();
  if (m.cost) {
    w.key("cost");
    cost::write_cost_json(w, *m.cost);
  }
  // What the charts of the HTML report draw (docs/reports.md).
  if (m.charts) {
    w.key("series");
    write_series_json(w, m.charts->series);
    w.key("marks");
    write_marks_json(w, m.charts->marks);
  }
  write_timings(w, m.timings, started);
  w.end_object();
}

std::string render_json(const ReportModel& m) {
  std::string out;
  JsonWriter w(out);
  write_report(w, m);
  out += '\n';
  return out;
}

std::string render_csv(const ReportModel& m) {
  std::string out;
  CsvWriter c(out);
  c.field("id").field("name").field("value").field("unit").field("layer").field("reason").field("scope").end_row();
  auto row = [&](const FeatureLine& f, std::string_view scope) {
    const FeatureDef& d = *f.def;
    const FeatureValue& v = *f.value;
    c.field(d.id).field(d.name);
    if (v.value) c.number(*v.value);
    else c.field("");
    c.field(d.unit).field(layer_name(d.layer)).field(f.null_reason());
    c.field(scope).end_row();
  };
  for (const auto& f : m.features) row(f, "host");
  if (m.cost) cost::write_cost_csv_rows(c, *m.cost);
  // One row per finding: value = money per month, reason = severity and title.
  for (const auto& f : m.findings) {
    c.field(f.id).field("finding." + f.rule);
    if (f.money.per_month) c.number(*f.money.per_month); else c.field("");
    c.field(f.money.per_month ? f.money.currency + "/month" : std::string()).field("finding");
    c.field(fmt::format("{}: {}", findings::severity_name(f.severity), f.title)).field("host").end_row();
  }
  for (const auto& g : m.gpus) {
    const std::string scope = fmt::format("gpu{}", g.index);
    for (const auto& f : g.features) row(f, scope);
  }
  return out;
}

// The answer first: the verdict, the usage and the findings that cost most, then every finding.
void write_summary_and_findings(const ReportModel& m, std::string& out) {
  auto line = [&]<typename... Args>(fmt::format_string<Args...> f, Args&&... args) {
    fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
    out += '\n';
  };
  auto money = [](const findings::Finding& f) {
    if (f.money.per_month && f.money.over_span)
      return fmt::format("{} a month ({} over the logs)", findings::format_money(f.money.per_month, f.money.currency),
                         findings::format_money(f.money.over_span, f.money.currency));
    if (f.money.per_month) return fmt::format("{} a month", findings::format_money(f.money.per_month, f.money.currency));
    return std::string("not priced");
  };
  line("Answer");
  if (m.cost) cost::write_answer_table(out, *m.cost);
  else line("  No cost section in this run.");
  std::vector<const findings::Finding*> by_cost;
  for (const auto& f : m.findings)
    if (f.rule != "buy_or_rent" && f.money.per_month) by_cost.push_back(&f);
  std::stable_sort(by_cost.begin(), by_cost.end(), [](const auto* a, const auto* b) {
    return *a->money.per_month > *b->money.per_month;
  });
  if (by_cost.size() > 3) by_cost.resize(3);
  if (!by_cost.empty()) line("  Costliest findings:");
  for (const auto* f : by_cost)
    line("    {} {}: {}", f->id, f->title, findings::format_money(f->money.per_month, f->money.currency) + " a month");
  out += '\n';
  line("Findings ({})", m.findings.size());
  for (const auto& f : m.findings) {
    line("  [{}] {} {}: {}", findings::severity_name(f.severity), f.id, f.rule, f.title);
    line("      cost: {}", money(f));
    line("      next: {}", f.next_step);
    std::string ev;
    for (const auto& e : f.features)
      if (e.value) ev += fmt::format("{}{} {}={}", ev.empty() ? "" : ", ", e.id, e.name, format_number(*e.value));
    if (!ev.empty()) line("      evidence: {}", ev);
    for (const auto& e : f.events) line("      at {}:{} ({}): {}", text::printable(e.file), e.line, e.kind, e.text);
    if (f.events_total > f.events.size()) line("      ... {} events in all", f.events_total);
    if (!f.to_confirm.empty()) line("      to confirm: {}", f.to_confirm);
  }
}

// The run's input, time span, timeline, MIG devices and shared GPUs: the table's first lines.
void write_run_lines(const ReportModel& m, std::string& out) {
  auto line = [&]<typename... Args>(fmt::format_string<Args...> f, Args&&... args) {
    fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
    out += '\n';
  };
  const RunSection& run = m.run;
  const InputSection& in = m.inputs;
  // A path with a newline in it must not forge a line of the table: each such text is escaped
  // on its own (text::printable), before the table is escaped line by line.
  line("gpucost {} - {}", run.version, text::printable(run.input));
  line("Input: {} files ({} usable), {} lines, {} rejected ({:.2f} %)", in.files, in.usable_files, in.lines,
       in.rejected, 100.0 * in.error_rate);
  if (run.first != kNoTime)
    line("Time:  {} .. {} ({:.2f} h); zone {} ({})", format_rfc3339(run.first, 0), format_rfc3339(run.last, 0),
         static_cast<double>(run.last - run.first) / kNsPerHour, run.zone_name, run.zone_reason);
  line("Timeline: {} GPU samples, {} events, {} process rows", m.timeline.samples, m.timeline.events,
       m.timeline.processes);
  for (const auto& d : m.devices) {
    if (d.mig_devices.empty()) continue;
    std::string devs;
    for (const auto& md : d.mig_devices)
      devs += fmt::format(
          "{}{} (device {}, share {})", devs.empty() ? "" : ", ",
          md.profile.empty() ? fmt::format("GI {}", md.gpu_instance.value_or(-1)) : text::printable(md.profile),
          md.device, md.share ? format_number(*md.share) : std::string("unknown"));
    line("MIG:   GPU {} {}: {} MIG devices: {}", d.index.value_or(-1), text::printable(d.name), d.mig_devices.size(),
         devs);
  }
  for (const auto& gpu : m.gpus) {
    if (!gpu.shared) continue;
    const GpuProcessShares& g = *gpu.shared;
    std::string procs;
    for (std::size_t i = 0; i < g.top.size() && i < 3; ++i)
      procs += fmt::format("{}{} (pid {}) {:.0f} %{}", i ? ", " : "", text::printable(g.top[i].command), g.top[i].pid,
                           100 * g.top[i].sm_share,
                           g.top[i].busy_s ? fmt::format(", about {:.0f} s busy", *g.top[i].busy_s) : std::string());
    line("Shared: GPU {}: {} processes; SM use (an estimate of each one's part of the busy time): {}{}", g.gpu,
         g.processes, procs, g.processes > 3 ? ", ..." : "");
  }
}

std::string render_table(const ReportModel& m) {
  std::string out;
  auto line = [&]<typename... Args>(fmt::format_string<Args...> f, Args&&... args) {
    fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
    out += '\n';
  };
  write_run_lines(m, out);
  out += '\n';
  write_summary_and_findings(m, out);
  const auto cost_start = out.size();
  if (m.cost) {
    out += '\n';
    cost::write_cost_table(out, *m.cost);
  }
  if (out.size() > cost_start) out += '\n';
  line("{:<5} {:<38} {:>14} {:<8} {}", "id", "feature (host)", "value", "unit", "layer / null reason");
  for (const auto& f : m.features) {
    const auto& d = *f.def;
    const auto& v = *f.value;
    if (v.value)
      line("{:<5} {:<38} {:>14} {:<8} {}", d.id, d.name, format_number(*v.value), d.unit, layer_name(d.layer));
    else
      line("{:<5} {:<38} {:>14} {:<8} {} (null: {})", d.id, d.name, "-", d.unit, layer_name(d.layer), v.reason);
  }
  std::size_t shown = 0;
  for (const auto& f : m.inputs.diagnostics->files)
    for (const auto& s : f.samples) {
      if (shown == 0) line("\nInput problems (first samples; all counts are in the JSON report):");
      if (shown++ >= 10) break;
      line("  {}:{}: {}: {} [{}]", text::printable(f.path), s.line, problem_name(s.problem), text::printable(s.reason),
           s.excerpt);
    }
  return out;
}

}  // namespace

Report make_report(const PipelineResult& result, std::string input, double max_error_rate) {
  Report rep;
  rep.input = std::move(input);
  rep.result = &result;
  rep.findings = result.findings;
  if (const auto& c = result.cost) {
    rep.verdict = c->summary;
    rep.usage = c->inputs.usage.reason;
  }
  rep.max_error_rate = max_error_rate;
  rep.error_rate_exceeded = result.diagnostics.error_rate() > max_error_rate;
  return rep;
}

namespace {

constexpr ReportFormatInfo kReportFormats[] = {
    {ReportFormat::kTable, "table", "for people; the default"},
    {ReportFormat::kCsv, "csv", "the features, for scripts"},
    {ReportFormat::kJson, "json", "everything, for scripts"},
    {ReportFormat::kHtml, "html", "one self-contained page with charts"},
    {ReportFormat::kProm, "prom", "Prometheus textfile for node_exporter"},
    {ReportFormat::kNdjson, "ndjson",
     "one row per GPU and one for the node, for a Slurm epilog and `gpucost fleet`; docs/fleet.md"},
};

}  // namespace

std::span<const ReportFormatInfo> report_formats() { return kReportFormats; }

std::optional<ReportFormat> report_format_named(std::string_view name) {
  for (const auto& f : kReportFormats)
    if (f.name == name) return f.format;
  return std::nullopt;
}

std::string report_formats_help() {
  std::string out;
  for (const auto& f : kReportFormats) out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", f.name, f.use);
  return out;
}

std::string render_report(const Report& report, ReportFormat format, const JobRowIdentity* job) {
  const bool charts = format == ReportFormat::kJson || format == ReportFormat::kHtml;
  const ReportModel model = report_model(report, charts ? ReportCharts::kWith : ReportCharts::kWithout);
  switch (format) {
    case ReportFormat::kNdjson: return render_job_rows(model, job ? *job : JobRowIdentity{});
    case ReportFormat::kJson: return render_json(model);
    case ReportFormat::kCsv: return render_csv(model);
    // File names and log text in it must not drive the terminal that shows it (ESC, BEL).
    case ReportFormat::kTable: return text::printable_lines(render_table(model));
    case ReportFormat::kHtml: return render_html(model);
    case ReportFormat::kProm: return render_prom(model);
  }
  return {};
}

}  // namespace gpucost
