#pragma once
// A small XML well-formedness checker for the HTML report tests: tags nest and close, attribute
// values are quoted and not repeated, entities are the five XML ones or numeric, one root
// element. It also collects every attribute, so tests can look for external references.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::testing {

struct XmlAttribute {
  std::string element, name, value;  ///< value as written (entities not decoded)
};

struct XmlCheck {
  std::string error;  ///< empty when well-formed; else what and where (byte offset)
  std::vector<XmlAttribute> attributes;
  std::vector<std::string> elements;  ///< element names in document order
};

inline XmlCheck check_xml(std::string_view d) {
  XmlCheck r;
  std::vector<std::string> stack;
  int roots = 0;
  auto fail = [&](std::size_t at, std::string_view what) {
    r.error = std::string(what) + " at byte " + std::to_string(at) + ": '" +
              std::string(d.substr(at > 20 ? at - 20 : 0, 60)) + "'";
    return r;
  };
  auto is_name_start = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'; };
  auto is_name = [&](char c) { return is_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.'; };
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  // An entity at d[i] == '&': its length, or 0 when invalid.
  auto entity = [&](std::size_t i) -> std::size_t {
    const auto semi = d.find(';', i);
    if (semi == std::string_view::npos || semi - i > 12) return 0;
    const std::string_view e = d.substr(i + 1, semi - i - 1);
    if (e == "amp" || e == "lt" || e == "gt" || e == "quot" || e == "apos") return semi - i + 1;
    if (e.size() >= 2 && e[0] == '#') {
      const bool hex = e[1] == 'x';
      const std::string_view digits = e.substr(hex ? 2 : 1);
      if (digits.empty()) return 0;
      for (char c : digits)
        if (!(c >= '0' && c <= '9') && !(hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))) return 0;
      return semi - i + 1;
    }
    return 0;
  };

  std::size_t i = 0;
  if (d.substr(0, 9) == "<!DOCTYPE") {
    i = d.find('>');
    if (i == std::string_view::npos) return fail(0, "unterminated DOCTYPE");
    ++i;
  }
  while (i < d.size()) {
    const char c = d[i];
    if (c == '&') {
      const auto n = entity(i);
      if (!n) return fail(i, "bad entity");
      if (stack.empty()) return fail(i, "text outside the root element");
      i += n;
      continue;
    }
    if (c != '<') {
      if (stack.empty() && !is_space(c)) return fail(i, "text outside the root element");
      ++i;
      continue;
    }
    if (d.substr(i, 4) == "<!--") {
      const auto end = d.find("-->", i + 4);
      if (end == std::string_view::npos) return fail(i, "unterminated comment");
      i = end + 3;
      continue;
    }
    if (i + 1 < d.size() && d[i + 1] == '/') {
      std::size_t j = i + 2;
      while (j < d.size() && is_name(d[j])) ++j;
      const std::string name(d.substr(i + 2, j - i - 2));
      while (j < d.size() && is_space(d[j])) ++j;
      if (j >= d.size() || d[j] != '>') return fail(i, "bad end tag");
      if (stack.empty() || stack.back() != name) return fail(i, "end tag </" + name + "> does not match");
      stack.pop_back();
      i = j + 1;
      continue;
    }
    std::size_t j = i + 1;
    if (j >= d.size() || !is_name_start(d[j])) return fail(i, "'<' that starts no tag");
    while (j < d.size() && is_name(d[j])) ++j;
    const std::string name(d.substr(i + 1, j - i - 1));
    if (stack.empty() && ++roots > 1) return fail(i, "a second root element");
    r.elements.push_back(name);
    std::vector<std::string> seen;
    bool self_closing = false;
    for (;;) {
      const std::size_t before = j;
      while (j < d.size() && is_space(d[j])) ++j;
      if (j >= d.size()) return fail(i, "unterminated tag");
      if (d[j] == '>') {
        ++j;
        break;
      }
      if (d.substr(j, 2) == "/>") {
        self_closing = true;
        j += 2;
        break;
      }
      if (j == before) return fail(j, "attributes must be separated by blanks");
      const std::size_t a0 = j;
      if (!is_name_start(d[j])) return fail(j, "bad attribute name");
      while (j < d.size() && is_name(d[j])) ++j;
      const std::string attr(d.substr(a0, j - a0));
      for (const auto& s : seen)
        if (s == attr) return fail(a0, "duplicate attribute " + attr);
      seen.push_back(attr);
      if (j >= d.size() || d[j] != '=') return fail(j, "attribute without a value");
      ++j;
      if (j >= d.size() || (d[j] != '"' && d[j] != '\'')) return fail(j, "unquoted attribute value");
      const char q = d[j];
      const auto end = d.find(q, j + 1);
      if (end == std::string_view::npos) return fail(j, "unterminated attribute value");
      const std::string_view value = d.substr(j + 1, end - j - 1);
      for (std::size_t k = 0; k < value.size(); ++k) {
        if (value[k] == '<') return fail(j + 1 + k, "'<' in an attribute value");
        if (value[k] == '&' && !entity(j + 1 + k)) return fail(j + 1 + k, "bad entity in an attribute value");
      }
      r.attributes.push_back({name, attr, std::string(value)});
      j = end + 1;
    }
    if (!self_closing) stack.push_back(name);
    i = j;
  }
  if (!stack.empty()) return fail(d.size(), "<" + stack.back() + "> is never closed");
  if (roots != 1) return fail(0, "no root element");
  return r;
}

}  // namespace gpucost::testing
