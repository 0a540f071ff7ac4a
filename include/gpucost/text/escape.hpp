#pragma once
/// \file escape.hpp
/// The one escaping of text that must not drive the terminal, the file or the reader that shows
/// it: log text, GPU names and file names in the table report, CSV cells, Prometheus labels,
/// stderr. A control is every byte or character that a terminal acts on instead of showing:
/// - a C0 control byte but tab (LF and CR included, so a file name cannot forge a line), and DEL:
///   written `\xNN`;
/// - a C1 control written as UTF-8 (U+0080..U+009F, `C2 80`..`C2 9F`: 8-bit CSI, OSC, NEL):
///   written `\u00NN`;
/// - a raw C1 byte (0x80..0x9F that is not part of a well-formed UTF-8 character, such as a lone
///   0x9B, CSI on an 8-bit terminal): written `\xNN`.
/// Every other byte is kept: well-formed UTF-8, and bytes 0xA0..0xFF outside UTF-8 (Latin-1
/// letters of old logs). The output is meant for a UTF-8 reader, as `ls`, `journalctl` and
/// `less` assume; a backslash is kept as it is (a writer whose format gives it a meaning, such
/// as a Prometheus label, escapes it afterwards).

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>
#include <string>
#include <string_view>

namespace gpucost::text {

/// s with every control written as text (see the file comment).
std::string escape_control(std::string_view s);

/// True when escape_control(s) differs from s (the common case, false, allocates nothing).
bool needs_escape_control(std::string_view s) noexcept;

/// Appends escape_control(s) to out; stops with "..." once out holds max bytes or more.
void append_escape_control(std::string& out, std::string_view s, std::size_t max = std::string::npos);

/// Appends text escaped for HTML/XML text and attribute values: `& < > " '` become entities,
/// control characters that XML forbids and bytes that are not valid UTF-8 (surrogates included)
/// become U+FFFD; tab, LF and CR are kept. The one escaping of the HTML pages (the report, the fleet).
void append_xml_escaped(std::string& out, std::string_view text);

/// append_xml_escaped into a new string.
std::string xml_escaped(std::string_view text);

}  // namespace gpucost::text
