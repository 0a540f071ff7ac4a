#include "gpucost/text/utf8.hpp"

namespace gpucost::text {

Utf8Char decode_utf8(std::string_view s, std::size_t i) noexcept {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  const std::size_t left = s.size() - i;
  const auto cont = [&](std::size_t k) { return (b(k) & 0xC0) == 0x80; };
  const auto low = [&](std::size_t k) { return static_cast<char32_t>(b(k) & 0x3F); };
  if (c < 0x80) return {c, 1};
  if (c >= 0xC2 && c <= 0xDF) {
    if (left < 2 || !cont(i + 1)) return {};
    return {static_cast<char32_t>(c & 0x1F) << 6 | low(i + 1), 2};
  }
  if (c >= 0xE0 && c <= 0xEF) {
    if (left < 3 || !cont(i + 1) || !cont(i + 2)) return {};
    const unsigned char c1 = b(i + 1);
    if (c == 0xE0 && c1 < 0xA0) return {};   // overlong
    if (c == 0xED && c1 >= 0xA0) return {};  // UTF-16 surrogates
    return {static_cast<char32_t>(c & 0x0F) << 12 | low(i + 1) << 6 | low(i + 2), 3};
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (left < 4 || !cont(i + 1) || !cont(i + 2) || !cont(i + 3)) return {};
    const unsigned char c1 = b(i + 1);
    if (c == 0xF0 && c1 < 0x90) return {};   // overlong
    if (c == 0xF4 && c1 >= 0x90) return {};  // above U+10FFFF
    return {static_cast<char32_t>(c & 0x07) << 18 | low(i + 1) << 12 | low(i + 2) << 6 | low(i + 3), 4};
  }
  return {};
}

bool is_valid_utf8(std::string_view s) noexcept {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = decode_utf8(s, i).length;
    if (n == 0) return false;
    i += n;
  }
  return true;
}

}  // namespace gpucost::text
