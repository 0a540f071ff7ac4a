#pragma once
// Inline SVG charts for the HTML report, drawn by our own code from plain numbers (no charting
// library: Debian 12 ships none for C++ that is header-only and writes SVG; three chart types
// fit in a few hundred lines). Output is well-formed XML; every text goes through
// append_xml_escaped. Colours are the Okabe-Ito palette: distinct in print and for colour-blind
// readers.

#ifndef GPUCOST_LAYER_REPORT
#error "gpucost_report header: include it only in gpucost_report or a layer above it (docs/architecture.md, Layers)"
#endif

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/align/zone.hpp"
#include "gpucost/time.hpp"

namespace gpucost::svg {

/// Okabe-Ito colours.
namespace color {
inline constexpr const char* kBlue = "#0072B2";
inline constexpr const char* kVermillion = "#D55E00";
inline constexpr const char* kOrange = "#E69F00";
inline constexpr const char* kSky = "#56B4E9";
inline constexpr const char* kGreen = "#009E73";
inline constexpr const char* kPurple = "#CC79A7";
inline constexpr const char* kGrey = "#6E6E6E";
}  // namespace color

/// Colour of a mark category (`error`, `thermal`, `power`, `system`).
const char* mark_color(std::string_view category) noexcept;

/// About `target` evenly spaced 1-2-5 ticks covering [lo, hi] (first <= lo, last >= hi).
std::vector<double> nice_ticks(double lo, double hi, int target);
/// A tick label: as few decimals as the step needs.
std::string tick_label(double v, double step);
/// Time ticks (UTC) between lo and hi, about `target` of them; step_ns receives the step.
std::vector<TimeNs> time_ticks(TimeNs lo, TimeNs hi, int target, TimeNs& step_ns);
/// A time tick label in UTC: `08:00`, `08:00:10`, `11-29 08:00` or `2026-11-29` by step and span.
std::string time_label(TimeNs t, TimeNs step_ns, TimeNs span_ns);

/// One panel of a time chart: values aligned with the chart's timestamps (NaN = null).
struct Panel {
  std::string title;                 ///< `SM utilization`
  std::string unit;                  ///< `%`
  std::vector<double> values;
  std::optional<double> lo, hi;      ///< fixed axis range (else from the data)
  const char* color = color::kBlue;
  std::string empty_text;            ///< shown when every value is null
  std::optional<double> threshold;   ///< a dashed horizontal line (idle, hot), kept in range
  std::string threshold_label;
};

/// A vertical mark on a time chart.
struct Mark {
  TimeNs ts = kNoTime;
  std::string label;     ///< short text above the line (`Xid 31`)
  std::string title;     ///< tooltip (time, kind, message)
  std::string category;  ///< colour: error, thermal, power, system
  bool important = false;  ///< a critical or warning event: labelled even where labels crowd
};

/// Stacked panels sharing one time axis; lines break at nulls and where consecutive points are
/// more than gap_ns apart; marks are vertical lines across every panel. With `local` (the
/// machine's zone, `local_name` its name) the axis is labelled in local time with UTC beneath.
std::string time_chart(std::span<const TimeNs> ts, std::span<const Panel> panels, std::span<const Mark> marks,
                       TimeNs gap_ns, std::string_view aria_label, const Zone* local = nullptr,
                       std::string_view local_name = {});

/// A straight cost line: cost(h) = fixed + per_hour * h.
struct CostLine {
  std::string label;
  double fixed = 0;
  double per_hour = 0;
  const char* color = color::kBlue;
};

/// The words of a cost chart (the defaults are those of cost per job against job length).
struct CostChartText {
  std::string_view aria = "cost per job against job length, local and cloud";
  std::string_view x_label = "job length (h of local-equivalent GPU work)";
  std::string_view y_label = "cost per job";
  std::string_view mark = "break-even";  ///< `break-even: 1.2 h` at the crossing
  std::string_view query = "your job";   ///< `your job: 1 h` at query_hours
};

/// Cost against hours, 0..x_max hours; the crossing (when any) is marked with a vertical line and
/// a dot where the first two lines cross; query_hours with a thin dotted line.
std::string cost_chart(std::span<const CostLine> lines, double x_max, std::optional<double> break_even,
                       std::optional<double> query_hours, std::string_view currency, const CostChartText& words = {});

/// One input of the tornado: the metric at the input's low and high values.
struct TornadoBar {
  std::string label;       ///< `cloud.hourly_rate`
  std::string low_note;    ///< `0.644 USD/h` (the input's low value)
  std::string high_note;
  std::optional<double> low, high;  ///< metric values; nullopt = the metric is undefined there
  bool changes_verdict = false;
};

/// Horizontal bars from the base value to the metric at -step (low) and +step (high).
std::string tornado(std::span<const TornadoBar> bars, double base, std::string_view metric, std::string_view unit);

}  // namespace gpucost::svg
