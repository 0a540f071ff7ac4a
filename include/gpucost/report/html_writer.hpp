#pragma once
/// \file html_writer.hpp
/// `gpucost analyze --format html`: one self-contained page (inline CSS and SVG, no script, no
/// external reference) rendered from the report model. The page is also well-formed XML.

#ifndef GPUCOST_LAYER_REPORT
#error "gpucost_report header: include it only in gpucost_report or a layer above it (docs/architecture.md, Layers)"
#endif

#include <string>

#include "gpucost/report/model.hpp"

namespace gpucost {

/// Renders the HTML report from the report model (report_model()).
std::string render_html(const ReportModel& model);

}  // namespace gpucost
