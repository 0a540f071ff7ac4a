#include "gpucost/text.hpp"

#include <algorithm>
#include <cstdlib>

#include "gpucost/text/escape.hpp"

namespace gpucost::text {

namespace {
constexpr char lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
}  // namespace

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

std::size_t ifind(std::string_view hay, std::string_view needle) noexcept {
  if (needle.empty()) return 0;
  if (needle.size() > hay.size()) return std::string_view::npos;
  for (std::size_t i = 0; i + needle.size() <= hay.size(); ++i)
    if (iequals(hay.substr(i, needle.size()), needle)) return i;
  return std::string_view::npos;
}

std::optional<double> to_double(std::string_view s) noexcept {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

bool looks_binary(std::string_view s) noexcept {
  if (s.find('\0') != std::string_view::npos) return true;
  std::size_t control = 0;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b) || c == 0x7f) ++control;
  }
  return control * 16 > s.size();
}

std::string excerpt(std::string_view line, std::size_t max) {
  std::string out;
  out.reserve(std::min(line.size(), max) + 8);
  append_escape_control(out, line, max);
  return out;
}

bool needs_printable(std::string_view s) noexcept { return needs_escape_control(s); }

bool needs_printable_lines(std::string_view s) noexcept {
  for (std::size_t at = 0;;) {
    const auto nl = s.find('\n', at);
    if (needs_printable(s.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at))) return true;
    if (nl == std::string_view::npos) return false;
    at = nl + 1;
  }
}

std::string printable_lines(std::string_view s) {
  std::string out;
  if (!needs_printable_lines(s)) return out.assign(s);
  for (std::size_t at = 0;;) {
    const auto nl = s.find('\n', at);
    out += printable(s.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at));
    if (nl == std::string_view::npos) return out;
    out += '\n';
    at = nl + 1;
  }
}

std::string printable(std::string_view s) { return escape_control(s); }

std::string to_lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = lower(c);
  return r;
}

}  // namespace gpucost::text
