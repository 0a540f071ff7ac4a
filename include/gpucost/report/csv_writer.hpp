#pragma once
/// \file csv_writer.hpp
/// RFC 4180 CSV: fields with a comma, quote, CR or LF are quoted, quotes doubled; rows end in \n.

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
