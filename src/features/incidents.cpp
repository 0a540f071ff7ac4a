// Kernel-reported GPU trouble: Xid events by class, PCIe AER, taint, resets, and the incidents
// (clusters of events) that cost maintenance time or a restarted job.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <unordered_map>

#include "features/compute.hpp"
#include "gpucost/features/xid_catalog.hpp"
#include "gpucost/text.hpp"

namespace gpucost::features {

XidClass xid_class(std::optional<std::int64_t> code) noexcept {
  const XidInfo* x = code ? xid_info(*code) : nullptr;
  if (!x) return XidClass::kOther;
  const std::string_view k = x->xid_class;
  if (k == "application") return XidClass::kApplication;
  if (k == "driver_firmware") return XidClass::kDriverFirmware;
  if (k == "memory_ecc") return XidClass::kMemoryEcc;
  if (k == "bus") return XidClass::kBus;
  if (k == "recovery_action") return XidClass::kRecoveryAction;
  return XidClass::kOther;
}

std::string_view xid_class_name(XidClass c) noexcept {
  switch (c) {
    case XidClass::kApplication: return "application";
    case XidClass::kDriverFirmware: return "driver/firmware";
    case XidClass::kMemoryEcc: return "memory/ECC";
    case XidClass::kBus: return "bus/interconnect";
    case XidClass::kRecoveryAction: return "recovery action (154)";
    case XidClass::kOther: return "other";
  }
  return "?";
}

namespace {

const std::vector<std::uint32_t>& kind_rows(const FeatureContext& c, EventKind k) {
  return c.events_by_kind[static_cast<std::size_t>(k)];
}

// The recovery action an Xid 154 announces: the digit after "to 0x" (0 none, 1 GPU reset,
// 2 node reboot, 3 drain P2P, 4 drain and reset); -1 when the text does not say.
int xid154_action(std::string_view text) {
  const auto p = text.find("to 0x");
  if (p == std::string_view::npos || p + 5 >= text.size() || !text::is_digit(text[p + 5])) return -1;
  return text[p + 5] - '0';
}

bool is_nvidia_reset(std::string_view text) {
  return text::ifind(text, "nvrm") != std::string_view::npos || text::ifind(text, "nvidia") != std::string_view::npos;
}

// Whether an event costs maintenance time, and whether it implies a reboot.
struct Maintenance {
  bool counts = false;
  bool reboot = false;
};
Maintenance maintenance_of(const FeatureContext& c, std::uint32_t r) {
  const auto kind = static_cast<EventKind>(c.timeline.events.column(event_col::kind).get_int(r));
  switch (kind) {
    case EventKind::xid: {
      // What the catalog says the code needs from a person (data/xid-catalog.csv).
      const auto code = c.event_code(r);
      const XidInfo* x = code ? xid_info(*code) : nullptr;
      if (!x) return {};
      switch (x->needs) {
        case XidNeeds::kNone: return {};
        case XidNeeds::kReset:
        case XidNeeds::kRma: return {true, false};
        case XidNeeds::kReboot: return {true, true};
        case XidNeeds::kPerLine: {
          const int a = xid154_action(c.event_text(r));
          return {a != 0, a == 2};
        }
      }
      return {};
    }
    case EventKind::fallen_off_bus:
    case EventKind::rm_init_failed: return {true, true};
    case EventKind::gsp_error: return {true, false};
    case EventKind::gpu_reset: return {is_nvidia_reset(c.event_text(r)), false};
    default: return {};
  }
}

struct Incidents {
  std::size_t events = 0, unplaced = 0;
  std::size_t incidents = 0, reboot = 0;
  std::uint32_t first = 0;
  std::vector<TimeNs> starts;  // of the placed incidents, in time order
};

// Clusters maintenance events: an event at most kIncidentGapNs after the previous one joins its
// incident. Unplaced events (no time) form one incident together.
Incidents maintenance_incidents_of(const FeatureContext& c, bool rate_window_only = false) {
  std::vector<std::pair<TimeNs, std::uint32_t>> placed;
  Incidents out;
  bool unplaced_reboot = false, have_first = false;
  for (auto k : {EventKind::xid, EventKind::fallen_off_bus, EventKind::rm_init_failed, EventKind::gsp_error,
                 EventKind::gpu_reset})
    for (auto r : kind_rows(c, k)) {
      const Maintenance m = maintenance_of(c, r);
      if (!m.counts || (rate_window_only && !in_rate_window(c, r))) continue;
      out.events += c.event_repeat(r);
      if (!have_first || r < out.first) out.first = r;
      have_first = true;
      if (c.event_placed(r)) {
        placed.emplace_back(c.event_time(r), r);
      } else {
        out.unplaced += c.event_repeat(r);
        unplaced_reboot = unplaced_reboot || m.reboot;
      }
    }
  std::sort(placed.begin(), placed.end());
  TimeNs prev = kNoTime;
  bool reboot = false;
  for (const auto& [ts, r] : placed) {
    if (prev == kNoTime || ts - prev > kIncidentGapNs) {
      if (prev != kNoTime && reboot) ++out.reboot;
      ++out.incidents;
      out.starts.push_back(ts);
      reboot = false;
    }
    reboot = reboot || maintenance_of(c, r).reboot;
    prev = ts;
  }
  if (prev != kNoTime && reboot) ++out.reboot;
  if (out.unplaced) {
    ++out.incidents;
    if (unplaced_reboot) ++out.reboot;
  }
  return out;
}

std::string incidents_evidence(const FeatureContext& c, const Incidents& in) {
  std::string s = events_evidence(c, in.events, in.first, "maintenance events");
  if (in.unplaced) s += fmt::format("; {} unplaced events counted as one incident", in.unplaced);
  return s;
}

// Per GPU, Xid counts need every Xid that names a GPU to be tied to one: an address that no device
// record maps could be this GPU's, so its count would be a guess.
std::optional<FeatureValue> need_attribution(const FeatureContext& c, int gpu) {
  if (gpu < 0) return std::nullopt;
  const Column& named = c.timeline.events.column(event_col::gpu);
  std::size_t unmapped = 0;
  for (auto r : kind_rows(c, EventKind::xid))
    if (named.is_valid(r) && c.event_gpu[r] < 0) unmapped += c.event_repeat(r);
  if (unmapped == 0) return std::nullopt;
  return null_because(fmt::format("{} Xid events name a GPU address that no device record maps (nvidia-smi -q or "
                                  "--query-gpu pci.bus_id)", unmapped));
}

}  // namespace

FeatureValue xid_events(const FeatureContext& c, int gpu) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  if (auto n = need_attribution(c, gpu)) return *n;
  return event_count(c, gpu, EventKind::xid);
}

