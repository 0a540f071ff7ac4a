// The page's number formatting and style sheet (its escaping is text::append_xml_escaped).
#include "report/html_page.hpp"

#include <fmt/format.h>

#include <cmath>

namespace gpucost {

namespace html {

// Numbers for people: integers as integers, others to about three significant digits.
std::string human(double v) {
  if (!std::isfinite(v)) return "-";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<long long>(v));
  const double a = std::fabs(v);
  if (a >= 1000) return fmt::format("{:.0f}", v);
  if (a >= 100) return fmt::format("{:.1f}", v);
  if (a >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);
}
std::string human(std::optional<double> v) { return v ? human(*v) : std::string("-"); }

std::string_view page_style() {
  return R"(
body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #222; margin: 0 auto; max-width: 1040px; padding: 0 16px 40px; line-height: 1.45; }
h1 { font-size: 1.6em; margin: 0.8em 0 0.2em; }
h2 { font-size: 1.3em; border-bottom: 2px solid #0072B2; padding-bottom: 2px; margin-top: 1.6em; }
h3 { font-size: 1.05em; margin: 1.2em 0 0.3em; }
.meta { color: #555; font-size: 0.9em; margin: 0; }
nav { font-size: 0.9em; margin: 0.6em 0; }
nav a { margin-right: 1em; color: #0072B2; }
.verdict { font-size: 1.25em; font-weight: bold; border-left: 6px solid #0072B2; padding: 8px 12px; background: #f2f7fb; }
.keyfigs { display: flex; flex-wrap: wrap; gap: 12px; margin: 12px 0; }
.keyfig { border: 1px solid #ccc; border-radius: 4px; padding: 6px 12px; min-width: 180px; }
.keyfig b { display: block; font-size: 1.3em; }
table { border-collapse: collapse; margin: 8px 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #eeeeee; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.null, .null { color: #777; font-style: italic; }
tr.total td { font-weight: bold; border-top: 2px solid #555; }
.missing { color: #8a4b00; background: #fff6e6; border: 1px dashed #e69f00; padding: 6px 10px; }
.note { color: #555; font-size: 0.9em; }
.swatch { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: middle; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 0.9em; word-break: break-all; }
details { margin: 8px 0; }
summary { cursor: pointer; color: #0072B2; }
svg { display: block; margin: 8px 0; max-width: 100%; height: auto; }
.finding { border-left: 6px solid #999; padding: 4px 12px; margin: 10px 0; background: #fafafa; }
.finding.critical { border-color: #D55E00; } .finding.warning { border-color: #E69F00; } .finding.info { border-color: #0072B2; }
.finding h3 { margin: 0.2em 0; } .finding p { margin: 0.3em 0; }
footer { margin-top: 3em; color: #777; font-size: 0.85em; border-top: 1px solid #ccc; padding-top: 6px; }
@media print { nav { display: none; } section { break-inside: avoid-page; } details { display: block; } body { max-width: none; } }
)";
}

}  // namespace html

}  // namespace gpucost
