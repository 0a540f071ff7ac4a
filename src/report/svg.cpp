#include "report/svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "gpucost/text/escape.hpp"

namespace gpucost::svg {

namespace {

constexpr double kWidth = 960;
constexpr const char* kFont = "font-family=\"sans-serif\"";
constexpr const char* kAxis = "#333333";
constexpr const char* kGrid = "#dddddd";

std::string num(double v) { return fmt::format("{:.1f}", v); }

// A linear map from a domain to pixels.
struct Scale {
  double d0, d1, r0, r1;
  double operator()(double v) const { return d1 == d0 ? (r0 + r1) / 2 : r0 + (v - d0) / (d1 - d0) * (r1 - r0); }
};

// attrs must not repeat x, y, font-family, font-size or fill (XML forbids duplicate attributes).
void text(std::string& out, double x, double y, std::string_view s, std::string_view attrs = {}, int size = 11,
          std::string_view fill = kAxis) {
  out += fmt::format("<text x=\"{}\" y=\"{}\" {} font-size=\"{}\" fill=\"{}\"{}{}>", num(x), num(y), kFont, size,
                     fill, attrs.empty() ? "" : " ", attrs);
  text::append_xml_escaped(out, s);
  out += "</text>";
}

void line(std::string& out, double x1, double y1, double x2, double y2, std::string_view stroke,
          std::string_view attrs = {}) {
  out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\"{}{}/>", num(x1), num(y1), num(x2),
                     num(y2), stroke, attrs.empty() ? "" : " ", attrs);
}

void open_svg(std::string& out, double height, std::string_view aria_label) {
  out += fmt::format("<svg viewBox=\"0 0 {} {}\" width=\"100%\" role=\"img\" aria-label=\"", num(kWidth), num(height));
  text::append_xml_escaped(out, aria_label);
  out += "\">";
}

// A vertical axis with grid lines: ticks on the left of x0, grid to x1.
void y_axis(std::string& out, const Scale& y, const std::vector<double>& ticks, double x0, double x1) {
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1;
  for (double t : ticks) {
    line(out, x0, y(t), x1, y(t), kGrid);
    text(out, x0 - 6, y(t) + 4, tick_label(t, step), "text-anchor=\"end\"");
  }
  line(out, x0, y(ticks.front()), x0, y(ticks.back()), kAxis);
}

// Polyline segments through the finite points, broken at nulls and gaps; lone points as dots.
void series_path(std::string& out, std::span<const TimeNs> ts, const std::vector<double>& v, const Scale& x,
                 const Scale& y, TimeNs gap_ns, const char* stroke) {
  std::vector<std::pair<double, double>> seg;
  auto flush = [&] {
    if (seg.size() == 1) {
      out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"2.5\" fill=\"{}\"/>", num(seg[0].first), num(seg[0].second),
                         stroke);
    } else if (seg.size() > 1) {
      out += "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"";
      out += stroke;
      out += "\" points=\"";
      for (std::size_t i = 0; i < seg.size(); ++i) {
        if (i) out += ' ';
        out += num(seg[i].first);
        out += ',';
        out += num(seg[i].second);
      }
      out += "\"/>";
    }
    seg.clear();
  };
  TimeNs prev = kNoTime;
  for (std::size_t i = 0; i < ts.size() && i < v.size(); ++i) {
    if (!std::isfinite(v[i])) {
      flush();
      prev = kNoTime;
      continue;
    }
    if (prev != kNoTime && gap_ns > 0 && ts[i] - prev > gap_ns) flush();
    seg.emplace_back(x(static_cast<double>(ts[i])), y(v[i]));
    prev = ts[i];
  }
  flush();
}

}  // namespace