template <XidClass K>
FeatureValue xid_class_events(const FeatureContext& c, int gpu) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  if (auto n = need_attribution(c, gpu)) return *n;
  std::size_t n = 0;
  std::uint32_t first = 0;
  for (auto r : kind_rows(c, EventKind::xid)) {
    if (gpu >= 0 && c.event_gpu[r] != gpu) continue;
    if (xid_class(c.event_code(r)) == K) c.count_event(r, n, first);
  }
  return value(static_cast<double>(n), events_evidence(c, n, first, fmt::format("{} Xid events", xid_class_name(K))));
}
template FeatureValue xid_class_events<XidClass::kApplication>(const FeatureContext&, int);
template FeatureValue xid_class_events<XidClass::kDriverFirmware>(const FeatureContext&, int);
template FeatureValue xid_class_events<XidClass::kMemoryEcc>(const FeatureContext&, int);
template FeatureValue xid_class_events<XidClass::kBus>(const FeatureContext&, int);
template FeatureValue xid_class_events<XidClass::kRecoveryAction>(const FeatureContext&, int);
template FeatureValue xid_class_events<XidClass::kOther>(const FeatureContext&, int);

FeatureValue xid_distinct_codes(const FeatureContext& c, int gpu) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  if (auto n = need_attribution(c, gpu)) return *n;
  std::set<std::int64_t> codes;
  std::size_t n = 0;
  std::uint32_t first = 0;
  for (auto r : kind_rows(c, EventKind::xid)) {
    if (gpu >= 0 && c.event_gpu[r] != gpu) continue;
    c.count_event(r, n, first);
    if (auto code = c.event_code(r)) codes.insert(*code);
  }
  std::string ev = events_evidence(c, n, first, "Xid events");
  if (!codes.empty()) ev += fmt::format("; codes {}", fmt::join(codes, ","));
  return value(static_cast<double>(codes.size()), ev);
}

