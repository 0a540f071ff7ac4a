#pragma once
// Small helpers to read the presets and config files with simdjson's DOM API, with errors that
// name the file and the key (std::invalid_argument, reported as usage errors).

#ifndef GPUCOST_LAYER_COST
#error "gpucost_cost header: include it only in gpucost_cost or a layer above it (docs/architecture.md, Layers)"
#endif

#include <fmt/format.h>
#include <simdjson.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace gpucost::cost::json {

using simdjson::dom::element;
using simdjson::dom::object;

/// Throws std::invalid_argument "<origin>: <key>: <what>".
[[noreturn]] inline void fail(std::string_view origin, std::string_view key, std::string_view what) {
  throw std::invalid_argument(fmt::format("{}: {}: {}", origin, key, what));
}

/// Parses a document; the parser must outlive the returned element.
inline element parse(simdjson::dom::parser& parser, const simdjson::padded_string& text, std::string_view origin) {
  element doc;
  if (auto err = parser.parse(text).get(doc))
    throw std::invalid_argument(fmt::format("{}: not valid JSON: {}", origin, simdjson::error_message(err)));
  return doc;
}

inline object as_object(element e, std::string_view origin, std::string_view key) {
  object o;
  if (e.get(o)) fail(origin, key, "expected an object");
  return o;
}

inline bool is_number(element e) {
  const auto t = e.type();
  return t == simdjson::dom::element_type::DOUBLE || t == simdjson::dom::element_type::INT64 ||
         t == simdjson::dom::element_type::UINT64;
}

inline double as_number(element e, std::string_view origin, std::string_view key) {
  double d = 0;
  if (!is_number(e) || e.get(d)) fail(origin, key, "expected a number");
  return d;
}

inline std::string as_string(element e, std::string_view origin, std::string_view key) {
  std::string_view s;
  if (e.get(s)) fail(origin, key, "expected a string");
  return std::string(s);
}

}  // namespace gpucost::cost::json
