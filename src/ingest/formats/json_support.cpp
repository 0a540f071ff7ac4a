#include "ingest/formats/json_support.hpp"

#include <cstring>

#include "gpucost/text.hpp"

namespace gpucost::formats {

std::string_view json_error_text(simdjson::error_code e) noexcept {
  using namespace simdjson;
  switch (e) {
    case INCOMPLETE_ARRAY_OR_OBJECT: return "truncated: an object or array is not closed";
    case UNCLOSED_STRING: return "truncated: a string is not closed";
    case DEPTH_ERROR: return "nested too deeply";
    case NUMBER_OUT_OF_RANGE: return "a number does not fit in 64 bits";
    case NUMBER_ERROR: return "a malformed number";
    case STRING_ERROR: return "a malformed string escape";
    case UTF8_ERROR: return "invalid UTF-8";
    case UNESCAPED_CHARS: return "a control character inside a string";
    case T_ATOM_ERROR: case F_ATOM_ERROR: case N_ATOM_ERROR: return "a malformed true/false/null";
    case TRAILING_CONTENT: return "content after the end of the document";
    case EMPTY: return "no JSON value";
    case CAPACITY: return "the document is larger than simdjson can parse (4 GiB)";
    case INCORRECT_TYPE: return "a value has the wrong type";
    case TAPE_ERROR: return "malformed JSON (a missing comma, colon, brace or key)";
    default: return error_message(e);
  }
}

std::string_view json_type_text(simdjson::ondemand::json_type t) noexcept {
  using simdjson::ondemand::json_type;
  switch (t) {
    case json_type::array: return "an array";
    case json_type::object: return "an object";
    case json_type::number: return "a number";
    case json_type::string: return "a string";
    case json_type::boolean: return "a boolean";
    case json_type::null: return "null";
  }
  return "an unknown value";
}

simdjson::padded_string_view pad_json(std::string_view text, std::string& buf) {
  const std::size_t need = text.size() + simdjson::SIMDJSON_PADDING;
  if (buf.size() < need) buf.resize(need);
  if (!text.empty()) std::memcpy(buf.data(), text.data(), text.size());
  std::memset(buf.data() + text.size(), ' ', simdjson::SIMDJSON_PADDING);
  return simdjson::padded_string_view(buf.data(), text.size(), buf.size());
}

bool has_json_key(std::string_view line, std::string_view quoted_key) noexcept {
  std::size_t from = 0;
  for (;;) {
    if (quoted_key.empty() || from >= line.size()) return false;
    const std::size_t hit = text::find(line.substr(from), quoted_key);
    if (hit == std::string_view::npos) return false;
    std::size_t i = from + hit + quoted_key.size();
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i < line.size() && line[i] == ':') return true;
    from = i;
  }
}

void json_line_at(std::string_view doc, std::size_t pos, std::uint64_t& line, std::uint64_t& line_offset) noexcept {
  if (pos > doc.size()) pos = doc.size();
  line = 1;
  line_offset = 0;
  const char* p = doc.data();
  const char* end = doc.data() + pos;
  while (p < end) {
    const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    if (!nl) break;
    p = static_cast<const char*>(nl) + 1;
    ++line;
    line_offset = static_cast<std::uint64_t>(p - doc.data());
  }
}

}  // namespace gpucost::formats
