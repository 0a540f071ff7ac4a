#include "gpucost/pipeline/pipeline.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <tuple>

#include "gpucost/align/zone.hpp"
#include "gpucost/parallel.hpp"

namespace gpucost {

std::uint64_t peak_rss_bytes() noexcept {
  struct rusage ru {};
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return static_cast<std::uint64_t>(ru.ru_maxrss) * 1024;  // Linux reports KiB
}

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void run_ingest_and_align(const std::filesystem::path& input, const PipelineOptions& options, PipelineResult& out) {
  const IngestStage ingest(options.ingest);
  AlignOptions align_options = options.align;
  align_options.threads = options.ingest.threads;
  const AlignStage align(align_options);

  // Align asks for the machine's zone when the logs do not say theirs, and the first use of the
  // tz database lists /usr/share/zoneinfo (about 5 ms): that happens here, on a thread beside
  // ingest, so that align finds it done. The same call as align's, so nothing it answers changes.
  auto warm_zone = [&align_options]() noexcept {
    if (!align_options.tz.empty()) return;
    try {
      (void)Zone::system();
    } catch (...) {  // nothing warmed: align reads the database itself
    }
  };
  Beside zone_warm(options.ingest.threads, align_options.tz.empty(), warm_zone);

  auto t0 = std::chrono::steady_clock::now();
  ingest.run(input, out.ingest, out.diagnostics);
  StageTiming ti{"ingest", seconds_since(t0), out.ingest.bytes, out.ingest.lines, peak_rss_bytes()};
  out.timings.push_back(ti);
  spdlog::info("ingest: {} files, {} lines, {:.1f} MB in {:.3f} s ({:.0f} MB/s, {:.1f} M lines/s); peak RSS {:.0f} MiB",
               out.ingest.files.size(), ti.rows, ti.bytes / 1e6, ti.seconds,
               ti.seconds > 0 ? ti.bytes / 1e6 / ti.seconds : 0.0, ti.seconds > 0 ? ti.rows / 1e6 / ti.seconds : 0.0,
               ti.peak_rss_bytes / 1048576.0);

  zone_warm.finish();
  t0 = std::chrono::steady_clock::now();
  // The tables move into the timeline instead of being copied: held once, not twice.
  align.run_consuming(out.ingest, out.timeline, out.diagnostics);
  const Timeline& tl = out.timeline;
  StageTiming ta{"align", seconds_since(t0), 0, tl.samples.rows() + tl.events.rows() + tl.processes.rows(),
                 peak_rss_bytes()};
  out.timings.push_back(ta);
  spdlog::info("align: {} samples, {} events, {} process rows in {:.3f} s; peak RSS {:.0f} MiB", tl.samples.rows(),
               tl.events.rows(), tl.processes.rows(), ta.seconds, ta.peak_rss_bytes / 1048576.0);
  spdlog::debug(
      "tables hold {:.1f} MB of samples ({:.1f} B/row), {:.1f} MB of events, {:.1f} MB of process rows ({:.1f} B/row)",
      tl.samples.memory_bytes() / 1e6,
      tl.samples.rows() ? static_cast<double>(tl.samples.memory_bytes()) / static_cast<double>(tl.samples.rows()) : 0.0,
      tl.events.memory_bytes() / 1e6, tl.processes.memory_bytes() / 1e6,
      tl.processes.rows() ? static_cast<double>(tl.processes.memory_bytes()) / static_cast<double>(tl.processes.rows())
                          : 0.0);
}

}  // namespace

void run_pipeline(const std::filesystem::path& input, const PipelineOptions& options, PipelineResult& out,
                  PipelineStage last) {
  run_ingest_and_align(input, options, out);
  if (last == PipelineStage::kAlign) return;

  auto t0 = std::chrono::steady_clock::now();
  FeatureStage(options.features, options.ingest.threads).run(out.timeline, out.features);
  out.timings.push_back({"features", seconds_since(t0), 0, out.features.host.size(), peak_rss_bytes()});
  spdlog::info("features: {} in {:.3f} s; peak RSS {:.0f} MiB", out.features.host.size(), out.timings.back().seconds,
               out.timings.back().peak_rss_bytes / 1048576.0);
  if (last == PipelineStage::kFeatures || out.diagnostics.usable_files() == 0) return;

  if (options.cost) {
    t0 = std::chrono::steady_clock::now();
    out.cost = cost::CostStage(*options.cost).run(&out.timeline, &out.features);
    out.timings.push_back({"cost", seconds_since(t0), 0, 0, peak_rss_bytes()});
    spdlog::info("cost: {:.3f} s", out.timings.back().seconds);
  }

  // What the logs say to do, after features and cost (docs/findings.md).
  t0 = std::chrono::steady_clock::now();
  out.findings = findings::find(out.timeline, out.features, out.cost.get(), options.findings);
  out.timings.push_back({"findings", seconds_since(t0), 0, out.findings.size(), peak_rss_bytes()});
}

}  // namespace gpucost
