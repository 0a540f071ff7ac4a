#pragma once
/// \file prom_writer.hpp
/// `gpucost analyze --format prom`: the contract features, the cost per effective hour and the
/// break-even in the Prometheus text exposition format (version 0.0.4), for node_exporter's
/// textfile collector. Rendered from the report model; names and conventions in
/// docs/reports.md.

#ifndef GPUCOST_LAYER_REPORT
#error "gpucost_report header: include it only in gpucost_report or a layer above it (docs/architecture.md, Layers)"
#endif

#include <span>
#include <string>
#include <string_view>

#include "gpucost/features/feature_ids.hpp"
#include "gpucost/report/model.hpp"

namespace gpucost {

/// How a contract feature is exported.
struct PromFeatureMetric {
  FeatureId feature;  ///< the contract feature (`gpu_idle_fraction`)
  std::string_view metric;   ///< metric family name (`gpucost_gpu_idle_ratio`)
  double scale;              ///< value in the family's unit = feature value * scale
  std::string_view help;
};

/// The contract features and their metric names, in output order.
std::span<const PromFeatureMetric> prom_feature_metrics();

/// Renders the exposition text from the report model (report_model()).
std::string render_prom(const ReportModel& model);

/// Appends a label value escaped as the exposition format wants (`\\`, `\"`, `\n`), every other
/// control first written as text::escape_control() writes it (ESC reads `\\x1b`, a lone 0x9B `\\x9b`).
void append_prom_label_value(std::string& out, std::string_view v);

}  // namespace gpucost
