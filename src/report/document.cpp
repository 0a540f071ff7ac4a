#include "gpucost/report/document.hpp"

#include <charconv>
#include <stdexcept>

#include "gpucost/text/number.hpp"
#include "gpucost/text/utf8.hpp"

namespace gpucost::reportdoc {

ValueType Element::type() const noexcept { return doc_->node(index_).kind; }

std::optional<Element> child(Element e, std::string_view key) {
  const Document& d = *e.doc_;
  if (d.node(e.index_).kind != Document::Kind::kObject) return std::nullopt;
  for (auto i = d.node(e.index_).first; i != Document::kNone; i = d.node(i).next)
    if (d.view(d.node(i).key) == key) {
      if (d.node(i).kind == Document::Kind::kNull) return std::nullopt;
      return Element(&d, i);
    }
  return std::nullopt;
}

std::optional<double> number(std::optional<Element> e) {
  if (!e) return std::nullopt;
  const auto& n = e->doc_->node(e->index_);
  if (n.kind == Document::Kind::kInteger || n.kind == Document::Kind::kDouble) return n.number;
  return std::nullopt;
}

std::optional<std::int64_t> integer(std::optional<Element> e) {
  if (!e) return std::nullopt;
  const auto& n = e->doc_->node(e->index_);
  if (n.kind == Document::Kind::kInteger) return n.integer;
  return std::nullopt;
}

std::string_view string(std::optional<Element> e) {
  if (!e) return {};
  const auto& n = e->doc_->node(e->index_);
  return n.kind == Document::Kind::kString ? e->doc_->view(n.text) : std::string_view{};
}

bool boolean(Element e, std::string_view key, bool fallback) {
  const auto c = child(e, key);
  if (!c) return fallback;
  const auto& n = c->doc_->node(c->index_);
  return n.kind == Document::Kind::kBool ? n.boolean : fallback;
}

Document::Slice DocumentBuilder::store(std::string_view s) {
  // Text reads as UTF-8: each byte that is not part of a UTF-8 character reads as U+FFFD (the
  // JSON report keeps it, losslessly, as \udcXX).
  const Document::Slice slice{doc_.strings_.size(), 0};
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = text::decode_utf8(s, i).length;
    if (n == 0) {
      doc_.strings_ += "\xEF\xBF\xBD";
      ++i;
    } else {
      doc_.strings_.append(s.data() + i, n);
      i += n;
    }
  }
  return {slice.offset, doc_.strings_.size() - slice.offset};
}

std::uint32_t DocumentBuilder::add(Document::Kind kind) {
  if (open_.empty()) {
    if (root_done_) throw std::logic_error("report document: a second value at the top");
    root_done_ = true;
    doc_.nodes_[0] = Document::Node{};
    doc_.nodes_[0].kind = kind;
    return 0;
  }
  const auto index = static_cast<std::uint32_t>(doc_.nodes_.size());
  Document::Node n;
  n.kind = kind;
  if (doc_.nodes_[open_.back().node].kind == Document::Kind::kObject) n.key = pending_key_;
  doc_.nodes_.push_back(n);
  Open& parent = open_.back();
  if (parent.last == Document::kNone) doc_.nodes_[parent.node].first = index;
  else doc_.nodes_[parent.last].next = index;
  parent.last = index;
  return index;
}

JsonWriter& DocumentBuilder::begin_object() {
  open_.push_back({add(Document::Kind::kObject), Document::kNone});
  return *this;
}
JsonWriter& DocumentBuilder::end_object() {
  open_.pop_back();
  return *this;
}
JsonWriter& DocumentBuilder::begin_array() {
  open_.push_back({add(Document::Kind::kArray), Document::kNone});
  return *this;
}
JsonWriter& DocumentBuilder::end_array() {
  open_.pop_back();
  return *this;
}
JsonWriter& DocumentBuilder::key(std::string_view k) {
  pending_key_ = store(k);
  return *this;
}
JsonWriter& DocumentBuilder::value(std::string_view v) {
  const auto slice = store(v);
  doc_.nodes_[add(Document::Kind::kString)].text = slice;
  return *this;
}
JsonWriter& DocumentBuilder::value(double v) {
  // The value the JSON report shows: format_number's text, read back as a JSON reader reads it.
  const std::string t = format_number(v);
  if (t == "null") return null();
  const bool whole = t.find_first_of(".eE") == std::string::npos;
  std::int64_t i = 0;
  if (whole && std::from_chars(t.data(), t.data() + t.size(), i).ec == std::errc()) return value(i);
  double d = v;
  std::from_chars(t.data(), t.data() + t.size(), d);
  auto& n = doc_.nodes_[add(Document::Kind::kDouble)];
  n.number = d;
  return *this;
}
JsonWriter& DocumentBuilder::value(std::int64_t v) {
  auto& n = doc_.nodes_[add(Document::Kind::kInteger)];
  n.integer = v;
  n.number = static_cast<double>(v);
  return *this;
}
JsonWriter& DocumentBuilder::value(std::uint64_t v) {
  auto& n = doc_.nodes_[add(Document::Kind::kInteger)];
  n.integer = static_cast<std::int64_t>(v);
  n.number = static_cast<double>(v);
  return *this;
}
JsonWriter& DocumentBuilder::value(bool v) {
  doc_.nodes_[add(Document::Kind::kBool)].boolean = v;
  return *this;
}
JsonWriter& DocumentBuilder::null() {
  add(Document::Kind::kNull);
  return *this;
}

}  // namespace gpucost::reportdoc
