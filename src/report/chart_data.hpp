#pragma once
// What the charts of the HTML report need, written into the JSON report so that every writer
// renders from the same document: the host name, the GPU series (downsampled) and the marks
// (notable events). See docs/reports.md for the shapes.

#ifndef GPUCOST_LAYER_REPORT
#error "gpucost_report header: include it only in gpucost_report or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "gpucost/align/timeline.hpp"

namespace gpucost {
class JsonWriter;

/// The group an event kind is drawn in (colour and priority when marks are capped), or nullopt
/// when the kind is not a mark (cron, containers ...).
std::optional<std::string_view> mark_category(EventKind k) noexcept;

/// The machine's name: the manifest's host, else "unknown"; `source` says which.
struct HostName {
  std::string name;
  std::string source;  ///< `manifest` or `unknown`
};
HostName host_name(const Timeline& t);

/// Writes the `series` object: per GPU, at most max_points points [ts_ns, sm_pct, power_w,
/// gpu_temp_c]; beyond that samples are bucketed by time (mean SM and power, max temperature).
void write_series_json(JsonWriter& w, const Timeline& t, std::size_t max_points);

/// Writes the `marks` object: notable events (errors first when more than max_marks).
void write_marks_json(JsonWriter& w, const Timeline& t, std::size_t max_marks);

}  // namespace gpucost
