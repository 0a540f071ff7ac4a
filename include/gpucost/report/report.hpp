#pragma once
/// \file report.hpp
/// The report of `gpucost analyze`: what a run reports (this struct), its typed model
/// (model.hpp, built once by render_report()) and the writers that render the model (JSON,
/// Prometheus, NDJSON, HTML; the table and the CSV). Every figure carries the feature id and
/// the evidence it came from.

#ifndef GPUCOST_LAYER_REPORT
#error "gpucost_report header: include it only in gpucost_report or a layer above it (docs/architecture.md, Layers)"
#endif

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/findings/findings.hpp"
#include "gpucost/pipeline/pipeline.hpp"
#include "gpucost/report/model.hpp"

namespace gpucost {

/// Output formats of analyze.
enum class ReportFormat { kTable, kCsv, kJson, kHtml, kProm, kNdjson };

/// One output format of analyze: its `--format` name and what it is for. report_formats() is the
/// one table that `--format`'s check, its help and render_report() read.
struct ReportFormatInfo {
  ReportFormat format;
  std::string_view name;  ///< `--format` value
  std::string_view use;  ///< what it is for, in the help
};

/// Every output format, the default first.
std::span<const ReportFormatInfo> report_formats();
/// The format with this `--format` name, or nullopt.
std::optional<ReportFormat> report_format_named(std::string_view name);
/// `--format`'s help: each name with what it is for, from report_formats().
std::string report_formats_help();

struct JobRowIdentity;

/// Everything a report shows.
struct Report {
  std::string input;                   ///< the directory analyzed, as given
  const PipelineResult* result = nullptr;
  /// What the findings stage found (docs/findings.md), sorted as find() sorts them.
  std::vector<findings::Finding> findings;
  /// The summary the table report opens with: the verdict in one sentence and the measured usage
  /// (empty when there is no cost section).
  std::string verdict, usage;
  unsigned threads = 0;
  double max_error_rate = 0;
  bool error_rate_exceeded = false;
  std::size_t max_series_points = 1000;  ///< points per GPU in `series` (time buckets beyond)
  std::size_t max_marks = 500;           ///< events in `marks` (errors kept first beyond)
};

/// The report of a run: the pipeline's result (which must outlive it), its findings, the cost
/// section and the summary the table opens with. `input` is the directory as given.
Report make_report(const PipelineResult& result, std::string input, double max_error_rate);

/// Writes the report in a format; `job` names the scheduler job of the ndjson rows (none: the
/// rows carry no job id, user or GPU filter).
std::string render_report(const Report& report, ReportFormat format, const JobRowIdentity* job = nullptr);

/// The column header of the analyze CSV (`id,name,value,unit,layer,reason,scope`).
inline constexpr const char* kFeatureCsvHeader = "id,name,value,unit,layer,reason,scope";

}  // namespace gpucost
