#include "gpucost/ingest/recognizer.hpp"

#include <fmt/format.h>

#include <array>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <span>
#include <vector>

#include "gpucost/small_file.hpp"
#include "gpucost/text.hpp"
#include "ingest/key_prefilter.hpp"

namespace gpucost {

namespace {

using text::contains;
using text::find;

// How the fields of a recognized message are read (the pattern table says which applies).
enum class Extract : std::uint8_t {
  kNone,
  kXid,             // `Xid (PCI:0000:01:00): 31, pid=1234, name=proc, ...`
  kPciFirst,        // gpu = first PCI address in the text
  kAerSeverity,     // code = 0/1/2 from `severity=`, gpu = reporting device
  kI915Hang,        // `GPU HANG: ecode ..., in Xorg [1220]`
  kOom,             // `Killed process 1234 (python3)`
  kSegfault,        // `python3[1234]: segfault at ...`
  kTraps,           // `traps: python3[1234] general protection fault ...`
  kUnitBefore,      // `docker.service: Failed with result 'exit-code'.`
  kUnitAfter,       // `Unit docker.service entered failed state.` (systemd < 230)
  kContainerAfter,  // `Started libcontainer container 3f2a...`
  kDockerCreate,    // `Calling POST /v1.41/containers/create?name=foo`
  kDockerStart,     // `Calling POST /v1.41/containers/<id>/start`
  kFieldContainer,  // logfmt `container=<id>`
  kFieldPath,       // logfmt `path=/run/containerd/.../<id>`
  kFieldId,         // logfmt `id=<id>`
  kPodman,          // `container start <id> (image=..., name=foo, ...)`
  kAcpidAc,         // `ac_adapter ACPI0003:00 00000080 00000001`: last field = new state
  kUpowerAc,        // `line_power_AC ... online: yes`
};

/// A built-in pattern: `needle` must occur (at the start when at_start), and `also` too when
/// given. `key` is four bytes of the needle that the prefilter looks for (default: its first
/// four); `code` is a fixed code for kinds whose code the pattern itself decides.
struct Builtin {
  EventKind kind;
  std::string_view needle;
  std::string_view also = {};
  Extract extract = Extract::kNone;
  std::int64_t code = INT64_MIN;
  bool at_start = false;
  std::string_view key = {};

