// Which zone the directory's local-time stamps are in: --tz, else the UTC offsets that RFC 3339
// sources printed, else the offset between copies of one kernel message read in a UTC source and
// in a local-time source, else the manifest's zone, else the machine's.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "align/internal.hpp"

namespace gpucost::align_detail {

namespace {

constexpr TimeNs kQuarterHour = 15 * kNsPerMin;
constexpr TimeNs kMaxOffset = 14 * kNsPerHour;
// Copies are received by different daemons (journald, rsyslog) that can lag the kernel by
// seconds at boot; anything within 5 minutes of a 15-minute multiple is an offset.
constexpr TimeNs kMaxResidual = 5 * kNsPerMin;

bool is_local(WallKind k) { return k == WallKind::kLocal || k == WallKind::kLocalNoYear; }

// local - utc for a local stamp without a year: the year (of the candidates around the UTC
// copy's year) that brings the two within 14 hours.
std::optional<TimeNs> local_minus_utc(WallKind kind, TimeNs raw, TimeNs utc) {
  if (kind == WallKind::kLocal) return raw - utc;
  const std::int64_t k = rollovers_of(raw);
  const std::int64_t utc_year = ns_to_civil(utc).year;
  std::optional<TimeNs> best;
  for (std::int64_t base = utc_year - k - 1; base <= utc_year - k + 1; ++base) {
    const TimeNs d = with_year(raw, base) - utc;
    if (d >= -kMaxOffset && d <= kMaxOffset && (!best || std::llabs(d) < std::llabs(*best))) best = d;
  }
  return best;
}

std::string file_name(const IngestResult& in, std::uint32_t f) {
  return f < in.files.size() ? in.files[f].path : fmt::format("file #{}", f);
}

// The UTC span that the directory's dated stamps cover (for checking a zone's offsets).
void dated_span(const IngestResult& in, const std::vector<FileStamps>& stamps, TimeNs& lo, TimeNs& hi) {
  lo = hi = kNoTime;
  auto add = [&](TimeNs t) {
    if (t == kNoTime) return;
    if (lo == kNoTime || t < lo) lo = t;
    if (hi == kNoTime || t > hi) hi = t;
  };
  for (const auto& fs : stamps) {
    // Local stamps read as UTC are within 14 h of the truth: close enough to list offsets.
    for (WallKind k : {WallKind::kUtc, WallKind::kLocal}) {
      add(fs.of(k).min);
      add(fs.of(k).max);
    }
  }
  if (in.manifest) {
    if (in.manifest->start_ns) add(*in.manifest->start_ns);
    if (in.manifest->end_ns) add(*in.manifest->end_ns);
  }
}

}  // namespace

std::vector<MatchedOffset> matched_message_offsets(const IngestResult& in) {
  const Table& e = in.events;
  const Column& kinds = e.column(event_col::wall_kind);
  const Column& raws = e.column(event_col::wall_raw_ns);
  const Column& monos = e.column(event_col::mono_ns);
  const Column& flags = e.column(event_col::flags);
  const Column& files = e.column(event_col::file);
  auto usable = [&](std::size_t r) {
    return raws.is_valid(r) && (flags.get_int(r) & kFlagUnreliableWall) == 0;
  };
  // UTC copies by message: sorted by mono for the mono match, counted for the unique match.
  struct Copies {
    std::vector<std::pair<TimeNs, std::uint32_t>> by_mono;
    std::size_t count = 0;
    std::uint32_t any = 0;
  };
  std::unordered_map<MessageKey, Copies, MessageKeyHash> utc;
  for (std::size_t r = 0; r < e.rows(); ++r) {
    if (!usable(r) || static_cast<WallKind>(kinds.get_int(r)) != WallKind::kUtc) continue;
    Copies& c = utc[message_key(e, r)];
    if (monos.is_valid(r)) c.by_mono.emplace_back(monos.get_int(r), static_cast<std::uint32_t>(r));
    c.any = static_cast<std::uint32_t>(r);
    ++c.count;
  }
  if (utc.empty()) return {};
  // Local copies are counted only for messages that have a UTC copy: the cost follows the
  // messages read both ways, not every local event.
  std::unordered_map<MessageKey, std::size_t, MessageKeyHash> local_count;
  for (std::size_t r = 0; r < e.rows(); ++r) {
    if (!usable(r) || !is_local(static_cast<WallKind>(kinds.get_int(r)))) continue;
    const MessageKey key = message_key(e, r);
    if (utc.find(key) != utc.end()) ++local_count[key];
  }
  for (auto& [key, c] : utc) std::sort(c.by_mono.begin(), c.by_mono.end());
  std::map<TimeNs, MatchedOffset> votes;
  for (std::size_t r = 0; r < e.rows(); ++r) {
    if (!usable(r)) continue;
    const auto k = static_cast<WallKind>(kinds.get_int(r));
    if (!is_local(k)) continue;
    const MessageKey key = message_key(e, r);
    const auto it = utc.find(key);
    if (it == utc.end()) continue;
    std::optional<std::uint32_t> match;
    if (monos.is_valid(r)) {
      const TimeNs m = monos.get_int(r);
      const auto& v = it->second.by_mono;
      const auto c = std::lower_bound(v.begin(), v.end(), std::pair<TimeNs, std::uint32_t>{m - kMonoMatchNs, 0});
      if (c != v.end() && c->first <= m + kMonoMatchNs) match = c->second;
    }
    // Without monotonic stamps on both sides, only a message seen once on each side is a pair.
    if (!match && it->second.count == 1 && local_count[key] == 1 &&
        !(monos.is_valid(r) && monos.is_valid(it->second.any)))
      match = it->second.any;
    if (!match) continue;
    const auto d = local_minus_utc(k, raws.get_int(r), raws.get_int(*match));
    if (!d) continue;
    const TimeNs q = (*d >= 0 ? (*d + kQuarterHour / 2) : (*d - kQuarterHour / 2)) / kQuarterHour * kQuarterHour;
    if (std::llabs(*d - q) > kMaxResidual) continue;
    auto& v = votes[q];
    if (v.votes++ == 0) {
      v.offset = q;
      v.local_file = static_cast<std::uint32_t>(files.get_int(r));
      v.utc_file = static_cast<std::uint32_t>(files.get_int(*match));
    }
  }
  std::vector<MatchedOffset> out;
  for (const auto& [off, v] : votes) out.push_back(v);
  std::stable_sort(out.begin(), out.end(), [](const MatchedOffset& a, const MatchedOffset& b) { return a.votes > b.votes; });
  return out;
}

ZoneChoice choose_zone(const IngestResult& in, const AlignOptions& options, const std::vector<FileStamps>& stamps) {
  ZoneChoice c;
  std::string err;
  if (!options.tz.empty()) {
    if (!Zone::parse(options.tz, c.zone, err)) throw std::invalid_argument(err);
    c.reason = "--tz " + options.tz;
    return c;
  }

  // 1. Offsets printed by RFC 3339 sources.
  std::map<TimeNs, std::uint64_t> printed;
  std::map<TimeNs, std::uint32_t> printed_by;
  for (const auto& z : in.zone_evidence) {
    if (printed[z.offset_ns] == 0) printed_by[z.offset_ns] = z.file;
    printed[z.offset_ns] += z.count;
  }
  if (!printed.empty()) {
    std::string listed;
    for (const auto& [off, n] : printed)
      listed += fmt::format("{}{} ({} lines)", listed.empty() ? "" : ", ", format_utc_offset(off), n);
    // A named zone that takes every printed offset over the logs' span also knows the daylight
    // saving changes the offsets do not show: the manifest's zone, and (when the offsets
    // themselves change) the machine's.
    TimeNs lo, hi;
    dated_span(in, stamps, lo, hi);
    std::vector<std::pair<Zone, std::string>> named;
    if (in.manifest && !in.manifest->timezone_name.empty()) {
      Zone z;
      if (Zone::parse(in.manifest->timezone_name, z, err) && !z.is_fixed()) named.emplace_back(z, "the manifest's zone");
    }
    if (printed.size() > 1)
      if (Zone sys = Zone::system(); !sys.is_fixed()) named.emplace_back(sys, "the machine's zone");
    if (lo != kNoTime) {
      for (const auto& [z, why] : named) {
        const auto offs = z.offsets_between(lo - kNsPerDay, hi + kNsPerDay);
        bool all = true;
        for (const auto& [off, n] : printed) all = all && std::find(offs.begin(), offs.end(), off) != offs.end();
        if (all) {
          c.zone = z;
          c.reason = fmt::format("RFC 3339 stamps in the directory print {}, offsets of {} ({})", listed, z.name(), why);
          return c;
        }
      }
    }
    if (printed.size() == 1) {
      const auto& [off, n] = *printed.begin();
      c.zone = Zone::fixed(off);
      c.reason = fmt::format("RFC 3339 stamps in the directory print {} ({} lines, e.g. in {})", format_utc_offset(off), n,
                             file_name(in, printed_by[off]));
      return c;
    }
    TimeNs best = printed.begin()->first;
    for (const auto& [off, n] : printed)
      if (n > printed[best]) best = off;
    c.zone = Zone::fixed(best);
    c.reason = fmt::format("RFC 3339 stamps print several offsets ({}); the most printed one is used", listed);
    return c;
  }

  // 2. The same kernel messages read in UTC and in local time.
  if (const auto m = matched_message_offsets(in); !m.empty()) {
    const auto& w = m.front();
    c.zone = Zone::fixed(w.offset);
    c.reason = fmt::format("{} message(s) read both in {} (local time) and in {} (UTC) differ by {}", w.votes,
                           file_name(in, w.local_file), file_name(in, w.utc_file), format_utc_offset(w.offset));
    if (m.size() > 1) c.reason += fmt::format(" ({} pair(s) disagree)", m.size() - 1);
    return c;
  }

  // 3. The manifest.
  if (in.manifest) {
    if (!in.manifest->timezone_name.empty() && Zone::parse(in.manifest->timezone_name, c.zone, err)) {
      c.reason = "manifest.json names the zone " + in.manifest->timezone_name;
      return c;
    }
    if (in.manifest->utc_offset_ns) {
      c.zone = Zone::fixed(*in.manifest->utc_offset_ns);
      c.reason = "manifest.json gives the offset " + format_utc_offset(*in.manifest->utc_offset_ns);
      return c;
    }
  }

  // 4. The machine's.
  c.zone = Zone::system();
  c.reason = "the machine's zone (no --tz, no offsets or matching messages in the directory, no manifest zone)";
  return c;
}

}  // namespace gpucost::align_detail