FeatureValue xid_top_code_events(const FeatureContext& c, int gpu) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  if (auto n = need_attribution(c, gpu)) return *n;
  std::vector<std::pair<std::int64_t, std::size_t>> per_code;  // code, events, in order met
  std::unordered_map<std::int64_t, std::size_t> code_at;        // code -> index in per_code
  std::size_t total = 0;
  for (auto r : kind_rows(c, EventKind::xid)) {
    if (gpu >= 0 && c.event_gpu[r] != gpu) continue;
    const auto code = c.event_code(r);
    if (!code) continue;
    const std::size_t n = c.event_repeat(r);
    total += n;
    // Indexed: hostile input can name a distinct code on every line.
    const auto [at, fresh] = code_at.try_emplace(*code, per_code.size());
    if (fresh) per_code.emplace_back(*code, n);
    else per_code[at->second].second += n;
  }
  if (per_code.empty()) return value(0, "no Xid event with a code");
  // The most events; among equals, the lowest code.
  const auto top = std::min_element(per_code.begin(), per_code.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::uint32_t first = 0;
  for (auto r : kind_rows(c, EventKind::xid))
    if ((gpu < 0 || c.event_gpu[r] == gpu) && c.event_code(r) == top->first) {
      first = r;
      break;
    }
  return value(static_cast<double>(top->second),
               fmt::format("Xid {}: {} of {} Xid events with a code ({} codes); first {}", top->first, top->second,
                           total, per_code.size(), c.event_where(first)));
}

FeatureValue time_between_failures_h(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  const Incidents in = maintenance_incidents_of(c);
  if (in.starts.size() < 2)
    return null_because(fmt::format("{} placed maintenance incident(s): a time between failures needs two", in.starts.size()));
  TimeNs shortest = in.starts[1] - in.starts[0], longest = shortest;
  for (std::size_t i = 2; i < in.starts.size(); ++i) {
    shortest = std::min(shortest, in.starts[i] - in.starts[i - 1]);
    longest = std::max(longest, in.starts[i] - in.starts[i - 1]);
  }
  const double mean_h = seconds(in.starts.back() - in.starts.front()) / 3600.0 / static_cast<double>(in.starts.size() - 1);
  return value(mean_h, fmt::format("{} gaps between {} placed incidents; shortest {:.4g} h, longest {:.4g} h; ",
                                   in.starts.size() - 1, in.starts.size(), seconds(shortest) / 3600.0,
                                   seconds(longest) / 3600.0) +
                           incidents_evidence(c, in));
}

namespace {
FeatureValue aer_by_severity(const FeatureContext& c, int gpu, bool corrected) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  std::size_t n = 0;
  std::uint32_t first = 0;
  for (auto r : kind_rows(c, EventKind::pcie_aer)) {
    if (gpu >= 0 && c.event_gpu[r] != gpu) continue;
    const auto code = c.event_code(r);
    const bool is_corrected = code && *code == 0;
    const bool is_uncorrected = code && (*code == 1 || *code == 2);
    if (corrected ? is_corrected : is_uncorrected) c.count_event(r, n, first);
  }
  return value(static_cast<double>(n),
               events_evidence(c, n, first, corrected ? "corrected AER events" : "uncorrected AER events"));
}
}  // namespace

FeatureValue pcie_aer_corrected_events(const FeatureContext& c, int gpu) { return aer_by_severity(c, gpu, true); }
FeatureValue pcie_aer_uncorrected_events(const FeatureContext& c, int gpu) { return aer_by_severity(c, gpu, false); }

FeatureValue gpu_reset_events(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  std::size_t n = 0;
  std::uint32_t first = 0;
  for (auto r : kind_rows(c, EventKind::gpu_reset))
    if (is_nvidia_reset(c.event_text(r))) c.count_event(r, n, first);
  return value(static_cast<double>(n), events_evidence(c, n, first, "NVIDIA GPU reset events"));
}

FeatureValue incidents_per_hour(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  std::string basis;
  const double h = rate_hours(c, &basis);
  if (h <= 0) return null_because("no time span: no placed samples or events");
  // Only the incidents inside the window the hours measure.
  const Incidents in = maintenance_incidents_of(c, true);
  return value(static_cast<double>(in.incidents) / h, fmt::format("{} incidents inside the window {}", in.incidents, basis));
}

FeatureValue maintenance_incidents(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  const Incidents in = maintenance_incidents_of(c);
  return value(static_cast<double>(in.incidents), incidents_evidence(c, in));
}

FeatureValue reboot_incidents(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  const Incidents in = maintenance_incidents_of(c);
  return value(static_cast<double>(in.reboot), fmt::format("{} of {} incidents; ", in.reboot, in.incidents) +
                                                   incidents_evidence(c, in));
}

