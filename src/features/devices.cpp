// What nvidia-smi -q and --query-gpu say about each GPU: PCIe link, power limit, memory size.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <string_view>
#include <utility>
#include <vector>

#include "features/compute.hpp"
#include "gpucost/text.hpp"

namespace gpucost::features {

namespace {

// A per-GPU device property; the host takes the minimum (the worst link) or the sum.
enum class HostAgg { kMin, kSum };

// A value and the report it was read from (null: the GPU's sample rows).
struct Reading {
  double value;
  const GpuDevice* from;
};
std::optional<Reading> as_reading(std::optional<Reading> r, const GpuDevice*) { return r; }
std::optional<Reading> as_reading(std::optional<double> v, const GpuDevice* d) {
  return v ? std::optional<Reading>(Reading{*v, d}) : std::nullopt;
}

template <class Get>
FeatureValue device_value(const FeatureContext& c, int gpu, HostAgg agg, std::string_view what, Get get) {
  if (!c.has(LogSource::kDevices) && c.rows(-1).empty()) return null_because(std::string(missing_reason(LogSource::kDevices)));
  std::optional<double> out;
  std::string from;
  std::size_t n = 0;
  auto take = [&](double v, std::string where) {
    ++n;
    if (!out) {
      out = v;
      from = std::move(where);
    } else if (agg == HostAgg::kSum) {
      *out += v;
    } else if (v < *out) {
      out = v;
      from = std::move(where);
    }
  };
  if (c.gpus.empty()) {
    // Devices with no index (NVRM lines, a -q report without minor numbers): host only.
    if (gpu < 0)
      for (const auto& d : c.timeline.devices)
        if (auto r = as_reading(get(c, -1, &d), &d))
          take(r->value, r->from ? c.where(r->from->file, static_cast<std::int64_t>(r->from->line)) : std::string());
  } else {
    for (auto k : scope_slots(c, gpu)) {
      const GpuDevice* d = c.gpu_device[k];
      if (auto r = as_reading(get(c, c.gpus[k], d), d))
        take(r->value, r->from ? c.where(r->from->file, static_cast<std::int64_t>(r->from->line))
                               : fmt::format("samples of GPU {}", c.gpus[k]));
    }
  }
  if (!out) return null_because(fmt::format("no {} for {}", what, FeatureContext::scope_label(gpu)));
  return value(*out, fmt::format("{} GPU(s); {} from {}", n, agg == HostAgg::kSum ? "first" : "lowest", from));
}

std::optional<double> opt(const std::optional<int>& v) {
  return v ? std::optional<double>(*v) : std::nullopt;
}

}  // namespace

FeatureValue gpu_power_limit_w(const FeatureContext& c, int gpu) {
  return device_value(c, gpu, HostAgg::kSum, "power limit (query-gpu power.limit or nvidia-smi -q)",
                      [](const FeatureContext& cx, int g, const GpuDevice* d) -> std::optional<double> {
                        if (g >= 0) {
                          const auto& st = cx.stats(g, GpuMetric::power_limit_w);
                          if (st.n) return st.mean();
                        }
                        return d ? d->power_limit_w : std::nullopt;
                      });
}

FeatureValue gpu_memory_total_mib(const FeatureContext& c, int gpu) {
  return device_value(c, gpu, HostAgg::kSum, "total memory (nvidia-smi -q or query-gpu memory.total)",
                      [](const FeatureContext& cx, int g, const GpuDevice* d) -> std::optional<double> {
                        if (d && d->memory_total_mib) return d->memory_total_mib;
                        if (g >= 0) {
                          const auto& st = cx.stats(g, GpuMetric::mem_total_mb);
                          if (st.n) return st.max;
                        }
                        return std::nullopt;
                      });
}

namespace {

// The narrowest link (generation or width) of the GPU's busy rows (sm above --idle-threshold)
// that report it (query-gpu pcie.link.*.current): the link as it ran for work.
std::optional<double> busy_link(const FeatureContext& c, int gpu, GpuMetric m) {
  if (gpu < 0) return std::nullopt;
  const ColumnReader link(c.metric(m));
  const ColumnReader sm(c.metric(GpuMetric::sm_pct));
  std::optional<double> lowest;
  for (auto r : c.rows(gpu)) {
    if (!link.is_valid(r) || !sm.is_valid(r) || sm.get_float(r) <= c.options.idle_threshold_pct) continue;
    const double v = link.get_float(r);
    if (!lowest || v < *lowest) lowest = v;
  }
  return lowest;
}

}  // namespace

FeatureValue pcie_link_width(const FeatureContext& c, int gpu) {
  return device_value(c, gpu, HostAgg::kMin, "PCIe link width (query-gpu rows while busy, or nvidia-smi -q)",
                      [](const FeatureContext& cx, int g, const GpuDevice* d) -> std::optional<double> {
                        if (auto busy = busy_link(cx, g, GpuMetric::pcie_width)) return busy;
                        return d ? opt(d->pcie_width_current) : std::nullopt;
                      });
}

FeatureValue pcie_link_width_max(const FeatureContext& c, int gpu) {
  return device_value(c, gpu, HostAgg::kMin, "maximum PCIe link width (nvidia-smi -q)",
                      [](const FeatureContext&, int, const GpuDevice* d) { return d ? opt(d->pcie_width_max) : std::nullopt; });
}

FeatureValue pcie_link_width_ratio(const FeatureContext& c, int gpu) {
  return device_value(c, gpu, HostAgg::kMin, "current and maximum PCIe link width (nvidia-smi -q)",
                      [](const FeatureContext&, int, const GpuDevice* d) -> std::optional<double> {
                        if (!d || !d->pcie_width_current || !d->pcie_width_max || *d->pcie_width_max <= 0)
                          return std::nullopt;
                        return static_cast<double>(*d->pcie_width_current) / *d->pcie_width_max;
                      });
}

namespace {

// The PCIe generation of `N GT/s` (2.5 gen 1, 5 gen 2, 8 gen 3, 16 gen 4, 32 gen 5, 64 gen 6).
std::optional<int> gen_of_rate(double gts) {
  static constexpr double kRates[] = {2.5, 5, 8, 16, 32, 64};
  for (int i = 0; i < 6; ++i)
    if (gts > kRates[i] * 0.9 && gts < kRates[i] * 1.1) return i + 1;
  return std::nullopt;
}

// The generation the kernel's `limited by 8.0 GT/s PCIe x8 link` line (printed when the GPU is
// probed, its link trained for work) gives for a GPU; nullopt when no such line names it.
std::optional<int> kernel_trained_gen(const FeatureContext& c, int gpu) {
  std::optional<int> gen;
  for (auto r : c.events_by_kind[static_cast<std::size_t>(EventKind::pcie_link_degraded)]) {
    if (c.event_gpu[r] != gpu) continue;
    const std::string_view t = c.event_text(r);
    const auto p = t.find("limited by ");
    if (p == std::string_view::npos) continue;
    std::string_view rest = t.substr(p + 11);
    const auto sp = rest.find(" GT/s");
    if (sp == std::string_view::npos) continue;
    double v = 0;
    if (std::from_chars(rest.data(), rest.data() + sp, v).ec != std::errc{}) continue;
    if (auto g = gen_of_rate(v); g && (!gen || *g > *gen)) gen = g;
  }
  return gen;
}

}  // namespace

FeatureValue pcie_link_gen(const FeatureContext& c, int gpu) {
  // nvidia-smi -q is a snapshot, usually of an idle GPU whose link has dropped to gen 1 to save
  // power; the kernel's probe line says what the link trains to for work. The higher one is what
  // the link runs at under load.
  return device_value(c, gpu, HostAgg::kMin, "PCIe generation under load (query-gpu rows while busy, kernel 'limited by' line or nvidia-smi -q)",
                      [](const FeatureContext& cx, int g, const GpuDevice* d) -> std::optional<double> {
                        // Measured while the GPU worked: that is the answer, whatever a probe said.
                        if (auto busy = busy_link(cx, g, GpuMetric::pcie_gen)) return busy;
                        std::optional<double> q = d ? opt(d->pcie_gen_current) : std::nullopt;
                        const auto k = g >= 0 ? kernel_trained_gen(cx, g) : std::nullopt;
                        if (k && (!q || *k > *q)) return *k;
                        return q;
                      });
}

FeatureValue pcie_link_gen_max(const FeatureContext& c, int gpu) {
  return device_value(c, gpu, HostAgg::kMin, "maximum PCIe generation (nvidia-smi -q)",
                      [](const FeatureContext&, int, const GpuDevice* d) { return d ? opt(d->pcie_gen_max) : std::nullopt; });
}

namespace {

// The version in an `NVRM: loading NVIDIA UNIX ... Kernel Module  550.120  ...` line: the first
// blank-separated token of digits and dots with at least one dot; empty when none.
std::string_view driver_version_of(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    std::size_t j = i;
    while (j < text.size() && text[j] != ' ') ++j;
    const std::string_view tok = text.substr(i, j - i);
    const bool version = !tok.empty() && text::is_digit(tok.front()) && tok.find('.') != std::string_view::npos &&
                         std::all_of(tok.begin(), tok.end(), [](char ch) { return text::is_digit(ch) || ch == '.'; });
    if (version) return tok;
    i = j;
  }
  return {};
}

}  // namespace