const char* mark_color(std::string_view category) noexcept {
  if (category == "error") return color::kVermillion;
  if (category == "thermal") return color::kOrange;
  if (category == "power") return color::kSky;
  return color::kGrey;
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {0, 1};
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) {
    const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  target = std::max(target, 2);
  const double raw = (hi - lo) / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  const double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
  const double first = std::floor(lo / step + 1e-9) * step;
  std::vector<double> ticks;
  for (double t = first; ticks.size() < 200; t += step) {
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
    if (t >= hi - step * 1e-9) break;
  }
  if (ticks.size() < 2) ticks.push_back(ticks.back() + step);
  return ticks;
}

std::string tick_label(double v, double step) {
  int decimals = 0;
  if (step > 0 && step < 1) decimals = static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  decimals = std::clamp(decimals, 0, 9);
  if (std::fabs(v) < step * 1e-9) v = 0;
  return fmt::format("{:.{}f}", v, decimals);
}

std::vector<TimeNs> time_ticks(TimeNs lo, TimeNs hi, int target, TimeNs& step_ns) {
  static constexpr TimeNs kSteps[] = {
      kNsPerSec,        2 * kNsPerSec,   5 * kNsPerSec,   10 * kNsPerSec,  15 * kNsPerSec,  30 * kNsPerSec,
      kNsPerMin,        2 * kNsPerMin,   5 * kNsPerMin,   10 * kNsPerMin,  15 * kNsPerMin,  30 * kNsPerMin,
      kNsPerHour,       2 * kNsPerHour,  3 * kNsPerHour,  6 * kNsPerHour,  12 * kNsPerHour, kNsPerDay,
      2 * kNsPerDay,    7 * kNsPerDay,   14 * kNsPerDay,  30 * kNsPerDay,  91 * kNsPerDay,  365 * kNsPerDay,
      3650 * kNsPerDay, 36500 * kNsPerDay};
  if (hi < lo) std::swap(lo, hi);
  target = std::max(target, 2);
  step_ns = kSteps[std::size(kSteps) - 1];
  for (TimeNs s : kSteps)
    if ((hi - lo) / s <= target) {
      step_ns = s;
      break;
    }
  std::vector<TimeNs> ticks;
  // First multiple of the step at or after lo (floor division for times before 1970).
  TimeNs t = lo / step_ns * step_ns;
  if (t < lo) t += step_ns;
  for (; t <= hi && ticks.size() < 100; t += step_ns) ticks.push_back(t);
  return ticks;
}

std::string time_label(TimeNs t, TimeNs step_ns, TimeNs span_ns) {
  const CivilTime c = ns_to_civil(t);
  if (step_ns >= kNsPerDay) return fmt::format("{:04}-{:02}-{:02}", c.year, c.month, c.day);
  if (span_ns >= kNsPerDay) return fmt::format("{:02}-{:02} {:02}:{:02}", c.month, c.day, c.hour, c.minute);
  if (step_ns < kNsPerMin) return fmt::format("{:02}:{:02}:{:02}", c.hour, c.minute, c.second);
  return fmt::format("{:02}:{:02}", c.hour, c.minute);
}

