#include "features/context.hpp"

#include <algorithm>

namespace gpucost::features {

FeatureContext::FeatureContext(const Timeline& t, const FeatureOptions& o) : timeline(t), options(o) {
  const Table& s = t.samples;
  const Column& gpu = s.column(sample_col::gpu);
  for (std::size_t r = 0; r < s.rows(); ++r) {
    if (!s.ts().is_valid(r)) continue;
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
  // Keep GPUs in index order, so per-GPU output is stable.
  std::vector<std::size_t> order(gpus.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return gpus[a] < gpus[b]; });
  std::vector<int> g2;
  std::vector<std::vector<std::uint32_t>> r2;
  for (auto i : order) {
    g2.push_back(gpus[i]);
    r2.push_back(std::move(gpu_rows[i]));
  }
  gpus = std::move(g2);
  gpu_rows = std::move(r2);
}

const std::vector<std::uint32_t>& FeatureContext::rows(int gpu) const {
  if (gpu < 0) return all_rows_;
  for (std::size_t k = 0; k < gpus.size(); ++k)
    if (gpus[k] == gpu) return gpu_rows[k];
  static const std::vector<std::uint32_t> kEmpty;
  return kEmpty;
}

}  // namespace gpucost::features
