#pragma once
// The JSON report as a document for the writers that render from it (HTML, Prometheus): one
// model, several writers. Lookups never throw: a missing key, a null and a value of the wrong
// type all read as "absent", so a report from a build with fewer features renders too.

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpucost::reportdoc {

using Element = simdjson::dom::element;

/// Our JSON writer keeps bytes that are not UTF-8 as lone low surrogates (\udc80-\udcff), which
/// simdjson rejects; they become U+FFFD here. Every other byte is left as it is.
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

/// A parsed report. Throws std::invalid_argument when the text is not JSON (a bug upstream,
/// since the text comes from our own JSON writer, or a user passing a foreign file).
class Document {
 public:
  explicit Document(std::string_view json) : text_(replace_lone_surrogates(json)) {
    if (auto err = parser_.parse(text_).get(root_))
      throw std::invalid_argument(std::string("report JSON: ") + simdjson::error_message(err));
  }
  Element root() const noexcept { return root_; }

 private:
  simdjson::padded_string text_;
  simdjson::dom::parser parser_;
  Element root_;
};

/// e[key] when e is an object that has it and it is not null.
inline std::optional<Element> child(Element e, std::string_view key) {
  simdjson::dom::object o;
  Element v;
  if (e.get(o) || o.at_key(key).get(v) || v.is_null()) return std::nullopt;
  return v;
}

/// A path of keys: child(child(e, a), b) ...
template <typename... Keys>
std::optional<Element> path(Element e, std::string_view first, Keys... rest) {
  auto c = child(e, first);
  if constexpr (sizeof...(rest) == 0) return c;
  else return c ? path(*c, rest...) : std::nullopt;
}

/// A number (double, int64 or uint64), or nullopt.
inline std::optional<double> number(std::optional<Element> e) {
  if (!e) return std::nullopt;
  double d = 0;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  if (e->is_int64() && !e->get(i)) return static_cast<double>(i);
  if (e->is_uint64() && !e->get(u)) return static_cast<double>(u);
  if (e->is_double() && !e->get(d)) return d;
  return std::nullopt;
}
inline std::optional<double> number(Element e, std::string_view key) { return number(child(e, key)); }

/// An integer, or nullopt.
inline std::optional<std::int64_t> integer(std::optional<Element> e) {
  if (!e) return std::nullopt;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  if (e->is_int64() && !e->get(i)) return i;
  if (e->is_uint64() && !e->get(u)) return static_cast<std::int64_t>(u);
  return std::nullopt;
}
inline std::optional<std::int64_t> integer(Element e, std::string_view key) { return integer(child(e, key)); }

/// A string, or empty.
inline std::string_view string(std::optional<Element> e) {
  std::string_view s;
  if (!e || e->get(s)) return {};
  return s;
}
inline std::string_view string(Element e, std::string_view key) { return string(child(e, key)); }

/// A bool, or fallback.
inline bool boolean(Element e, std::string_view key, bool fallback = false) {
  auto c = child(e, key);
  bool b = false;
  if (!c || c->get(b)) return fallback;
  return b;
}

/// Calls f(element) for each element of an array (nothing when absent or not an array).
template <typename F>
void each(std::optional<Element> e, F&& f) {
  simdjson::dom::array a;
  if (!e || e->get(a)) return;
  for (Element x : a) f(x);
}
/// Calls f(key, value) for each member of an object (nothing when absent or not an object).
template <typename F>
void each_member(std::optional<Element> e, F&& f) {
  simdjson::dom::object o;
  if (!e || e->get(o)) return;
  for (auto kv : o) f(kv.key, kv.value);
}

}  // namespace gpucost::reportdoc