std::string time_chart(std::span<const TimeNs> ts, std::span<const Panel> panels, std::span<const Mark> marks,
                       TimeNs gap_ns, std::string_view aria_label, const Zone* local, std::string_view local_name) {
  constexpr double kLeft = 70, kRight = 20, kTop = 34, kPanel = 130, kGap = 34, kBottom = 46;
  const double height = kTop + panels.size() * (kPanel + kGap) - kGap + kBottom;
  std::string out;
  open_svg(out, height, aria_label);
  TimeNs t0 = ts.empty() ? 0 : ts.front(), t1 = ts.empty() ? 0 : ts.back();
  if (t1 - t0 < 10 * kNsPerSec) {  // a single sample or a short run: show a minute around it
    const TimeNs mid = t0 / 2 + t1 / 2;
    t0 = mid - 30 * kNsPerSec;
    t1 = mid + 30 * kNsPerSec;
  }
  const Scale x{static_cast<double>(t0), static_cast<double>(t1), kLeft, kWidth - kRight};
  const double bottom = height - kBottom;

  for (std::size_t p = 0; p < panels.size(); ++p) {
    const Panel& panel = panels[p];
    const double top = kTop + p * (kPanel + kGap);
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (double v : panel.values)
      if (std::isfinite(v)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    const bool empty = !std::isfinite(lo);
    if (panel.lo) lo = *panel.lo;
    if (panel.hi) hi = std::max(*panel.hi, empty ? *panel.hi : hi);
    if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
    if (panel.threshold && !empty) {
      lo = std::min(lo, *panel.threshold);
      hi = std::max(hi, *panel.threshold);
    }
    const auto ticks = nice_ticks(lo, hi, 4);
    const Scale y{ticks.front(), ticks.back(), top + kPanel, top};
    text(out, kLeft, top - 8, fmt::format("{} ({})", panel.title, panel.unit), "font-weight=\"bold\"");
    y_axis(out, y, ticks, kLeft, kWidth - kRight);
    line(out, kLeft, top + kPanel, kWidth - kRight, top + kPanel, kAxis);
    if (empty) {
      text(out, (kLeft + kWidth - kRight) / 2, top + kPanel / 2,
           panel.empty_text.empty() ? std::string("no values") : panel.empty_text, "text-anchor=\"middle\"");
      continue;
    }
    if (panel.threshold) {
      line(out, kLeft, y(*panel.threshold), kWidth - kRight, y(*panel.threshold), color::kGrey,
           "stroke-dasharray=\"2 4\"");
      text(out, kWidth - kRight, y(*panel.threshold) - 3,
           fmt::format("{} {:g} {}", panel.threshold_label, *panel.threshold, panel.unit), "text-anchor=\"end\"", 10,
           color::kGrey);
    }
    series_path(out, ts, panel.values, x, y, gap_ns, panel.color);
  }

  // Time axis under the last panel.
  TimeNs step = 0;
  for (TimeNs t : time_ticks(t0, t1, 8, step)) {
    const double px = x(static_cast<double>(t));
    line(out, px, bottom, px, bottom + 5, kAxis);
    if (local) {  // the machine's clock, and UTC beneath it
      text(out, px, bottom + 15, time_label(t + local->offset_at(t), step, t1 - t0), "text-anchor=\"middle\"");
      text(out, px, bottom + 27, time_label(t, step, t1 - t0) + " UTC", "text-anchor=\"middle\"", 9, color::kGrey);
    } else {
      text(out, px, bottom + 17, time_label(t, step, t1 - t0), "text-anchor=\"middle\"");
    }
  }
  if (local) {
    const std::string offset = format_utc_offset(local->offset_at(t0));
    const std::string zone = local_name.empty() || local_name == offset ? "UTC" + offset
                                                                         : fmt::format("{}, UTC{}", local_name, offset);
    text(out, (kLeft + kWidth - kRight) / 2, bottom + 40,
         fmt::format("time ({}; UTC beneath), {} to {}", zone, format_rfc3339(t0, 0), format_rfc3339(t1, 0)),
         "text-anchor=\"middle\"");
  } else {
    text(out, (kLeft + kWidth - kRight) / 2, bottom + 36,
         fmt::format("time (UTC), {} to {}", format_rfc3339(t0, 0), format_rfc3339(t1, 0)), "text-anchor=\"middle\"");
  }

  // Marks: a line across every panel. Labels: the important marks (critical and warning events)
  // first, each on the first of two rows free around it (on the upper one when neither is); the
  // others only where the upper row has room.
  auto visible = [&](const Mark& m) { return m.ts != kNoTime && m.ts >= t0 && m.ts <= t1; };
  std::vector<int> label_row(marks.size(), -1);
  std::vector<std::pair<double, int>> placed;  // x and row of the labels placed
  auto free_at = [&](double px, int row) {
    return std::none_of(placed.begin(), placed.end(),
                        [&](const auto& l) { return l.second == row && std::abs(l.first - px) <= 56; });
  };
  for (const bool important : {true, false})
    for (std::size_t i = 0; i < marks.size(); ++i) {
      const Mark& m = marks[i];
      if (m.important != important || !visible(m) || m.label.empty()) continue;
      const double px = x(static_cast<double>(m.ts));
      int row = free_at(px, 0) ? 0 : important && free_at(px, 1) ? 1 : important ? 0 : -1;
      if (row < 0) continue;
      label_row[i] = row;
      placed.emplace_back(px, row);
    }
  for (std::size_t i = 0; i < marks.size(); ++i) {
    const Mark& m = marks[i];
    if (!visible(m)) continue;
    const double px = x(static_cast<double>(m.ts));
    const char* c = mark_color(m.category);
    out += "<g>";
    if (!m.title.empty()) {
      out += "<title>";
      text::append_xml_escaped(out, m.title);
      out += "</title>";
    }
    line(out, px, kTop - 4, px, bottom, c, "stroke-width=\"1.5\" stroke-dasharray=\"4 3\"");
    if (label_row[i] >= 0)
      text(out, px, kTop - 22 + 12 * label_row[i], m.label, "text-anchor=\"middle\"", 10, c);
    out += "</g>";
  }
  out += "</svg>";
  return out;
}

std::string cost_chart(std::span<const CostLine> lines, double x_max, std::optional<double> break_even,
                       std::optional<double> query_hours, std::string_view currency, const CostChartText& words) {
  constexpr double kLeft = 80, kRight = 24, kTop = 40, kPlot = 300, kBottom = 50;
  const double height = kTop + kPlot + kBottom;
  std::string out;
  open_svg(out, height, words.aria);
  if (!(x_max > 0) || !std::isfinite(x_max)) x_max = 10;
  const auto xt = nice_ticks(0, x_max, 8);
  double y_max = 0;
  for (const auto& l : lines) y_max = std::max({y_max, l.fixed, l.fixed + l.per_hour * xt.back()});
  const auto yt = nice_ticks(0, y_max > 0 ? y_max : 1, 6);
  const Scale x{0, xt.back(), kLeft, kWidth - kRight};
  const Scale y{0, yt.back(), kTop + kPlot, kTop};
  y_axis(out, y, yt, kLeft, kWidth - kRight);
  const double xstep = xt.size() > 1 ? xt[1] - xt[0] : 1;
  for (double t : xt) {
    line(out, x(t), kTop + kPlot, x(t), kTop + kPlot + 5, kAxis);
    text(out, x(t), kTop + kPlot + 18, tick_label(t, xstep), "text-anchor=\"middle\"");
  }
  line(out, kLeft, kTop + kPlot, kWidth - kRight, kTop + kPlot, kAxis);
  text(out, (kLeft + kWidth - kRight) / 2, kTop + kPlot + 38, words.x_label, "text-anchor=\"middle\"");
  text(out, 14, kTop + kPlot / 2, fmt::format("{} ({})", words.y_label, currency),
       fmt::format("text-anchor=\"middle\" transform=\"rotate(-90 14 {})\"", num(kTop + kPlot / 2)));

  if (query_hours && *query_hours > 0 && *query_hours <= xt.back()) {
    line(out, x(*query_hours), kTop, x(*query_hours), kTop + kPlot, color::kGrey, "stroke-dasharray=\"1 3\"");
    text(out, x(*query_hours) + 4, kTop + kPlot - 6, fmt::format("{}: {:.3g} h", words.query, *query_hours));
  }
  double legend_y = kTop - 22;
  double legend_x = kLeft;
  for (const auto& l : lines) {
    const double end = xt.back();
    line(out, x(0), y(l.fixed), x(end), y(l.fixed + l.per_hour * end), l.color, "stroke-width=\"2.5\"");
    line(out, legend_x, legend_y, legend_x + 24, legend_y, l.color, "stroke-width=\"2.5\"");
    text(out, legend_x + 30, legend_y + 4, l.label);
    legend_x += 40 + 7.0 * static_cast<double>(l.label.size());
  }
  if (break_even && *break_even >= 0 && *break_even <= xt.back() && !lines.empty()) {
    const double bx = x(*break_even);
    const double by = y(lines[0].fixed + lines[0].per_hour * *break_even);
    line(out, bx, kTop, bx, kTop + kPlot, "#000000", "stroke-width=\"1.5\" stroke-dasharray=\"6 3\"");
    out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"none\" stroke=\"#000000\" stroke-width=\"2\"/>",
                       num(bx), num(by));
    text(out, bx + 6, kTop + 12, fmt::format("{}: {:.3g} h", words.mark, *break_even), "font-weight=\"bold\"");
  }
  out += "</svg>";
  return out;
}

