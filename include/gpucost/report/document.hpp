#pragma once
/// \file document.hpp
/// The report document: what `gpucost analyze` reports, in memory, shaped as the JSON report
/// (objects, arrays, strings, numbers). It is built through the same JsonWriter calls that write
/// the JSON report (a DocumentBuilder is a JsonWriter), so the HTML page, the Prometheus textfile
/// and the NDJSON rows show exactly what the JSON report holds; nothing is written as text and
/// parsed back. What it holds is what the JSON report says: numbers as format_number() writes
/// them (10 significant digits; a whole number is an integer), strings as UTF-8 (a byte that is
/// not UTF-8 reads as U+FFFD, where the JSON keeps it as `\udcXX`).
/// Lookups never throw: a missing key, a null and a value of the wrong type all read as
/// "absent", so a writer renders a report with fewer features too.

#ifndef GPUCOST_LAYER_REPORT
#error "gpucost_report header: include it only in gpucost_report or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/text/json.hpp"

namespace gpucost::reportdoc {

class Document;

/// What a value is (an integer: a number the JSON report writes without fraction or exponent).
enum class ValueType : std::uint8_t { kNull, kBool, kInteger, kDouble, kString, kArray, kObject };

/// A value in a Document: a light handle, valid while its Document lives.
class Element {
 public:
  ValueType type() const noexcept;
  bool is_null() const noexcept { return type() == ValueType::kNull; }

 private:
  friend class Document;
  friend std::optional<Element> child(Element e, std::string_view key);
  friend std::optional<double> number(std::optional<Element> e);
  friend std::optional<std::int64_t> integer(std::optional<Element> e);
  friend std::string_view string(std::optional<Element> e);
  friend bool boolean(Element e, std::string_view key, bool fallback);
  template <typename F>
  friend void each(std::optional<Element> e, F&& f);
  template <typename F>
  friend void each_member(std::optional<Element> e, F&& f);
  Element(const Document* doc, std::uint32_t index) : doc_(doc), index_(index) {}
  const Document* doc_;
  std::uint32_t index_;
};

/// The tree: nodes in one vector (children linked first to last), strings in one arena.
class Document {
 public:
  /// The root value (null while nothing was built).
  Element root() const noexcept { return Element(this, 0); }

 private:
  friend class Element;
  friend class DocumentBuilder;
  friend std::optional<Element> child(Element e, std::string_view key);
  friend std::optional<double> number(std::optional<Element> e);
  friend std::optional<std::int64_t> integer(std::optional<Element> e);
  friend std::string_view string(std::optional<Element> e);
  friend bool boolean(Element e, std::string_view key, bool fallback);
  template <typename F>
  friend void each(std::optional<Element> e, F&& f);
  template <typename F>
  friend void each_member(std::optional<Element> e, F&& f);

  using Kind = ValueType;
  static constexpr std::uint32_t kNone = 0xFFFFFFFF;
  struct Slice {
    std::size_t offset = 0, size = 0;
  };
  struct Node {
    Kind kind = Kind::kNull;
    bool boolean = false;
    std::int64_t integer = 0;  // kInteger
    double number = 0;         // kInteger and kDouble
    Slice text;                // kString
    Slice key;                 // the member's key, when the parent is an object
    std::uint32_t first = kNone, next = kNone;  // first child; next sibling
  };
  std::string_view view(Slice s) const noexcept { return std::string_view(strings_).substr(s.offset, s.size); }
  const Node& node(std::uint32_t i) const noexcept { return nodes_[i]; }

  std::vector<Node> nodes_{Node{}};
  std::string strings_;
};

/// Builds a Document through JsonWriter's calls (one value at the top, as in a JSON text).
class DocumentBuilder final : public JsonWriter {
 public:
  explicit DocumentBuilder(Document& doc) : doc_(doc) {}

  JsonWriter& begin_object() override;
  JsonWriter& end_object() override;
  JsonWriter& begin_array() override;
  JsonWriter& end_array() override;
  JsonWriter& key(std::string_view k) override;
  JsonWriter& value(std::string_view v) override;
  JsonWriter& value(double v) override;
  JsonWriter& value(std::int64_t v) override;
  JsonWriter& value(std::uint64_t v) override;
  JsonWriter& value(bool v) override;
  JsonWriter& null() override;
  using JsonWriter::value;

 private:
  // A new node in the open container (or the root); returns its index.
  std::uint32_t add(Document::Kind kind);
  Document::Slice store(std::string_view s);
  struct Open {
    std::uint32_t node, last;
  };
  Document& doc_;
  std::vector<Open> open_;
  Document::Slice pending_key_;
  bool root_done_ = false;
};

/// e[key] when e is an object that has it and it is not null.
std::optional<Element> child(Element e, std::string_view key);

/// A path of keys: child(child(e, a), b) ...
template <typename... Keys>
std::optional<Element> path(Element e, std::string_view first, Keys... rest) {
  auto c = child(e, first);
  if constexpr (sizeof...(rest) == 0) return c;
  else return c ? path(*c, rest...) : std::nullopt;
}

/// A number (integer or not), or nullopt.
std::optional<double> number(std::optional<Element> e);
inline std::optional<double> number(Element e, std::string_view key) { return number(child(e, key)); }

/// An integer (a number written without fraction or exponent), or nullopt.
std::optional<std::int64_t> integer(std::optional<Element> e);
inline std::optional<std::int64_t> integer(Element e, std::string_view key) { return integer(child(e, key)); }

/// A string, or empty.
std::string_view string(std::optional<Element> e);
inline std::string_view string(Element e, std::string_view key) { return string(child(e, key)); }

/// A bool, or fallback.
bool boolean(Element e, std::string_view key, bool fallback = false);

/// Calls f(element) for each element of an array (nothing when absent or not an array).
template <typename F>
void each(std::optional<Element> e, F&& f) {
  if (!e) return;
  const Document& d = *e->doc_;
  if (d.node(e->index_).kind != Document::Kind::kArray) return;
  for (auto i = d.node(e->index_).first; i != Document::kNone; i = d.node(i).next) f(Element(&d, i));
}
/// Calls f(key, value) for each member of an object (nothing when absent or not an object).
template <typename F>
void each_member(std::optional<Element> e, F&& f) {
  if (!e) return;
  const Document& d = *e->doc_;
  if (d.node(e->index_).kind != Document::Kind::kObject) return;
  for (auto i = d.node(e->index_).first; i != Document::kNone; i = d.node(i).next)
    f(d.view(d.node(i).key), Element(&d, i));
}

}  // namespace gpucost::reportdoc
