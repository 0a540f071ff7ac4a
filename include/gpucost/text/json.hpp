#pragma once
/// \file json.hpp
/// Writes JSON (simdjson only parses). String escaping lives in one tested place: control
/// characters become \u00XX, and bytes that are not valid UTF-8 (text/utf8.hpp) are kept,
/// losslessly, as the lone surrogates \udc80-\udcff (Python's "surrogateescape" convention),
/// never dropped. Numbers are written as format_number() writes them.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/text/number.hpp"

namespace gpucost {

/// Appends s as a quoted JSON string.
void append_json_string(std::string& out, std::string_view s);

/// Streaming JSON writer with commas and (optional) indentation handled for the caller.
class JsonWriter final {
 public:
  /// Writes into out; pretty = two-space indentation, else one line.
  explicit JsonWriter(std::string& out, bool pretty = true) : out_(&out), pretty_(pretty) {}
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  /// The key of the next value inside an object.
  JsonWriter& key(std::string_view k);

  JsonWriter& value(std::string_view v);
  JsonWriter& value(const char* v) { return value(std::string_view(v)); }
  JsonWriter& value(const std::string& v) { return value(std::string_view(v)); }
  JsonWriter& value(double v);
  JsonWriter& value(std::int64_t v);
  JsonWriter& value(std::uint64_t v);
  JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(unsigned v) { return value(static_cast<std::uint64_t>(v)); }
  JsonWriter& value(bool v);
  JsonWriter& null();
  /// A value or null.
  template <typename T>
  JsonWriter& value(const std::optional<T>& v) { return v ? value(*v) : null(); }

  /// key(k).value(v)
  template <typename T>
  JsonWriter& kv(std::string_view k, const T& v) { key(k); return value(v); }

 protected:
  /// For a subclass that takes the values itself (writes no text).
  JsonWriter() = default;

 private:
  void before_value();
  void newline();
  std::string* out_ = nullptr;
  bool pretty_ = true;
  struct Level {
    bool object;
    bool empty;
  };
  std::vector<Level> stack_;
  bool after_key_ = false;
};

}  // namespace gpucost
