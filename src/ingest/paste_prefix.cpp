#include "gpucost/ingest/paste_prefix.hpp"

#include "gpucost/text.hpp"
#include "gpucost/time.hpp"
#include "ingest/formats/kernel_message.hpp"

namespace gpucost {

namespace {

constexpr bool is_alpha(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
constexpr bool is_host_char(char c) noexcept { return is_alpha(c) || text::is_digit(c) || c == '-' || c == '_' || c == '.'; }

// A three-letter English month or weekday name followed by a blank.
bool starts_with_name_and_blank(std::string_view s) noexcept {
  if (s.size() < 5 || !is_alpha(s[0]) || !is_alpha(s[1]) || !is_alpha(s[2]) || s[3] != ' ') return false;
  static constexpr std::string_view kDays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  const std::string_view w = s.substr(0, 3);
  for (const auto d : kDays)
    if (w == d) return true;
  return parse_month_name(w) > 0 && (text::is_digit(s[4]) || s[4] == ' ');
}

// Where a log line's stamp begins: `[ 12.3]` / `[12.3]` / `[+0.1]` / `[Tue Mar  5 ..]` / `[Mar 5 ..]`
// (dmesg and its -T, -e forms), `Mar  5 10:12:01` (syslog), `2024-03-05` (ISO).
bool starts_like_stamp(std::string_view s) noexcept {
  if (s.empty()) return false;
  if (s[0] == '[') {
    if (s.size() < 3) return false;
    const char c = s[1];
    return c == ' ' || c == '+' || text::is_digit(c) || starts_with_name_and_blank(s.substr(1));
  }
  if (text::is_digit(s[0]))
    return s.size() >= 10 && text::is_digit(s[1]) && text::is_digit(s[2]) && text::is_digit(s[3]) && s[4] == '-' &&
           text::is_digit(s[5]) && text::is_digit(s[6]) && s[7] == '-' && text::is_digit(s[8]) && text::is_digit(s[9]);
  return starts_with_name_and_blank(s);
}

bool starts_like_log_line(std::string_view s, bool message_ok) noexcept {
  return starts_like_stamp(s) || (message_ok && formats::kernel_likeness(s) >= 40);
}

// `123:` (grep -n) at the start of s: its length, or 0.
std::size_t line_number_length(std::string_view s) noexcept {
  std::size_t i = 0;
  while (i < s.size() && i < 10 && text::is_digit(s[i])) ++i;
  return i > 0 && i < s.size() && s[i] == ':' ? i + 1 : 0;
}

std::size_t compose_prefix_length(std::string_view s) noexcept {
  // docker compose: `service-1  | ` before the container's line.
  std::size_t i = 0;
  while (i < s.size() && i < 128 && is_host_char(s[i])) ++i;
  if (i == 0 || i >= s.size() || s[i] != ' ') return 0;
  while (i < s.size() && s[i] == ' ') ++i;
  if (i + 2 > s.size() || s[i] != '|' || s[i + 1] != ' ') return 0;
  return starts_like_log_line(s.substr(i + 2), true) ? i + 2 : 0;
}

// True where the line starts as most lines of a log file do, and so holds no prefix: a byte no
// prefix starts with (`[` of a dmesg stamp, `{` of JSON: not a quote mark, blank, name byte or
// `/`), `Mon 5` / `Nov 20` (a word and a blank before any `:`, and no `|` after the blank),
// `2024-03-05T10:1` / `2024-03-05 10:1` (no blank before the first `:`, none after it).
// Decided in a few predictable compares, before the scans below that find the same answer.
bool starts_without_prefix(std::string_view s) noexcept {
  const char c = s[0];
  if (!is_host_char(c) && c != '/' && c != '>' && c != ' ' && c != '\t') return true;
  if (s.size() >= 5 && is_alpha(s[0]) && is_alpha(s[1]) && is_alpha(s[2]) && s[3] == ' ' && text::is_digit(s[4]))
    return true;
  return s.size() >= 15 && text::is_digit(s[0]) && text::is_digit(s[1]) && text::is_digit(s[2]) &&
         text::is_digit(s[3]) && s[4] == '-' && text::is_digit(s[5]) && text::is_digit(s[6]) && s[7] == '-' &&
         text::is_digit(s[8]) && text::is_digit(s[9]) && (s[10] == 'T' || s[10] == ' ') && text::is_digit(s[11]) &&
         text::is_digit(s[12]) && s[13] == ':' && text::is_digit(s[14]);
}

}  // namespace

std::size_t paste_prefix_length(std::string_view line) noexcept {
  if (line.empty() || starts_without_prefix(line)) return 0;
  if (const std::size_t c = compose_prefix_length(line)) return c;
  std::size_t at = 0;
  // Quote marks: `> `, `>> `, `> > ` (mail and forum quotes), after any indentation.
  {
    std::size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i < line.size() && line[i] == '>') {
      while (i < line.size() && (line[i] == '>' || line[i] == ' ')) ++i;
      if (starts_like_log_line(line.substr(i), true)) at = i;
      else return 0;  // a quote of prose, or a line that only begins with '>'
    }
  }
  const std::string_view s = line.substr(at);
  if (s.empty() || (!is_host_char(s[0]) && s[0] != '/')) return at;
  // The first word, up to the first ':' (no blank before it).
  std::size_t colon = 0;
  bool path_like = false, digits_only = true;
  while (colon < s.size() && colon < 256 && s[colon] != ':') {
    const char c = s[colon];
    if (c == ' ' || c == '\t') return at;
    if (c == '/' || c == '.') path_like = true;
    if (!text::is_digit(c)) digits_only = false;
    if (!is_host_char(c) && c != '/') return at;
    ++colon;
  }
  if (colon == 0 || colon >= s.size()) return at;
  std::string_view rest = s.substr(colon + 1);
  if (digits_only)  // grep -n: `123:` before the line
    return starts_like_stamp(rest) ? at + colon + 1 : at;
  // grep -H: `path:` (and `path:123:` with -n) right before the line, with no blank between
  // (`x86/fpu: Supporting XSAVE` is a message of its own).
  if (path_like && !rest.empty() && rest[0] != ' ') {
    const std::size_t n = line_number_length(rest);
    if (starts_like_log_line(rest.substr(n), true)) return at + colon + 1 + n;
  }
  // pdsh / clush: `host: ` before a stamped line.
  if (rest.size() > 1 && rest[0] == ' ' && is_alpha(s[0]) && starts_like_stamp(rest.substr(1)))
    return at + colon + 2;
  return at;
}

std::size_t message_start(std::string_view line) noexcept {
  if (starts_like_log_line(line, true)) return 0;
  // The syslog or journal header cut at the left (`:02:11 gpu01 kernel: [ 5123.4] NVRM: ...`):
  // the kernel's part after `kernel: `.
  if (const auto k = line.find("kernel: ");
      k != std::string_view::npos && k < 160 && starts_like_log_line(line.substr(k + 8), true))
    return k + 8;
  // A monotonic stamp after anything (`...gpu01 [ 5123.456789] NVRM: ...`).
  for (auto b = line.find('['); b != std::string_view::npos && b < 160; b = line.find('[', b + 1)) {
    TimeNs mono;
    std::size_t len;
    if (formats::parse_mono_stamp(line.substr(b), mono, len)) return b;
  }
  // The driver's own words after anything.
  if (const auto n = line.find("NVRM: "); n != std::string_view::npos && n < 160) return n;
  return 0;
}

}  // namespace gpucost
