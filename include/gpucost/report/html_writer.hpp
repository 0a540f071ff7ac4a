#pragma once
/// \file html_writer.hpp
/// `gpucost analyze --format html`: one self-contained page (inline CSS and SVG, no script, no
/// external reference) rendered from the report document. The page is also well-formed XML.

#ifndef GPUCOST_LAYER_REPORT
#error "gpucost_report header: include it only in gpucost_report or a layer above it (docs/architecture.md, Layers)"
#endif

#include <string>

#include "gpucost/report/document.hpp"

namespace gpucost {

/// Renders the HTML report from the report document (report_document()).
std::string render_html(const reportdoc::Document& report);

}  // namespace gpucost
