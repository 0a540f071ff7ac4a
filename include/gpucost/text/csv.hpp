#pragma once
/// \file csv.hpp
/// RFC 4180 CSV: fields with a comma, quote, CR or LF are quoted, quotes doubled; rows end in \n.
/// Cells are safe to open and to print: a cell that a spreadsheet would run as a formula (it
/// begins with `=`, `+`, `-`, `@`, tab or CR and is not a plain number) is quoted with a `'`
/// before it (OWASP's rule), and control bytes but tab and LF are written as text::printable()
/// writes them (`\x1b`), so a log line cannot drive the terminal that shows the file.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <string>
#include <string_view>

namespace gpucost {

/// Appends CSV rows to a string.
class CsvWriter {
 public:
  explicit CsvWriter(std::string& out) : out_(out) {}
  /// Appends one field to the current row.
  CsvWriter& field(std::string_view v);
  /// Appends a number (format_number), or an empty field for NaN.
  CsvWriter& number(double v);
  /// Ends the current row.
  CsvWriter& end_row();

 private:
  std::string& out_;
  bool first_ = true;
};

}  // namespace gpucost
