#include "gpucost/text/number.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace gpucost {

std::string format_number(double v) {
  if (!std::isfinite(v)) return "null";
  if (v == 0) return "0";
  if (std::fabs(v) < 1e15 && v == std::floor(v)) return fmt::format("{}", static_cast<long long>(v));
  // Round to 10 significant digits (no float noise such as 3066.0000000000005 in a report), then
  // print fmt's shortest form that reads back the same. std::from_chars, not std::stod: it never
  // throws (stod did on subnormals such as 1e-310) and ignores the locale.
  char digits[32];
  const auto end = fmt::format_to_n(digits, sizeof digits, "{:.10g}", v).out;
  double rounded = v;
  if (const auto r = std::from_chars(digits, end, rounded); r.ec != std::errc() || !std::isfinite(rounded) || rounded == 0)
    rounded = v;
  return fmt::format("{}", rounded);
}

}  // namespace gpucost
