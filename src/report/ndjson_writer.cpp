// The per-job rows (docs/fleet.md): rendered from the report model, like the Prometheus textfile;
// every figure as the JSON report states it (stated(), stated_text()), so the rows and the JSON
// agree to the digit; the GPUs' UUIDs come from the devices on the timeline.
#include "gpucost/report/ndjson_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "gpucost/records.hpp"
#include "gpucost/text/json.hpp"
#include "gpucost/time.hpp"

namespace gpucost {

namespace {

// A measurement: a value, or null with why.
struct Measure {
  std::optional<double> value;
  std::string reason;
};

Measure known(double v) { return {v, {}}; }
Measure unknown(std::string reason) { return {std::nullopt, std::move(reason)}; }

// A feature's value, or null with the reason the report gives.
Measure measure_of(const FeatureLine& f) {
  if (auto v = f.stated_value()) return known(*v);
  return unknown(stated_text(f.null_reason()));
}

std::string not_in_catalog(FeatureId id) {
  return fmt::format("feature {} is not in this build's feature catalog", feature_name(id));
}

// A feature of one GPU, else the host's value (`host_fallback`), else null with why.
Measure gpu_feature(const GpuSection& gpu, const ReportModel& model, FeatureId id, bool host_fallback) {
  if (const FeatureLine* f = gpu.feature(id)) return measure_of(*f);
  const FeatureLine* host = model.host_feature(id);
  if (host && host_fallback) return measure_of(*host);
  if (host) return unknown("counted per node: see the node row");
  return unknown(not_in_catalog(id));
}

Measure host_feature(const ReportModel& model, FeatureId id) {
  if (const FeatureLine* f = model.host_feature(id)) return measure_of(*f);
  return unknown(not_in_catalog(id));
}

Measure scaled(const Measure& m, double k) { return m.value ? known(*m.value * k) : m; }

Measure product(const Measure& a, const Measure& b) {
  if (a.value && b.value) return known(*a.value * *b.value);
  return unknown(!a.value ? a.reason : b.reason);
}

Measure ratio(const Measure& a, const Measure& b, std::string_view zero_reason) {
  if (!a.value || !b.value) return unknown(!a.value ? a.reason : b.reason);
  if (*b.value <= 0) return unknown(std::string(zero_reason));
  return known(*a.value / *b.value);
}

// The allocated time that no sample covers: not work, not idleness, unknown. Allocated = busy +
// idle + unmeasured (busy and idle split the sampled time, which the window bounds).
Measure unmeasured(const Measure& allocated, const Measure& sampled) {
  if (!allocated.value) return allocated;
  if (!sampled.value) return unknown(sampled.reason);
  return known(std::max(0.0, *allocated.value - *sampled.value));
}

// The sum over the GPU rows; null when no GPU has a value (a partial sum says so in its reason).
Measure sum(const std::vector<Measure>& parts) {
  double total = 0;
  std::size_t n = 0;
  std::string reason = "no GPU rows";
  for (const auto& p : parts) {
    if (p.value) {
      total += *p.value;
      ++n;
    } else {
      reason = p.reason;
    }
  }
  if (n == 0) return unknown(reason);
  return known(total);
}

// What the report's cost section says, per GPU-hour (the cost model prices one GPU).
struct CostView {
  std::string currency, verdict, own, buy, local_preset, cloud_preset, price_seen;
  Measure local_per_wall_hour, local_per_effective_hour, cloud_hourly_rate, cloud_per_effective_hour;
};

// "seen 2026-11-29" / "seen undated (seed article)" in the cloud price's note, when the cost
// section does not carry the date as its own field.
std::string price_seen_from_note(std::string_view note) {
  const auto at = note.rfind("seen ");
  if (at == std::string_view::npos) return {};
  std::string_view rest = note.substr(at + 5);
  const auto end = rest.find(';');
  if (end != std::string_view::npos) rest = rest.substr(0, end);
  return std::string(rest);
}

// A figure of the cost section, or null with why.
Measure cost_figure(std::optional<double> v, std::string_view why) {
  if (auto x = stated(v)) return known(*x);
  return unknown(std::string(why));
}

CostView read_cost(const cost::CostResult* c) {
  CostView v;
  const std::string none = "the report has no cost section";
  v.local_per_wall_hour = v.local_per_effective_hour = v.cloud_hourly_rate = v.cloud_per_effective_hour = unknown(none);
  if (!c) return v;
  const cost::CostInputs& in = c->inputs;
  v.currency = stated_text(in.currency);
  v.local_preset = stated_text(in.local_gpu);
  v.cloud_preset = stated_text(in.cloud_offer);
  v.price_seen = stated_text(in.cloud_price_observed_on);
  if (v.price_seen.empty()) v.price_seen = price_seen_from_note(stated_text(in[cost::InputId::kHourlyRate].note));
  v.verdict = cost::verdict_name(c->break_even.verdict);
  v.own = cost::own_decision_name(c->own.decision);
  v.buy = cost::buy_decision_name(c->buy.decision);
  v.local_per_wall_hour = cost_figure(c->local.cost_per_wall_hour, "not computed");
  v.local_per_effective_hour =
      cost_figure(c->local.cost_per_effective_hour, "infinite or unknown: the GPU does no useful work");
  v.cloud_hourly_rate = cost_figure(in[cost::InputId::kHourlyRate].value, "no hourly rate");
  v.cloud_per_effective_hour = cost_figure(c->cloud.cost_per_effective_hour, "not computed");
  return v;
}

// One row's measurements, in output order.
struct RowValues {
  Measure allocated_gpu_hours, sampled_gpu_hours, busy_gpu_hours, idle_gpu_hours, unmeasured_gpu_hours, energy_kwh,
      busy_fraction,
      effective_utilization, effective_gpu_hours, xid_events, incidents, gpu_lost_s, time_above_temp_s, local_cost,
      idle_cost, cloud_cost;
};

// The costs follow from the hours: holding the GPU for the window, its measured idle part, and
// the same useful work rented.
void fill_costs(RowValues& v, const CostView& c) {
  v.local_cost = product(v.allocated_gpu_hours, c.local_per_wall_hour);
  v.idle_cost = product(v.idle_gpu_hours, c.local_per_wall_hour);
  v.cloud_cost = product(v.effective_gpu_hours, c.cloud_per_effective_hour);
}

struct GpuIdentity {
  std::optional<std::int64_t> index;
  std::string uuid, pci_bus, model;
};

void optional_string(JsonWriter& w, std::string_view key, std::string_view v) {
  w.key(key);
  if (v.empty()) w.null(); else w.value(v);
}

void write_time(JsonWriter& w, std::string_view key, TimeNs t) {
  w.key(key);
  if (t == kNoTime) w.null(); else w.value(format_rfc3339(t));
}

struct RowContext {
  const JobRowIdentity& identity;
  std::string host, version, window_source;
  TimeNs window_start, window_end, first_record, last_record;
  CostView cost;
  std::vector<std::string_view> findings;  ///< rule names of the run's findings (the node's, on every row)
};

void write_row(std::string& out, const RowContext& ctx, std::string_view kind, const GpuIdentity* gpu,
               std::size_t gpu_count, std::string_view node_model, const RowValues& v) {
  JsonWriter w(out, false);
  std::vector<std::pair<std::string_view, std::string>> nulls;
  auto measure = [&](std::string_view key, const Measure& m) {
    w.key(key);
    if (m.value && std::isfinite(*m.value)) {
      w.value(*m.value);
    } else {
      w.null();
      nulls.emplace_back(key, m.reason.empty() ? "unknown" : m.reason);
    }
  };
  w.begin_object();
  w.kv("schema", kJobRowSchemaName).kv("schema_version", kJobRowSchemaVersion).kv("row", kind);
  optional_string(w, "job_id", ctx.identity.job_id);
  optional_string(w, "user", ctx.identity.user);
  optional_string(w, "host", ctx.host);
  w.key("gpu_index");
  if (gpu && gpu->index) w.value(*gpu->index); else w.null();
  optional_string(w, "gpu_uuid", gpu ? std::string_view(gpu->uuid) : std::string_view{});
  optional_string(w, "gpu_pci_bus_id", gpu ? std::string_view(gpu->pci_bus) : std::string_view{});
  optional_string(w, "gpu_model", gpu ? std::string_view(gpu->model) : node_model);
  w.kv("gpu_count", static_cast<std::uint64_t>(gpu_count));
  write_time(w, "window_start", ctx.window_start);
  write_time(w, "window_end", ctx.window_end);
  w.kv("window_source", ctx.window_source);
  write_time(w, "first_record", ctx.first_record);
  write_time(w, "last_record", ctx.last_record);
  measure("allocated_gpu_hours", v.allocated_gpu_hours);
  measure("sampled_gpu_hours", v.sampled_gpu_hours);
  measure("busy_gpu_hours", v.busy_gpu_hours);
  measure("idle_gpu_hours", v.idle_gpu_hours);
  measure("unmeasured_gpu_hours", v.unmeasured_gpu_hours);
  measure("energy_kwh", v.energy_kwh);
  measure("busy_fraction", v.busy_fraction);
  measure("effective_utilization", v.effective_utilization);
  measure("effective_gpu_hours", v.effective_gpu_hours);
  measure("xid_events", v.xid_events);
  measure("incidents", v.incidents);
  measure("gpu_lost_s", v.gpu_lost_s);
  measure("time_above_temp_s", v.time_above_temp_s);
  optional_string(w, "currency", ctx.cost.currency);
  measure("local_cost_per_wall_hour", ctx.cost.local_per_wall_hour);
  measure("local_cost_per_effective_hour", ctx.cost.local_per_effective_hour);
  measure("cloud_hourly_rate", ctx.cost.cloud_hourly_rate);
  measure("cloud_cost_per_effective_hour", ctx.cost.cloud_per_effective_hour);
  measure("local_cost", v.local_cost);
  measure("idle_cost", v.idle_cost);
  measure("cloud_cost", v.cloud_cost);
  optional_string(w, "verdict", ctx.cost.verdict);
  optional_string(w, "verdict_own", ctx.cost.own);
  optional_string(w, "verdict_buy", ctx.cost.buy);
  optional_string(w, "local_preset", ctx.cost.local_preset);
  optional_string(w, "cloud_preset", ctx.cost.cloud_preset);
  optional_string(w, "price_seen", ctx.cost.price_seen);
  w.kv("gpucost_version", ctx.version);
  w.key("findings").begin_array();
  for (auto f : ctx.findings) w.value(f);
  w.end_array();
  if (ctx.cost.price_seen.empty() && !ctx.cost.cloud_preset.empty())
    nulls.emplace_back("price_seen", "the cloud price has no observation date (an undated quote or catalog row)");
  w.key("null_reasons").begin_object();
  for (const auto& [k, r] : nulls) w.kv(k, r);
  w.end_object();
  w.end_object();
  out += '\n';
}

// Does the GPU match one of the selectors (index, UUID or PCI bus id in any of nvidia-smi's forms)?
bool selected(const GpuIdentity& g, const std::vector<std::string>& selectors) {
  if (selectors.empty()) return true;
  for (const auto& s : selectors) {
    if (g.index && s == fmt::format("{}", *g.index)) return true;
    if (!g.uuid.empty() && s == g.uuid) return true;
    if (!g.pci_bus.empty() && normalize_pci_bus(s) == g.pci_bus) return true;
  }
  return false;
}

}  // namespace

namespace {

RowContext row_context(const ReportModel& model, const JobRowIdentity& identity) {
  const RunSection& run = model.run;
  RowContext ctx{.identity = identity,
                 .host = identity.host,
                 .version = stated_text(run.version),
                 .window_source = {},
                 .window_start = kNoTime,
                 .window_end = kNoTime,
                 .first_record = run.first,
                 .last_record = run.last,
                 .cost = read_cost(model.cost),
                 .findings = {}};
  for (const auto& f : model.findings) ctx.findings.push_back(f.rule);
  if (ctx.host.empty() && run.host.source != "unknown") ctx.host = stated_text(run.host.name);
  const bool since = run.since != kNoTime, until = run.until != kNoTime;
  ctx.window_start = since ? run.since : run.first;
  ctx.window_end = until ? run.until : run.last;
  ctx.window_source = since && until ? "since_until" : since || until ? "mixed" : "records";
  return ctx;
}

// The GPU as the report names it, completed from the devices the logs describe (its UUID).
GpuIdentity gpu_identity(const GpuSection& g, std::span<const GpuDevice> devices) {
  GpuIdentity id;
  id.index = g.index;
  id.model = stated_text(g.name);
  id.pci_bus = stated_text(g.pci_bus);
  for (const auto& d : devices) {
    const bool same =
        (id.index && d.index && *d.index == *id.index) || (!id.pci_bus.empty() && d.pci_bus == id.pci_bus);
    if (!same) continue;
    if (id.uuid.empty()) id.uuid = d.uuid;
    if (id.pci_bus.empty()) id.pci_bus = d.pci_bus;
    if (id.model.empty()) id.model = d.name;
  }
  return id;
}

RowValues gpu_values(const GpuSection& g, const ReportModel& model, const Measure& window_hours, const CostView& cost) {
  auto feature = [&](FeatureId id, bool host_fallback = false) { return gpu_feature(g, model, id, host_fallback); };
  RowValues v;
  v.allocated_gpu_hours = window_hours;
  v.sampled_gpu_hours = scaled(feature(FeatureId::gpu_sampled_s), 1.0 / 3600);
  v.busy_gpu_hours = scaled(feature(FeatureId::gpu_busy_s), 1.0 / 3600);
  v.idle_gpu_hours = scaled(feature(FeatureId::gpu_idle_s), 1.0 / 3600);
  v.energy_kwh = feature(FeatureId::gpu_energy_kwh);
  v.busy_fraction = ratio(v.busy_gpu_hours, v.sampled_gpu_hours, "no sampled time");
  v.effective_utilization = feature(FeatureId::effective_utilization, true);
  v.unmeasured_gpu_hours = unmeasured(v.allocated_gpu_hours, v.sampled_gpu_hours);
  v.effective_gpu_hours = feature(FeatureId::effective_gpu_hours);
  v.xid_events = feature(FeatureId::xid_events);
  v.incidents = feature(FeatureId::maintenance_incidents);
  v.gpu_lost_s = feature(FeatureId::gpu_lost_s);
  v.time_above_temp_s = feature(FeatureId::gpu_time_above_temp_s);
  fill_costs(v, cost);
  return v;
}

// The node: the GPU rows summed, and what the logs count per machine (incidents, Xid events).
RowValues node_values(const std::vector<RowValues>& gpu_rows, const ReportModel& model, const CostView& cost) {
  RowValues n;
  auto total = [&](Measure RowValues::*field) {
    std::vector<Measure> parts;
    for (const auto& r : gpu_rows) parts.push_back(r.*field);
    return sum(parts);
  };
  n.allocated_gpu_hours = total(&RowValues::allocated_gpu_hours);
  n.sampled_gpu_hours = total(&RowValues::sampled_gpu_hours);
  n.busy_gpu_hours = total(&RowValues::busy_gpu_hours);
  n.idle_gpu_hours = total(&RowValues::idle_gpu_hours);
  n.energy_kwh = total(&RowValues::energy_kwh);
  n.busy_fraction = ratio(n.busy_gpu_hours, n.sampled_gpu_hours, "no sampled time");
  n.effective_utilization = host_feature(model, FeatureId::effective_utilization);
  n.unmeasured_gpu_hours = total(&RowValues::unmeasured_gpu_hours);
  n.effective_gpu_hours = total(&RowValues::effective_gpu_hours);
  n.xid_events = host_feature(model, FeatureId::xid_events);
  n.incidents = host_feature(model, FeatureId::maintenance_incidents);
  n.gpu_lost_s = gpu_rows.empty() ? host_feature(model, FeatureId::gpu_lost_s) : total(&RowValues::gpu_lost_s);
  if (!n.gpu_lost_s.value)
    if (const FeatureLine* h = model.host_feature(FeatureId::gpu_lost_s)) n.gpu_lost_s = measure_of(*h);
  n.time_above_temp_s = total(&RowValues::time_above_temp_s);
  fill_costs(n, cost);
  return n;
}

}  // namespace

std::string render_job_rows(const ReportModel& model, const JobRowIdentity& identity) {
  const RowContext ctx = row_context(model, identity);
  const Measure window_hours =
      ctx.window_start != kNoTime && ctx.window_end != kNoTime && ctx.window_end > ctx.window_start
          ? known(static_cast<double>(ctx.window_end - ctx.window_start) / static_cast<double>(kNsPerHour))
          : unknown("no window: neither --since/--until nor placed records");
  std::string out;
  std::vector<RowValues> gpu_rows;
  std::string node_model;
  bool mixed_models = false;
  for (const auto& g : model.gpus) {
    const GpuIdentity id = gpu_identity(g, model.devices);
    if (!selected(id, identity.gpus)) continue;
    RowValues v = gpu_values(g, model, window_hours, ctx.cost);
    if (gpu_rows.empty()) node_model = id.model;
    else if (id.model != node_model) mixed_models = true;
    write_row(out, ctx, "gpu", &id, 1, {}, v);
    gpu_rows.push_back(std::move(v));
  }
  const RowValues n = node_values(gpu_rows, model, ctx.cost);
  write_row(out, ctx, "node", nullptr, gpu_rows.size(), mixed_models ? std::string_view{} : node_model, n);
  return out;
}

}  // namespace gpucost
