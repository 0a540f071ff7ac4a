#pragma once
// Reading gpucost's JSON output in tests and fuzz targets with simdjson. The JSON writer keeps
// bytes that are not UTF-8 as lone low surrogates (\udc80-\udcff, text/json.hpp), which strict
// parsers such as simdjson refuse; replace_lone_surrogates() makes them \ufffd first. Only the
// checks need it: no writer reads JSON text (they render the report model).

#include <simdjson.h>

#include <string>
#include <string_view>

namespace gpucost::testing {

/// The JSON text with each lone low surrogate escape as \ufffd; every other byte left as it is.
inline std::string replace_lone_surrogates(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  bool after_high = false;  // the previous escape was a high surrogate: a pair, keep it
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c != '\\' || i + 1 >= json.size()) {
      out += c;
      continue;
    }
    const char n = json[i + 1];
    if (n == 'u' && i + 6 <= json.size()) {
      const std::string_view hex = json.substr(i + 2, 4);
      unsigned v = 0;
      bool ok = true;
      for (char h : hex) {
        v <<= 4;
        if (h >= '0' && h <= '9') v |= static_cast<unsigned>(h - '0');
        else if (h >= 'a' && h <= 'f') v |= static_cast<unsigned>(h - 'a' + 10);
        else if (h >= 'A' && h <= 'F') v |= static_cast<unsigned>(h - 'A' + 10);
        else ok = false;
      }
      if (ok && v >= 0xDC00 && v <= 0xDFFF && !after_high) out += "\\ufffd";
      else out.append(json.substr(i, 6));
      after_high = ok && v >= 0xD800 && v <= 0xDBFF;
      i += 5;
      continue;
    }
    out += c;
    out += n;  // \\ \" \n ...: the escaped character cannot start another escape
    after_high = false;
    ++i;
  }
  return out;
}

}  // namespace gpucost::testing
