#pragma once
// Small pieces the simdjson-based parsers share (journal JSON, profiler traces, the manifest).

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <simdjson.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "gpucost/ingest/line_source.hpp"

namespace gpucost::formats {

/// What a simdjson error means for a log line, in a few words (simdjson's own messages are long
/// and speak of tapes).
std::string_view json_error_text(simdjson::error_code e) noexcept;

/// Name of a JSON value type as a reason prints it (`an object`, `a number` ...).
std::string_view json_type_text(simdjson::ondemand::json_type t) noexcept;

/// Copies `text` into `buf` followed by simdjson's padding (the buffer is reused, so after the
/// first lines nothing is allocated) and returns a view simdjson may read past its end.
simdjson::padded_string_view pad_json(std::string_view text, std::string& buf);

/// Calls f(line) for each line of a whole document held in memory (without its '\n' and a '\r'
/// before it; numbered from 1, offsets from 0) until f returns false.
template <typename F>
void for_each_doc_line(std::string_view doc, F f) {
  std::size_t pos = 0;
  std::uint64_t number = 0;
  while (pos < doc.size()) {
    const void* nl = std::memchr(doc.data() + pos, '\n', doc.size() - pos);
    const std::size_t end = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - doc.data()) : doc.size();
    Line l;
    l.number = ++number;
    l.offset = pos;
    l.text = doc.substr(pos, end - pos);
    if (!l.text.empty() && l.text.back() == '\r') l.text.remove_suffix(1);
    if (!f(l)) return;
    pos = end + 1;
  }
}

/// True when `quoted_key` (with its quotes: "\"name\"") occurs in line as an object key, that is
/// followed by optional blanks and a colon (a string value that happens to read the same is no key).
bool has_json_key(std::string_view line, std::string_view quoted_key) noexcept;

/// 1-based line number and the line's byte offset of position `pos` in `doc`.
void json_line_at(std::string_view doc, std::size_t pos, std::uint64_t& line, std::uint64_t& line_offset) noexcept;

}  // namespace gpucost::formats
