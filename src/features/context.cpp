#include "features/context.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "gpucost/text.hpp"

namespace gpucost::features {

std::string_view missing_reason(LogSource s) noexcept {
  switch (s) {
    case LogSource::kernel: return "no kernel or system log (dmesg, kern.log/syslog or journal)";
    case LogSource::service: return "no syslog or journal (service, container and cron messages)";
    case LogSource::ps: return "no ps snapshots";
    case LogSource::pmon: return "no nvidia-smi pmon output";
    case LogSource::smi_q: return "no nvidia-smi -q report";
    case LogSource::devices: return "no nvidia-smi -q report or --query-gpu device fields";
    case LogSource::profiler: return "no PyTorch profiler trace in the directory";
  }
  return "source missing";
}

namespace {

// The GPU index an event's `gpu` text names: a plain index, or a PCI address of a known device.
int resolve_gpu(std::string_view s, const std::vector<int>& gpus, const std::vector<const GpuDevice*>& devs) {
  s = text::trim(s);
  if (s.empty()) return -1;
  if (auto idx = text::to_int<int>(s)) return *idx;
  const std::string bus = normalize_pci_bus(s);
  if (!bus.empty())
    for (std::size_t k = 0; k < gpus.size(); ++k)
      if (devs[k] && devs[k]->pci_bus == bus) return gpus[k];
  // One GPU and no way to tell: the message can only be about it.
  if (gpus.size() == 1) return gpus[0];
  return -1;
}

}  // namespace

FeatureContext::FeatureContext(const Timeline& t, const FeatureOptions& o) : timeline(t), options(o) {
  for (const auto& f : t.files) format_present_[static_cast<std::size_t>(f.format)] = true;

  // Samples per GPU.
  const Table& s = t.samples;
  const Column& gpu = s.column(sample_col::gpu);
  const Column& ival = s.column(sample_col::interval_ns);
  for (std::size_t r = 0; r < s.rows(); ++r) {
    if (!s.ts().is_valid(r) || !gpu.is_valid(r)) continue;
    const int g = static_cast<int>(gpu.get_int(r));
    auto it = std::find(gpus.begin(), gpus.end(), g);
    if (it == gpus.end()) {
      gpus.push_back(g);
      gpu_rows.emplace_back();
      it = gpus.end() - 1;
    }
    gpu_rows[static_cast<std::size_t>(it - gpus.begin())].push_back(static_cast<std::uint32_t>(r));
    all_rows_.push_back(static_cast<std::uint32_t>(r));
  }
  for (const auto& d : t.devices)
    if (d.index && std::find(gpus.begin(), gpus.end(), *d.index) == gpus.end()) {
      gpus.push_back(*d.index);
      gpu_rows.emplace_back();
    }
  // GPUs in index order, so per-GPU output is stable.
  std::vector<std::size_t> order(gpus.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return gpus[a] < gpus[b]; });
  {
    std::vector<int> g2;
    std::vector<std::vector<std::uint32_t>> r2;
    for (auto i : order) {
      g2.push_back(gpus[i]);
      r2.push_back(std::move(gpu_rows[i]));
    }
    gpus = std::move(g2);
    gpu_rows = std::move(r2);
  }
  // No samples and no indexed device, but the NVIDIA messages name one GPU address: that GPU is
  // the machine's only NVIDIA GPU, index 0.
  if (gpus.empty()) {
    const Column& kind = t.events.column(event_col::kind);
    const Column& egpu = t.events.column(event_col::gpu);
    std::string only;
    bool several = false;
    for (std::size_t r = 0; r < t.events.rows() && !several; ++r) {
      const auto k = static_cast<EventKind>(kind.get_int(r));
      if (!egpu.is_valid(r) || (k != EventKind::xid && k != EventKind::fallen_off_bus && k != EventKind::rm_init_failed &&
                                k != EventKind::gsp_error))
        continue;
      std::string bus = normalize_pci_bus(egpu.get_string(r));
      if (bus.empty()) continue;
      if (only.empty()) only = std::move(bus);
      else several = bus != only;
    }
    if (!only.empty() && !several) {
      gpus.push_back(0);
      gpu_rows.emplace_back();
      gpu_named_by_kernel = true;
    }
  }
  // Devices: by index; a single device without index belongs to a single GPU.
  gpu_device.assign(gpus.size(), nullptr);
  for (std::size_t k = 0; k < gpus.size(); ++k)
    for (const auto& d : t.devices)
      if (d.index && *d.index == gpus[k]) gpu_device[k] = &d;
  if (gpus.size() == 1 && !gpu_device[0] && t.devices.size() == 1) gpu_device[0] = &t.devices[0];

