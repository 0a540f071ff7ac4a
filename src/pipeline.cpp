#include "gpucost/pipeline.hpp"

#include <spdlog/spdlog.h>

#include <chrono>

namespace gpucost {

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

void run_pipeline(const std::filesystem::path& input, const PipelineOptions& options, PipelineResult& out,
                  bool with_features) {
  const IngestStage ingest(options.ingest);
  const AlignStage align(options.align);

  auto t0 = std::chrono::steady_clock::now();
  ingest.run(input, out.ingest, out.diagnostics);
  StageTiming ti{"ingest", seconds_since(t0), out.ingest.bytes, out.ingest.lines};
  out.timings.push_back(ti);
  spdlog::info("ingest: {} files, {} lines, {:.1f} MB in {:.3f} s ({:.0f} MB/s)", out.ingest.files.size(),
               ti.rows, ti.bytes / 1e6, ti.seconds, ti.seconds > 0 ? ti.bytes / 1e6 / ti.seconds : 0.0);

  t0 = std::chrono::steady_clock::now();
  align.run(out.ingest, out.timeline, out.diagnostics);
  StageTiming ta{"align", seconds_since(t0), 0,
                 out.timeline.samples.rows() + out.timeline.events.rows() + out.timeline.processes.rows()};
  out.timings.push_back(ta);
  spdlog::info("align: {} samples, {} events, {} process rows in {:.3f} s", out.timeline.samples.rows(),
               out.timeline.events.rows(), out.timeline.processes.rows(), ta.seconds);

  if (!with_features) return;
  t0 = std::chrono::steady_clock::now();
  FeatureStage(options.features).run(out.timeline, out.features);
  out.timings.push_back({"features", seconds_since(t0), 0, out.features.host.size()});
  spdlog::info("features: {} in {:.3f} s", out.features.host.size(), out.timings.back().seconds);
}

}  // namespace gpucost
