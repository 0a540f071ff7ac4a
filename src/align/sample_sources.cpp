// One source of GPU samples per GPU at a time: collect-logs.sh runs nvidia-smi dmon and
// --query-gpu side by side, and counting both would double every time and energy sum.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "align/internal.hpp"

namespace gpucost::align_detail {

namespace {

// The format's registered sample priority: dmon first (it has the violation counters and
// clocks), then --query-gpu (GPUCOST_FORMATS in records/formats.hpp).
int format_rank(FormatId f) { return format_info(f).sample_priority; }

struct SourceSpan {
  std::uint32_t file = 0;
  std::uint64_t rows = 0, dropped = 0;
  TimeNs lo = 0, hi = 0;          // [first ts, last ts + interval)
  std::uint32_t covered_by = 0;   // the file whose span covered the first dropped row
};

}  // namespace

void drop_overlapping_sample_sources(const IngestResult& in, Table& sa, Diagnostics& diag) {
  // Most directories have one file of samples: nothing can overlap, and nothing is read.
  std::size_t sample_files = 0;
  for (const auto& f : in.files) sample_files += format_samples_gpus(f.format);
  if (sample_files < 2) return;
  const Column& ts = sa.column(sample_col::ts_ns);
  const Column& files = sa.column(sample_col::file);
  const Column& gpus = sa.column(sample_col::gpu);
  const Column& interval = sa.column(sample_col::interval_ns);
  // Each GPU's sources and the span each covers. Rows come in time order, GPUs interleaved: a
  // short list found with the last hit first costs less per row than a map.
  struct GpuSources {
    std::int64_t gpu;
    std::vector<SourceSpan> spans;
  };
  std::vector<GpuSources> by_gpu;
  std::size_t last = 0;
  auto sources_of = [&](std::int64_t gpu) -> std::vector<SourceSpan>& {
    if (last < by_gpu.size() && by_gpu[last].gpu == gpu) return by_gpu[last].spans;
    for (last = 0; last < by_gpu.size(); ++last)
      if (by_gpu[last].gpu == gpu) return by_gpu[last].spans;
    by_gpu.push_back({gpu, {}});
    return by_gpu[last].spans;
  };
  for (std::size_t r = 0; r < sa.rows(); ++r) {
    const auto file = static_cast<std::uint32_t>(files.get_int(r));
    const std::int64_t gpu = gpus.is_valid(r) ? gpus.get_int(r) : -1;
    const TimeNs t = ts.get_int(r), end = t + (interval.is_valid(r) ? interval.get_int(r) : 0);
    auto& spans = sources_of(gpu);
    auto it = std::find_if(spans.begin(), spans.end(), [&](const SourceSpan& s) { return s.file == file; });
    if (it == spans.end()) {
      spans.push_back({file, 1, 0, t, end, 0});
    } else {
      ++it->rows;
      it->lo = std::min(it->lo, t);
      it->hi = std::max(it->hi, end);
    }
  }
  bool any = false;
  std::sort(by_gpu.begin(), by_gpu.end(), [](const GpuSources& a, const GpuSources& b) { return a.gpu < b.gpu; });
  last = 0;
  for (auto& [gpu, spans] : by_gpu) {
    if (spans.size() < 2) continue;
    std::sort(spans.begin(), spans.end(), [&](const SourceSpan& a, const SourceSpan& b) {
      const int ra = format_rank(in.files[a.file].format), rb = format_rank(in.files[b.file].format);
      if (ra != rb) return ra < rb;
      if (a.rows != b.rows) return a.rows > b.rows;
      return a.file < b.file;
    });
    for (std::size_t i = 1; i < spans.size() && !any; ++i)
      for (std::size_t j = 0; j < i && !any; ++j) any = spans[i].lo < spans[j].hi && spans[j].lo < spans[i].hi;
  }
  if (!any) return;

  // A row is dropped when a preferred source of its GPU (another file) covers its instant.
  std::vector<std::uint32_t> keep;
  keep.reserve(sa.rows());
  for (std::size_t r = 0; r < sa.rows(); ++r) {
    const auto file = static_cast<std::uint32_t>(files.get_int(r));
    auto& spans = sources_of(gpus.is_valid(r) ? gpus.get_int(r) : -1);
    const TimeNs t = ts.get_int(r);
    const SourceSpan* cover = nullptr;
    for (auto& s : spans) {
      if (s.file == file) {
        if (!cover) break;
        if (s.dropped++ == 0) s.covered_by = cover->file;
        break;
      }
      if (!cover && t >= s.lo && t < s.hi) cover = &s;
    }
    if (!cover) keep.push_back(static_cast<std::uint32_t>(r));
  }
  sa.permute(keep);
  for (const auto& [gpu, spans] : by_gpu)
    for (const auto& s : spans) {
      if (!s.dropped) continue;
      diag.notes.push_back(fmt::format(
          "GPU {}: {} of {} sample rows of {} ({}) lie in the span that {} ({}) covers and were not counted twice "
          "(one source per GPU at a time: dmon first, then --query-gpu, then the file with more rows)",
          gpu < 0 ? std::string("without an index") : std::to_string(gpu), s.dropped, s.rows, in.files[s.file].path,
          format_name(in.files[s.file].format), in.files[s.covered_by].path,
          format_name(in.files[s.covered_by].format)));
    }
}

}  // namespace gpucost::align_detail