  // Host coverage: union of [ts, ts + interval). all_rows_ is in time order.
  for (auto r : all_rows_) {
    const TimeNs a = s.ts().get_int(r);
    const TimeNs b = a + (ival.is_valid(r) ? ival.get_int(r) : 0);
    if (b <= a) continue;
    if (!host_coverage.empty() && a <= host_coverage.back().second)
      host_coverage.back().second = std::max(host_coverage.back().second, b);
    else
      host_coverage.emplace_back(a, b);
  }
  TimeNs covered = 0;
  for (const auto& [a, b] : host_coverage) covered += b - a;
  host_sampled_s_ = seconds(covered);

  // Events.
  const Table& e = t.events;
  const Column& kind = e.column(event_col::kind);
  const Column& egpu = e.column(event_col::gpu);
  std::vector<int> code_gpu(egpu.dictionary().size(), -2);
  event_gpu.assign(e.rows(), -1);
  for (std::size_t r = 0; r < e.rows(); ++r) {
    const auto k = static_cast<std::size_t>(kind.get_int(r));
    if (k < kEventKindCount) events_by_kind[k].push_back(static_cast<std::uint32_t>(r));
    if (egpu.is_valid(r)) {
      const auto code = egpu.get_code(r);
      if (code_gpu[code] == -2) code_gpu[code] = resolve_gpu(egpu.get_string(r), gpus, gpu_device);
      event_gpu[r] = code_gpu[code];
    }
    if (e.ts().is_valid(r)) {
      const TimeNs ts = e.ts().get_int(r);
      if (events_first == kNoTime || ts < events_first) events_first = ts;
      if (events_last == kNoTime || ts > events_last) events_last = ts;
      if (k == static_cast<std::size_t>(EventKind::boot)) boot_ts.push_back(ts);
    }
  }
  std::sort(boot_ts.begin(), boot_ts.end());
  window_begin = events_first;
  window_end = events_last;
  if (!host_coverage.empty()) {
    if (window_begin == kNoTime || host_coverage.front().first < window_begin) window_begin = host_coverage.front().first;
    if (window_end == kNoTime || host_coverage.back().second > window_end) window_end = host_coverage.back().second;
  }