FeatureValue driver_versions(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  // In time order (placed loads first, as the table keeps them): each version once, the changes.
  std::vector<std::string_view> seen;
  std::string_view last;
  std::size_t loads = 0, changes = 0;
  for (auto r : c.events_by_kind[static_cast<std::size_t>(EventKind::driver_load)]) {
    const std::string_view v = driver_version_of(c.event_text(r));
    if (v.empty()) continue;
    ++loads;
    if (!last.empty() && v != last) ++changes;
    last = v;
    if (std::find(seen.begin(), seen.end(), v) == seen.end()) seen.push_back(v);
  }
  if (loads == 0) return value(0, "no 'NVRM: loading NVIDIA UNIX ... Kernel Module' line with a version");
  std::string list;
  for (auto v : seen) list += fmt::format("{}{}", list.empty() ? "" : ", ", v);
  return value(static_cast<double>(seen.size()),
               fmt::format("{} driver loads; versions in order: {}; {} changes between consecutive loads", loads, list, changes));
}

}  // namespace gpucost::features

namespace gpucost::features {

namespace {

// A value from each of the GPU's -q reports, the largest or the smallest: a GPU has a device record
// per report (each -q file, query-gpu's bus ids), not every one carries every field, and the
// counters only grow while the driver stays loaded, so the largest is the latest. nullopt when no
// report of the GPU gives the value.
enum class Pick : std::uint8_t { kMost, kLeast };
template <typename Get>
std::optional<Reading> over_reports(const FeatureContext& c, const GpuDevice* d, Pick pick, Get get) {
  if (!d) return std::nullopt;
  std::optional<Reading> best;
  for (const auto& x : c.timeline.devices) {
    const bool same = !d->pci_bus.empty() && !x.pci_bus.empty() ? x.pci_bus == d->pci_bus : x.index == d->index;
    if (!same) continue;
    const std::optional<double> v = get(x);
    if (v && (!best || (pick == Pick::kMost ? *v > best->value : *v < best->value))) best = Reading{*v, &x};
  }
  return best;
}

using Counter = std::optional<double> GpuDevice::*;

// -q clock-event counters in microseconds as seconds (several summed), the largest report.
std::optional<Reading> counter_s(const FeatureContext& c, const GpuDevice* d, std::initializer_list<Counter> counters) {
  return over_reports(c, d, Pick::kMost, [&](const GpuDevice& x) {
    std::optional<double> s;
    for (const Counter m : counters)
      if (x.*m) s = s.value_or(0) + *(x.*m) / 1e6;
    return s;
  });
}

// Seconds of the GPU's query-gpu rows with any of these clock-event reasons active; nullopt when
// no row reports any of them.
std::optional<double> reason_rows_s(const FeatureContext& c, int gpu, std::initializer_list<GpuMetric> reasons) {
  if (gpu < 0) return std::nullopt;
  // Readers of the reasons some row reports: a column null throughout (dmon has none of them)
  // is not read row by row.
  std::vector<ColumnReader> cols;
  for (const GpuMetric m : reasons)
    if (const ColumnReader col(c.metric(m)); !col.none_valid()) cols.push_back(col);
  if (cols.empty()) return std::nullopt;
  bool reported = false;
  TimeNs active = 0;
  for (auto r : c.rows(gpu)) {
    bool any = false, seen = false;
    for (const ColumnReader& col : cols) {
      if (!col.is_valid(r)) continue;
      seen = true;
      any = any || col.get_float(r) > 0.5;
    }
    reported = reported || seen;
    if (any) active += c.sample_interval(r);
  }
  return reported ? std::optional<double>(seconds(active)) : std::nullopt;
}

constexpr std::string_view kReasonSources =
    "clock-event reasons (query-gpu clocks_event_reasons.* rows, or nvidia-smi -q `Clocks Event Reasons Counters`)";

}  // namespace

FeatureValue clock_event_sw_power_cap_s(const FeatureContext& c, int gpu) {
  return device_value(c, gpu, HostAgg::kSum, kReasonSources,
                      [](const FeatureContext& cx, int g, const GpuDevice* d) -> std::optional<Reading> {
                        if (auto rows = reason_rows_s(cx, g, {GpuMetric::reason_sw_power_cap})) return Reading{*rows, nullptr};
                        return counter_s(cx, d, {&GpuDevice::clock_event_sw_power_cap_us});
                      });
}

FeatureValue clock_event_hw_slowdown_s(const FeatureContext& c, int gpu) {
  return device_value(c, gpu, HostAgg::kSum, kReasonSources,
                      [](const FeatureContext& cx, int g, const GpuDevice* d) -> std::optional<Reading> {
                        if (auto rows = reason_rows_s(cx, g, {GpuMetric::reason_hw_slowdown, GpuMetric::reason_hw_thermal,
                                                              GpuMetric::reason_hw_power_brake}))
                          return Reading{*rows, nullptr};
                        return counter_s(cx, d, {&GpuDevice::clock_event_hw_thermal_us, &GpuDevice::clock_event_hw_power_brake_us});
                      });
}

FeatureValue clock_event_sw_thermal_s(const FeatureContext& c, int gpu) {
  return device_value(c, gpu, HostAgg::kSum, kReasonSources,
                      [](const FeatureContext& cx, int g, const GpuDevice* d) -> std::optional<Reading> {
                        if (auto rows = reason_rows_s(cx, g, {GpuMetric::reason_sw_thermal})) return Reading{*rows, nullptr};
                        return counter_s(cx, d, {&GpuDevice::clock_event_sw_thermal_us});
                      });
}

FeatureValue clock_event_hw_thermal_s(const FeatureContext& c, int gpu) {
  return device_value(c, gpu, HostAgg::kSum, kReasonSources,
                      [](const FeatureContext& cx, int g, const GpuDevice* d) -> std::optional<Reading> {
                        if (auto rows = reason_rows_s(cx, g, {GpuMetric::reason_hw_thermal})) return Reading{*rows, nullptr};
                        return counter_s(cx, d, {&GpuDevice::clock_event_hw_thermal_us});
                      });
}

FeatureValue clock_event_hw_power_brake_s(const FeatureContext& c, int gpu) {
  return device_value(c, gpu, HostAgg::kSum, kReasonSources,
                      [](const FeatureContext& cx, int g, const GpuDevice* d) -> std::optional<Reading> {
                        if (auto rows = reason_rows_s(cx, g, {GpuMetric::reason_hw_power_brake})) return Reading{*rows, nullptr};
                        return counter_s(cx, d, {&GpuDevice::clock_event_hw_power_brake_us});
                      });
}

FeatureValue gpu_ecc_volatile_uncorrected(const FeatureContext& c, int gpu) {
  return device_value(c, gpu, HostAgg::kSum, "volatile ECC counts (nvidia-smi -q `ECC Errors`, ECC enabled)",
                      [](const FeatureContext& cx, int, const GpuDevice* d) {
                        return over_reports(cx, d, Pick::kMost, [](const GpuDevice& x) { return x.ecc_volatile_uncorrected; });
                      });
}

FeatureValue gpu_ecc_aggregate_uncorrected(const FeatureContext& c, int gpu) {
  return device_value(c, gpu, HostAgg::kSum, "aggregate ECC counts (nvidia-smi -q `ECC Errors`, ECC enabled)",
                      [](const FeatureContext& cx, int, const GpuDevice* d) {
                        return over_reports(cx, d, Pick::kMost, [](const GpuDevice& x) { return x.ecc_aggregate_uncorrected; });
                      });
}

FeatureValue retired_pages(const FeatureContext& c, int gpu) {
  return device_value(c, gpu, HostAgg::kSum, "retired page counts (nvidia-smi -q `Retired Pages`; N/A on GPUs that remap rows)",
                      [](const FeatureContext& cx, int, const GpuDevice* d) {
                        return over_reports(cx, d, Pick::kMost, [](const GpuDevice& x) -> std::optional<double> {
                          if (!x.retired_pages_sbe && !x.retired_pages_dbe) return std::nullopt;
                          return x.retired_pages_sbe.value_or(0) + x.retired_pages_dbe.value_or(0);
                        });
                      });
}

FeatureValue row_remap_attention(const FeatureContext& c, int gpu) {
  return device_value(c, gpu, HostAgg::kSum, "row remapping state (nvidia-smi -q `Remapped Rows`, Ampere and newer)",
                      [](const FeatureContext& cx, int, const GpuDevice* d) {
                        // Any report with a remap pending or failed.
                        return over_reports(cx, d, Pick::kMost, [](const GpuDevice& x) -> std::optional<double> {
                          if (!x.row_remap_pending && !x.row_remap_failed) return std::nullopt;
                          return x.row_remap_pending.value_or(false) || x.row_remap_failed.value_or(false) ? 1.0 : 0.0;
                        });
                      });
}

FeatureValue gpu_thermal_margin_c(const FeatureContext& c, int gpu) {
  return device_value(c, gpu, HostAgg::kMin, "slowdown temperature (nvidia-smi -q `GPU Slowdown Temp` or T.Limit offsets)",
                      [](const FeatureContext& cx, int g, const GpuDevice* d) {
                        // The hottest sample, else the hottest report, against the slowdown point.
                        const auto* st = g >= 0 ? &cx.stats(g, GpuMetric::gpu_temp_c) : nullptr;
                        return over_reports(cx, d, Pick::kLeast, [&](const GpuDevice& x) -> std::optional<double> {
                          if (!x.temp_slowdown_c) return std::nullopt;
                          if (st && st->n) return *x.temp_slowdown_c - st->max;
                          if (x.temp_current_c) return *x.temp_slowdown_c - *x.temp_current_c;
                          return std::nullopt;
                        });
                      });
}

namespace {

// Distinct versions of one kind (VBIOS, GSP firmware) that every -q report of every file gave
// each GPU, in order: a GPU is its bus id (its index where no bus id is printed). The value is the
// most any GPU had; the evidence lists them per GPU.
FeatureValue versions_across_reports(const FeatureContext& c, int gpu,
                                     std::vector<std::string> GpuDevice::*versions_of, std::string_view line) {
  if (!c.has(LogSource::kDevices)) return null_because(std::string(missing_reason(LogSource::kDevices)));
  std::vector<std::pair<std::string, std::vector<std::string_view>>> per_gpu;
  std::string first_where;
  for (const auto& d : c.timeline.devices) {
    const auto& versions = d.*versions_of;
    if (versions.empty()) continue;
    if (gpu >= 0) {
      const auto k = std::find(c.gpus.begin(), c.gpus.end(), gpu) - c.gpus.begin();
      const GpuDevice* mine = static_cast<std::size_t>(k) < c.gpu_device.size() ? c.gpu_device[static_cast<std::size_t>(k)] : nullptr;
      const bool same = mine && (!mine->pci_bus.empty() ? d.pci_bus == mine->pci_bus : d.index == mine->index);
      if (!same) continue;
    }
    const std::string key = !d.pci_bus.empty() ? d.pci_bus : fmt::format("index {}", d.index.value_or(-1));
    auto it = std::find_if(per_gpu.begin(), per_gpu.end(), [&](const auto& p) { return p.first == key; });
    if (it == per_gpu.end()) {
      per_gpu.emplace_back(key, std::vector<std::string_view>{});
      it = per_gpu.end() - 1;
    }
    for (const auto& v : versions)
      if (std::find(it->second.begin(), it->second.end(), v) == it->second.end()) it->second.push_back(v);
    if (first_where.empty()) first_where = c.where(d.file, static_cast<std::int64_t>(d.line));
  }
  if (per_gpu.empty())
    return null_because(fmt::format("no `{}` in an nvidia-smi -q report for {}", line, FeatureContext::scope_label(gpu)));
  std::size_t most = 0;
  std::string list;
  for (const auto& [bus, vs_of_gpu] : per_gpu) {
    most = std::max(most, vs_of_gpu.size());
    std::string vs;
    for (auto v : vs_of_gpu) vs += fmt::format("{}{}", vs.empty() ? "" : " -> ", v);
    list += fmt::format("{}{}: {}", list.empty() ? "" : "; ", bus, vs);
  }
  return value(static_cast<double>(most), fmt::format("{} GPU(s); {}; first {}", per_gpu.size(), list, first_where));
}

}  // namespace

FeatureValue vbios_versions(const FeatureContext& c, int gpu) {
  return versions_across_reports(c, gpu, &GpuDevice::vbios_versions, "VBIOS Version");
}

FeatureValue gsp_firmware_versions(const FeatureContext& c, int gpu) {
  return versions_across_reports(c, gpu, &GpuDevice::gsp_firmware_versions, "GSP Firmware Version");
}

}  // namespace gpucost::features
