#pragma once
// Builds Timelines by hand for feature tests, in the shape align produces (timeline.hpp,
// records.hpp): samples sorted by (ts, gpu) with interval_ns on every row, events sorted by ts with
// unplaced ones last and one origin each, process rows sorted by (ts, snapshot, pid).

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <cmath>

#include "gpucost/align/timeline.hpp"
#include "gpucost/features/features.hpp"

namespace gpucost::test {

/// 2026-11-29T12:00:00Z: the instant tests count from.
inline constexpr TimeNs kT0 = civil_to_ns(CivilTime{2026, 11, 29, 12, 0, 0, 0});
/// kT0 + s seconds.
inline constexpr TimeNs at(double s) { return kT0 + static_cast<TimeNs>(s * kNsPerSec); }

using Metrics = std::initializer_list<std::pair<GpuMetric, double>>;

class TimelineBuilder {
 public:
  /// Adds an input file; returns its index.
  std::uint32_t file(std::string path, FormatId format) {
    InputFile f;
    f.path = std::move(path);
    f.abs_path = "/logs/" + f.path;
    f.format = format;
    tl_.files.push_back(std::move(f));
    next_line_.push_back(1);
    return static_cast<std::uint32_t>(tl_.files.size() - 1);
  }

  /// One GPU sample row covering [ts, ts + interval).
  TimelineBuilder& sample(std::uint32_t file, TimeNs ts, int gpu, Metrics metrics, TimeNs interval = kNsPerSec) {
    Sample s{ts, gpu, interval, file, next_line(file), {}};
    for (auto& v : s.values) v.reset();
    for (const auto& [m, v] : metrics) s.values[static_cast<std::size_t>(m)] = v;
    samples_.push_back(s);
    return *this;
  }

  /// Rows every `step` seconds from `from` for `n` rows, each with the same metrics.
  TimelineBuilder& samples(std::uint32_t file, double from, int n, int gpu, Metrics metrics, double step = 1.0) {
    for (int i = 0; i < n; ++i)
      sample(file, at(from + i * step), gpu, metrics, static_cast<TimeNs>(step * kNsPerSec));
    return *this;
  }

  /// One event; ts = kNoTime for an event align could not place.
  TimelineBuilder& event(std::uint32_t file, TimeNs ts, EventKind kind, std::optional<std::int64_t> code = {},
                         std::string gpu = {}, std::string text = {}, TimeNs mono = kNoTime) {
    events_.push_back(Event{ts, kind, code, std::move(gpu), std::move(text), mono, file, next_line(file), {}});
    return *this;
  }

  /// The last event stands for a run of `n` repeats of its message (the `repeat` column).
  TimelineBuilder& repeated(std::int64_t n) {
    events_.back().repeat = n;
    return *this;
  }

  /// The process the last event names (the recognizer's `process` field).
  TimelineBuilder& named_process(std::string process) {
    events_.back().process = std::move(process);
    return *this;
  }

  /// One ps row (gpu = nullopt) or pmon row (gpu set).
  TimelineBuilder& process(std::uint32_t file, TimeNs ts, std::int64_t snapshot, std::int64_t pid,
                           std::optional<double> cpu, std::optional<double> mem, std::string command,
                           std::string stat = "S", std::optional<int> gpu = {}, std::optional<double> gpu_sm = {},
                           std::string user = "root") {
    procs_.push_back(Proc{ts, snapshot, pid, cpu, mem, std::move(command), std::move(stat), gpu, gpu_sm,
                          std::move(user), file, next_line(file)});
    return *this;
  }

  TimelineBuilder& device(GpuDevice d) {
    tl_.devices.push_back(std::move(d));
    return *this;
  }
  TimelineBuilder& profile(ProfilerSummary p) {
    tl_.profiles.push_back(p);
    return *this;
  }
  TimelineBuilder& suspend(TimeNs begin, TimeNs end) {
    tl_.suspends.push_back({begin, end});
    return *this;
  }

