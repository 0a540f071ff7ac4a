#include "gpucost/sim/truth.hpp"

#include <algorithm>
#include <map>

#include "gpucost/features/xid_catalog.hpp"
#include "gpucost/text/json.hpp"
#include "sim/emit.hpp"

namespace gpucost::sim {

namespace {

bool is(const TruthEvent& e, EventKind k) { return e.kind == k; }

std::string_view xid_class(int code) {
  const XidInfo* x = xid_info(code);
  return x ? std::string_view(x->xid_class) : std::string_view("other");
}

void instant(JsonWriter& j, std::string_view key, TimeNs t) {
  j.key(std::string(key) + "_ns");
  if (t == kNoTime) j.null(); else j.value(static_cast<std::int64_t>(t));
  j.key(key);
  if (t == kNoTime) j.null(); else j.value(format_rfc3339(t, 9));
}

std::vector<std::string_view> sources(const World& w, const TruthEvent& e) {
  std::vector<std::string_view> s;
  if (e.dest & kToDmesg) s.push_back("dmesg.txt");
  if (e.dest & kToKernLog) s.push_back(e.boot == 0 ? "kern.log" : e.boot == 1 ? "kern.log.1" : "kern.log.2.gz");
  if ((e.dest & kToSyslog) && w.has_syslog) s.push_back("syslog");
  if (e.dest & kToJournal) s.push_back("journal.json");
  return s;
}

}  // namespace

int count_ac_switches(const std::vector<TruthEvent>& events) { return count_ac_switches_in(events, kNoTime, kNoTime); }

int count_ac_switches_in(const std::vector<TruthEvent>& events, TimeNs from, TimeNs to) {
  auto inside = [&](TimeNs t) { return (from == kNoTime || t >= from) && (to == kNoTime || t < to); };
  int switches = 0;
  int state = -1;       // unknown
  int last_state = -1;  // state of the previous AC event
  TimeNs last_ac = kNoTime, last_boot = kNoTime;
  for (const auto& e : events) {
    if (is(e, EventKind::boot)) {
      last_boot = e.ts;
      continue;
    }
    if (!is(e, EventKind::ac_online) && !is(e, EventKind::ac_offline)) continue;
    const int s = is(e, EventKind::ac_online) ? 1 : 0;
    const bool same_report = last_ac != kNoTime && s == last_state && e.ts - last_ac <= 10 * kNsPerSec;
    last_ac = e.ts;
    last_state = s;
    if (same_report) continue;
    const bool initial = (last_boot != kNoTime && e.ts >= last_boot && e.ts - last_boot <= 60 * kNsPerSec) ||
                         e.mono < 60 * kNsPerSec;
    if (initial) {
      state = s;
      continue;
    }
    if (state != s && inside(e.ts)) ++switches;
    state = s;
  }
  return switches;
}

int count_lid_closes(const std::vector<TruthEvent>& events) {
  int n = 0;
  TimeNs last = kNoTime;
  for (const auto& e : events) {
    if (!is(e, EventKind::lid_close)) continue;
    if (last == kNoTime || e.ts - last > 10 * kNsPerSec) ++n;
    last = e.ts;
  }
  return n;
}

std::vector<SuspendSpan> suspend_cycles(const std::vector<TruthEvent>& events) {
  std::vector<SuspendSpan> out;
  enum { kNone, kOpen, kClosing } state = kNone;
  TimeNs first_suspend = kNoTime, first_resume = kNoTime;
  for (const auto& e : events) {
    if (is(e, EventKind::suspend)) {
      if (state == kOpen && e.ts - first_suspend <= 60 * kNsPerSec) continue;  // same cycle
      out.push_back({e.ts, kNoTime});
      first_suspend = e.ts;
      state = kOpen;
    } else if (is(e, EventKind::resume)) {
      if (state == kOpen) {
        out.back().end = e.ts;
        first_resume = e.ts;
        state = kClosing;
      } else if (state == kClosing && e.ts - first_resume <= 60 * kNsPerSec) {
        out.back().end = std::max(out.back().end, e.ts);
      } else {
        state = kNone;  // a resume without a suspend before it: ignored
      }
    }
  }
  return out;
}

Truth::Truth(const World& w) : w_(w), gpus_(w.gpus.size()) {}

void Truth::add_sample(int gpu, TimeNs t, int sm, int power_w, int gtemp, bool stalled) {
  GpuTotals& g = gpus_[static_cast<std::size_t>(gpu)];
  ++g.rows;
  g.sm_sum += sm;
  g.power_sum += power_w;
  if (sm <= kIdleThresholdPct) ++g.idle_rows;
  if (sm <= kIdleThresholdPct && stalled) ++g.stall_rows;
  if (gtemp > kTempThresholdC) ++g.hot_rows;
  g.temp_max = std::max(g.temp_max, gtemp);
  if (g.first_row == kNoTime) g.first_row = t;
  g.last_row = t;
}

void Truth::add_record(const LogRecord& r) {
  if (r.kind < 0) return;
  TruthEvent e;
  e.kind = static_cast<EventKind>(r.kind);
  e.code = r.code;
  e.gpu = r.gpu;
  e.ts = r.ts;
  e.mono = r.daemon ? w_.mono_at(r.ts, r.boot) : r.mono;
  e.boot = r.boot;
  e.initial = r.initial;
  e.dest = r.dest;
  e.ident = r.daemon ? r.daemon->ident : "kernel";
  e.message = r.message;
  events_.push_back(std::move(e));
}

void Truth::add_file(std::string name, std::uint64_t bytes) { files_.emplace_back(std::move(name), bytes); }

std::vector<TruthEvent> Truth::events() const {
  std::vector<TruthEvent> ev = events_;
  std::stable_sort(ev.begin(), ev.end(), [](const TruthEvent& a, const TruthEvent& b) { return a.ts < b.ts; });
  return ev;
}

std::string Truth::json() const {
  const auto ev = events();
  const bool samples = w_.has_dmon;
  std::string out;
  JsonWriter j(out, true);
  j.begin_object();
  j.kv("generator", std::string("gpucost simulate ") + GPUCOST_VERSION);
  j.kv("scenario", scenario_name(w_.kind));
  j.kv("seed", static_cast<std::uint64_t>(w_.options.seed));
  j.kv("hours", static_cast<double>(w_.span_end - w_.boots.front().wall) / static_cast<double>(kNsPerHour));
  j.kv("hostname", w_.hostname);
  j.kv("zone", w_.zone_name);
  j.kv("utc_offset", format_utc_offset(w_.offset_at(w_.boots.front().wall)));
  j.kv("idle_threshold_pct", kIdleThresholdPct);
  j.kv("temp_threshold_c", kTempThresholdC);

  j.key("boot").begin_object();
  j.kv("boot_id", w_.boots.front().id);
  instant(j, "boot_wall", w_.boots.front().wall);
  instant(j, "span_end", w_.span_end);
  instant(j, "collect_begin", w_.collect_begin);
  j.end_object();
  j.key("previous_boots").begin_array();
  for (std::size_t b = 1; b < w_.boots.size(); ++b) {
    j.begin_object();
    j.kv("file", b == 1 ? "kern.log.1" : "kern.log.2.gz");
    instant(j, "boot_wall", w_.boots[b].wall);
    instant(j, "end", w_.boots[b].end);
    j.end_object();
  }
  j.end_array();

  j.key("gpus").begin_array();
  for (const auto& g : w_.gpus) {
    j.begin_object();
    j.kv("index", g.index).kv("name", g.name).kv("pci", g.pci).kv("bus_id", g.bus_id).kv("uuid", g.uuid);
    // As nvidia-smi -q shows them (taken at the start of the collection, GPU idle).
    j.kv("driver_version", w_.driver_version);
    j.kv("pcie_gen_max", g.pcie_gen_max).kv("pcie_gen_current", g.brand == "GeForce" ? 1 : g.pcie_gen_max);
    // Under load: the laptop's x8 slot trains at 8 GT/s (gen 3; the kernel's "limited by" line).
    j.kv("pcie_gen_under_load", g.brand == "GeForce" ? 3 : g.pcie_gen_max);
    j.kv("pcie_width_max", g.pcie_width_max).kv("pcie_width_current", g.pcie_width_cur);
    j.kv("power_limit_w", g.power_limit_w).kv("memory_total_mib", g.mem_total_mib);
    instant(j, "dmon_end", samples && w_.dmon_end[static_cast<std::size_t>(g.index)] < w_.span_end
                               ? w_.dmon_end[static_cast<std::size_t>(g.index)] : kNoTime);
    j.end_object();
  }
  j.end_array();

  const auto cycles = suspend_cycles(ev);
  j.key("suspends").begin_array();
  for (std::size_t i = 0; i < w_.suspends.size(); ++i) {
    const auto& s = w_.suspends[i];
    j.begin_object();
    if (i < cycles.size()) {
      instant(j, "begin", cycles[i].begin);
      instant(j, "end", cycles[i].end);
      j.kv("duration_s", static_cast<double>(cycles[i].end - cycles[i].begin) / 1e9);
    }
    instant(j, "lid_close", s.lid_close);
    instant(j, "kernel_sleep_begin", s.sleep_begin);
    instant(j, "kernel_sleep_end", s.sleep_end);
    j.kv("kernel_sleep_s", static_cast<double>(s.duration()) / 1e9);
    instant(j, "user_space_frozen", s.freeze);
    instant(j, "user_space_thawed", s.thaw);
    if (samples) {
      instant(j, "dmon_last_row_before", ceil_second(s.freeze) - kNsPerSec);
      instant(j, "dmon_first_row_after", ceil_second(s.thaw));
    }
    j.end_object();
  }
  j.end_array();

  j.key("events").begin_array();
  for (const auto& e : ev) {
    j.begin_object();
    j.kv("kind", event_kind_name(e.kind));
    if (e.code >= 0) j.kv("code", e.code); else j.key("code").null();
    if (e.gpu >= 0) j.kv("gpu", e.gpu); else j.key("gpu").null();
    if (e.gpu >= 0) j.kv("pci", w_.gpus[static_cast<std::size_t>(e.gpu)].pci);
    instant(j, "ts", e.ts);
    j.kv("mono_ns", static_cast<std::int64_t>(e.mono));
    j.kv("boot", e.boot);
    if (e.initial) j.kv("initial", true);
    j.kv("ident", e.ident);
    j.key("sources").begin_array();
    for (auto s : sources(w_, e)) j.value(s);
    j.end_array();
    j.kv("message", e.message);
    j.end_object();
  }
  j.end_array();

  // Contract features.
  auto count = [&](EventKind k) {
    return static_cast<std::int64_t>(std::count_if(ev.begin(), ev.end(), [&](const TruthEvent& e) { return e.kind == k; }));
  };
  std::int64_t rows = 0, idle = 0, hot = 0;
  double sm = 0, power = 0;
  int tmax = INT_MIN;
  for (const auto& g : gpus_) {
    rows += g.rows;
    idle += g.idle_rows;
    hot += g.hot_rows;
    sm += g.sm_sum;
    power += g.power_sum;
    tmax = std::max(tmax, g.temp_max);
  }
  const bool has_rows = samples && rows > 0;
  double suspended_s = 0;
  for (const auto& c : cycles)
    if (c.begin != kNoTime && c.end != kNoTime) suspended_s += static_cast<double>(c.end - c.begin) / 1e9;
  const int ac = count_ac_switches(ev);
  auto gpu_features = [&](std::int64_t r, std::int64_t secs, double sms, std::int64_t idl, double pw, int tm, std::int64_t ht) {
    if (r > 0) {
      j.kv("gpu_samples", r);
      j.kv("gpu_sampled_s", static_cast<double>(secs));
      j.kv("gpu_util_mean_pct", sms / static_cast<double>(r));
      j.kv("gpu_idle_fraction", static_cast<double>(idl) / static_cast<double>(r));
      j.kv("gpu_power_mean_w", pw / static_cast<double>(r));
      j.kv("gpu_energy_kwh", pw / 3.6e6);
      j.kv("gpu_temp_max_c", tm);
      j.kv("gpu_time_above_temp_s", static_cast<double>(ht));
    } else {
      for (const char* k : {"gpu_samples", "gpu_sampled_s", "gpu_util_mean_pct", "gpu_idle_fraction", "gpu_power_mean_w",
                            "gpu_energy_kwh", "gpu_temp_max_c", "gpu_time_above_temp_s"})
        j.key(k).null();
    }
  };
  j.key("features").begin_object();
  j.key("host").begin_object();
  gpu_features(has_rows ? rows : 0, host_seconds_, sm, idle, power, tmax, hot);
  j.kv("xid_events", count(EventKind::xid));
  j.kv("ac_switches", ac);
  // Per sampled hour, the switches inside the sampled span [first row, last row + 1 s).
  TimeNs span_a = kNoTime, span_b = kNoTime;
  for (const auto& g : gpus_)
    if (g.first_row != kNoTime) {
      span_a = span_a == kNoTime ? g.first_row : std::min(span_a, g.first_row);
      span_b = std::max(span_b, g.last_row + kNsPerSec);
    }
  if (has_rows)
    j.kv("ac_switches_per_hour", count_ac_switches_in(ev, span_a, span_b) / (static_cast<double>(host_seconds_) / 3600.0));
  else j.key("ac_switches_per_hour").null();
  j.kv("lid_closes", count_lid_closes(ev));
  j.kv("suspends", static_cast<std::int64_t>(cycles.size()));
  j.kv("suspended_s", suspended_s);
  j.end_object();
  j.key("per_gpu").begin_array();
  for (std::size_t i = 0; i < gpus_.size(); ++i) {
    const auto& g = gpus_[i];
    j.begin_object();
    j.kv("gpu", static_cast<int>(i));
    gpu_features(samples ? g.rows : 0, g.rows, g.sm_sum, g.idle_rows, g.power_sum, g.temp_max, g.hot_rows);
    j.end_object();
  }
  j.end_array();
  j.end_object();

  // What else the generator knows.
  j.key("extra").begin_object();
  // The end of the host's sampled span: the last row of any GPU, plus its 1 s.
  TimeNs rows_end = kNoTime;
  for (const auto& g : gpus_)
    if (g.last_row != kNoTime) rows_end = std::max(rows_end, g.last_row + kNsPerSec);
  j.key("per_gpu_sums").begin_array();
  for (std::size_t i = 0; i < gpus_.size(); ++i) {
    const auto& g = gpus_[i];
    j.begin_object();
    j.kv("gpu", static_cast<int>(i)).kv("rows", g.rows).kv("sm_sum", g.sm_sum).kv("idle_rows", g.idle_rows);
    // A GPU that fell off the bus: its rows stop at dmon_end while the others go on. It is lost
    // from then to the end of the sampled span; its effective utilization is its busy seconds
    // over the span it should have been sampled (issue 14). Suspends would add their own loss:
    // the figure is written only for runs without them.
    const TimeNs dmon_end = w_.dmon_end.empty() ? kNoTime : w_.dmon_end[i];
    const double lost_s = samples && rows_end != kNoTime && dmon_end < rows_end
                              ? static_cast<double>(rows_end - dmon_end) / 1e9 : 0.0;
    if (samples) j.kv("lost_s", lost_s);
    else j.key("lost_s").null();
    if (samples && w_.suspends.empty() && g.rows > 0)
      j.kv("effective_utilization", static_cast<double>(g.rows - g.idle_rows) / (static_cast<double>(g.rows) + lost_s));
    else
      j.key("effective_utilization").null();
    j.kv("power_sum_w", g.power_sum).kv("hot_rows", g.hot_rows);
    if (samples) j.kv("gpu_idle_s", static_cast<double>(g.idle_rows));
    else j.key("gpu_idle_s").null();
    // The job's own stalls: idle rows while its process held the GPU (cloud.job_stall_fraction
    // is stall / (busy + stall), busy = rows - idle_rows).
    if (samples) j.kv("job_stall_s", static_cast<double>(g.stall_rows));
    else j.key("job_stall_s").null();
    instant(j, "first_row", g.first_row);
    instant(j, "last_row", g.last_row);
    j.end_object();
  }
  j.end_array();
  // Without dmon rows these are unknown (null), as the features are, not 0.
  if (has_rows) j.kv("gpu_idle_s", static_cast<double>(idle)).kv("gpu_hot_s", static_cast<double>(hot));
  else j.key("gpu_idle_s").null().key("gpu_hot_s").null();
  std::map<int, int> by_code;
  std::map<std::string_view, int> by_class;
  for (const auto& e : ev)
    if (e.kind == EventKind::xid) {
      ++by_code[e.code];
      ++by_class[xid_class(e.code)];
    }
  j.key("xid_events_by_code").begin_object();
  for (const auto& [c, n] : by_code) j.kv(std::to_string(c), n);
  j.end_object();
  j.key("xid_events_by_class").begin_object();
  for (const auto& [c, n] : by_class) j.kv(c, n);
  j.end_object();
  j.kv("fallen_off_bus_events", count(EventKind::fallen_off_bus));
  j.kv("ac_reports", count(EventKind::ac_online) + count(EventKind::ac_offline));
  j.kv("lid_close_events", count(EventKind::lid_close));
  j.kv("thermal_events", count(EventKind::thermal));
  j.kv("driver_error_events", count(EventKind::driver_error));
  // Of them, the known-benign nvidia-modeset spam (benign_driver_messages, never an error).
  j.kv("benign_driver_messages",
       static_cast<std::int64_t>(std::count_if(ev.begin(), ev.end(), [](const TruthEvent& e) {
         return e.kind == EventKind::driver_error &&
                e.message.find("Failed to query display engine channel state") != std::string::npos;
       })));
  j.kv("pcie_aer_events", count(EventKind::pcie_aer));
  j.kv("cron_lines", cron_lines_);
  j.key("battery").begin_array();
  for (const auto& [b, e] : w_.battery) {
    j.begin_object();
    instant(j, "begin", b);
    instant(j, "end", e);
    j.end_object();
  }
  j.end_array();
  j.key("hot_phases").begin_array();
  for (std::size_t g = 0; g < w_.segments.size(); ++g)
    for (const auto& seg : w_.segments[g])
      if (seg.mode == GpuMode::kHot) {
        j.begin_object();
        j.kv("gpu", static_cast<int>(g));
        instant(j, "begin", seg.begin);
        instant(j, "end", seg.end);
        j.end_object();
      }
  j.end_array();
  j.key("containers").begin_array();
  double latency_sum = 0;
  for (const auto& c : w_.containers) {
    j.begin_object();
    j.kv("id", c.id).kv("name", c.name);
    instant(j, "create", c.create);
    instant(j, "start_api", c.start_api);
    instant(j, "running", c.running);
    instant(j, "exit", c.exit);
    j.kv("create_to_start_api_s", static_cast<double>(c.start_api - c.create) / 1e9);
    j.kv("container_start_latency_s", static_cast<double>(c.running - c.create) / 1e9);
    latency_sum += static_cast<double>(c.running - c.create) / 1e9;
    j.end_object();
  }
  j.end_array();
  j.kv("container_starts", static_cast<std::int64_t>(w_.containers.size()));
  j.kv("container_start_latency_mean_s", w_.containers.empty() ? 0.0 : latency_sum / static_cast<double>(w_.containers.size()));
  j.end_object();
  j.key("files").begin_object();
  for (const auto& [name, bytes] : files_) j.kv(name, static_cast<std::uint64_t>(bytes));
  j.end_object();
  j.end_object();
  out += '\n';
  return out;
}

}  // namespace gpucost::sim
