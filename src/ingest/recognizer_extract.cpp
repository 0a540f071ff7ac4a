// Reading the fields of a message that matched a built-in pattern (recognizer_patterns.hpp):
// the Xid number, PCI address, pid and process, unit, container, AC state.
#include <array>
#include <cstdint>
#include <string_view>

#include "gpucost/text.hpp"
#include "ingest/recognizer_patterns.hpp"

namespace gpucost::recognizer_detail {

namespace {

using text::contains;
using text::find;

bool starts_with(std::string_view s, std::string_view p) noexcept { return s.substr(0, p.size()) == p; }

std::int64_t leading_int(std::string_view s) noexcept {
  std::size_t n = 0;
  while (n < s.size() && text::is_digit(s[n])) ++n;
  if (n == 0 || n > 18) return INT64_MIN;
  return *text::to_int(s.substr(0, n));
}

// First PCI address (`0000:01:00.0`, `00000000:01:00.0`, `0000:01:00`) in the text.
std::string_view find_pci(std::string_view t) noexcept {
  for (std::size_t i = 0; i + 10 <= t.size(); ++i) {
    // Not inside a longer hex run or address (`PCI:0000:01:00` is fine: `I` is no hex digit).
    if (!text::is_hex(t[i]) || (i > 0 && text::is_hex(t[i - 1])) ||
        (i > 1 && t[i - 1] == ':' && text::is_hex(t[i - 2])))
      continue;
    std::size_t j = i;
    while (j < t.size() && text::is_hex(t[j])) ++j;
    const std::size_t dom = j - i;
    if (dom < 4 || dom > 8 || j + 6 > t.size() || t[j] != ':' || !text::is_hex(t[j + 1]) ||
        !text::is_hex(t[j + 2]) || t[j + 3] != ':' || !text::is_hex(t[j + 4]) || !text::is_hex(t[j + 5])) {
      i = j;
      continue;
    }
    j += 6;
    if (j + 1 < t.size() && t[j] == '.' && text::is_digit(t[j + 1])) j += 2;
    return t.substr(i, j - i);
  }
  return {};
}

// A 64-hex container id is shortened to the 12 characters docker prints.
std::string_view short_id(std::string_view id) noexcept {
  if (id.size() == 64) {
    for (char c : id)
      if (!text::is_hex(c)) return id;
    return id.substr(0, 12);
  }
  return id;
}

// Value of a logfmt field (`key=value` or `key="value"`); the key must start a word.
std::string_view field(std::string_view t, std::string_view key) noexcept {
  std::size_t from = 0;
  for (;;) {
    const auto rel = find(t.substr(from), key);
    if (rel == std::string_view::npos) return {};
    const std::size_t p = from + rel;
    from = p + key.size();
    if (p != 0 && t[p - 1] != ' ') continue;
    std::string_view v = t.substr(from);
    if (!v.empty() && v.front() == '"') {
      v.remove_prefix(1);
      return v.substr(0, v.find('"'));
    }
    std::size_t n = 0;
    while (n < v.size() && !text::is_space(v[n])) ++n;
    return v.substr(0, n);
  }
}

// `name[pid]` ending at `end` (exclusive) in t: fills process and pid.
void name_and_pid_before(std::string_view t, std::size_t end, Recognition& r) noexcept {
  std::string_view head = text::rtrim(t.substr(0, end));
  if (!head.empty() && head.back() == ':') head.remove_suffix(1);
  if (head.empty() || head.back() != ']') return;
  const auto open = head.rfind('[');
  if (open == std::string_view::npos) return;
  r.pid = leading_int(head.substr(open + 1));
  // comm may contain blanks (`Web Content[1234]: segfault at ...`): the name is all before '['.
  r.process = text::trim(head.substr(0, open));
}

void extract_xid(std::string_view t, Recognition& r) noexcept {
  const auto open = find(t, "Xid (");
  const auto close = t.find(')', open);
  if (close == std::string_view::npos) return;
  r.gpu = t.substr(open + 5, close - open - 5);
  // A MIG GPU instance after the address (`PCI:0000:4b:00 GPU-I:05`): the Xid belongs to that
  // physical GPU; the instance stays in the text (xid_gpu_instance reads it).
  if (const auto gi = r.gpu.find(" GPU-I:"); gi != std::string_view::npos) r.gpu = r.gpu.substr(0, gi);
  std::string_view rest = t.substr(close + 1);
  if (!starts_with(rest, ": ")) return;
  rest.remove_prefix(2);
  r.code = leading_int(rest);
  while (!rest.empty() && text::is_digit(rest.front())) rest.remove_prefix(1);
  // Newer drivers: `, pid=1234, name=proc, ...`; pid may be `'<unknown>'`.
  if (starts_with(rest, ", pid=")) {
    rest.remove_prefix(6);
    r.pid = leading_int(rest);
    const auto comma = rest.find(',');
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma);
  }
  if (starts_with(rest, ", name=")) {
    rest.remove_prefix(7);
    std::string_view name = rest.substr(0, rest.find(','));
    name = text::trim(name);
    if (!name.empty() && name != "<unknown>" && name != "'<unknown>'") r.process = name;
  }
}

void extract_aer(std::string_view t, Recognition& r) noexcept {
  std::string_view sev = t.substr(find(t, "severity=") + 9);
  sev = sev.substr(0, sev.find(','));
  if (starts_with(sev, "Corr")) r.code = 0;                   // Corrected / Correctable
  else if (contains(sev, "Non-Fatal") || contains(sev, "NonFatal")) r.code = 1;
  else if (contains(sev, "Fatal")) r.code = 2;
  else r.code = 1;
  r.gpu = find_pci(t);
}

void extract_i915(std::string_view t, Recognition& r) noexcept {
  r.gpu = find_pci(t.substr(0, find(t, "GPU HANG")));
  const auto in = find(t, ", in ");
  if (in == std::string_view::npos) return;
  std::string_view rest = t.substr(in + 5);
  const auto open = rest.find(" [");
  if (open == std::string_view::npos) return;
  r.process = rest.substr(0, open);
  r.pid = leading_int(rest.substr(open + 2));
}

void extract_oom(std::string_view t, Recognition& r) noexcept {
  std::string_view rest = t.substr(find(t, "Killed process ") + 15);
  r.pid = leading_int(rest);
  const auto open = rest.find(" (");
  const auto close = rest.find(')', open);
  if (open != std::string_view::npos && close != std::string_view::npos)
    r.process = rest.substr(open + 2, close - open - 2);
}

void extract_podman(std::string_view t, Recognition& r) noexcept {
  const auto p = find(t, "container ");
  std::string_view rest = t.substr(p + 10);
  rest = rest.substr(rest.find(' ') == std::string_view::npos ? rest.size() : rest.find(' ') + 1);
  const std::string_view id = rest.substr(0, rest.find(' '));
  if (const auto n = find(rest, "name="); n != std::string_view::npos) {
    std::string_view name = rest.substr(n + 5);
    const auto end = name.find_first_of(",)");
    r.process = name.substr(0, end);
  } else {
    r.process = short_id(id);
  }
}

}  // namespace

