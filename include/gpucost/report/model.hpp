#pragma once
/// \file model.hpp
/// The report model: what a report of `gpucost analyze` says, as plain typed structs, built once
/// from the pipeline's results (report_model()). Every writer renders it: the JSON report is one
/// of them, the Prometheus textfile, the NDJSON rows, the HTML page, the table and the CSV are
/// the others. The model views the results it was built from (they must outlive it); what a
/// report derives (the host's name, events counted by kind, each GPU's name and bus) is computed
/// here once.
/// A number the JSON report writes is format_number()'s text (10 significant digits). A writer
/// that computes with a figure (scales it, adds it up) starts from stated(), the value the JSON
/// states, so that every format agrees with the JSON to the digit; a writer of text that must be
/// UTF-8 writes stated_text().

#ifndef GPUCOST_LAYER_REPORT
#error "gpucost_report header: include it only in gpucost_report or a layer above it (docs/architecture.md, Layers)"
#endif

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpucost/cost/model.hpp"
#include "gpucost/diagnostics.hpp"
#include "gpucost/features/features.hpp"
#include "gpucost/findings/findings.hpp"
#include "gpucost/pipeline/pipeline.hpp"

namespace gpucost {

struct Report;

/// The value the JSON report states for v: format_number()'s text read back; nullopt for a value
/// the JSON writes as null (none, NaN, an infinity).
std::optional<double> stated(std::optional<double> v);

/// A text as the JSON report states it: UTF-8, each byte that is not part of a UTF-8 character
/// read as U+FFFD (the JSON keeps it as `\udcXX`).
std::string stated_text(std::string_view s);

/// The machine's name: the manifest's host, else "unknown"; `source` says which.
struct HostName {
  std::string name;
  std::string source;  ///< `manifest` or `unknown`
};
/// The name of the machine the timeline's logs describe.
HostName host_name(const Timeline& t);

/// The run: the tool, the input as given, the machine, the time zone and the window analyzed.
struct RunSection {
  std::string_view version;  ///< GPUCOST_VERSION
  std::string_view input;  ///< the directory analyzed, as given
  HostName host;
  std::string_view zone_name, zone_reason, year_reason;
  TimeNs since = kNoTime, until = kNoTime;  ///< --since / --until
  TimeNs first = kNoTime, last = kNoTime;  ///< first and last placed record
  double idle_threshold_pct = 0, temp_threshold_c = 0;
};

/// What was read: each file's diagnostics, the totals and the error-rate check.
struct InputSection {
  const Diagnostics* diagnostics = nullptr;  ///< files, problems, samples, notes
  std::uint64_t files = 0, usable_files = 0, lines = 0, rejected = 0;
  double error_rate = 0, max_error_rate = 0;
  bool error_rate_exceeded = false;
};

/// The timeline's size: rows, events (repeats counted), events by kind (sorted by kind name), boots.
struct TimelineSection {
  std::uint64_t samples = 0, events = 0, event_rows = 0, processes = 0;
  std::vector<std::pair<std::string_view, std::uint64_t>> events_by_kind;
  std::span<const BootSegment> boots;
};

/// One feature as a report lists it: its catalog entry and its value.
struct FeatureLine {
  const FeatureDef* def = nullptr;
  const FeatureValue* value = nullptr;
  /// The value the JSON states (stated()), nullopt for null.
  std::optional<double> stated_value() const { return stated(value->value); }
  /// Why it is null as the JSON says it (empty when the feature has a value).
  std::string_view null_reason() const { return value->value ? std::string_view{} : std::string_view(value->reason); }
};

/// One GPU: its index, its name and PCI bus from the devices the logs describe (empty when they
/// do not say), its MIG devices and sharing processes where there are any, its per-GPU features.
struct GpuSection {
  int index = -1;
  std::string_view name, pci_bus;
  const GpuDevice* mig_listing = nullptr;  ///< the device that lists MIG devices, or null
  const GpuProcessShares* shared = nullptr;  ///< processes that shared it (pmon), or null
  std::vector<FeatureLine> features;  ///< the catalog's per-GPU features, in catalog order
  /// The feature of this GPU, or nullptr when it is not a per-GPU feature.
  const FeatureLine* feature(FeatureId id) const;
};

/// One GPU's series for the timeline chart: at most the report's max_series_points points; beyond
/// that, samples bucketed by time (mean SM and power, max temperature).
struct GpuSeries {
  int gpu = -1;
  std::uint64_t samples = 0;
  TimeNs interval_ns = 0;  ///< the median sampling interval (0: unknown)
  TimeNs bucket_ns = 0;  ///< the bucket width (0: one point per sample)
  TimeNs first = kNoTime, last = kNoTime;
  /// A point: its time and SM %, power (W) and GPU temperature (°C), each nullopt when no
  /// sample of the point has it.
  struct Point {
    TimeNs ts = kNoTime;
    std::optional<double> sm_pct, power_w, gpu_temp_c;
  };
  std::vector<Point> points;
};

/// What the timeline charts draw: each GPU's series, by GPU index.
struct SeriesSection {
  std::size_t max_points = 0;
  std::vector<GpuSeries> gpus;
};

/// A notable event drawn on the timeline (an error, thermal, power or system event).
struct ChartMark {
  TimeNs ts = kNoTime;  ///< kNoTime: not placed in time
  std::string_view kind, category, severity;
  std::optional<std::int64_t> code;
  std::string_view gpu;  ///< the event's GPU as the log names it (empty: none)
  std::optional<int> gpu_index;  ///< that GPU's index, where known
  std::optional<int> gpu_instance;  ///< a MIG GPU instance an Xid names
  std::string text;  ///< the message's first line, shortened
  std::optional<std::string_view> file;  ///< the log it was read from, where known
  std::int64_t line = 0;
  std::uint64_t repeat = 1;
};

/// The marks: the notable events (errors kept first beyond the report's max_marks).
struct MarksSection {
  std::uint64_t total = 0, unplaced = 0, shown = 0, left_out = 0, max_marks = 0, benign_left_out = 0;
  std::vector<std::pair<std::string_view, std::uint64_t>> by_kind;  ///< sorted by kind name
  std::vector<ChartMark> items;  ///< in time order, unplaced last
};

/// What the HTML report's charts draw, and the JSON report's `series` and `marks`.
struct ChartSection {
  SeriesSection series;
  MarksSection marks;
};

/// Whether a model carries the charts' data (a scan of every sample): the JSON report and the
/// HTML page need it, the others do not.
enum class ReportCharts : std::uint8_t { kWithout, kWith };

/// What a report of `gpucost analyze` says (see the file comment).
struct ReportModel {
  RunSection run;
  InputSection inputs;
  TimelineSection timeline;
  std::vector<GpuSection> gpus;
  std::vector<FeatureLine> features;  ///< the host's, every feature of the catalog in catalog order
  std::span<const findings::Finding> findings;  ///< sorted as findings::find() sorts them
  const cost::CostResult* cost = nullptr;  ///< the cost section; null when the run priced nothing
  std::span<const GpuDevice> devices;  ///< the devices the logs describe (the NDJSON rows' GPU UUIDs)
  std::optional<ChartSection> charts;  ///< with ReportCharts::kWith
  std::span<const StageTiming> timings;  ///< the stages' timings (empty: --no-timings)
  /// The host's value of a feature, or nullptr when the run has no feature values.
  const FeatureLine* host_feature(FeatureId id) const;
};

/// MB/s a stage went through (0 when it read no bytes or took no time).
double stage_mb_per_s(const StageTiming& t);

/// The stages' timings and the report's own (stage `report`: the time since `started`, the
/// peak memory now) unless the run timed it already; empty when the run has no timings
/// (`--no-timings`).
std::vector<StageTiming> report_timings(std::span<const StageTiming> timings,
                                        std::chrono::steady_clock::time_point started);

/// The model of a report (which, with its pipeline result, must outlive it).
ReportModel report_model(const Report& report, ReportCharts charts = ReportCharts::kWith);

}  // namespace gpucost
