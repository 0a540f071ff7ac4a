#pragma once
/// \file number.hpp
/// How a number is written in every machine-readable output (JSON, CSV, Prometheus, the HTML
/// tooltips): one rule, so the same value reads the same everywhere.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <string>

namespace gpucost {

/// Formats a double for reports: shortest round-trip form of the value rounded to 10
/// significant digits; `null` for NaN and infinities.
std::string format_number(double v);

}  // namespace gpucost
