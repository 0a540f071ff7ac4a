#include "gpucost/text/escape.hpp"

#include "gpucost/text/utf8.hpp"

namespace gpucost::text {

namespace {

constexpr char kHex[] = "0123456789abcdef";

constexpr bool is_c0_or_del(unsigned char c) noexcept { return (c < 0x20 && c != '\t') || c == 0x7f; }
constexpr bool is_c1(char32_t c) noexcept { return c >= 0x80 && c <= 0x9f; }

void append_hex(std::string& out, const char* prefix, unsigned char c) {
  out += prefix;
  out += kHex[c >> 4];
  out += kHex[c & 15];
}

}  // namespace

bool needs_escape_control(std::string_view s) noexcept {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (is_c0_or_del(c)) return true;
      ++i;
      continue;
    }
    const Utf8Char u = decode_utf8(s, i);
    if (u.length == 0) {
      if (is_c1(c)) return true;
      ++i;
    } else {
      if (is_c1(u.code_point)) return true;
      i += u.length;
    }
  }
  return false;
}

void append_escape_control(std::string& out, std::string_view s, std::size_t max) {
  for (std::size_t i = 0; i < s.size();) {
    if (out.size() >= max) {
      out += "...";
      return;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (is_c0_or_del(c)) append_hex(out, "\\x", c);
      else out += static_cast<char>(c);
      ++i;
      continue;
    }
    const Utf8Char u = decode_utf8(s, i);
    if (u.length == 0) {
      if (is_c1(c)) append_hex(out, "\\x", c);
      else out += static_cast<char>(c);
      ++i;
    } else {
      if (is_c1(u.code_point)) append_hex(out, "\\u00", static_cast<unsigned char>(u.code_point));
      else out.append(s.substr(i, u.length));
      i += u.length;
    }
  }
}

std::string escape_control(std::string_view s) {
  std::string out;
  if (!needs_escape_control(s)) return out.assign(s);
  out.reserve(s.size() + 16);
  append_escape_control(out, s);
  return out;
}

namespace {

// Length of the UTF-8 character at s[i] that XML accepts, or 0: well-formed UTF-8 (one decoder,
// text/utf8.hpp) without the controls but tab, LF and CR, DEL, U+FFFE and U+FFFF.
std::size_t xml_char_length(std::string_view s, std::size_t i) {
  const auto [cp, n] = decode_utf8(s, i);
  if (n == 1) return (cp >= 0x20 && cp != 0x7F) || cp == '\t' || cp == '\n' || cp == '\r' ? 1 : 0;
  return cp == 0xFFFE || cp == 0xFFFF ? 0 : n;
}

// The entity written for c, or "" for a character written as it is.
std::string_view xml_entity(char c) noexcept {
  switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#39;";
    default: return {};
  }
}

}  // namespace

void append_xml_escaped(std::string& out, std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    if (const std::string_view entity = xml_entity(s[i]); !entity.empty()) {
      out += entity;
      ++i;
      continue;
    }
    const std::size_t n = xml_char_length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
}

std::string xml_escaped(std::string_view text) {
  std::string out;
  append_xml_escaped(out, text);
  return out;
}

}  // namespace gpucost::text
