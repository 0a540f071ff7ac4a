// The feature stage: computes every catalog row (catalog.cpp) for the host and each GPU, on a
// pool of threads when the timeline is large. The values are the same for any thread count.
#include <algorithm>
#include <thread>
#include <vector>

#include "features/catalog_rows.hpp"
#include "features/compute.hpp"
#include "gpucost/features/features.hpp"
#include "gpucost/parallel.hpp"

namespace gpucost {

using namespace features;

const FeatureValue* FeatureSet::find(FeatureId id) const noexcept {
  const std::size_t i = feature_slot(id);
  return i < host.size() ? &host[i] : nullptr;
}

const FeatureValue* FeatureSet::find_gpu(int gpu, FeatureId id) const noexcept {
  const std::size_t i = feature_slot(id);
  for (std::size_t k = 0; k < gpus.size(); ++k)
    if (gpus[k] == gpu) return i < per_gpu[k].size() ? &per_gpu[k][i] : nullptr;
  return nullptr;
}

std::optional<double> FeatureSet::get(FeatureId id) const noexcept {
  const FeatureValue* v = find(id);
  return v ? v->value : std::nullopt;
}

const FeatureValue* FeatureSet::find(std::string_view name_or_id) const noexcept {
  const auto i = feature_index(name_or_id);
  return i == kNoFeature || i >= host.size() ? nullptr : &host[i];
}

const FeatureValue* FeatureSet::find_gpu(int gpu, std::string_view name_or_id) const noexcept {
  const auto i = feature_index(name_or_id);
  for (std::size_t k = 0; k < gpus.size(); ++k)
    if (gpus[k] == gpu) return i == kNoFeature || i >= per_gpu[k].size() ? nullptr : &per_gpu[k][i];
  return nullptr;
}

void FeatureStage::run(const Timeline& timeline, FeatureSet& out) const {
  unsigned threads = threads_ ? threads_ : std::max(1u, std::thread::hardware_concurrency());
  // Without samples, features are cheap: threads would cost more than they save.
  if (timeline.samples.rows() + timeline.processes.rows() < 100'000) threads = 1;
  const FeatureContext ctx(timeline, options_, threads);
  out.options = options_;
  out.gpus = ctx.gpus;
  const std::size_t n = feature_count(), scopes = ctx.gpus.size() + 1;
  out.host.assign(n, FeatureValue{});
  out.per_gpu.assign(ctx.gpus.size(), std::vector<FeatureValue>(n));
  // One task per feature and scope, each writing its own slot: the values are the same whatever
  // the number of threads and whichever thread computes them. Scope by scope: the tasks running
  // at once are then different features of one scope, not one feature of two scopes. Those would
  // ask for the same memo at the same time (the host of a one-GPU machine and its GPU are the
  // same rows), and both compute it.
  auto task = [&](std::size_t t) {
    const std::size_t feature = t % n, s = t / n;
    if (s == 0) out.host[feature] = compute_host_feature(feature, ctx);
    else out.per_gpu[s - 1][feature] = compute_gpu_feature(feature, ctx, ctx.gpus[s - 1]);
  };
  for_each_task(n * scopes, threads, task);
  // A GPU several processes shared: each one's estimated part of its busy time (issue 38).
  std::vector<std::optional<double>> busy(ctx.gpus.size());
  const std::size_t busy_index = static_cast<std::size_t>(FeatureId::gpu_busy_s);
  for (std::size_t k = 0; k < ctx.gpus.size(); ++k) busy[k] = out.per_gpu[k][busy_index].value;
  out.shared_gpus = process_shares(ctx, busy);
}

}  // namespace gpucost
