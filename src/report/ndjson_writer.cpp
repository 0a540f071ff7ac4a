// The per-job rows (docs/fleet.md): rendered from the report document, like the Prometheus textfile,
// so a feature is found by its catalog name and the cost through the report's `cost` section;
// what the JSON does not carry (times as nanoseconds, GPU UUIDs) comes from the timeline.
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

namespace rd = reportdoc;

// A measurement: a value, or null with why.
struct Measure {
  std::optional<double> value;
  std::string reason;
};

Measure known(double v) { return {v, {}}; }
Measure unknown(std::string reason) { return {std::nullopt, std::move(reason)}; }

// The feature `name` in an array of features: its value or its null reason; absent when the
// array has no such feature (this build's catalog lacks it, or it is not of this scope).
std::optional<Measure> find_feature(std::optional<rd::Element> features, std::string_view name) {
  std::optional<Measure> found;
  rd::each(features, [&](rd::Element f) {
    if (found || rd::string(f, "name") != name) return;
    if (auto v = rd::number(f, "value")) found = known(*v);
    else found = unknown(std::string(rd::string(f, "reason")));
  });
  return found;
}

std::string not_in_catalog(std::string_view name) {
  return fmt::format("feature {} is not in this build's feature catalog", name);
}

// A feature of one GPU, else the host's value (`host_fallback`), else null with why.
Measure gpu_feature(std::optional<rd::Element> gpu_features, std::optional<rd::Element> host_features,
                    std::string_view name, bool host_fallback) {
  if (auto m = find_feature(gpu_features, name)) return *m;
  if (host_fallback)
    if (auto m = find_feature(host_features, name)) return *m;
  if (!host_fallback && find_feature(host_features, name)) return unknown("counted per node: see the node row");
  return unknown(not_in_catalog(name));
}

