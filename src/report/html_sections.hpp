#pragma once
// The sections of the HTML page, in page order (report/html_writer.cpp puts them together).

#ifndef GPUCOST_LAYER_REPORT
#error "gpucost_report header: include it only in gpucost_report or a layer above it (docs/architecture.md, Layers)"
#endif

#include "report/html_page.hpp"

namespace gpucost::html {

/// Title, input, host, zone, window and the section links.
void write_header(Page& p, const ReportModel& m);
/// What the logs say to do, costliest first, with evidence linked to the timeline.
void write_findings(Page& p, const ReportModel& m);
/// The owner's and the buyer's answers, the usage and its basis, the odds, and a month's cost
/// each way against hours of use.
void write_answer(Page& p, const cost::CostResult* cost);
/// Cost per effective hour, local and cloud, and the inputs behind them.
void write_cost(Page& p, const cost::CostResult* cost);
/// The break-even and its chart.
void write_break_even(Page& p, const cost::CostResult* cost);
/// Which inputs move the answer most.
void write_sensitivity(Page& p, const cost::CostResult* cost);
/// The timeline chart (samples and marks).
void write_timeline(Page& p, const ReportModel& m);
/// Every feature by layer, null ones with their reason.
void write_features(Page& p, const ReportModel& m);
/// Files, formats, problems and stage timings (the report's own among them, report_timings()).
void write_diagnostics(Page& p, const ReportModel& m, const std::vector<StageTiming>& timings);

}  // namespace gpucost::html
