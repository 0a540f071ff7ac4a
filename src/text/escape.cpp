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

}  // namespace gpucost::text
