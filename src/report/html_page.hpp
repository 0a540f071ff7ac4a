#pragma once
// The HTML page's building blocks, shared by its sections: the element writer (every text
// escaped), number formatting for people and the style sheet.

#ifndef GPUCOST_LAYER_REPORT
#error "gpucost_report header: include it only in gpucost_report or a layer above it (docs/architecture.md, Layers)"
#endif

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "gpucost/report/model.hpp"
#include "gpucost/text/escape.hpp"
#include "gpucost/text/number.hpp"

namespace gpucost::html {

/// Numbers for people: integers as integers, others to about three significant digits; `-` for
/// none.
std::string human(double v);
std::string human(std::optional<double> v);

/// The page's inline CSS.
std::string_view page_style();

/// The page being written: elements and cells whose text always goes through append_xml_escaped.
class Page {
 public:
  std::string out;

  Page& raw(std::string_view s) {
    out += s;
    return *this;
  }
  Page& text(std::string_view s) {
    text::append_xml_escaped(out, s);
    return *this;
  }
  /// <tag class="cls">text</tag>
  Page& el(std::string_view tag, std::string_view content, std::string_view cls = {}) {
    open(tag, cls);
    text(content);
    if (tag == "td" || tag == "th") {  // cells stay on their row's line
      out += "</";
      out += tag;
      out += '>';
      return *this;
    }
    return close(tag);
  }
  Page& open(std::string_view tag, std::string_view cls = {}, std::string_view id = {}) {
    out += '<';
    out += tag;
    if (!id.empty()) {
      out += " id=\"";
      text(id);
      out += '"';
    }
    if (!cls.empty()) {
      out += " class=\"";
      text(cls);
      out += '"';
    }
    out += '>';
    return *this;
  }
  Page& close(std::string_view tag) {
    out += "</";
    out += tag;
    out += ">\n";
    return *this;
  }
  /// A table row of cells (th for the header row).
  Page& row(std::initializer_list<std::string_view> cells, bool header = false) {
    out += "<tr>";
    for (auto c : cells) el(header ? "th" : "td", c);
    out += "</tr>\n";
    return *this;
  }
  /// A cell with a number: shown rounded, the exact value in the tooltip.
  Page& number_cell(std::optional<double> v, std::string_view null_text = "-") {
    if (!v) return el("td", null_text, "null");
    out += "<td class=\"num\" title=\"";
    text(format_number(*v));
    out += "\">";
    text(human(*v));
    out += "</td>";
    return *this;
  }
  Page& missing(std::string_view why) { return el("p", why, "missing"); }
};

}  // namespace gpucost::html
