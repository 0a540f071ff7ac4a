#pragma once
// What the charts of the HTML report draw, in the report model and the JSON report: the GPU
// series (downsampled) and the marks (notable events). See docs/reports.md for the shapes.

#ifndef GPUCOST_LAYER_REPORT
#error "gpucost_report header: include it only in gpucost_report or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "gpucost/align/timeline.hpp"
#include "gpucost/report/model.hpp"

namespace gpucost {
class JsonWriter;

/// The group an event kind is drawn in (colour and priority when marks are capped), or nullopt
/// when the kind is not a mark (cron, containers ...).
std::optional<std::string_view> mark_category(EventKind k) noexcept;

/// The series of each GPU: at most max_points points; beyond that samples are bucketed by time
/// (mean SM and power, max temperature).
SeriesSection chart_series(const Timeline& t, std::size_t max_points);
/// Writes the `series` object (points as [ts_ns, sm_pct, power_w, gpu_temp_c]).
void write_series_json(JsonWriter& w, const SeriesSection& series);

/// The notable events (errors first when more than max_marks).
MarksSection chart_marks(const Timeline& t, std::size_t max_marks);
/// Writes the `marks` object.
void write_marks_json(JsonWriter& w, const MarksSection& marks);

}  // namespace gpucost