bool apply(const Builtin& b, std::string_view t, Recognition& r) noexcept {
  r.kind = b.kind;
  r.code = b.code;
  switch (b.extract) {
    case X::kNone: break;
    case X::kXid: extract_xid(t, r); break;
    case X::kPciFirst: r.gpu = find_pci(t); break;
    case X::kAerSeverity: extract_aer(t, r); break;
    case X::kI915Hang: extract_i915(t, r); break;
    case X::kOom: extract_oom(t, r); break;
    case X::kSegfault: name_and_pid_before(t, find(t, "segfault at "), r); break;
    case X::kTraps: {
      std::string_view rest = t.substr(7);
      const auto close = rest.find(']');
      if (close != std::string_view::npos) name_and_pid_before(rest, close + 1, r);
      break;
    }
    case X::kUnitBefore: {
      std::string_view head = t.substr(0, find(t, ": Failed with result"));
      r.process = head.substr(head.rfind(' ') == std::string_view::npos ? 0 : head.rfind(' ') + 1);
      break;
    }
    case X::kUnitAfter: {
      std::string_view rest = t.substr(5);
      r.process = rest.substr(0, rest.find(' '));
      break;
    }
    case X::kContainerAfter: {
      std::string_view id = text::trim(t.substr(31));
      if (!id.empty() && id.back() == '.') id.remove_suffix(1);
      r.process = short_id(id.substr(0, id.find(' ')));
      break;
    }
    case X::kDockerCreate: {
      const auto q = find(t, "/containers/create?name=");
      if (q != std::string_view::npos) {
        std::string_view name = t.substr(q + 24);
        r.process = name.substr(0, name.find_first_of("&\" "));
      }
      break;
    }
    case X::kDockerStart: {
      const auto c = find(t, "/containers/");
      const auto s = find(t, "/start");
      if (c == std::string_view::npos || s == std::string_view::npos || s <= c + 12) return false;
      r.process = short_id(t.substr(c + 12, s - c - 12));
      break;
    }
    case X::kFieldContainer: r.process = short_id(field(t, "container=")); break;
    case X::kFieldPath: {
      const std::string_view path = field(t, "path=");
      r.process = short_id(path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1));
      break;
    }
    case X::kFieldId: r.process = short_id(field(t, "id=")); break;
    case X::kPodman: extract_podman(t, r); break;
    case X::kAcpidAc: {
      // `ac_adapter ACPI0003:00 00000080 00000001`: the fourth field is the new state.
      std::string_view rest = t.substr(find(t, "ac_adapter ") + 11);
      std::array<std::string_view, 3> f{};
      if (text::split_ws(rest, f) < 3) return false;
      std::string_view state = f[2];
      while (!state.empty() && (state.back() == '"' || state.back() == '\'')) state.remove_suffix(1);
      const auto v = text::to_int(state, 16);
      if (!v) return false;
      r.kind = *v ? K::ac_online : K::ac_offline;
      break;
    }
    case X::kUpowerAc: {
      std::string_view rest = t.substr(find(t, "online") + 6);
      rest = text::ltrim(rest);
      if (!rest.empty() && (rest.front() == ':' || rest.front() == '=')) rest = text::ltrim(rest.substr(1));
      const std::string_view v = rest.substr(0, rest.find_first_of(" ,;"));
      if (v == "yes" || v == "true" || v == "1") r.kind = K::ac_online;
      else if (v == "no" || v == "false" || v == "0") r.kind = K::ac_offline;
      else return false;
      break;
    }
  }
  return true;
}

}  // namespace gpucost::recognizer_detail
