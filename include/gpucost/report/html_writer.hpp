#pragma once
/// \file html_writer.hpp
/// `gpucost analyze --format html`: one self-contained page (inline CSS and SVG, no script, no
/// external reference) rendered from the report document. The page is also well-formed XML.

#include <string>
#include <string_view>

#include "gpucost/report/document.hpp"

namespace gpucost {

/// Renders the HTML report from the report document (report_document()).
std::string render_html(const reportdoc::Document& report);

/// Appends text escaped for HTML/XML text and attribute values: `& < > " '` become entities,
/// control characters that XML forbids and bytes that are not valid UTF-8 (surrogates included)
/// become U+FFFD; tab, LF and CR are kept. The one escaping function of the HTML writer.
void append_xml_escaped(std::string& out, std::string_view text);

/// append_xml_escaped into a new string.
std::string xml_escaped(std::string_view text);

}  // namespace gpucost