FeatureValue gpu_reset_incidents(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  const Incidents in = maintenance_incidents_of(c);
  return value(static_cast<double>(in.incidents - in.reboot),
               fmt::format("{} of {} incidents; ", in.incidents - in.reboot, in.incidents) + incidents_evidence(c, in));
}

FeatureValue application_xid_incidents(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  std::size_t n = 0, events = 0, unplaced = 0;
  std::uint32_t first = 0;
  TimeNs prev = kNoTime;
  for (auto r : kind_rows(c, EventKind::xid)) {  // placed rows are in time order
    if (xid_class(c.event_code(r)) != XidClass::kApplication) continue;
    c.count_event(r, events, first);
    if (!c.event_placed(r)) {
      unplaced += c.event_repeat(r);
      continue;
    }
    const TimeNs ts = c.event_time(r);
    if (prev == kNoTime || ts - prev > kAppIncidentGapNs) ++n;
    prev = ts;
  }
  if (unplaced) ++n;
  return value(static_cast<double>(n), events_evidence(c, events, first, "application Xid events") +
                                           (unplaced ? fmt::format("; {} unplaced counted as one", unplaced) : ""));
}

}  // namespace gpucost::features

namespace gpucost::features {

FeatureValue gsp_error_events(const FeatureContext& c, int gpu) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  // The GSP's own reports, and the Xids NVIDIA's catalog words as GSP failures (119 RPC timeout,
  // 120 GSP error): the driver prints either, or both.
  std::size_t reports = 0, xids = 0;
  std::uint32_t first = 0;
  bool have = false;
  auto take = [&](std::uint32_t r) {
    if (!have || r < first) first = r;
    have = true;
  };
  for (auto r : kind_rows(c, EventKind::gsp_error))
    if (gpu < 0 || c.event_gpu[r] == gpu) reports += c.event_repeat(r), take(r);
  for (auto r : kind_rows(c, EventKind::xid)) {
    const auto code = c.event_code(r);
    if ((gpu < 0 || c.event_gpu[r] == gpu) && code && (*code == 119 || *code == 120)) xids += c.event_repeat(r), take(r);
  }
  return value(static_cast<double>(reports + xids),
               fmt::format("{} GSP reports, {} Xid 119/120 events", reports, xids) + (have ? "; first " + c.event_where(first) : ""));
}

FeatureValue pcie_aer_events(const FeatureContext& c, int gpu) { return event_count(c, gpu, EventKind::pcie_aer); }

FeatureValue xid_processes(const FeatureContext& c, int gpu) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  if (auto n = need_attribution(c, gpu)) return *n;
  // Newer drivers name the process an Xid hit (`pid=1234, name=python3`): one workload behind
  // most Xids points at the application, many at the GPU.
  const Column& proc = c.timeline.events.column(event_col::process);
  std::vector<std::pair<std::string_view, std::size_t>> by_name;  // in order met
  std::unordered_map<std::string_view, std::size_t> name_at;       // name -> index in by_name
  // The explanation names the busiest few; the value still counts them all.
  constexpr std::size_t kListedProcesses = 20;
  std::size_t named = 0, xids = 0;
  for (auto r : kind_rows(c, EventKind::xid)) {
    if (gpu >= 0 && c.event_gpu[r] != gpu) continue;
    const std::size_t n = c.event_repeat(r);
    xids += n;
    if (!proc.is_valid(r)) continue;
    named += n;
    const std::string_view name = proc.get_string(r);
    // Indexed: a crash-looping job names a new process (pid) on every line.
    const auto [at, fresh] = name_at.try_emplace(name, by_name.size());
    if (fresh) by_name.emplace_back(name, n);
    else by_name[at->second].second += n;
  }
  std::stable_sort(by_name.begin(), by_name.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string list;
  for (std::size_t i = 0; i < by_name.size() && i < kListedProcesses; ++i)
    list += fmt::format("{}{} x{}", list.empty() ? "" : ", ", by_name[i].first, by_name[i].second);
  if (by_name.size() > kListedProcesses) list += fmt::format(" and {} more", by_name.size() - kListedProcesses);
  return value(static_cast<double>(by_name.size()),
               fmt::format("{} of {} Xid events name a process", named, xids) + (list.empty() ? "" : ": " + list));
}

}  // namespace gpucost::features
