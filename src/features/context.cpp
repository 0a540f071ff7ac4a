#include "features/context.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <mutex>

#include "gpucost/parallel.hpp"
#include "gpucost/text.hpp"

namespace gpucost::features {

std::string_view missing_reason(LogSource s) noexcept {
  switch (s) {
    case LogSource::kKernel: return "no kernel or system log (dmesg, kern.log/syslog or journal)";
    case LogSource::kService: return "no syslog or journal (service, container and cron messages)";
    case LogSource::kPs: return "no ps snapshots";
    case LogSource::kPmon: return "no nvidia-smi pmon output";
    case LogSource::kSmiQ: return "no nvidia-smi -q report";
    case LogSource::kDevices: return "no nvidia-smi -q report or --query-gpu device fields";
    case LogSource::kProfiler: return "no PyTorch profiler trace in the directory";
  }
  return "source missing";
}

namespace {

// The GPU of a PCI address: the device record with that bus id; else, when no device record
// knows any bus id and the message comes from the NVIDIA driver of a one-GPU machine, that GPU.
// An address that records exist for but none matches (a root port, an NVMe drive) is no GPU.
int gpu_of_pci(std::string_view s, bool nvidia_message, const std::vector<int>& gpus,
               const std::vector<const GpuDevice*>& devs) {
  const std::string bus = normalize_pci_bus(s);
  if (bus.empty()) return -1;
  bool any_bus = false;
  for (std::size_t k = 0; k < gpus.size(); ++k) {
    if (!devs[k] || devs[k]->pci_bus.empty()) continue;
    any_bus = true;
    if (devs[k]->pci_bus == bus) return gpus[k];
  }
  if (!any_bus && nvidia_message && gpus.size() == 1) return gpus[0];
  return -1;
}

// The GPU index an event's `gpu` text names: a plain index, or a PCI address of a known device.
int resolve_gpu(std::string_view s, bool nvidia_message, const std::vector<int>& gpus,
                const std::vector<const GpuDevice*>& devs) {
  s = text::trim(s);
  if (s.empty()) return -1;
  if (auto idx = text::to_int<int>(s)) return *idx;
  return gpu_of_pci(s, nvidia_message, gpus, devs);
}

// The next PCI address (`0000:01:00.0`, `00000000:01:00.0`, `0000:01:00`) in t at or after
// `from`; empty when none. `from` moves past it.
std::string_view next_pci(std::string_view t, std::size_t& from) {
  for (std::size_t i = from; i + 10 <= t.size(); ++i) {
    if (!text::is_hex(t[i]) || (i > 0 && (text::is_hex(t[i - 1]) || t[i - 1] == ':'))) continue;
    std::size_t j = i;
    while (j < t.size() && text::is_hex(t[j])) ++j;
    const std::size_t dom = j - i;
    if (dom < 4 || dom > 8 || j + 6 > t.size() || t[j] != ':' || !text::is_hex(t[j + 1]) || !text::is_hex(t[j + 2]) ||
        t[j + 3] != ':' || !text::is_hex(t[j + 4]) || !text::is_hex(t[j + 5])) {
      i = j;
      continue;
    }
    j += 6;
    if (j + 1 < t.size() && t[j] == '.' && text::is_digit(t[j + 1])) j += 2;
    from = j;
    return t.substr(i, j - i);
  }
  from = t.size();
  return {};
}

// The GPU index right after `marker` (`GPU:1:` of nvidia-modeset, `GPU1 ` of NVRM), or -1.
int index_after(std::string_view t, std::string_view marker) {
  const auto p = t.find(marker);
  if (p == std::string_view::npos) return -1;
  std::size_t e = p + marker.size(), b = e;
  while (e < t.size() && text::is_digit(t[e])) ++e;
  if (e == b || e - b > 3) return -1;
  return text::to_int<int>(t.substr(b, e - b)).value_or(-1);
}

// Messages of the NVIDIA driver (their PCI address is a GPU's); AER and link messages name
// whichever device reports them.
bool is_nvidia_kind(EventKind k) {
  switch (k) {
    case EventKind::xid:
    case EventKind::fallen_off_bus:
    case EventKind::rm_init_failed:
    case EventKind::gsp_error:
    case EventKind::driver_error:
    case EventKind::nv_assert: return true;
    default: return false;
  }
}

// The GPU an event names in its text, when its `gpu` field names none that is known: the
// `GPU:N` of nvidia-modeset, the `GPUN` of NVRM, or any PCI address in the text that a device
// record maps (an AER report names the root port first and the GPU after it). -1 when none.
int gpu_from_text(std::string_view t, EventKind k, const std::vector<int>& gpus, const std::vector<const GpuDevice*>& devs) {
  if (k == EventKind::driver_error || k == EventKind::gsp_error || k == EventKind::nv_assert) {
    for (std::string_view marker : {"GPU:", "NVRM: GPU"})
      if (const int g = index_after(t, marker); g >= 0 && std::find(gpus.begin(), gpus.end(), g) != gpus.end()) return g;
  }
  // An AER report from the NVIDIA driver (`nvidia 0000:01:00.0: PCIe Bus Error`) is the GPU's.
  const bool nvidia = is_nvidia_kind(k) || (k == EventKind::pcie_aer && text::trim(t).substr(0, 7) == "nvidia ");
  std::size_t from = 0;
  for (std::string_view pci = next_pci(t, from); !pci.empty(); pci = next_pci(t, from))
    if (const int g = gpu_of_pci(pci, nvidia, gpus, devs); g >= 0) return g;
  return -1;
}

}  // namespace

FeatureContext::FeatureContext(const Timeline& t, const FeatureOptions& o, unsigned threads)
    : timeline(t), options(o), ts_reader_(t.samples.ts()), interval_reader_(t.samples.column(sample_col::interval_ns)) {
  // The process groups read the process table only, and nothing below reads them.
  auto group = [this] { group_processes(); };
  Beside grouping(threads, t.processes.rows() >= 100'000, group);
  note_formats();
  collect_gpus();
  add_gpu_named_by_kernel();
  attach_devices();
  measure_host_coverage();
  index_events();
  widen_window();
  grouping.finish();
  const std::size_t slots = (gpus.size() + 1) * kGpuMetricCount;
  stats_cache_.resize(slots);
  stats_once_ = std::make_unique<std::once_flag[]>(slots);
}

// The traits of the formats read (GPUCOST_FORMATS): which families of logs are present.
void FeatureContext::note_formats() {
  for (const auto& f : timeline.files) {
    traits_present_ |= format_info(f.format).traits;
    sample_format_present_ = sample_format_present_ || format_samples_gpus(f.format);
  }
}

// The GPUs with samples (their rows, in time order) or an indexed device, in index order.
void FeatureContext::collect_gpus() {
  const Timeline& t = timeline;
  const Table& s = t.samples;
  const ColumnReader gpu(s.column(sample_col::gpu)), ts(s.ts());
  // Room for every row at once: growing by doubling would copy them into fresh pages again and
  // again (untouched room costs address space, not memory). The list of all rows is made only
  // when several GPUs have rows (below): with one GPU it is that GPU's list.
  int last_gpu = 0;
  std::size_t rows_with_gpu = 0;
  RowList* last_rows = nullptr;  // the rows of last_gpu (rows of one GPU come in runs)
  for (std::size_t r = 0; r < s.rows(); ++r) {
    if (!ts.is_valid(r) || !gpu.is_valid(r)) continue;
    const int g = static_cast<int>(gpu.get_int(r));
    if (!last_rows || g != last_gpu) {
      auto it = std::find(gpus.begin(), gpus.end(), g);
      if (it == gpus.end()) {
        gpus.push_back(g);
        gpu_rows.emplace_back().reserve(s.rows() - r);
        it = gpus.end() - 1;
      }
      last_gpu = g;
      last_rows = &gpu_rows[static_cast<std::size_t>(it - gpus.begin())];
    }
    last_rows->push_back(static_cast<std::uint32_t>(r));
    ++rows_with_gpu;
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
    std::vector<RowList> r2;
    for (auto i : order) {
      g2.push_back(gpus[i]);
      r2.push_back(std::move(gpu_rows[i]));
    }
    gpus = std::move(g2);
    gpu_rows = std::move(r2);
  }
  // One GPU with rows: its rows are all rows, one list. Several: all rows, in table order.
  for (std::size_t k = 0; k < gpu_rows.size(); ++k)
    if (gpu_rows[k].size() == rows_with_gpu && rows_with_gpu != 0) all_rows_are_gpu_ = static_cast<int>(k);
  if (all_rows_are_gpu_ < 0 && rows_with_gpu != 0) {
    all_rows_.reserve(rows_with_gpu);
    for (std::size_t r = 0; r < s.rows(); ++r)
      if (ts.is_valid(r) && gpu.is_valid(r)) all_rows_.push_back(static_cast<std::uint32_t>(r));
  }
}

// No samples and no indexed device, but the NVIDIA messages name one GPU address: that GPU is
// the machine's only NVIDIA GPU, index 0.
void FeatureContext::add_gpu_named_by_kernel() {
  if (!gpus.empty()) return;
  const Table& e = timeline.events;
  const Column& kind = e.column(event_col::kind);
  const Column& egpu = e.column(event_col::gpu);
  std::string only;
  bool several = false;
  for (std::size_t r = 0; r < e.rows() && !several; ++r) {
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
void FeatureContext::attach_devices() {
  const Timeline& t = timeline;
  gpu_device.assign(gpus.size(), nullptr);
  for (std::size_t k = 0; k < gpus.size(); ++k)
    for (const auto& d : t.devices)
      if (d.index && *d.index == gpus[k]) gpu_device[k] = &d;
  if (gpus.size() == 1 && !gpu_device[0] && t.devices.size() == 1) gpu_device[0] = &t.devices[0];
}

// Host coverage: union of [ts, ts + interval) of all sample rows (in time order).
void FeatureContext::measure_host_coverage() {
  const Table& s = timeline.samples;
  const ColumnReader ival(s.column(sample_col::interval_ns)), ts(s.ts());
  for (auto r : rows(-1)) {
    const TimeNs a = ts.get_int(r);
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
}

// Events by kind, the GPU each names, and the span their own stamps cover.
void FeatureContext::index_events() {
  const Timeline& t = timeline;
  const Table& e = t.events;
  const Column& kind = e.column(event_col::kind);
  const Column& egpu = e.column(event_col::gpu);
  const Column& flags = e.column(event_col::flags);
  // Per dictionary code of the `gpu` column, resolved once: [0] any message, [1] the NVIDIA driver's.
  std::vector<std::array<int, 2>> code_gpu(egpu.dictionary().size(), {-2, -2});
  event_gpu.assign(e.rows(), -1);
  for (std::size_t r = 0; r < e.rows(); ++r) {
    const auto k = static_cast<std::size_t>(kind.get_int(r));
    if (k < kEventKindCount) events_by_kind[k].push_back(static_cast<std::uint32_t>(r));
    const auto ek = static_cast<EventKind>(k);
    if (egpu.is_valid(r)) {
      const auto code = egpu.get_code(r);
      const bool nv = is_nvidia_kind(ek);
      int& slot = code_gpu[code][nv ? 1 : 0];
      if (slot == -2) slot = resolve_gpu(egpu.get_string(r), nv, gpus, gpu_device);
      event_gpu[r] = slot;
    }
    // Only the kinds that name a device are read again; kernel noise is never looked at.
    if (event_gpu[r] < 0 && !gpus.empty() &&
        (is_nvidia_kind(ek) || ek == EventKind::pcie_aer || ek == EventKind::pcie_link_degraded || ek == EventKind::gpu_reset))
      event_gpu[r] = gpu_from_text(e.column(event_col::text).get_string(r), ek, gpus, gpu_device);
    // An event placed at its file's modification time has no time of its own: it does not
    // widen the measured window.
    const auto fl = flags.is_valid(r) ? flags.get_int(r) : 0;
    const bool at_mtime = (fl & kFlagApproxTime) && !(fl & (kFlagFromMonotonic | kFlagFromWall));
    if (e.ts().is_valid(r) && !at_mtime) {
      const TimeNs ts = e.ts().get_int(r);
      if (events_first == kNoTime || ts < events_first) events_first = ts;
      if (events_last == kNoTime || ts > events_last) events_last = ts;
      if (k == static_cast<std::size_t>(EventKind::boot)) boot_ts.push_back(ts);
    }
  }
  std::sort(boot_ts.begin(), boot_ts.end());
}

// The measured window: the events' span, widened to the samples' coverage and to the last
// line of the logs of any kind (not only the last recognized event).
void FeatureContext::widen_window() {
  const Timeline& t = timeline;
  window_begin = events_first;
  window_end = events_last;
  if (!host_coverage.empty()) {
    if (window_begin == kNoTime || host_coverage.front().first < window_begin) window_begin = host_coverage.front().first;
    if (window_end == kNoTime || host_coverage.back().second > window_end) window_end = host_coverage.back().second;
  }
  // The logs reach to their last line of any kind, not to the last recognized event.
  if (!t.log_ends.empty()) {
    if (window_begin == kNoTime || t.log_ends.front() < window_begin) window_begin = t.log_ends.front();
    if (window_end == kNoTime || t.log_ends.back() > window_end) window_end = t.log_ends.back();
  }
}

// Process rows grouped by (pmon?, file, snapshot, gpu), table order kept inside a group.
void FeatureContext::group_processes() {
  const Table& p = timeline.processes;
  // Readers, not columns: millions of rows.
  const ColumnReader pf(p.column(process_col::file)), ps(p.column(process_col::snapshot)), pg(p.column(process_col::gpu));
  auto key = [&](std::uint32_t r) {
    return std::tuple(pg.is_valid(r), pf.get_int(r), ps.is_valid(r) ? ps.get_int(r) : -1,
                      pg.is_valid(r) ? pg.get_int(r) : -1);
  };
  using Key = decltype(key(0));
  auto add_group = [&](std::uint32_t begin, std::uint32_t end, const Key& k) {
    if (std::get<0>(k)) pmon_groups.push_back({begin, end, static_cast<int>(std::get<3>(k))});
    else ps_groups.push_back({begin, end, -1});
  };
  // Usually in order already (ps snapshots are written one after the other): one pass that reads
  // each key once, no sort, no list.
  const auto n = static_cast<std::uint32_t>(p.rows());
  process_order.identity(n);
  if (n == 0) return;
  Key current = key(0);
  std::uint32_t begin = 0, r = 1;
  if (pg.none_valid()) {  // ps snapshots only: the key is (file, snapshot)
    std::int64_t file = std::get<1>(current), snap = std::get<2>(current);
    for (; r < n; ++r) {
      const std::int64_t f = pf.get_int(r), sn = ps.is_valid(r) ? ps.get_int(r) : -1;
      if (f == file && sn == snap) continue;
      if (f < file || (f == file && sn < snap)) break;  // out of order: sorted below
      add_group(begin, r, current);
      begin = r;
      current = key(r);
      file = f;
      snap = sn;
    }
  } else {
    for (; r < n; ++r) {
      const Key k = key(r);
      if (k == current) continue;
      if (k < current) break;  // out of order: sorted below
      add_group(begin, r, current);
      begin = r;
      current = k;
    }
  }
  if (r == n) {
    add_group(begin, n, current);
    return;
  }
  ps_groups.clear();
  pmon_groups.clear();
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
  process_order.assign(std::move(order));
  for (std::uint32_t i = 0; i < n;) {
    std::uint32_t j = i + 1;
    const Key first = key(process_order[i]);
    while (j < n && key(process_order[j]) == first) ++j;
    add_group(i, j, first);
    i = j;
  }
}

bool FeatureContext::has(LogSource src) const noexcept {
  switch (src) {
    case LogSource::kKernel: return has_format_trait(kTraitKernelLog);
    case LogSource::kService: return has_format_trait(kTraitServiceLog);
    case LogSource::kPs: return has_format_trait(kTraitProcessSnapshots) || !ps_groups.empty();
    case LogSource::kPmon: return has_format_trait(kTraitGpuProcesses) || !pmon_groups.empty();
    case LogSource::kSmiQ: return has_format_trait(kTraitDeviceReport);
    case LogSource::kDevices: return !timeline.devices.empty();
    case LogSource::kProfiler: return !timeline.profiles.empty();
  }
  return false;
}

const RowList& FeatureContext::rows(int gpu) const {
  if (gpu < 0) return all_rows_are_gpu_ >= 0 ? gpu_rows[static_cast<std::size_t>(all_rows_are_gpu_)] : all_rows_;
  const int k = gpu_slot(gpu);
  if (k >= 0) return gpu_rows[static_cast<std::size_t>(k)];
  static const RowList kEmpty;
  return kEmpty;
}

int FeatureContext::gpu_slot(int gpu) const noexcept {
  for (std::size_t k = 0; k < gpus.size(); ++k)
    if (gpus[k] == gpu) return static_cast<int>(k);
  return -1;
}

std::string FeatureContext::scope_label(int gpu) { return gpu < 0 ? "any GPU" : fmt::format("GPU {}", gpu); }

std::size_t FeatureContext::cache_slot(int gpu, GpuMetric m) const noexcept {
  int slot_of_gpu = gpu < 0 ? -1 : gpu_slot(gpu);
  if (gpu < 0 && all_rows_are_gpu_ >= 0) slot_of_gpu = all_rows_are_gpu_;  // the same rows
  return static_cast<std::size_t>(slot_of_gpu + 1) * kGpuMetricCount + static_cast<std::size_t>(m);
}

int FeatureContext::memo_scope(int gpu) const noexcept {
  if (gpu < 0) return all_rows_are_gpu_ >= 0 ? all_rows_are_gpu_ + 1 : 0;
  const int k = gpu_slot(gpu);
  return k >= 0 ? k + 1 : -1 - gpu;  // a GPU without rows: its own key
}

const MetricStats& FeatureContext::stats(int gpu, GpuMetric m) const {
  static const MetricStats kNone;
  if (gpu >= 0 && gpu_slot(gpu) < 0) return kNone;
  const std::size_t slot = cache_slot(gpu, m);
  std::call_once(stats_once_[slot], [&] {
    MetricStats st;
    const ColumnReader c(metric(m));
    const ColumnReader ival(timeline.samples.column(sample_col::interval_ns));
    TimeNs last_ns = 0;  // sampling intervals repeat: each new one is divided once
    double last_dt = seconds(0);
    for (auto r : rows(gpu)) {
      if (!c.is_valid(r)) continue;
      const double v = c.get_float(r);
      if (st.n == 0) st.first_row = r;
      ++st.n;
      st.sum += v;
      st.min = std::min(st.min, v);
      st.max = std::max(st.max, v);
      if (const TimeNs ns = ival.get_int(r); ns != last_ns) {
        last_ns = ns;
        last_dt = seconds(ns);
      }
      const double dt = last_dt;
      st.weighted += v * dt;
      st.covered_s += dt;
    }
    stats_cache_[slot] = st;
  });
  return *stats_cache_[slot];
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