  std::string_view prefilter_key() const noexcept { return key.empty() ? needle.substr(0, 4) : key; }
};

using K = EventKind;
using X = Extract;

// Kernel messages (ident `kernel`, or none). Order matters: the first match wins, so an
// `Xid ...: 79, ... fallen off the bus` line is an xid, not a bare fallen_off_bus.
constexpr Builtin kKernel[] = {
    {K::xid, "Xid (", {}, X::kXid, INT64_MIN, false, "Xid "},
    {K::gsp_error, "GSP-CrashCat Report", {}, X::kNone, INT64_MIN, false, "Cras"},
    {K::gsp_error, " GSP Timeout *", {}, X::kNone, INT64_MIN, false, "GSP "},
    {K::gsp_error, " GSP Failure *", {}, X::kNone, INT64_MIN, false, "GSP "},
    {K::gpu_reset, "GPU marked for reset", {}, X::kNone, INT64_MIN, false, "mark"},
    {K::fallen_off_bus, "fallen off the bus", {}, X::kPciFirst},
    {K::rm_init_failed, "rm_init_adapter", "failed", X::kPciFirst},
    {K::nv_assert, "nvAssert", "ailed"},
    {K::driver_load, "NVRM: loading NVIDIA UNIX", {}, X::kNone, INT64_MIN, true, "A UN"},
    {K::driver_error, "nvidia-modeset: ERROR", {}, X::kNone, INT64_MIN, false, "ERRO"},
    {K::driver_error, "*ERROR*", "nvidia", X::kNone, INT64_MIN, false, "ERRO"},
    {K::driver_error, "NVIDIA probe routine failed", {}, X::kNone, INT64_MIN, false, "prob"},
    {K::driver_error, "NVRM: API mismatch", {}, X::kNone, INT64_MIN, false, "API "},
    {K::i915_hang, "GPU HANG: ecode", {}, X::kI915Hang, INT64_MIN, false, "HANG"},
    {K::gpu_reset, "Resetting chip", {}, X::kPciFirst, INT64_MIN, false, "chip"},
    {K::gpu_reset, "GPU reset begin", {}, X::kPciFirst, INT64_MIN, false, "rese"},
    {K::pcie_aer, "PCIe Bus Error: severity=", {}, X::kAerSeverity},
    {K::pcie_link_degraded, "available PCIe bandwidth, limited by", {}, X::kPciFirst, INT64_MIN, false, "PCIe"},
    {K::taint, "taints kernel", {}, X::kNone, INT64_MIN, false, "aint"},
    {K::taint, "tainting kernel", {}, X::kNone, INT64_MIN, false, "aint"},
    {K::thermal, "temperature above threshold", {}, X::kNone, 1, false, "abov"},
    // Kernels since 5.5 word it `Core temperature is above threshold, cpu clock is throttled`.
    {K::thermal, "temperature is above threshold", {}, X::kNone, 1, false, "abov"},
    {K::thermal, "temperature/speed normal", {}, X::kNone, 0, false, "spee"},
    {K::thermal, "ritical temperature", {}, X::kNone, 2, false, "ical"},
    {K::ac_online, "AC Adapter [", "(on-line)", X::kNone, INT64_MIN, false, "Adap"},
    {K::ac_offline, "AC Adapter [", "(off-line)", X::kNone, INT64_MIN, false, "Adap"},
    {K::suspend, "PM: suspend entry"},
    {K::suspend, "hibernation entry"},
    {K::suspend, "PM: Entering mem sleep"},
    // Kernels before 4.15 have no `PM: suspend entry`: their suspend begins with these lines.
    {K::suspend, "PM: Syncing filesystems"},
    {K::suspend, "PM: Preparing system for "},
    {K::suspend, "PM: Suspending system ("},
    {K::resume, "PM: suspend exit"},
    {K::resume, "hibernation exit"},
    {K::resume, "PM: Finishing wakeup"},
    // `ACPI: Waking up from system sleep state S3` (older), `ACPI: PM: Waking up ...` (newer).
    {K::resume, "Waking up from system sleep state S"},
    {K::boot, "Linux version ", {}, X::kNone, INT64_MIN, true},
    {K::oom_kill, "Killed process ", {}, X::kOom},
    {K::segfault, "segfault at ", {}, X::kSegfault},
    {K::segfault, "traps: ", {}, X::kTraps, INT64_MIN, true},
};

// Messages of any non-kernel ident: ACPI events as acpid or a handler script logs them.
constexpr Builtin kAnyIdent[] = {
    {K::ac_online, "ac_adapter ", {}, X::kAcpidAc},
    {K::lid_close, "button/lid ", " close", X::kNone, INT64_MIN, false, "butt"},
    {K::lid_open, "button/lid ", " open", X::kNone, INT64_MIN, false, "butt"},
};

constexpr Builtin kLogind[] = {
    {K::lid_close, "Lid closed"},
    {K::lid_open, "Lid opened"},
    {K::suspend, "Suspending", {}, X::kNone, INT64_MIN, true},
    {K::suspend, "Hibernating", {}, X::kNone, INT64_MIN, true},
    {K::suspend, "The system will suspend now!"},
    {K::suspend, "The system will hibernate now!"},
    {K::shutdown, "System is powering down", {}, X::kNone, INT64_MIN, true},
    {K::shutdown, "System is rebooting", {}, X::kNone, INT64_MIN, true},
    {K::shutdown, "System is halting", {}, X::kNone, INT64_MIN, true},
};

constexpr Builtin kSleep[] = {
    {K::suspend, "Entering sleep state"},
    {K::suspend, "Performing sleep operation"},
    {K::suspend, "Suspending system"},
    {K::suspend, "Hibernating system"},
    {K::resume, "System returned from sleep"},
    {K::resume, "System resumed"},
};

constexpr Builtin kSystemd[] = {
    {K::service_failed, ": Failed with result '", {}, X::kUnitBefore},
    {K::service_failed, "Unit ", " entered failed state", X::kUnitAfter, INT64_MIN, true},
    {K::container_start, "Started libcontainer container ", {}, X::kContainerAfter, INT64_MIN, true},
};

constexpr Builtin kDockerd[] = {
    {K::container_create, "Calling POST ", "/containers/create", X::kDockerCreate},
    {K::container_start, "Calling POST ", "/start", X::kDockerStart},
    {K::container_stop, "msg=\"ignoring event\"", "topic=/tasks/delete", X::kFieldContainer},
    // dockerd runs an embedded containerd when none is installed; its lines carry dockerd's ident.
    {K::container_start, "msg=\"starting signal loop\"", {}, X::kFieldPath},
};

constexpr Builtin kContainerd[] = {
    {K::container_start, "msg=\"starting signal loop\"", {}, X::kFieldPath},
    {K::container_stop, "msg=\"shim disconnected\"", {}, X::kFieldId},
};

constexpr Builtin kPodman[] = {
    {K::container_create, "container create ", {}, X::kPodman},
    {K::container_start, "container start ", {}, X::kPodman},
    {K::container_stop, "container died ", {}, X::kPodman},
};

constexpr Builtin kPersistenced[] = {{K::service_restart, "Started (", {}, X::kNone, INT64_MIN, true}};
constexpr Builtin kPowerd[] = {{K::service_restart, "nvidia-powerd version", {}, X::kNone, INT64_MIN, true}};
constexpr Builtin kCron[] = {{K::cron, "CMD (", {}, X::kNone}};
constexpr Builtin kUpower[] = {{K::ac_online, "line_power", "online", X::kUpowerAc}};

/// Which table a message is checked against, chosen by its ident.
struct Family {
  std::string_view label;              // for the docs
  std::span<const Builtin> patterns;
  std::array<std::string_view, 4> idents;
};

const Family kFamilies[] = {
    {"systemd-logind", kLogind, {"systemd-logind"}},
    {"systemd-sleep", kSleep, {"systemd-sleep"}},
    {"systemd (PID 1 and user managers)", kSystemd, {"systemd"}},
    {"dockerd", kDockerd, {"dockerd", "docker"}},
    {"containerd", kContainerd, {"containerd"}},
    {"podman", kPodman, {"podman"}},
    {"nvidia-persistenced", kPersistenced, {"nvidia-persistenced"}},
    {"nvidia-powerd", kPowerd, {"nvidia-powerd"}},
    {"cron (CRON, cron, crond, CROND)", kCron, {"CRON", "cron", "crond", "CROND"}},
    {"upowerd", kUpower, {"upowerd", "upower"}},
};

// ---- prefilter -------------------------------------------------------------------------------

// Most syslog lines are noise: they cost one KeyPrefilter pass and no pattern is tried.
KeyPrefilter prefilter_of(std::span<const Builtin> table) {
  std::vector<std::string_view> keys;
  for (const Builtin& b : table) keys.push_back(b.prefilter_key());
  return KeyPrefilter(keys);
}

static_assert(std::size(kKernel) <= 64 && std::size(kAnyIdent) <= 64, "a prefilter mask holds 64 patterns");

const KeyPrefilter& kernel_prefilter() {
  static const KeyPrefilter p = prefilter_of(kKernel);
  return p;
}

const KeyPrefilter& any_ident_prefilter() {
  static const KeyPrefilter p = prefilter_of(kAnyIdent);
  return p;
}

// ---- field extraction ------------------------------------------------------------------------

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

bool matches(const Builtin& b, std::string_view t) noexcept {
  if (b.at_start ? !starts_with(t, b.needle) : !contains(t, b.needle)) return false;
  return b.also.empty() || contains(t, b.also);
}

// Tries the patterns whose bits are set, in table order.
std::optional<Recognition> match_bits(std::uint64_t bits, std::span<const Builtin> table, std::string_view t) noexcept {
  while (bits) {
    const auto bit = static_cast<std::size_t>(__builtin_ctzll(bits));
    bits &= bits - 1;
    const Builtin& b = table[bit];
    Recognition r;
    if (matches(b, t) && apply(b, t, r)) return r;
  }
  return std::nullopt;
}

constexpr std::size_t kNoFamily = std::size(kFamilies);

// The family of an ident (its index in kFamilies), or kNoFamily.
std::size_t family_of(std::string_view ident) noexcept {
  // Idents may be paths (`/usr/bin/nvidia-powerd`).
  const auto slash = ident.rfind('/');
  if (slash != std::string_view::npos) ident = ident.substr(slash + 1);
  // Most idents of a syslog are of no family (NetworkManager, gnome-shell ...): the first byte
  // rules them out before any comparison.
  static const std::array<bool, 256> first = [] {
    std::array<bool, 256> f{};
    for (const Family& fam : kFamilies)
      for (std::string_view name : fam.idents)
        if (!name.empty()) f[static_cast<unsigned char>(name[0])] = true;
    return f;
  }();
  if (ident.empty() || !first[static_cast<unsigned char>(ident[0])]) return kNoFamily;
  for (std::size_t i = 0; i < std::size(kFamilies); ++i)
    for (std::string_view name : kFamilies[i].idents)
      if (!name.empty() && name == ident) return i;
  return kNoFamily;
}

const KeyPrefilter& family_prefilter(std::size_t family) {
  static const std::vector<KeyPrefilter> filters = [] {
    std::vector<KeyPrefilter> v;
    for (const Family& f : kFamilies) v.push_back(prefilter_of(f.patterns));
    return v;
  }();
  return filters[family];
}

bool ident_matches(std::string_view ident, std::string_view want) noexcept {
  return want.empty() || ident.substr(0, want.size()) == want;
}

}  // namespace

EventRecognizer::EventRecognizer() = default;

void EventRecognizer::add(EventPattern p) { user_.push_back(std::move(p)); }

std::string EventRecognizer::load_file(const std::string& path) {
  std::string all;
  try {
    all = read_small_file(path, kMaxPatternsFileBytes, "patterns file");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  std::istringstream in(all);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string_view l = line;
    if (text::trim(l).empty() || text::trim(l).front() == '#') continue;
    std::vector<std::string> fields;
    std::size_t start = 0;
    while (true) {
      auto tab = l.find('\t', start);
      fields.emplace_back(l.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
      if (tab == std::string_view::npos) break;
      start = tab + 1;
    }
    if (fields.size() < 3 || fields[2].empty())
      return path + ":" + std::to_string(n) + ": expected kind<TAB>ident<TAB>needle[<TAB>needle...]";
    auto kind = event_kind_from_name(fields[0]);
    if (!kind || *kind == EventKind::log_end) return path + ":" + std::to_string(n) + ": unknown kind '" + fields[0] + "'";
    EventPattern p;
    p.kind = *kind;
    p.ident = fields[1];
    p.label = fields[0];
    for (std::size_t i = 2; i < fields.size(); ++i)
      if (!fields[i].empty()) p.needles.push_back(fields[i]);
    add(std::move(p));
  }
  return {};
}

std::optional<Recognition> EventRecognizer::classify(std::string_view ident, std::string_view t) const {
  const bool kernel = ident.empty() || ident == "kernel";
  std::optional<Recognition> r;
  if (kernel) r = match_bits(kernel_prefilter().scan(t), kKernel, t);
  else if (const auto f = family_of(ident); f != kNoFamily) r = match_bits(family_prefilter(f).scan(t), kFamilies[f].patterns, t);
  else r = match_bits(any_ident_prefilter().scan(t), kAnyIdent, t);
  if (r || user_.empty()) return r;
  for (const auto& p : user_) {
    if (!p.ident.empty() && !(ident_matches(ident, p.ident) || (p.ident == "kernel" && kernel))) continue;
    bool all = true;
    for (const auto& n : p.needles)
      if (!contains(t, n)) {
        all = false;
        break;
      }
    if (all) {
      Recognition u;
      u.kind = p.kind;
      return u;
    }
  }
  return std::nullopt;
}

std::string_view event_code_meaning(EventKind k) noexcept {
  switch (k) {
    case K::xid: return "the Xid number (13, 31, 79, 119 ...)";
    case K::pcie_aer: return "severity: 0 corrected, 1 uncorrected non-fatal, 2 uncorrected fatal";
    case K::thermal: return "1 above threshold (clock throttled), 0 back to normal, 2 critical (shutdown)";
    default: return "";
  }
}

namespace {

std::string_view kind_fields(EventKind k) noexcept {
  switch (k) {
    case K::xid: return "gpu = PCI address in `Xid (...)`; pid and process from `pid=`/`name=` (null when `<unknown>` or absent)";
    case K::fallen_off_bus:
      return "gpu = first PCI address in the message. An `Xid (...): 79` line is an `xid` event; this kind is "
             "the lines without an Xid (`GPU 0000:3b:00.0: GPU has fallen off the bus.`, the 570 driver's "
             "multi-line message, joined)";
    case K::rm_init_failed:
      return "gpu = first PCI address in the message. One event per failed attempt: the `rm_init_adapter "
             "failed` line that closes it, not the `RmInitAdapter failed!` line before it";
    case K::pcie_link_degraded: return "gpu = first PCI address in the message";
    case K::pcie_aer: return "gpu = the reporting device (`pcieport 0000:00:1d.0`)";
    case K::i915_hang: return "gpu = i915 PCI address (new form); pid/process = the hung client (`in Xorg [1220]`)";
    case K::gpu_reset: return "gpu = PCI address when the message names one";
    case K::oom_kill: return "pid/process = the killed process";
    case K::segfault: return "pid/process = the crashed process";
    case K::service_failed: return "process = the unit (`docker.service`)";
    case K::container_create:
    case K::container_start:
    case K::container_stop: return "process = container name, else its id (12 hex digits)";
    case K::service_restart:
    case K::cron: return "pid = the ident's pid";
    case K::user: return "the pattern's kind replaces `user` when it names one";
    default: return "";
  }
}

void append_table(std::string& out, std::string_view source, std::span<const Builtin> table, EventKind k) {
  for (const Builtin& b : table) {
    const bool acpid_ac = b.extract == X::kAcpidAc || b.extract == X::kUpowerAc;
    if (b.kind != k && !(acpid_ac && k == K::ac_offline)) continue;
    out += fmt::format("| {} | `{}`{}{}{} |\n", source, b.needle, b.at_start ? " (at the start)" : "",
                       b.also.empty() ? "" : fmt::format(" and `{}`", b.also),
                       acpid_ac ? " (the state field decides on/off)" : "");
  }
}

}  // namespace

std::string event_catalog_markdown() {
  std::string out =
      "# Event kinds\n\n"
      "Generated from the code (`event_catalog_markdown()` in src/ingest/recognizer.cpp); a unit test\n"
      "fails when this file differs from it. Regenerate with\n"
      "`GPUCOST_REGENERATE_DOCS=1 ./build/tests/gpucost_tests --gtest_filter='Recognizer.EventsDocIsCurrent'`.\n\n"
      "Every message a log parser reads goes to the recognizer with its syslog ident (`kernel` for\n"
      "kernel lines). A pattern matches when its text occurs in the message (case-sensitive); the first\n"
      "matching pattern of the ident's table wins. Every message first passes a one-pass prefilter that\n"
      "looks for four distinctive bytes of each pattern of its table, so noise lines are rejected\n"
      "without trying any pattern. User patterns (`--patterns FILE`, lines of\n"
      "`kind<TAB>ident<TAB>needle[<TAB>needle...]`) are tried after the built-ins.\n\n"
      "The same incident can appear at several layers (a suspend is logged by systemd-logind,\n"
      "systemd-sleep and the kernel; a failed start of the NVIDIA driver by `RmInitAdapter failed!` and\n"
      "`rm_init_adapter failed`): where two lines always come together only one of them is a pattern,\n"
      "and where layers differ the `ident` column tells them apart.\n";
  for (std::size_t i = 0; i < kEventKindCount; ++i) {
    const auto k = static_cast<EventKind>(i);
    out += fmt::format("\n## `{}`\n\n{}.\n\n", event_kind_name(k), event_kind_description(k));
    const std::string_view code = event_code_meaning(k);
    out += fmt::format("- code: {}\n", code.empty() ? "null" : code);
    if (const std::string_view f = kind_fields(k); !f.empty()) out += fmt::format("- {}\n", f);
    std::string rows;
    append_table(rows, "kernel", kKernel, k);
    append_table(rows, "any other ident", kAnyIdent, k);
    for (const Family& f : kFamilies) append_table(rows, f.label, f.patterns, k);
    if (k == K::boot) rows += "| journal | `-- Boot <id> --` or `-- Reboot --` marker (placed at the next entry) |\n";
    if (k == K::user) rows += "| --patterns FILE | every needle of a user pattern |\n";
    if (!rows.empty()) out += "\n| source | message contains |\n|---|---|\n" + rows;
  }
  return out;
}

}  // namespace gpucost
