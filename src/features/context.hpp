#pragma once
// What every feature computation reads: the timeline plus indexes built once per run (rows per
// GPU, events per kind, the GPU each event names, which log sources exist, the host's sampled
// coverage) and a cache of per-metric statistics, so each feature is a lookup or one pass.

#ifndef GPUCOST_LAYER_FEATURES
#error "gpucost_features header: include it only in gpucost_features or a layer above it (docs/architecture.md, Layers)"
#endif

#include <array>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpucost/features/features.hpp"
#include "gpucost/table/big_buffer.hpp"

namespace gpucost::features {

/// Sample rows of a scope, in time order: millions of them, in huge pages (big_buffer).
using RowList = std::vector<std::uint32_t, big_buffer::Allocator<std::uint32_t>>;

/// Statistics of one GPU metric over the rows of a scope that report it.
struct MetricStats {
  std::size_t n = 0;           ///< rows with a value
  double sum = 0;              ///< Σ value
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  double weighted = 0;         ///< Σ value × interval_s
  double covered_s = 0;        ///< Σ interval_s of the rows with a value
  std::uint32_t first_row = 0; ///< first row (in time order) with a value
  double mean() const noexcept { return n ? sum / static_cast<double>(n) : 0.0; }
};

/// Families of logs a feature can need; a feature whose family is absent is null.
enum class LogSource : std::uint8_t {
  kKernel,   ///< dmesg, kern.log/syslog, journal (kernel messages, NVRM, ACPI, PM)
  kService,  ///< syslog or journal (daemons: dockerd, cron, systemd units)
  kPs,       ///< ps snapshots
  kPmon,     ///< nvidia-smi pmon
  kSmiQ,    ///< nvidia-smi -q (devices: PCIe link, limits)
  kDevices,  ///< nvidia-smi -q or --query-gpu (anything that fills Timeline::devices)
  kProfiler, ///< PyTorch profiler traces
};

/// The reason text used when a family of logs is absent.
std::string_view missing_reason(LogSource s) noexcept;

/// A contiguous group of process rows: one ps snapshot, or one GPU's rows of one pmon interval.
struct ProcessGroup {
  std::uint32_t begin = 0, end = 0;  ///< range in FeatureContext::process_order
  int gpu = -1;                      ///< pmon GPU index; -1 for ps
};

/// Row indexes in some order; the identity (0, 1, 2 ...) is held without a list.
class RowOrder {
 public:
  std::uint32_t operator[](std::size_t i) const noexcept { return rows_.empty() ? static_cast<std::uint32_t>(i) : rows_[i]; }
  std::size_t size() const noexcept { return size_; }
  /// The identity order of n rows.
  void identity(std::size_t n) {
    rows_.clear();
    size_ = n;
  }
  /// An explicit order.
  void assign(std::vector<std::uint32_t> rows) {
    rows_ = std::move(rows);
    size_ = rows_.size();
  }

 private:
  std::vector<std::uint32_t> rows_;
  std::size_t size_ = 0;
};

/// The timeline and the indexes shared by all feature computations.
struct FeatureContext {
  const Timeline& timeline;
  const FeatureOptions& options;
  /// GPU indices: those in the samples plus those of devices with a known index, ascending; when
  /// there are none and the NVIDIA kernel messages name a single PCI address, {0}.
  std::vector<int> gpus;
  bool gpu_named_by_kernel = false;  ///< gpus is {0} from the kernel messages alone
  std::vector<RowList> gpu_rows;  ///< sample rows of gpus[k], in time order
  /// Event rows of each kind, in table order (placed ones by time, unplaced ones last).
  std::array<std::vector<std::uint32_t>, kEventKindCount> events_by_kind;
  /// Per event row: the GPU index the message names (PCI address or index), or -1.
  std::vector<int> event_gpu;
  /// Per GPU in `gpus`: its device record, or nullptr.
  std::vector<const GpuDevice*> gpu_device;
  /// Host sampled coverage: the union of [ts, ts + interval) over all rows, merged, sorted.
  std::vector<std::pair<TimeNs, TimeNs>> host_coverage;
  /// Placed boot events, ascending.
  std::vector<TimeNs> boot_ts;
  /// Earliest and latest placed event instant; kNoTime when none.
  TimeNs events_first = kNoTime, events_last = kNoTime;
  /// Observation window: earliest placed sample or event .. latest sample end or event.
  TimeNs window_begin = kNoTime, window_end = kNoTime;
  /// ps snapshots and pmon intervals: process_order holds row indexes grouped by
  /// (ps/pmon, file, snapshot, gpu); groups index ranges of it.
  RowOrder process_order;
  std::vector<ProcessGroup> ps_groups, pmon_groups;

  /// With threads > 1 and many process rows, the process groups are made on a thread of their
  /// own beside the rest of the context (the same context either way).
  FeatureContext(const Timeline& t, const FeatureOptions& o, unsigned threads = 1);
  FeatureContext(const FeatureContext&) = delete;
  FeatureContext& operator=(const FeatureContext&) = delete;