  // Process rows grouped by (pmon?, file, snapshot, gpu), table order kept inside a group.
  const Table& p = t.processes;
  const Column& pf = p.column(process_col::file);
  const Column& ps = p.column(process_col::snapshot);
  const Column& pg = p.column(process_col::gpu);
  process_order.resize(p.rows());
  std::iota(process_order.begin(), process_order.end(), 0u);
  auto key = [&](std::uint32_t r) {
    return std::tuple(pg.is_valid(r), pf.get_int(r), ps.is_valid(r) ? ps.get_int(r) : -1,
                      pg.is_valid(r) ? pg.get_int(r) : -1);
  };
  std::stable_sort(process_order.begin(), process_order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
  for (std::uint32_t i = 0; i < process_order.size();) {
    std::uint32_t j = i + 1;
    while (j < process_order.size() && key(process_order[j]) == key(process_order[i])) ++j;
    const std::uint32_t r = process_order[i];
    if (pg.is_valid(r))
      pmon_groups.push_back({i, j, static_cast<int>(pg.get_int(r))});
    else
      ps_groups.push_back({i, j, -1});
    i = j;
  }

  stats_cache_.resize((gpus.size() + 1) * kGpuMetricCount);
}

bool FeatureContext::has(LogSource src) const noexcept {
  auto any = [&](std::initializer_list<FormatId> fs) {
    for (auto f : fs)
      if (has_format(f)) return true;
    return false;
  };
  switch (src) {
    case LogSource::kernel:
      return any({FormatId::dmesg, FormatId::syslog, FormatId::journal_short, FormatId::journal_json,
                  FormatId::journal_export});
    case LogSource::service:
      return any({FormatId::syslog, FormatId::journal_short, FormatId::journal_json, FormatId::journal_export});
    case LogSource::ps: return has_format(FormatId::ps) || !ps_groups.empty();
    case LogSource::pmon: return has_format(FormatId::pmon) || !pmon_groups.empty();
    case LogSource::smi_q: return has_format(FormatId::nvidia_smi_q);
    case LogSource::devices: return !timeline.devices.empty();
    case LogSource::profiler: return !timeline.profiles.empty();
  }
  return false;
}

const std::vector<std::uint32_t>& FeatureContext::rows(int gpu) const {
  if (gpu < 0) return all_rows_;
  const int k = gpu_slot(gpu);
  if (k >= 0) return gpu_rows[static_cast<std::size_t>(k)];
  static const std::vector<std::uint32_t> kEmpty;
  return kEmpty;
}

int FeatureContext::gpu_slot(int gpu) const noexcept {
  for (std::size_t k = 0; k < gpus.size(); ++k)
    if (gpus[k] == gpu) return static_cast<int>(k);
  return -1;
}

std::string FeatureContext::scope_label(int gpu) { return gpu < 0 ? "any GPU" : fmt::format("GPU {}", gpu); }

const MetricStats& FeatureContext::stats(int gpu, GpuMetric m) const {
  static const MetricStats kNone;
  const int slot_of_gpu = gpu < 0 ? -1 : gpu_slot(gpu);
  if (gpu >= 0 && slot_of_gpu < 0) return kNone;
  const std::size_t scope = static_cast<std::size_t>(slot_of_gpu + 1);
  auto& slot = stats_cache_[scope * kGpuMetricCount + static_cast<std::size_t>(m)];
  if (slot) return *slot;
  MetricStats st;
  const Column& c = metric(m);
  const Column& ival = timeline.samples.column(sample_col::interval_ns);
  for (auto r : rows(gpu)) {
    if (!c.is_valid(r)) continue;
    const double v = c.get_float(r);
    if (st.n == 0) st.first_row = r;
    ++st.n;
    st.sum += v;
    st.min = std::min(st.min, v);
    st.max = std::max(st.max, v);
    const double dt = seconds(ival.get_int(r));
    st.weighted += v * dt;
    st.covered_s += dt;
  }
  slot = st;
  return *slot;
}

double FeatureContext::percentile(int gpu, GpuMetric m, double p) const {
  auto& buf = scratch_;
  buf.clear();
  const Column& c = metric(m);
  for (auto r : rows(gpu))
    if (c.is_valid(r)) buf.push_back(c.get_float(r));
  if (buf.empty()) return std::nan("");
  auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(buf.size())));
  rank = std::clamp<std::size_t>(rank, 1, buf.size());
  auto nth = buf.begin() + static_cast<std::ptrdiff_t>(rank - 1);
  std::nth_element(buf.begin(), nth, buf.end());
  return *nth;
}

std::optional<std::int64_t> FeatureContext::event_code(std::uint32_t r) const noexcept {
  const Column& c = timeline.events.column(event_col::code);
  if (!c.is_valid(r)) return std::nullopt;
  return c.get_int(r);
}

std::string FeatureContext::where(std::int64_t file, std::int64_t line) const {
  if (file >= 0 && static_cast<std::size_t>(file) < timeline.files.size())
    return fmt::format("{}:{}", timeline.files[static_cast<std::size_t>(file)].path, line);
  return fmt::format("file#{}:{}", file, line);
}

std::string FeatureContext::sample_where(std::uint32_t r) const {
  const Table& s = timeline.samples;
  return where(s.column(sample_col::file).get_int(r), s.column(sample_col::line).get_int(r));
}

std::string FeatureContext::event_where(std::uint32_t r) const {
  if (r + 1 < timeline.origin_begin.size() && timeline.origin_begin[r] < timeline.origin_begin[r + 1] &&
      timeline.origin_begin[r] < timeline.origins.size()) {
    const auto& o = timeline.origins[timeline.origin_begin[r]];
    return where(o.file, static_cast<std::int64_t>(o.line));
  }
  const Table& e = timeline.events;
  return where(e.column(event_col::file).get_int(r), e.column(event_col::line).get_int(r));
}

std::string FeatureContext::process_where(std::uint32_t r) const {
  const Table& p = timeline.processes;
  return where(p.column(process_col::file).get_int(r), p.column(process_col::line).get_int(r));
}

TimeNs FeatureContext::uncovered_ns(TimeNs a, TimeNs b) const noexcept {
  if (b <= a) return 0;
  TimeNs covered = 0;
  // First interval that ends after a.
  auto it = std::upper_bound(host_coverage.begin(), host_coverage.end(), a,
                             [](TimeNs v, const std::pair<TimeNs, TimeNs>& iv) { return v < iv.second; });
  for (; it != host_coverage.end() && it->first < b; ++it)
    covered += std::min(b, it->second) - std::max(a, it->first);
  return (b - a) - covered;
}

}  // namespace gpucost::features
