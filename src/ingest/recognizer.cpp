#include "gpucost/ingest/recognizer.hpp"

#include <fstream>

#include "gpucost/text.hpp"

namespace gpucost {

namespace {

using text::contains;
using text::find;

enum class Extract : std::uint8_t { kNone, kXid, kGpuAfter, kAerSeverity, kOom, kSegfault, kThermal, kAcpidAc, kUpowerAc };

/// A built-in pattern: `needle` must occur; `also` too when non-empty; ident must start with
/// `ident` when non-empty ("kernel" patterns also apply to sources without an ident).
struct Builtin {
  EventKind kind;
  std::string_view ident;
  std::string_view needle;
  std::string_view also;
  Extract extract;
};

// Order matters: the first match wins (an Xid 79 line is an xid, not a bare fallen_off_bus).
constexpr Builtin kKernel[] = {
    {EventKind::xid, "", "Xid (", "", Extract::kXid},
    {EventKind::fallen_off_bus, "", "fallen off the bus", "", Extract::kGpuAfter},
    {EventKind::rm_init_failed, "", "RmInitAdapter failed", "", Extract::kGpuAfter},
    {EventKind::gsp_error, "", "GSP-CrashCat", "", Extract::kNone},
    {EventKind::gsp_error, "", "GSP RPC", "timeout", Extract::kNone},
    {EventKind::gsp_error, "", "GSP", "error", Extract::kNone},
    {EventKind::nv_assert, "", "nvAssert", "Failed", Extract::kNone},
    {EventKind::driver_load, "", "NVRM: loading NVIDIA UNIX", "", Extract::kNone},
    {EventKind::driver_error, "", "nvidia-modeset: ERROR", "", Extract::kNone},
    {EventKind::driver_error, "", "[nvidia-drm]", "*ERROR*", Extract::kNone},
    {EventKind::driver_error, "", "NVIDIA probe routine failed", "", Extract::kNone},
    {EventKind::i915_hang, "", "GPU HANG: ecode", "", Extract::kNone},
    {EventKind::gpu_reset, "", "Resetting chip", "", Extract::kNone},
    {EventKind::gpu_reset, "", "GPU reset", "", Extract::kNone},
    {EventKind::pcie_aer, "", "PCIe Bus Error: severity=", "", Extract::kAerSeverity},
    {EventKind::pcie_link_degraded, "", "available PCIe bandwidth, limited by", "", Extract::kNone},
    {EventKind::pcie_link_degraded, "", "PCIe link", "downgraded", Extract::kNone},
    {EventKind::taint, "", "taints kernel", "", Extract::kNone},
    {EventKind::thermal, "", "temperature above threshold", "", Extract::kThermal},
    {EventKind::thermal, "", "temperature/speed normal", "", Extract::kThermal},
    {EventKind::thermal, "", "critical temperature", "", Extract::kThermal},
    {EventKind::thermal, "", "thermal shutdown", "", Extract::kThermal},
    {EventKind::ac_online, "", "AC Adapter [", "(on-line)", Extract::kNone},
    {EventKind::ac_offline, "", "AC Adapter [", "(off-line)", Extract::kNone},
    {EventKind::suspend, "", "PM: suspend entry", "", Extract::kNone},
    {EventKind::suspend, "", "PM: hibernation entry", "", Extract::kNone},
    {EventKind::resume, "", "PM: suspend exit", "", Extract::kNone},
    {EventKind::resume, "", "PM: hibernation exit", "", Extract::kNone},
    {EventKind::boot, "", "Linux version ", "", Extract::kNone},
    {EventKind::oom_kill, "", "Out of memory: Killed process", "", Extract::kOom},
    {EventKind::oom_kill, "", "Memory cgroup out of memory: Killed process", "", Extract::kOom},
    {EventKind::segfault, "", "segfault at ", "", Extract::kSegfault},
};

constexpr Builtin kUser[] = {
    {EventKind::lid_close, "systemd-logind", "Lid closed", "", Extract::kNone},
    {EventKind::lid_open, "systemd-logind", "Lid opened", "", Extract::kNone},
    {EventKind::suspend, "systemd-sleep", "Entering sleep state", "", Extract::kNone},
    {EventKind::resume, "systemd-sleep", "System returned from sleep", "", Extract::kNone},
    {EventKind::shutdown, "systemd-logind", "System is powering down", "", Extract::kNone},
    {EventKind::shutdown, "systemd-logind", "System is rebooting", "", Extract::kNone},
    {EventKind::lid_close, "acpid", "button/lid", " close", Extract::kNone},
    {EventKind::lid_open, "acpid", "button/lid", " open", Extract::kNone},
    {EventKind::ac_online, "acpid", "ac_adapter ", "", Extract::kAcpidAc},
    {EventKind::ac_online, "upower", "line_power", "online", Extract::kUpowerAc},
    {EventKind::container_create, "dockerd", "/containers/create", "", Extract::kNone},
    {EventKind::container_start, "dockerd", "Calling POST", "/start", Extract::kNone},
    {EventKind::container_start, "containerd", "starting signal loop", "", Extract::kNone},
    {EventKind::container_stop, "containerd", "shim disconnected", "", Extract::kNone},
    {EventKind::container_create, "podman", "container create ", "", Extract::kNone},
    {EventKind::container_start, "podman", "container start ", "", Extract::kNone},
    {EventKind::container_stop, "podman", "container died ", "", Extract::kNone},
    {EventKind::service_failed, "systemd", "Failed to start ", "", Extract::kNone},
    {EventKind::service_restart, "nvidia-persistenced", "Started (", "", Extract::kNone},
    {EventKind::service_restart, "nvidia-powerd", "nvidia-powerd version", "", Extract::kNone},
    {EventKind::service_restart, "/usr/bin/nvidia-powerd", "nvidia-powerd version", "", Extract::kNone},
    {EventKind::cron, "CRON", "CMD (", "", Extract::kNone},
    {EventKind::cron, "cron", "CMD (", "", Extract::kNone},
    {EventKind::cron, "crond", "CMD (", "", Extract::kNone},
};

bool ident_matches(std::string_view ident, std::string_view want) {
  return want.empty() || ident.substr(0, want.size()) == want;
}

std::int64_t leading_int(std::string_view s) {
  s = text::ltrim(s);
  std::size_t n = 0;
  while (n < s.size() && text::is_digit(s[n])) ++n;
  if (n == 0 || n > 18) return INT64_MIN;
  return *text::to_int(s.substr(0, n));
}

// PCI-looking token right after `at`: `0000:01:00.0`, `PCI:0000:01:00`.
std::string_view pci_token_after(std::string_view s, std::size_t at) {
  s = text::ltrim(s.substr(at));
  std::size_t n = 0;
  while (n < s.size() && (text::is_hex(s[n]) || s[n] == ':' || s[n] == '.' || s[n] == 'P' || s[n] == 'C' ||
                          s[n] == 'I'))
    ++n;
  std::string_view tok = s.substr(0, n);
  while (!tok.empty() && (tok.back() == ':' || tok.back() == '.')) tok.remove_suffix(1);
  return tok.find(':') == std::string_view::npos ? std::string_view{} : tok;
}

void extract_xid(std::string_view t, Recognition& r) {
  const auto open = find(t, "Xid (");
  const auto close = t.find(')', open);
  if (close == std::string_view::npos) return;
  r.gpu = t.substr(open + 5, close - open - 5);
  std::string_view rest = t.substr(close + 1);
  if (!rest.empty() && rest.front() == ':') rest.remove_prefix(1);
  r.code = leading_int(rest);
  if (auto p = find(rest, "pid="); p != std::string_view::npos) r.pid = leading_int(rest.substr(p + 4));
  if (auto p = find(rest, "name="); p != std::string_view::npos) {
    std::string_view n = rest.substr(p + 5);
    n = n.substr(0, n.find(','));
    r.process = text::trim(n);
  }
}

void extract_gpu_after(std::string_view t, Recognition& r) {
  for (std::string_view key : {"GPU at PCI:", "NVIDIA GPU ", "GPU "}) {
    if (auto p = find(t, key); p != std::string_view::npos) {
      auto tok = pci_token_after(t, p + key.size());
      if (!tok.empty()) {
        r.gpu = tok;
        return;
      }
    }
  }
}

void extract_oom(std::string_view t, Recognition& r) {
  auto p = find(t, "Killed process ");
  if (p == std::string_view::npos) return;
  std::string_view rest = t.substr(p + 15);
  r.pid = leading_int(rest);
  auto open = rest.find('(');
  auto close = rest.find(')', open);
  if (open != std::string_view::npos && close != std::string_view::npos)
    r.process = rest.substr(open + 1, close - open - 1);
}

void extract_segfault(std::string_view t, Recognition& r) {
  auto p = find(t, "segfault at ");
  std::string_view head = text::trim(t.substr(0, p));
  auto open = head.rfind('[');
  if (open != std::string_view::npos && head.back() == ']') {
    r.pid = leading_int(head.substr(open + 1));
    auto start = head.rfind(' ', open);
    r.process = head.substr(start == std::string_view::npos ? 0 : start + 1,
                            open - (start == std::string_view::npos ? 0 : start + 1));
  }
}

}  // namespace

EventRecognizer::EventRecognizer() = default;

void EventRecognizer::add(EventPattern p) { user_.push_back(std::move(p)); }

std::string EventRecognizer::load_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "cannot open patterns file " + path;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::string_view l = text::trim(line);
    if (l.empty() || l.front() == '#') continue;
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
    if (!kind) return path + ":" + std::to_string(n) + ": unknown kind '" + fields[0] + "'";
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
  auto apply = [&](const Builtin& b) -> std::optional<Recognition> {
    Recognition r;
    r.kind = b.kind;
    switch (b.extract) {
      case Extract::kNone: break;
      case Extract::kXid: extract_xid(t, r); break;
      case Extract::kGpuAfter: extract_gpu_after(t, r); break;
      case Extract::kAerSeverity:
        r.code = contains(t, "severity=Uncorrected (Fatal)") || contains(t, "severity=Fatal") ? 2
                 : contains(t, "severity=Uncorrected") ? 1 : 0;
        if (auto sp = t.find(' '); sp != std::string_view::npos) {
          auto tok = pci_token_after(t, sp);
          if (!tok.empty()) r.gpu = tok;
        }
        break;
      case Extract::kOom: extract_oom(t, r); break;
      case Extract::kSegfault: extract_segfault(t, r); break;
      case Extract::kThermal: r.code = contains(t, "normal") ? 0 : 1; break;
      case Extract::kAcpidAc: {
        // `ac_adapter ACPI0003:00 00000080 00000001`: the last field is the new state.
        std::string_view last = text::rtrim(t);
        last = last.substr(last.rfind(' ') + 1);
        auto v = text::to_int(last, 16);
        if (!v) return std::nullopt;
        r.kind = *v ? EventKind::ac_online : EventKind::ac_offline;
        break;
      }
      case Extract::kUpowerAc: {
        auto p = find(t, "online");
        std::string_view rest = t.substr(p + 6);
        const bool on = contains(rest, "true") || contains(rest, "yes") || contains(rest, ": 1");
        const bool off = contains(rest, "false") || contains(rest, "no") || contains(rest, ": 0");
        if (on == off) return std::nullopt;
        r.kind = on ? EventKind::ac_online : EventKind::ac_offline;
        break;
      }
    }
    return r;
  };
  if (kernel) {
    for (const auto& b : kKernel)
      if (contains(t, b.needle) && (b.also.empty() || contains(t, b.also))) return apply(b);
  } else {
    for (const auto& b : kUser)
      if (ident_matches(ident, b.ident) && contains(t, b.needle) && (b.also.empty() || contains(t, b.also)))
        return apply(b);
  }
  for (const auto& p : user_) {
    if (!p.ident.empty() && !(ident_matches(ident, p.ident) || (p.ident == "kernel" && kernel))) continue;
    bool all = true;
    for (const auto& n : p.needles)
      if (!contains(t, n)) {
        all = false;
        break;
      }
    if (all) {
      Recognition r;
      r.kind = p.kind;
      return r;
    }
  }
  return std::nullopt;
}

}  // namespace gpucost
