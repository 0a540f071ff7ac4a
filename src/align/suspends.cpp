// Suspend/resume cycles (DEFINITIONS.md): in time order, a suspend event opens a cycle and
// suspend events within 60 s of the first join it (kernel, systemd-sleep, logind report the same
// suspend); the first resume after it closes the cycle and resumes within 60 s of that one join
// it. begin = the earliest suspend, end = the latest resume of the cycle (kNoTime: no resume).
#include "align/internal.hpp"

namespace gpucost::align_detail {

std::vector<SuspendInterval> find_suspends(const Table& events) {
  constexpr TimeNs kSameReport = 60 * kNsPerSec;
  std::vector<SuspendInterval> out;
  bool open = false;
  TimeNs begin = kNoTime, first_resume = kNoTime, end = kNoTime;
  auto close = [&] {
    if (open) out.push_back({begin, end});
    open = false;
    first_resume = end = kNoTime;
  };
  const Column& ts = events.ts();
  const Column& kind = events.column(event_col::kind);
  for (std::size_t r = 0; r < events.rows(); ++r) {
    if (!ts.is_valid(r)) continue;
    const auto k = static_cast<EventKind>(kind.get_int(r));
    const TimeNs t = ts.get_int(r);
    if (k == EventKind::suspend) {
      if (open && first_resume == kNoTime && t - begin <= kSameReport) continue;
      close();
      open = true;
      begin = t;
    } else if (k == EventKind::resume) {
      if (!open) continue;  // a resume without a prior suspend
      if (first_resume == kNoTime) {
        first_resume = end = t;
      } else if (t - first_resume <= kSameReport) {
        end = t;
      } else {
        close();  // this later resume has no suspend of its own
      }
    }
  }
  close();
  return out;
}

}  // namespace gpucost::align_detail
