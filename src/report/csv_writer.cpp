#include "gpucost/report/csv_writer.hpp"

#include <cmath>

#include "gpucost/report/json_writer.hpp"

namespace gpucost {

CsvWriter& CsvWriter::field(std::string_view v) {
  if (!first_) out_ += ',';
  first_ = false;
  if (v.find_first_of(",\"\r\n") == std::string_view::npos) {
    out_.append(v);
    return *this;
  }
  out_ += '"';
  for (char c : v) {
    if (c == '"') out_ += '"';
    out_ += c;
  }
  out_ += '"';
  return *this;
}

CsvWriter& CsvWriter::number(double v) { return field(std::isfinite(v) ? format_number(v) : std::string()); }

CsvWriter& CsvWriter::end_row() {
  out_ += '\n';
  first_ = true;
  return *this;
}

}  // namespace gpucost
