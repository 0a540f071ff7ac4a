#pragma once
/// \file truth.hpp
/// The ground truth of a simulated log directory: every injected event with its true instant,
/// and the contract features computed from what was written, with the definitions of the
/// project (docs/simulate.md repeats them). Written as truth.json beside the logs.

#ifndef GPUCOST_LAYER_SIM
#error "gpucost_sim header: include it only in gpucost_sim or a layer above it (docs/architecture.md, Layers)"
#endif

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "gpucost/sim/world.hpp"

namespace gpucost::sim {

/// An injected event: one message, however many files carry a copy of it.
struct TruthEvent {
  EventKind kind = EventKind::user;
  int code = -1;
  int gpu = -1;        ///< GPU index, -1 for the host
  TimeNs ts = 0;       ///< true instant, UTC
  TimeNs mono = 0;     ///< monotonic time of its boot at ts (the kernel's printk stamp)
  int boot = 0;        ///< 0 the simulated boot, 1 and 2 previous boots
  bool initial = false;  ///< the boot-time AC report
  std::uint8_t dest = 0;  ///< Dest bits: the files that carry it
  std::string ident;      ///< `kernel` or the program's identifier
  std::string message;
};

/// Sums over the dmon rows written for one GPU.
struct GpuTotals {
  std::int64_t rows = 0, idle_rows = 0, hot_rows = 0;
  std::int64_t stall_rows = 0;  ///< idle rows of the job's own stalls (GpuMode::kStall)
  double sm_sum = 0, power_sum = 0;
  int temp_max = INT_MIN;
  TimeNs first_row = kNoTime, last_row = kNoTime;
};

/// The definitions' thresholds (defaults of --idle-threshold and --temp-threshold).
inline constexpr int kIdleThresholdPct = 5;
inline constexpr int kTempThresholdC = 78;

/// `ac_switches`: AC state changes among ac_online/ac_offline events (boot events mark boots).
/// Same-state events within 10 s of the previous AC event are one report; a report within 60 s
/// after a boot event or with mono < 60 s sets the state without counting; any other report
/// whose state differs from the known state counts, and so does the first report when no state
/// is known. Events must be sorted by ts.
int count_ac_switches(const std::vector<TruthEvent>& events);
/// The switches of count_ac_switches() whose instant lies in [from, to): the ones a rate over
/// that span divides (issue 14: a rate divides only the events inside its window).
int count_ac_switches_in(const std::vector<TruthEvent>& events, TimeNs from, TimeNs to);
/// `lid_closes`: lid_close events, those within 10 s of the previous one counting once.
int count_lid_closes(const std::vector<TruthEvent>& events);

/// A suspend/resume cycle as align builds Timeline::suspends.
struct SuspendSpan {
  TimeNs begin = kNoTime;
  TimeNs end = kNoTime;  ///< kNoTime: no resume seen
};
/// Cycles from suspend/resume events sorted by ts: a suspend opens a cycle (suspends within 60 s
/// of its first join it), the first resume after it closes it and resumes within 60 s after that
/// join it; begin = earliest suspend, end = latest resume. A resume without a suspend is ignored.
std::vector<SuspendSpan> suspend_cycles(const std::vector<TruthEvent>& events);

/// Collects what the generator wrote and serializes truth.json.
class Truth {
 public:
  explicit Truth(const World& w);

  /// One dmon row of GPU gpu at second t.
  void add_sample(int gpu, TimeNs t, int sm, int power_w, int gtemp, bool stalled = false);
  /// One sampling interval with at least one row (the host's union of sampled time).
  void add_interval() noexcept { ++host_seconds_; }
  /// A written record; kept when it is an injected event.
  void add_record(const LogRecord& r);
  /// A cron line (noise, counted).
  void add_cron() noexcept { ++cron_lines_; }
  /// A file of the directory and its size.
  void add_file(std::string name, std::uint64_t bytes);

  /// Events sorted by ts.
  std::vector<TruthEvent> events() const;
  const std::vector<GpuTotals>& gpus() const noexcept { return gpus_; }
  std::int64_t host_seconds() const noexcept { return host_seconds_; }
  /// truth.json (pretty, ends with a newline).
  std::string json() const;

 private:
  const World& w_;
  std::vector<GpuTotals> gpus_;
  std::int64_t host_seconds_ = 0;
  std::int64_t cron_lines_ = 0;
  std::vector<TruthEvent> events_;
  std::vector<std::pair<std::string, std::uint64_t>> files_;
};

}  // namespace gpucost::sim