  Timeline build() {
    Timeline t = tl_;
    std::stable_sort(samples_.begin(), samples_.end(),
                     [](const Sample& a, const Sample& b) { return a.ts != b.ts ? a.ts < b.ts : a.gpu < b.gpu; });
    for (const auto& s : samples_) {
      Table& tb = t.samples;
      tb.column(sample_col::ts_ns).push_int(s.ts);
      tb.column(sample_col::wall_kind).push_int(static_cast<std::int64_t>(WallKind::kUtc));
      tb.column(sample_col::wall_raw_ns).push_int(s.ts);
      tb.column(sample_col::file).push_int(s.file);
      tb.column(sample_col::line).push_int(static_cast<std::int64_t>(s.line));
      tb.column(sample_col::gpu).push_int(s.gpu);
      tb.column(sample_col::interval_ns).push_int(s.interval);
      for (std::size_t m = 0; m < kGpuMetricCount; ++m) {
        Column& c = tb.column(sample_col::first_metric + m);
        if (s.values[m]) c.push_float(*s.values[m]); else c.push_null();
      }
    }
    std::stable_sort(events_.begin(), events_.end(), [](const Event& a, const Event& b) {
      const bool va = a.ts != kNoTime, vb = b.ts != kNoTime;
      if (va != vb) return va;
      return va && a.ts < b.ts;
    });
    for (const auto& e : events_) {
      Table& tb = t.events;
      tb.column(event_col::ts_ns).push_int_or_null(e.ts);
      tb.column(event_col::wall_kind).push_int(static_cast<std::int64_t>(WallKind::kUtc));
      tb.column(event_col::wall_raw_ns).push_int_or_null(e.ts);
      tb.column(event_col::mono_ns).push_int_or_null(e.mono);
      tb.column(event_col::boot_id).push_null();
      tb.column(event_col::boot_seq).push_int(0);
      tb.column(event_col::kind).push_int(static_cast<std::int64_t>(e.kind));
      tb.column(event_col::format).push_int(static_cast<std::int64_t>(t.files[e.file].format));
      tb.column(event_col::file).push_int(e.file);
      tb.column(event_col::line).push_int(static_cast<std::int64_t>(e.line));
      if (e.code) tb.column(event_col::code).push_int(*e.code); else tb.column(event_col::code).push_null();
      if (e.gpu.empty()) tb.column(event_col::gpu).push_null(); else tb.column(event_col::gpu).push_string(e.gpu);
      tb.column(event_col::pid).push_null();
      if (e.process.empty()) tb.column(event_col::process).push_null(); else tb.column(event_col::process).push_string(e.process);
      tb.column(event_col::ident).push_string("kernel");
      tb.column(event_col::text).push_string(e.text);
      tb.column(event_col::flags).push_int(0);
      tb.column(event_col::repeat).push_int(e.repeat);
      t.origin_begin.push_back(static_cast<std::uint32_t>(t.origins.size()));
      t.origins.push_back({e.file, e.line});
    }
    t.origin_begin.push_back(static_cast<std::uint32_t>(t.origins.size()));
    std::stable_sort(procs_.begin(), procs_.end(), [](const Proc& a, const Proc& b) {
      return std::tie(a.ts, a.snapshot, a.pid) < std::tie(b.ts, b.snapshot, b.pid);
    });
    for (const auto& p : procs_) {
      Table& tb = t.processes;
      tb.column(process_col::ts_ns).push_int(p.ts);
      tb.column(process_col::wall_kind).push_int(static_cast<std::int64_t>(WallKind::kUtc));
      tb.column(process_col::wall_raw_ns).push_int(p.ts);
      tb.column(process_col::file).push_int(p.file);
      tb.column(process_col::line).push_int(static_cast<std::int64_t>(p.line));
      tb.column(process_col::snapshot).push_int(p.snapshot);
      tb.column(process_col::user).push_string(p.user);
      tb.column(process_col::pid).push_int(p.pid);
      if (p.cpu) tb.column(process_col::cpu_pct).push_float(*p.cpu); else tb.column(process_col::cpu_pct).push_null();
      if (p.mem) tb.column(process_col::mem_pct).push_float(*p.mem); else tb.column(process_col::mem_pct).push_null();
      tb.column(process_col::vsz_kib).push_null();
      tb.column(process_col::rss_kib).push_null();
      tb.column(process_col::stat).push_string(p.stat);
      tb.column(process_col::command).push_string(p.command);
      if (p.gpu) tb.column(process_col::gpu).push_int(*p.gpu); else tb.column(process_col::gpu).push_null();
      if (p.gpu_sm) tb.column(process_col::gpu_sm_pct).push_float(*p.gpu_sm); else tb.column(process_col::gpu_sm_pct).push_null();
      tb.column(process_col::gpu_mem_pct).push_null();
    }
    return t;
  }