  /// Sample rows for a scope: one GPU (gpu >= 0) or all (gpu < 0), in time order.
  const RowList& rows(int gpu) const;
  /// Whether a family of logs is among the input files.
  bool has(LogSource s) const noexcept;
  /// Whether a file of a format registered with this trait (GPUCOST_FORMATS) was read.
  bool has_format_trait(FormatTrait t) const noexcept { return (traits_present_ & t) != 0; }
  /// Whether a file of a format that writes GPU samples (dmon, --query-gpu) was read.
  bool has_sample_format() const noexcept { return sample_format_present_; }

  /// Statistics of a metric in a scope (computed once, then cached).
  const MetricStats& stats(int gpu, GpuMetric m) const;
  /// The result of a per-row helper for a scope, computed once per scope and helper: scopes
  /// that are the same rows (the host of a one-GPU machine and its GPU) share it. `helper` names
  /// the helper (and its arguments); compute() must read only the scope's rows and the options.
  template <class T, class F>
  const T& memo(int helper, int gpu, F compute) const {
    const std::pair<int, int> key{helper, memo_scope(gpu)};
    {
      const std::lock_guard lock(memo_mutex_);
      if (auto it = memo_.find(key); it != memo_.end()) return *static_cast<const T*>(it->second.get());
    }
    auto value = std::make_shared<const T>(compute());  // outside the lock: another thread may too
    const std::lock_guard lock(memo_mutex_);
    auto it = memo_.emplace(key, std::move(value)).first;  // the first one stored wins; they are equal
    return *static_cast<const T*>(it->second.get());
  }

  // Column shortcuts.
  const Column& sample_ts() const noexcept { return timeline.samples.ts(); }
  const Column& metric(GpuMetric m) const noexcept { return timeline.samples.column(sample_metric_col(m)); }
  TimeNs sample_time(std::uint32_t r) const noexcept { return ts_reader_.get_int(r); }
  TimeNs sample_interval(std::uint32_t r) const noexcept { return interval_reader_.get_int(r); }
  bool event_placed(std::uint32_t r) const noexcept { return timeline.events.ts().is_valid(r); }
  TimeNs event_time(std::uint32_t r) const noexcept { return timeline.events.ts().get_int(r); }
  /// Events the row stands for: 1, or the count of a run of one message repeated within a
  /// second (RepeatRuns). Counting features add it up instead of counting rows.
  std::uint64_t event_repeat(std::uint32_t r) const noexcept { return gpucost::event_repeat(timeline.events, r); }
  /// Adds row r's events (event_repeat) to n, and notes r as `first` when it is the first.
  void count_event(std::uint32_t r, std::size_t& n, std::uint32_t& first) const noexcept {
    if (n == 0) first = r;
    n += event_repeat(r);
  }
  /// The event's code, or nullopt.
  std::optional<std::int64_t> event_code(std::uint32_t r) const noexcept;
  std::string_view event_text(std::uint32_t r) const noexcept {
    return timeline.events.column(event_col::text).get_string(r);
  }

  /// `path:line` of a file index and line.
  std::string where(std::int64_t file, std::int64_t line) const;
  /// `path:line` of a sample row.
  std::string sample_where(std::uint32_t r) const;
  /// `path:line` of an event row (its first copy).
  std::string event_where(std::uint32_t r) const;
  /// `path:line` of a process row.
  std::string process_where(std::uint32_t r) const;

  /// Host sampled seconds: length of host_coverage.
  double host_sampled_s() const noexcept { return host_sampled_s_; }
  /// Seconds of [a, b) not covered by any sample row (host coverage).
  TimeNs uncovered_ns(TimeNs a, TimeNs b) const noexcept;
  /// Index in `gpus` of a GPU index, or -1.
  int gpu_slot(int gpu) const noexcept;
  /// The scope label used in reasons: `GPU 1`, or `any GPU` for the host.
  static std::string scope_label(int gpu);

 private:
  // The constructor's steps, in order.
  void note_formats();
  void collect_gpus();
  void add_gpu_named_by_kernel();
  void attach_devices();
  void measure_host_coverage();
  void index_events();
  void widen_window();
  void group_processes();

  ColumnReader ts_reader_, interval_reader_;  // of the samples: read in most feature loops
  RowList all_rows_;
  int all_rows_are_gpu_ = -1;  // k when all rows are gpu_rows[k] (one GPU): all_rows_ is not made
  unsigned traits_present_ = 0;       // FormatTrait bits of the formats read
  bool sample_format_present_ = false;
  double host_sampled_s_ = 0;
  // Cache slot of (scope, metric); scopes that are the same rows share a slot. Slots are filled
  // once, also when features are computed on several threads.
  std::size_t cache_slot(int gpu, GpuMetric m) const noexcept;
  mutable std::vector<std::optional<MetricStats>> stats_cache_;
  mutable std::unique_ptr<std::once_flag[]> stats_once_;
  int memo_scope(int gpu) const noexcept;
  mutable std::mutex memo_mutex_;
  mutable std::map<std::pair<int, int>, std::shared_ptr<const void>> memo_;
};

/// A value.
inline FeatureValue value(double v, std::string evidence = {}) { return FeatureValue{v, {}, std::move(evidence)}; }
/// A null with its reason.
inline FeatureValue null_because(std::string reason) { return FeatureValue{std::nullopt, std::move(reason), {}}; }

/// Seconds of a nanosecond count.
inline double seconds(TimeNs ns) noexcept { return static_cast<double>(ns) / static_cast<double>(kNsPerSec); }

}  // namespace gpucost::features
