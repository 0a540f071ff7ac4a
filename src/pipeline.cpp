#include "gpucost/pipeline.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <system_error>
#include <thread>
#include <tuple>

#include "gpucost/align/zone.hpp"
#include "gpucost/cost/from_logs.hpp"

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

// Prices move: say so when the one used was observed long ago. Only the table (for people) shows
// it: the JSON and CSV carry the dates, not an age that would change with the day of the run.
std::vector<std::string> stale_prices(const cost::CostInputs& in) {
  std::vector<std::string> out;
  const auto today = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  const std::chrono::year_month_day ymd{today};
  const std::string now = fmt::format("{:04}-{:02}-{:02}", static_cast<int>(ymd.year()),
                                      static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
  auto check = [&](std::string_view what, const std::string& name, const std::string& observed, cost::InputId id) {
    if (name.empty() || !in[id].value || in[id].origin != "preset:" + name) return;
    if (observed.empty()) {
      out.push_back(fmt::format("the {} of {} has no date: check it, or give a dated one with --catalog FILE", what,
                                name));
      return;
    }
    const auto days = cost::days_between(observed, now);
    if (days && *days > cost::kStalePriceDays)
      out.push_back(fmt::format("the {} of {} was observed on {}, {} days ago (more than {}): prices move; refresh "
                                "it with --catalog FILE or give it as an option",
                                what, name, observed, *days, cost::kStalePriceDays));
  };
  check("purchase price", in.local_gpu, in.local_price_observed_on, cost::InputId::kPurchasePrice);
  check("hourly rate", in.cloud_offer, in.cloud_price_observed_on, cost::InputId::kHourlyRate);
  return out;
}

void run_ingest_and_align(const std::filesystem::path& input, const PipelineOptions& options, PipelineResult& out) {
  const IngestStage ingest(options.ingest);
  AlignOptions align_options = options.align;
  align_options.threads = options.ingest.threads;
  const AlignStage align(align_options);

  // Align asks for the machine's zone when the logs do not say theirs, and the first use of the
  // tz database lists /usr/share/zoneinfo (about 5 ms): that happens here, on a thread beside
  // ingest, so that align finds it done. The same call as align's, so nothing it answers changes.
  std::jthread zone_warm;
  if (align_options.tz.empty() && options.ingest.threads != 1) {
    try {
      zone_warm = std::jthread([]() noexcept {
        try {
          (void)Zone::system();
        } catch (...) {  // nothing warmed: align reads the database itself
        }
      });
    } catch (const std::system_error&) {  // no thread to spare: align reads the database itself
    }
  }

  auto t0 = std::chrono::steady_clock::now();
  ingest.run(input, out.ingest, out.diagnostics);
  StageTiming ti{"ingest", seconds_since(t0), out.ingest.bytes, out.ingest.lines, peak_rss_bytes()};
  out.timings.push_back(ti);
  spdlog::info("ingest: {} files, {} lines, {:.1f} MB in {:.3f} s ({:.0f} MB/s, {:.1f} M lines/s); peak RSS {:.0f} MiB",
               out.ingest.files.size(), ti.rows, ti.bytes / 1e6, ti.seconds,
               ti.seconds > 0 ? ti.bytes / 1e6 / ti.seconds : 0.0, ti.seconds > 0 ? ti.rows / 1e6 / ti.seconds : 0.0,
               ti.peak_rss_bytes / 1048576.0);

  t0 = std::chrono::steady_clock::now();
  // The tables move into the timeline instead of being copied: held once, not twice.
  align.run_consuming(out.ingest, out.timeline, out.diagnostics);
  const Timeline& tl = out.timeline;
  StageTiming ta{"align", seconds_since(t0), 0, tl.samples.rows() + tl.events.rows() + tl.processes.rows(),
                 peak_rss_bytes()};
  out.timings.push_back(ta);
  spdlog::info("align: {} samples, {} events, {} process rows in {:.3f} s; peak RSS {:.0f} MiB", tl.samples.rows(),
               tl.events.rows(), tl.processes.rows(), ta.seconds, ta.peak_rss_bytes / 1048576.0);
  spdlog::debug("tables hold {:.1f} MB of samples ({:.1f} B/row), {:.1f} MB of events, {:.1f} MB of process rows ({:.1f} B/row)",
                tl.samples.memory_bytes() / 1e6,
                tl.samples.rows() ? static_cast<double>(tl.samples.memory_bytes()) / static_cast<double>(tl.samples.rows()) : 0.0,
                tl.events.memory_bytes() / 1e6, tl.processes.memory_bytes() / 1e6,
                tl.processes.rows() ? static_cast<double>(tl.processes.memory_bytes()) / static_cast<double>(tl.processes.rows()) : 0.0);
}

}  // namespace

std::shared_ptr<const cost::CostResult> run_cost(const CostSetup& setup, const Timeline* timeline,
                                                 const FeatureSet* features) {
  cost::ResolveRequest rq = setup.request;
  if (timeline) {
    rq.detected_gpus = cost::named_gpus(*timeline);
    rq.detected_power_limits_w = cost::power_limits(*timeline);
    rq.mig_slice = cost::mig_slice(*timeline);
    rq.logs_read = true;
  }
  if (features) rq.measured = cost::measured_from_features(*features, setup.measured);
  if (timeline && features) {
    if (setup.measured) rq.usage = cost::measure_usage(*timeline, *features, rq.min_usage_span_days);
    std::tie(rq.gpu_count, rq.gpu_count_note) = cost::gpu_count(*timeline, *features);
  }
  cost::CostQuery q;
  const cost::CostInputs in = cost::resolve_inputs(setup.catalog, rq, &q);
  auto result = std::make_shared<cost::CostResult>(cost::evaluate(in, q));
  result->price_warnings = stale_prices(in);
  return result;
}

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
    out.cost = run_cost(*options.cost, &out.timeline, &out.features);
    out.timings.push_back({"cost", seconds_since(t0), 0, 0, peak_rss_bytes()});
    spdlog::info("cost: {:.3f} s", out.timings.back().seconds);
  }

  // What the logs say to do, after features and cost (docs/findings.md).
  t0 = std::chrono::steady_clock::now();
  out.findings = findings::find(out.timeline, out.features, out.cost.get(), options.findings);
  out.timings.push_back({"findings", seconds_since(t0), 0, out.findings.size(), peak_rss_bytes()});
}

}  // namespace gpucost