 private:
  struct Sample {
    TimeNs ts;
    int gpu;
    TimeNs interval;
    std::uint32_t file;
    std::uint64_t line;
    std::optional<double> values[kGpuMetricCount];
  };
  struct Event {
    TimeNs ts;
    EventKind kind;
    std::optional<std::int64_t> code;
    std::string gpu, text;
    TimeNs mono;
    std::uint32_t file;
    std::uint64_t line;
    std::string process = {};  ///< as the recognizer reads it (`name=` of an Xid); empty: null
    std::int64_t repeat = 1;  ///< events the row stands for
  };
  struct Proc {
    TimeNs ts;
    std::int64_t snapshot, pid;
    std::optional<double> cpu, mem;
    std::string command, stat;
    std::optional<int> gpu;
    std::optional<double> gpu_sm;
    std::string user;
    std::uint32_t file;
    std::uint64_t line;
  };
  std::uint64_t next_line(std::uint32_t file) { return next_line_.at(file)++; }

  Timeline tl_;
  std::vector<Sample> samples_;
  std::vector<Event> events_;
  std::vector<Proc> procs_;
  std::vector<std::uint64_t> next_line_;
};

/// Runs the feature stage.
inline FeatureSet run_features(const Timeline& t, FeatureOptions o = {}) {
  FeatureSet fs;
  FeatureStage(o).run(t, fs);
  return fs;
}

/// The host value of a feature (throws when the name is unknown, so a typo fails the test).
inline const FeatureValue& host(const FeatureSet& fs, std::string_view name) {
  const FeatureValue* v = fs.find(name);
  if (!v) throw std::invalid_argument("no feature " + std::string(name));
  return *v;
}
/// The value of a feature for one GPU.
inline const FeatureValue& of_gpu(const FeatureSet& fs, int gpu, std::string_view name) {
  const FeatureValue* v = fs.find_gpu(gpu, name);
  if (!v) throw std::invalid_argument("no feature or GPU " + std::string(name));
  return *v;
}

/// The feature has a value within tol of expected (relative to max(1, |expected|)).
inline ::testing::AssertionResult has_value(const FeatureValue& v, double expected, double tol = 1e-9) {
  if (!v.value) return ::testing::AssertionFailure() << "null: " << v.reason;
  if (std::fabs(*v.value - expected) > tol * std::max(1.0, std::fabs(expected)))
    return ::testing::AssertionFailure() << "value " << *v.value << " != " << expected << " (evidence: " << v.evidence << ")";
  return ::testing::AssertionSuccess();
}
/// The feature is null and its reason contains `part`.
inline ::testing::AssertionResult is_null_with(const FeatureValue& v, std::string_view part) {
  if (v.value) return ::testing::AssertionFailure() << "has value " << *v.value << " (evidence: " << v.evidence << ")";
  if (v.reason.find(part) == std::string::npos)
    return ::testing::AssertionFailure() << "reason '" << v.reason << "' lacks '" << part << "'";
  return ::testing::AssertionSuccess();
}

/// A GPU known by its index and PCI bus id (as -q and --query-gpu list it).
inline GpuDevice device(int index, std::string bus) {
  GpuDevice d;
  d.index = index;
  d.pci_bus = std::move(bus);
  return d;
}

}  // namespace gpucost::test
