#pragma once
/// \file html_writer.hpp
/// `gpucost analyze --format html`: one self-contained page (inline CSS and SVG, no script, no
/// external reference) rendered from the JSON report. The page is also well-formed XML.

#include <string>
#include <string_view>

namespace gpucost {

/// Renders the HTML report from the JSON report (render_report(..., ReportFormat::kJson)).
/// Throws std::invalid_argument when report_json is not JSON.
std::string render_html(std::string_view report_json);

/// Appends text escaped for HTML/XML text and attribute values: `& < > " '` become entities,
/// control characters that XML forbids and bytes that are not valid UTF-8 (surrogates included)
/// become U+FFFD; tab, LF and CR are kept. The one escaping function of the HTML writer.
void append_xml_escaped(std::string& out, std::string_view text);

/// append_xml_escaped into a new string.
std::string xml_escaped(std::string_view text);

}  // namespace gpucost
