#include "gpucost/cost/from_logs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "gpucost/cost/model.hpp"
#include "gpucost/features/feature_ids.hpp"
#include "gpucost/table/column.hpp"
#include "gpucost/text/number.hpp"

namespace gpucost::cost {

std::vector<std::string> named_gpus(const Timeline& tl) {
  std::vector<std::string> gpus;
  auto add = [&](const std::string& name) {
    if (!name.empty() && std::find(gpus.begin(), gpus.end(), name) == gpus.end()) gpus.push_back(name);
  };
  for (const auto& dev : tl.devices) add(dev.name);
  if (tl.manifest)
    for (const auto& n : tl.manifest->gpu_names) add(n);
  return gpus;
}

std::optional<MigSlice> mig_slice(const Timeline& tl) {
  // A device is its GPU and MIG device index, which every listing prints (`nvidia-smi -L`'s
  // `Device  0:`, the table's `MIG Dev`, -q's sections): the same device listed by -L and by the
  // table is one. Without both, its UUID, else its GPU, GPU instance and compute instance.
  auto key = [](const GpuDevice& dev, const MigDevice& m) {
    if (dev.index && m.device >= 0) return fmt::format("{}/dev{}", *dev.index, m.device);
    if (!m.uuid.empty()) return m.uuid;
    return fmt::format("{}/{}/{}/{}", dev.index.value_or(-1), m.gpu_instance.value_or(-1),
                       m.compute_instance.value_or(-1), m.device);
  };
  const GpuDevice* gpu = nullptr;
  const MigDevice* only = nullptr;
  std::set<std::string> seen;
  for (const auto& dev : tl.devices)
    for (const auto& m : dev.mig_devices)
      if (seen.insert(key(dev, m)).second) {
        only = &m;
        gpu = &dev;
      }
  if (seen.size() != 1 || !only->share) return std::nullopt;
  return MigSlice{
      *only->share,
      fmt::format(
          "the MIG device {} ({}) of the {} is the only one listed: priced as {} of the GPU "
          "({})",
          only->profile.empty() ? "GPU instance " + std::to_string(only->gpu_instance.value_or(-1)) : only->profile,
          only->uuid.empty() ? "no UUID printed" : only->uuid,
          gpu->name.empty() ? "GPU " + std::to_string(gpu->index.value_or(-1)) : gpu->name, format_number(*only->share),
          only->profile.empty() ? "its memory over the GPU's" : "memory slices of the profile")};
}

std::vector<std::pair<std::string, double>> power_limits(const Timeline& tl) {
  std::vector<std::pair<std::string, double>> limits;
  for (const auto& dev : tl.devices)
    if (!dev.name.empty() && dev.power_limit_w) limits.emplace_back(dev.name, *dev.power_limit_w);
  return limits;
}

std::vector<MeasuredInput> measured_from_features(const FeatureSet& fs, bool take) {
  if (!take) {
    std::vector<MeasuredInput> out;
    for (auto id : {InputId::kPowerW, InputId::kEffectiveUtilization, InputId::kIncidentsPerHour,
                    InputId::kJobStallFraction})
      out.push_back({id, std::nullopt, {}, "not taken from the logs (--no-measured)", {}, {}});
    return out;
  }
  return measured_inputs([&fs](FeatureId id) -> std::optional<FeatureReading> {
    const FeatureValue* v = fs.find(id);
    if (!v) return std::nullopt;
    return FeatureReading{std::string(feature_code(id)), v->value, v->reason};
  });
}

namespace {

// First sample to the end of the last, per GPU index (samples are sorted by time).
std::map<int, std::pair<TimeNs, TimeNs>> sample_spans(const Timeline& tl) {
  std::map<int, std::pair<TimeNs, TimeNs>> spans;
  const Table& s = tl.samples;
  const ColumnReader ts(s.ts()), gpu(s.column(sample_col::gpu)), interval(s.column(sample_col::interval_ns));
  for (std::size_t r = 0; r < s.rows(); ++r) {
    if (!ts.is_valid(r) || !gpu.is_valid(r)) continue;
    const TimeNs t = ts.get_int(r);
    const TimeNs end = t + (interval.is_valid(r) ? interval.get_int(r) : 0);
    auto [it, fresh] = spans.try_emplace(static_cast<int>(gpu.get_int(r)), t, end);
    if (!fresh) {
      it->second.first = std::min(it->second.first, t);
      it->second.second = std::max(it->second.second, end);
    }
  }
  return spans;
}

std::optional<double> gpu_value(const FeatureSet& fs, std::size_t k, FeatureId id) {
  if (k >= fs.gpus.size()) return std::nullopt;
  const FeatureValue* v = fs.find_gpu(fs.gpus[k], id);
  return v ? v->value : std::nullopt;
}

std::string percent(double share) { return sig3(100 * share) + " %"; }

}  // namespace

namespace {

// One GPU's samples as the stall measure reads them: busy seconds, and the idle samples with
// their framebuffer use.
struct StallSamples {
  TimeNs busy = 0;
  std::vector<double> busy_fb;
  std::vector<std::pair<double, TimeNs>> idle;  // fb, interval
  std::vector<std::size_t> idle_rows;
  double lowest_fb = 0;
  bool any_fb = false;
};

std::map<int, StallSamples> stall_samples(const Timeline& tl, double idle_pct) {
  std::map<int, StallSamples> per_gpu;
  const Table& s = tl.samples;
  if (s.rows() == 0) return per_gpu;
  const ColumnReader gpu(s.column(sample_col::gpu)), interval(s.column(sample_col::interval_ns)),
      sm(s.column(sample_metric_col(GpuMetric::sm_pct))), fb(s.column(sample_metric_col(GpuMetric::fb_mb)));
  for (std::size_t r = 0; r < s.rows(); ++r) {
    if (!gpu.is_valid(r) || !sm.is_valid(r) || !fb.is_valid(r)) continue;
    StallSamples& g = per_gpu[static_cast<int>(gpu.get_int(r))];
    const double mem = fb.get_float(r);
    g.lowest_fb = g.any_fb ? std::min(g.lowest_fb, mem) : mem;
    g.any_fb = true;
    const TimeNs dt = interval.get_int(r);
    if (sm.get_float(r) > idle_pct) {
      g.busy += dt;
      g.busy_fb.push_back(mem);
    } else {
      g.idle.emplace_back(mem, dt);
      g.idle_rows.push_back(r);
    }
  }
  return per_gpu;
}

std::string sample_line(const Timeline& tl, std::size_t r) {
  const ColumnReader file(tl.samples.column(sample_col::file)), line(tl.samples.column(sample_col::line));
  const auto f = static_cast<std::size_t>(file.get_int(r));
  return fmt::format("{}:{}", f < tl.files.size() ? tl.files[f].path : std::string("?"), line.get_int(r));
}

}  // namespace

MeasuredInput measure_job_stalls(const Timeline& tl, const FeatureSet& fs) {
  MeasuredInput m{InputId::kJobStallFraction, std::nullopt, {}, {}, {}, {}};
  const auto per_gpu = stall_samples(tl, fs.options.idle_threshold_pct);
  if (per_gpu.empty()) {
    m.note =
        "not measured: no GPU sample has both utilization and framebuffer memory (nvidia-smi dmon's sm and fb, "
        "or --query-gpu's utilization.gpu and memory.used)";
    return m;
  }
  TimeNs busy = 0, stalled = 0;
  std::string first, floors;
  for (const auto& [index, g] : per_gpu) {
    if (g.busy_fb.empty()) continue;
    std::vector<double> v = g.busy_fb;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    const double median = v[v.size() / 2];
    const double held = median - std::max(kJobMemoryMarginMb, (median - g.lowest_fb) / 2);
    busy += g.busy;
    for (std::size_t i = 0; i < g.idle.size(); ++i)
      if (g.idle[i].first >= held && held > 0) {
        stalled += g.idle[i].second;
        if (first.empty()) first = sample_line(tl, g.idle_rows[i]);
      }
    floors += fmt::format("{}GPU {} held at fb >= {} MB (busy median {}, lowest {})", floors.empty() ? "" : "; ", index,
                          sig3(held), sig3(median), sig3(g.lowest_fb));
  }
  if (busy == 0) {
    m.note = "not measured: no busy GPU sample (SM above the idle threshold), so the job's memory is not known";
    return m;
  }
  const double stall = static_cast<double>(stalled) / static_cast<double>(busy + stalled);
  auto secs = [](TimeNs t) { return sig3(static_cast<double>(t) / 1e9); };
  std::string parts = fmt::format("{} s idle while the job held the GPU / ({} s busy + {} s) = {}", secs(stalled),
                                  secs(busy), secs(stalled), format_number(stall));
  double total = stall;
  const FeatureValue* queue = fs.find(FeatureId::launch_queue_fraction);
  if (queue && queue->value) {
    total = 1 - (1 - stall) * (1 - *queue->value);
    parts += fmt::format("; with the launch queue {} ({}): 1 - (1 - {}) x (1 - {}) = {}", format_number(*queue->value),
                         feature_code(FeatureId::launch_queue_fraction), format_number(stall),
                         format_number(*queue->value), format_number(total));
  }
  m.value = total;
  m.origin = "measured:dmon";
  m.note = fmt::format("the job's own stalls, which move to the cloud with it: {}; {}{}", parts, floors,
                       first.empty() ? "" : "; first " + first);
  return m;
}

Usage measure_usage(const Timeline& tl, const FeatureSet& fs, double min_span_days) {
  Usage u;
  u.min_span_days = min_span_days;
  const auto spans = sample_spans(tl);
  std::optional<double> shortest_s;
  for (std::size_t k = 0; k < fs.gpus.size(); ++k) {
    const auto busy = gpu_value(fs, k, FeatureId::gpu_busy_s);
    const auto covered = gpu_value(fs, k, FeatureId::gpu_sampled_s);
    const auto span = spans.find(fs.gpus[k]);
    if (!busy || !covered || *covered <= 0 || span == spans.end()) continue;
    GpuUsage g;
    g.gpu = fs.gpus[k];
    g.busy_s = *busy;
    g.covered_s = *covered;
    g.span_s = static_cast<double>(span->second.second - span->second.first) / 1e9;
    u.gpus.push_back(g);
    u.window_busy_s += g.busy_s;
    u.window_covered_s += g.covered_s;
    shortest_s = shortest_s ? std::min(*shortest_s, g.span_s) : g.span_s;
  }
  if (u.gpus.empty()) {
    u.reason = "the logs hold no GPU samples with utilization (nvidia-smi dmon or --query-gpu), so how much the GPU "
               "is used cannot be measured";
    return u;
  }
  u.span_days = *shortest_s / 86400;
  u.window_busy_share = u.window_busy_s / u.window_covered_s;
  const std::string window =
      fmt::format("{} of {} sampled ({})", human_duration(u.window_busy_s / 3600), human_duration(u.window_covered_s / 3600),
                  percent(*u.window_busy_share));
  if (*u.span_days < min_span_days) {
    u.reason = fmt::format(
        "the GPU samples span {}, less than the {} days from which a month's usage is measured (a week holds the "
        "weekly rhythm of use; --min-usage-span changes it); within that window the GPU computed {}",
        human_duration(*shortest_s / 3600), format_number(min_span_days), window);
    return u;
  }
  u.basis = UsageBasis::kMeasured;
  double sum = 0;
  for (auto& g : u.gpus) {
    g.hours_per_month = g.busy_s / g.covered_s * kMeanMonthHours;
    sum += *g.hours_per_month;
  }
  u.reason = fmt::format(
      "measured: the GPU{} computed {} over {} days of samples: busy / sampled x {} h a month = {} h a month per "
      "GPU{}",
      u.gpus.size() > 1 ? "s" : "", window, sig3(*u.span_days), format_number(kMeanMonthHours),
      sig3(sum / static_cast<double>(u.gpus.size())), u.gpus.size() > 1 ? " (the mean of the GPUs)" : "");
  return u;
}

std::optional<MeasuredHostPower> measure_host_power(const Timeline& tl) {
  if (tl.host_power.empty()) return std::nullopt;
  TimeNs begin = kNoTime, end = kNoTime;
  for (const auto& g : sample_spans(tl)) {
    begin = begin == kNoTime ? g.second.first : std::min(begin, g.second.first);
    end = end == kNoTime ? g.second.second : std::max(end, g.second.second);
  }
  const bool windowed = begin != kNoTime;
  auto inside = [&](TimeNs t) { return !windowed || (t >= begin && t <= end); };
  const std::string window =
      windowed ? fmt::format("the GPU samples' window {} .. {}", format_rfc3339(begin, 0), format_rfc3339(end, 0))
               : std::string("all of them (no GPU samples)");

  // IPMI: the whole system, the readings' mean.
  double wall_sum = 0;
  std::size_t wall_n = 0;
  // RAPL: per domain, joules and seconds.
  struct Domain {
    std::string name;
    double joules = 0, seconds = 0;
  };
  std::vector<Domain> domains;
  std::size_t rapl_n = 0, outside = 0;
  for (const HostPowerSample& h : tl.host_power) {
    if (h.source == HostPowerSource::kSystemWall) {
      if (!inside(h.ts_ns)) {
        ++outside;
        continue;
      }
      wall_sum += h.watts;
      ++wall_n;
      continue;
    }
    if (!inside(h.ts_ns - h.interval_ns / 2)) {
      ++outside;
      continue;
    }
    auto d = std::find_if(domains.begin(), domains.end(), [&](const Domain& x) { return x.name == h.domain; });
    if (d == domains.end()) {
      domains.emplace_back();
      domains.back().name = h.domain;
      d = domains.end() - 1;
    }
    const double sec = static_cast<double>(h.interval_ns) / 1e9;
    d->joules += h.watts * sec;
    d->seconds += sec;
    ++rapl_n;
  }
  const std::string left_out = outside ? fmt::format("; {} sample(s) outside it left out", outside) : std::string();
  if (wall_n > 0) {
    MeasuredHostPower m;
    m.system_wall = true;
    m.mean_w = wall_sum / static_cast<double>(wall_n);
    m.samples = wall_n;
    m.origin = "measured:ipmi";
    m.note = fmt::format(
        "the BMC read the whole system at the power supply's input (ipmitool dcmi power reading) at {} W on average, "
        "{} reading(s) in {}{}{}",
        format_number(m.mean_w), wall_n, window, left_out,
        rapl_n ? "; the CPUs' RAPL counters, a part of it, are not added" : "");
    return m;
  }
  if (rapl_n == 0) return std::nullopt;
  MeasuredHostPower m;
  m.origin = "measured:rapl";
  m.samples = rapl_n;
  std::string parts;
  for (const Domain& d : domains) {
    const double w = d.seconds > 0 ? d.joules / d.seconds : 0;
    m.mean_w += w;
    parts += fmt::format("{}{} {} W", parts.empty() ? "" : ", ", d.name, format_number(w));
  }
  m.note = fmt::format(
      "the CPU packages and their DRAM (RAPL energy counters) drew {} W on average ({}), {} interval(s) in {}{}",
      format_number(m.mean_w), parts, rapl_n, window, left_out);
  return m;
}

std::pair<std::size_t, std::string> gpu_count(const Timeline& tl, const FeatureSet& fs) {
  if (!fs.gpus.empty())
    return {fs.gpus.size(), fmt::format("{} GPU{} with samples in the logs", fs.gpus.size(), fs.gpus.size() > 1 ? "s" : "")};
  std::set<std::string> named;
  for (const auto& d : tl.devices)
    named.insert(!d.uuid.empty() ? d.uuid : !d.pci_bus.empty() ? d.pci_bus : d.index ? std::to_string(*d.index) : d.name);
  named.erase(std::string());
  if (!named.empty())
    return {named.size(), fmt::format("{} GPU{} named by nvidia-smi reports", named.size(), named.size() > 1 ? "s" : "")};
  return {1, "one GPU: the logs say nothing of how many the machine has"};
}

std::vector<MachineSeen> distinct_machines(const Timeline& tl) {
  // The UUIDs reported at each index and each PCI address: one machine has one GPU at each.
  std::map<std::string, std::set<std::string>> uuids_at;
  for (const auto& d : tl.devices) {
    if (d.uuid.empty()) continue;
    if (d.index) uuids_at["index " + std::to_string(*d.index)].insert(d.uuid);
    if (!d.pci_bus.empty()) uuids_at["PCI " + d.pci_bus].insert(d.uuid);
  }
  std::set<std::string> conflicting;
  for (const auto& [where, uuids] : uuids_at)
    if (uuids.size() > 1) conflicting.insert(uuids.begin(), uuids.end());
  std::vector<MachineSeen> out;
  if (conflicting.empty()) return out;
  std::set<std::string> shown;
  for (const auto& d : tl.devices) {
    if (!conflicting.count(d.uuid) || !shown.insert(d.uuid).second) continue;
    const std::string file = d.file < tl.files.size() ? tl.files[d.file].path : std::string("?");
    out.push_back({fmt::format("{} {} at {} ({})", d.name.empty() ? "a GPU" : d.name, d.uuid,
                               d.index ? "index " + std::to_string(*d.index) : "PCI " + d.pci_bus, file)});
  }
  return out;
}

}  // namespace gpucost::cost
