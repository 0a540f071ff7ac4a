#pragma once
/// \file report.hpp
/// The report of `gpucost analyze`: one model (this struct) and several writers (table, CSV,
/// JSON, HTML, Prometheus, NDJSON). The JSON writer and the report document (document.hpp) are
/// made by the same calls; the HTML, Prometheus and NDJSON writers read the document, so whatever
/// the JSON has, they show. Every figure carries the feature id and the evidence it came from.

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
#include "gpucost/report/document.hpp"

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

/// A section that another module writes into the report (the cost model does this), so the
/// report does not depend on its internals.
struct ReportSection {
  std::string name;                                   ///< JSON key (`cost`)
  std::function<void(class JsonWriter&)> json;        ///< writes the section's value
  std::function<void(class CsvWriter&)> csv_rows;     ///< appends rows in the feature CSV layout
  std::function<void(std::string&)> table;            ///< appends a human-readable block
};

/// Everything a report shows.
struct Report {
  std::string input;                   ///< the directory analyzed, as given
  const PipelineResult* result = nullptr;
  std::vector<ReportSection> sections;  ///< extra sections (cost)
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

/// The report as a document, for the writers that read it (HTML, Prometheus, NDJSON).
reportdoc::Document report_document(const Report& report);

/// Writes the report in a format; `job` names the scheduler job of the ndjson rows (none: the
/// rows carry no job id, user or GPU filter).
std::string render_report(const Report& report, ReportFormat format, const JobRowIdentity* job = nullptr);

/// The column header of the analyze CSV (`id,name,value,unit,layer,reason,scope`).
inline constexpr const char* kFeatureCsvHeader = "id,name,value,unit,layer,reason,scope";

}  // namespace gpucost
