#include <fmt/format.h>

#include <cmath>

#include "features/context.hpp"

namespace gpucost {

namespace features {
namespace {

FeatureValue gpu_samples(const FeatureContext& c, int gpu) {
  const auto& rows = c.rows(gpu);
  if (rows.empty()) return null_because("no GPU samples (dmon or --query-gpu)");
  return value(static_cast<double>(rows.size()));
}

FeatureValue gpu_util_mean(const FeatureContext& c, int gpu) {
  const Column& sm = c.timeline.samples.column(sample_metric_col(GpuMetric::sm_pct));
  double sum = 0;
  std::size_t n = 0;
  for (auto r : c.rows(gpu))
    if (sm.is_valid(r)) {
      sum += sm.get_float(r);
      ++n;
    }
  if (n == 0) return null_because("no samples with SM utilization");
  return value(sum / static_cast<double>(n));
}

FeatureValue gpu_idle_fraction(const FeatureContext& c, int gpu) {
  const Column& sm = c.timeline.samples.column(sample_metric_col(GpuMetric::sm_pct));
  std::size_t idle = 0, n = 0;
  for (auto r : c.rows(gpu))
    if (sm.is_valid(r)) {
      ++n;
      if (sm.get_float(r) <= c.options.idle_threshold_pct) ++idle;
    }
  if (n == 0) return null_because("no samples with SM utilization");
  return value(static_cast<double>(idle) / static_cast<double>(n));
}

FeatureValue xid_events(const FeatureContext& c, int) {
  const Table& e = c.timeline.events;
  bool kernel_source = false;
  for (const auto& f : c.timeline.files)
    if (f.format == FormatId::dmesg || f.format == FormatId::syslog || f.format == FormatId::journal_short ||
        f.format == FormatId::journal_json || f.format == FormatId::journal_export)
      kernel_source = true;
  if (!kernel_source) return null_because("no kernel log (dmesg, kern.log, journal)");
  std::size_t n = 0;
  for (std::size_t r = 0; r < e.rows(); ++r)
    if (static_cast<EventKind>(e.column(event_col::kind).get_int(r)) == EventKind::xid) ++n;
  return value(static_cast<double>(n));
}

}  // namespace
}  // namespace features

namespace {
struct Entry {
  FeatureDef def;
  features::ComputeFn compute;
};

constexpr Entry kCatalog[] = {
    {{"F001", "gpu_util_mean_pct", "%", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Mean SM utilization over the samples that report it."},
     features::gpu_util_mean},
    {{"F002", "gpu_idle_fraction", "ratio", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Share of samples whose SM utilization is at or below --idle-threshold (default 5 %)."},
     features::gpu_idle_fraction},
    {{"F003", "gpu_samples", "count", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Number of GPU sample rows."},
     features::gpu_samples},
    {{"F004", "xid_events", "count", Layer::driver, FeatureScope::host, "dmesg|syslog|journal",
      "Distinct NVIDIA Xid events (one event read from several logs counts once)."},
     features::xid_events},
};
}  // namespace

std::string_view layer_name(Layer l) noexcept {
  switch (l) {
    case Layer::hardware: return "hardware";
    case Layer::driver: return "driver";
    case Layer::runtime: return "runtime";
    case Layer::application: return "application";
    case Layer::system: return "system";
    case Layer::derived: return "derived";
  }
  return "?";
}

std::span<const FeatureDef> feature_catalog() {
  static const std::vector<FeatureDef> defs = [] {
    std::vector<FeatureDef> d;
    for (const auto& e : kCatalog) d.push_back(e.def);
    return d;
  }();
  return defs;
}

std::size_t feature_index(std::string_view name_or_id) noexcept {
  for (std::size_t i = 0; i < std::size(kCatalog); ++i)
    if (kCatalog[i].def.id == name_or_id || kCatalog[i].def.name == name_or_id) return i;
  return kNoFeature;
}

const FeatureValue* FeatureSet::find(std::string_view name_or_id) const noexcept {
  const auto i = feature_index(name_or_id);
  return i == kNoFeature || i >= host.size() ? nullptr : &host[i];
}

void FeatureStage::run(const Timeline& timeline, FeatureSet& out) const {
  const features::FeatureContext ctx(timeline, options_);
  out.options = options_;
  out.host.clear();
  out.gpus = ctx.gpus;
  out.per_gpu.assign(ctx.gpus.size(), {});
  for (const auto& e : kCatalog) {
    out.host.push_back(e.compute(ctx, -1));
    for (std::size_t k = 0; k < ctx.gpus.size(); ++k)
      out.per_gpu[k].push_back(e.def.scope == FeatureScope::per_gpu ? e.compute(ctx, ctx.gpus[k])
                                                                    : FeatureValue{std::nullopt, "host feature", {}});
  }
}

}  // namespace gpucost
