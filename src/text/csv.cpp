#include "gpucost/text/csv.hpp"

#include <cmath>

#include "gpucost/text.hpp"
#include "gpucost/text/number.hpp"

namespace gpucost {

namespace {

// A cell a spreadsheet would run as a formula (OWASP "CSV injection": = + - @, and tab or CR
// before them), unless it is a plain number: `-3.5` stays a number.
bool formula_like(std::string_view v) noexcept {
  if (v.empty() || (v[0] != '=' && v[0] != '+' && v[0] != '-' && v[0] != '@' && v[0] != '\t' && v[0] != '\r'))
    return false;
  if (v.size() == 1) return false;  // a lone `-` (no value) is no formula
  std::size_t i = v[0] == '-' || v[0] == '+' ? 1 : 0;
  bool digits = false, dot = false;
  for (; i < v.size(); ++i) {
    if (text::is_digit(v[i])) digits = true;
    else if (v[i] == '.' && !dot) dot = true;
    else if ((v[i] == 'e' || v[i] == 'E') && digits) {
      std::size_t j = i + 1;
      if (j < v.size() && (v[j] == '+' || v[j] == '-')) ++j;
      if (j == v.size()) return true;
      for (; j < v.size(); ++j)
        if (!text::is_digit(v[j])) return true;
      return false;
    } else return true;
  }
  return !digits;
}

}  // namespace

CsvWriter& CsvWriter::field(std::string_view v) {
  if (!first_) out_ += ',';
  first_ = false;
  const bool formula = formula_like(v);
  std::string safe;
  // Control bytes would drive a terminal that shows the file (`cat timeline.csv`); a multi-line
  // message stays multi-line inside its quotes.
  if (text::needs_printable_lines(v)) {
    safe = text::printable_lines(v);
    v = safe;
  }
  if (!formula && v.find_first_of(",\"\r\n") == std::string_view::npos) {
    out_.append(v);
    return *this;
  }
  out_ += '"';
  if (formula) out_ += '\'';  // shown as text, not run
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
