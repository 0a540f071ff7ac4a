// The report model, built once from the pipeline's results (see gpucost/report/model.hpp).
#include "gpucost/report/model.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "gpucost/report/report.hpp"
#include "gpucost/text/number.hpp"
#include "gpucost/text/utf8.hpp"
#include "report/chart_data.hpp"

namespace gpucost {

namespace {

RunSection run_section(const Report& rep) {
  const PipelineResult& r = *rep.result;
  const Timeline& tl = r.timeline;
  RunSection run;
  run.version = GPUCOST_VERSION;
  run.input = rep.input;
  run.host = host_name(tl);
  run.zone_name = tl.zone_name;
  run.zone_reason = tl.zone_reason;
  run.year_reason = tl.year_reason;
  run.since = tl.window_begin;
  run.until = tl.window_end;
  run.first = tl.first_ns;
  run.last = tl.last_ns;
  run.idle_threshold_pct = r.features.options.idle_threshold_pct;
  run.temp_threshold_c = r.features.options.temp_threshold_c;
  return run;
}

InputSection input_section(const Report& rep) {
  const Diagnostics& dg = rep.result->diagnostics;
  return {.diagnostics = &dg,
          .files = dg.files.size(),
          .usable_files = dg.usable_files(),
          .lines = dg.total_lines(),
          .rejected = dg.total_rejected(),
          .error_rate = dg.error_rate(),
          .max_error_rate = rep.max_error_rate,
          .error_rate_exceeded = rep.error_rate_exceeded};
}

TimelineSection timeline_section(const Timeline& tl) {
  TimelineSection t;
  t.samples = tl.samples.rows();
  t.events = event_total(tl.events);
  t.event_rows = tl.events.rows();  // fewer than events: runs of repeats
  t.processes = tl.processes.rows();
  std::map<std::string_view, std::uint64_t> kinds;
  for (std::size_t i = 0; i < tl.events.rows(); ++i)
    kinds[event_kind_name(static_cast<EventKind>(tl.events.column(event_col::kind).get_int(i)))] +=
        event_repeat(tl.events, i);
  t.events_by_kind.assign(kinds.begin(), kinds.end());
  t.boots = tl.boots;
  return t;
}

// The device of GPU `idx` that lists MIG devices (`nvidia-smi -L`), or nullptr.
const GpuDevice* mig_listing(const std::vector<GpuDevice>& devices, int idx) {
  const GpuDevice* found = nullptr;
  for (const auto& d : devices)
    if (d.index && *d.index == idx && !d.mig_devices.empty()) found = &d;
  return found;
}

GpuSection gpu_section(const PipelineResult& r, std::size_t k) {
  const auto catalog = feature_catalog();
  GpuSection g;
  g.index = r.features.gpus[k];
  for (const auto& d : r.timeline.devices)  // the last device listed at that index names it
    if (d.index && *d.index == g.index) {
      g.name = d.name;
      g.pci_bus = d.pci_bus;
    }
  g.mig_listing = mig_listing(r.timeline.devices, g.index);
  for (const auto& shared : r.features.shared_gpus)
    if (shared.gpu == g.index) g.shared = &shared;
  for (std::size_t i = 0; i < catalog.size(); ++i)
    if (catalog[i].scope == FeatureScope::kPerGpu) g.features.push_back({&catalog[i], &r.features.per_gpu[k][i]});
  return g;
}

const FeatureLine* line_of(std::span<const FeatureLine> lines, FeatureId id) {
  const auto name = feature_name(id);
  for (const auto& l : lines)
    if (l.def->name == name) return &l;
  return nullptr;
}

}  // namespace

std::optional<double> stated(std::optional<double> v) {
  if (!v) return std::nullopt;
  const std::string t = format_number(*v);
  if (t == "null") return std::nullopt;
  double d = *v;
  std::from_chars(t.data(), t.data() + t.size(), d);
  return d;
}

std::string stated_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = text::decode_utf8(s, i).length;
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
  return out;
}

const FeatureLine* GpuSection::feature(FeatureId id) const { return line_of(features, id); }

const FeatureLine* ReportModel::host_feature(FeatureId id) const { return line_of(features, id); }

double stage_mb_per_s(const StageTiming& t) { return t.seconds > 0 && t.bytes ? t.bytes / 1e6 / t.seconds : 0.0; }

std::vector<StageTiming> report_timings(std::span<const StageTiming> timings,
                                        std::chrono::steady_clock::time_point started) {
  std::vector<StageTiming> out(timings.begin(), timings.end());
  if (out.empty()) return out;
  if (std::none_of(out.begin(), out.end(), [](const StageTiming& t) { return t.stage == "report"; }))
    out.push_back({"report", std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 0, 0,
                   peak_rss_bytes()});
  return out;
}

ReportModel report_model(const Report& rep, ReportCharts charts) {
  const PipelineResult& r = *rep.result;
  ReportModel m;
  m.run = run_section(rep);
  m.inputs = input_section(rep);
  m.timeline = timeline_section(r.timeline);
  for (std::size_t k = 0; k < r.features.gpus.size(); ++k) m.gpus.push_back(gpu_section(r, k));
  const auto catalog = feature_catalog();
  for (std::size_t i = 0; i < catalog.size() && i < r.features.host.size(); ++i)
    m.features.push_back({&catalog[i], &r.features.host[i]});
  m.findings = rep.findings;
  m.cost = r.cost.get();
  m.devices = r.timeline.devices;
  if (charts == ReportCharts::kWith)
    m.charts = ChartSection{chart_series(r.timeline, rep.max_series_points), chart_marks(r.timeline, rep.max_marks)};
  m.timings = r.timings;
  return m;
}

}  // namespace gpucost