std::string tornado(std::span<const TornadoBar> bars, double base, std::string_view metric, std::string_view unit) {
  constexpr double kLabel = 300, kRight = 150, kTop = 36, kRow = 28, kBottom = 44;
  const double height = kTop + bars.size() * kRow + kBottom;
  std::string out;
  open_svg(out, height, fmt::format("sensitivity of {} to each input", metric));
  double lo = base, hi = base;
  for (const auto& b : bars) {
    for (auto v : {b.low, b.high})
      if (v && std::isfinite(*v)) {
        lo = std::min(lo, *v);
        hi = std::max(hi, *v);
      }
  }
  const auto ticks = nice_ticks(lo, hi, 6);
  const Scale x{ticks.front(), ticks.back(), kLabel, kWidth - kRight};
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1;
  const double bottom = kTop + bars.size() * kRow;
  for (double t : ticks) {
    line(out, x(t), kTop - 4, x(t), bottom, kGrid);
    text(out, x(t), bottom + 16, tick_label(t, step), "text-anchor=\"middle\"");
  }
  text(out, (kLabel + kWidth - kRight) / 2, bottom + 36, fmt::format("{} ({})", metric, unit), "text-anchor=\"middle\"");
  // Legend.
  out += fmt::format("<rect x=\"10\" y=\"8\" width=\"14\" height=\"10\" fill=\"{}\"/>", color::kSky);
  text(out, 30, 17, "input lowered (low)");
  out += fmt::format("<rect x=\"150\" y=\"8\" width=\"14\" height=\"10\" fill=\"{}\"/>", color::kOrange);
  text(out, 170, 17, "input raised (high)");
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const auto& b = bars[i];
    const double cy = kTop + i * kRow + kRow / 2;
    text(out, kLabel - 8, cy + 4, b.changes_verdict ? b.label + " *" : b.label,
         b.changes_verdict ? "text-anchor=\"end\" font-weight=\"bold\"" : "text-anchor=\"end\"");
    double right_end = x(base);
    auto bar = [&](std::optional<double> v, const char* fill, const std::string& note) {
      if (!v || !std::isfinite(*v)) return;
      const double a = x(base), e = x(*v);
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">", num(std::min(a, e)),
                         num(cy - 9), num(std::max(std::fabs(e - a), 1.0)), num(18), fill);
      out += "<title>";
      text::append_xml_escaped(out, fmt::format("{} at {}: {} {}", b.label, note, tick_label(*v, step / 100), unit));
      out += "</title></rect>";
      right_end = std::max(right_end, std::max(a, e));
    };
    bar(b.low, color::kSky, b.low_note);
    bar(b.high, color::kOrange, b.high_note);
    std::string note = fmt::format("{} / {}", b.low_note, b.high_note);
    if (!b.low || !b.high) note += " (metric undefined at one end)";
    text(out, std::min(right_end + 6, kWidth - kRight + 4), cy + 4, note, {}, 10);
  }
  line(out, x(base), kTop - 8, x(base), bottom, "#000000", "stroke-width=\"1.5\"");
  text(out, x(base), kTop - 12, fmt::format("base {}", tick_label(base, step / 100)),
       "text-anchor=\"middle\" font-weight=\"bold\"");
  out += "</svg>";
  return out;
}

}  // namespace gpucost::svg
