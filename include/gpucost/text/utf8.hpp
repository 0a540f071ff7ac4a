#pragma once
/// \file utf8.hpp
/// The one UTF-8 decoder: which bytes form a well-formed UTF-8 character (RFC 3629: no overlong
/// forms, no UTF-16 surrogates, nothing above U+10FFFF). The JSON writer keeps the bytes that do
/// not as `\udcXX` escapes; the HTML writer shows them as U+FFFD.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>
#include <string_view>

namespace gpucost::text {

/// One decoded character: its code point and how many bytes it took (1-4); length 0 when the
/// bytes are not well-formed UTF-8 (then code_point is 0).
struct Utf8Char {
  char32_t code_point = 0;
  std::size_t length = 0;
};

/// Decodes the UTF-8 character that starts at s[i] (i < s.size()).
Utf8Char decode_utf8(std::string_view s, std::size_t i) noexcept;

/// True when every byte of s belongs to a well-formed UTF-8 character.
bool is_valid_utf8(std::string_view s) noexcept;

}  // namespace gpucost::text