Measure host_feature(std::optional<rd::Element> host_features, std::string_view name) {
  if (auto m = find_feature(host_features, name)) return *m;
  return unknown(not_in_catalog(name));
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

CostView read_cost(rd::Element root) {
  CostView c;
  const std::string none = "the report has no cost section";
  c.local_per_wall_hour = c.local_per_effective_hour = c.cloud_hourly_rate = c.cloud_per_effective_hour =
      unknown(none);
  const auto cost = rd::child(root, "cost");
  if (!cost) return c;
  c.currency = rd::string(*cost, "currency");
  c.local_preset = rd::string(rd::path(*cost, "local_gpu", "preset"));
  c.cloud_preset = rd::string(rd::path(*cost, "cloud_offer", "preset"));
  c.price_seen = rd::string(rd::path(*cost, "cloud", "price_observed_on"));
  if (c.price_seen.empty()) c.price_seen = rd::string(rd::path(*cost, "cloud_offer", "seen"));
  if (c.price_seen.empty()) c.price_seen = rd::string(rd::path(*cost, "inputs", "cloud", "hourly_rate", "seen"));
  if (c.price_seen.empty())
    c.price_seen = price_seen_from_note(rd::string(rd::path(*cost, "inputs", "cloud", "hourly_rate", "note")));
  c.verdict = rd::string(rd::path(*cost, "break_even", "verdict"));
  c.own = rd::string(rd::path(*cost, "verdict", "own", "decision"));
  c.buy = rd::string(rd::path(*cost, "verdict", "buy", "decision"));
  auto field = [](std::optional<rd::Element> side, std::string_view key, std::string_view why) {
    if (auto v = side ? rd::number(*side, key) : std::nullopt) return known(*v);
    return unknown(std::string(why));
  };
  const auto local = rd::child(*cost, "local");
  const auto cloud = rd::child(*cost, "cloud");
  const std::string no_work = "infinite or unknown: the GPU does no useful work";
  c.local_per_wall_hour = field(local, "cost_per_wall_hour", "not computed");
  c.local_per_effective_hour = field(local, "cost_per_effective_hour", no_work);
  c.cloud_hourly_rate = field(cloud, "hourly_rate", "no hourly rate");
  c.cloud_per_effective_hour = field(cloud, "cost_per_effective_hour", "not computed");
  return c;
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

std::string render_job_rows(const Report& rep, const JobRowIdentity& identity) {
  const rd::Document doc = report_document(rep);
  const rd::Element root = doc.root();
  const Timeline& tl = rep.result->timeline;

  RowContext ctx{.identity = identity,
                 .host = identity.host,
                 .version = std::string(rd::string(rd::path(root, "tool", "version"))),
                 .window_source = {},
                 .window_start = kNoTime,
                 .window_end = kNoTime,
                 .first_record = kNoTime,
                 .last_record = kNoTime,
                 .cost = read_cost(root),
                 .findings = {}};
  for (const auto& f : rep.findings) ctx.findings.push_back(f.rule);
  if (ctx.host.empty() && rd::string(rd::path(root, "host", "source")) != "unknown")
    ctx.host = rd::string(rd::path(root, "host", "name"));
  const bool since = tl.window_begin != kNoTime, until = tl.window_end != kNoTime;
  ctx.window_start = since ? tl.window_begin : tl.first_ns;
  ctx.window_end = until ? tl.window_end : tl.last_ns;
  ctx.window_source = since && until ? "since_until" : since || until ? "mixed" : "records";
  ctx.first_record = tl.first_ns;
  ctx.last_record = tl.last_ns;
  const Measure window_hours =
      ctx.window_start != kNoTime && ctx.window_end != kNoTime && ctx.window_end > ctx.window_start
          ? known(static_cast<double>(ctx.window_end - ctx.window_start) / static_cast<double>(kNsPerHour))
          : unknown("no window: neither --since/--until nor placed records");

  const auto host_features = rd::child(root, "features");
  const Measure node_eff = host_feature(host_features, "effective_utilization");

  std::string out;
  std::vector<RowValues> gpu_rows;
  std::string node_model;
  bool mixed_models = false;
  rd::each(rd::child(root, "gpus"), [&](rd::Element g) {
    GpuIdentity id;
    id.index = rd::integer(g, "index");
    id.model = rd::string(g, "name");
    id.pci_bus = rd::string(g, "pci_bus");
    for (const auto& d : tl.devices) {
      const bool same = (id.index && d.index && *d.index == *id.index) || (!id.pci_bus.empty() && d.pci_bus == id.pci_bus);
      if (!same) continue;
      if (id.uuid.empty()) id.uuid = d.uuid;
      if (id.pci_bus.empty()) id.pci_bus = d.pci_bus;
      if (id.model.empty()) id.model = d.name;
    }
    if (!selected(id, identity.gpus)) return;
    const auto f = rd::child(g, "features");
    RowValues v;
    v.allocated_gpu_hours = window_hours;
    v.sampled_gpu_hours = scaled(gpu_feature(f, host_features, "gpu_sampled_s", false), 1.0 / 3600);
    v.busy_gpu_hours = scaled(gpu_feature(f, host_features, "gpu_busy_s", false), 1.0 / 3600);
    v.idle_gpu_hours = scaled(gpu_feature(f, host_features, "gpu_idle_s", false), 1.0 / 3600);
    v.energy_kwh = gpu_feature(f, host_features, "gpu_energy_kwh", false);
    v.busy_fraction = ratio(v.busy_gpu_hours, v.sampled_gpu_hours, "no sampled time");
    v.effective_utilization = gpu_feature(f, host_features, "effective_utilization", true);
    v.unmeasured_gpu_hours = unmeasured(v.allocated_gpu_hours, v.sampled_gpu_hours);
    v.effective_gpu_hours = gpu_feature(f, host_features, "effective_gpu_hours", false);
    v.xid_events = gpu_feature(f, host_features, "xid_events", false);
    v.incidents = gpu_feature(f, host_features, "maintenance_incidents", false);
    v.gpu_lost_s = gpu_feature(f, host_features, "gpu_lost_s", false);
    v.time_above_temp_s = gpu_feature(f, host_features, "gpu_time_above_temp_s", false);
    fill_costs(v, ctx.cost);
    if (gpu_rows.empty()) node_model = id.model;
    else if (id.model != node_model) mixed_models = true;
    write_row(out, ctx, "gpu", &id, 1, {}, v);
    gpu_rows.push_back(std::move(v));
  });

  // The node: the GPU rows summed, and what the logs count per machine (incidents, Xid events).
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
  n.effective_utilization = node_eff;
  n.unmeasured_gpu_hours = total(&RowValues::unmeasured_gpu_hours);
  n.effective_gpu_hours = total(&RowValues::effective_gpu_hours);
  n.xid_events = host_feature(host_features, "xid_events");
  n.incidents = host_feature(host_features, "maintenance_incidents");
  n.gpu_lost_s = gpu_rows.empty() ? host_feature(host_features, "gpu_lost_s") : total(&RowValues::gpu_lost_s);
  if (!n.gpu_lost_s.value)
    if (auto h = find_feature(host_features, "gpu_lost_s")) n.gpu_lost_s = *h;
  n.time_above_temp_s = total(&RowValues::time_above_temp_s);
  fill_costs(n, ctx.cost);
  write_row(out, ctx, "node", nullptr, gpu_rows.size(), mixed_models ? std::string_view{} : node_model, n);
  return out;
}

}  // namespace gpucost
