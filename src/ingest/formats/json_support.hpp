#pragma once
// Small pieces the simdjson-based parsers share (journal JSON, profiler traces, the manifest).

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace gpucost::formats {

/// What a simdjson error means for a log line, in a few words (simdjson's own messages are long
/// and speak of tapes).
std::string_view json_error_text(simdjson::error_code e) noexcept;

/// Name of a JSON value type as a reason prints it (`an object`, `a number` ...).
std::string_view json_type_text(simdjson::ondemand::json_type t) noexcept;

/// Copies `text` into `buf` followed by simdjson's padding (the buffer is reused, so after the
/// first lines nothing is allocated) and returns a view simdjson may read past its end.
simdjson::padded_string_view pad_json(std::string_view text, std::string& buf);

/// 1-based line number and the line's byte offset of position `pos` in `doc`.
void json_line_at(std::string_view doc, std::size_t pos, std::uint64_t& line, std::uint64_t& line_offset) noexcept;

}  // namespace gpucost::formats
