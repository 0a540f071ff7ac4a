// Monotonic stamps of files without anchors (raw dmesg, journalctl -o short-monotonic) need a
// boot. In order: kernel messages whose text and monotonic stamp equal those of an event that is
// already tied (the same printk read twice); the manifest's boot id / boot time; the anchored
// boot whose monotonic range fits; the file's modification time (boot ≈ mtime - last mono).
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

#include "align/internal.hpp"

namespace gpucost::align_detail {

namespace {

struct Unanchored {
  std::string id;               // boot id the rows name, or empty
  std::uint32_t file = 0;       // file of the first row
  std::int32_t seq = 0;
  std::vector<std::uint32_t> rows;
  TimeNs min_mono = kNoTime, max_mono = kNoTime;
  bool last_of_file = false;    // holds the file's last event row: the boot the file ended in
};

std::string boot_label(const BootTable& t, std::size_t b) {
  const Boot& boot = t.boots[b];
  return boot.id.empty() ? "starting " + format_rfc3339(boot.boot_wall(), 0) : boot.id;
}

struct Derived {
  std::vector<AnchorPoint> anchors;
  std::uint32_t file = 0;
};

// Anchors from copies of the group's messages in one other file that has wall stamps but no
// monotonic ones: per message (kind + text), the k-th copy here pairs with the k-th copy there
// when both files hold it equally often. The file giving the most pairs is used.
Derived derived_anchors(const IngestResult& in, WallClock& clock, const std::vector<std::uint32_t>& rows) {
  const Table& e = in.events;
  const Column& mono = e.column(event_col::mono_ns);
  const Column& file = e.column(event_col::file);
  const Column& flags = e.column(event_col::flags);
  std::unordered_map<MessageKey, std::vector<std::pair<TimeNs, std::uint32_t>>, MessageKeyHash> here;
  for (auto r : rows) here[message_key(e, r)].emplace_back(mono.get_int(r), r);
  // Wall-only copies by (file, message).
  std::map<std::uint32_t, std::unordered_map<MessageKey, std::vector<std::pair<TimeNs, TimeNs>>, MessageKeyHash>> there;
  const auto own_file = static_cast<std::uint32_t>(file.get_int(rows.front()));
  for (std::size_t r = 0; r < e.rows(); ++r) {
    if (mono.is_valid(r) || !e.column(event_col::wall_raw_ns).is_valid(r) ||
        (flags.get_int(r) & (kFlagUnreliableWall | kFlagApproxTime)) != 0)
      continue;
    const auto f = static_cast<std::uint32_t>(file.get_int(r));
    if (f == own_file) continue;
    const auto it = here.find(message_key(e, r));
    if (it == here.end()) continue;
    const auto wk = static_cast<WallKind>(e.column(event_col::wall_kind).get_int(r));
    const TimeNs raw = e.column(event_col::wall_raw_ns).get_int(r);
    const TimeNs w = clock.to_utc(wk, raw, f);
    if (w == kNoTime || wk == WallKind::kRelative) continue;
    // Whole-second stamps are floored to the second; finer ones are good to the receive delay.
    const TimeNs precision = raw % kNsPerSec == 0 ? kNsPerSec : kNsPerMs;
    there[f][it->first].emplace_back(w, precision);
  }
  Derived best;
  for (auto& [f, keys] : there) {
    Derived d;
    d.file = f;
    for (auto& [key, walls] : keys) {
      auto mine = here[key];
      if (mine.size() != walls.size()) continue;
      std::sort(mine.begin(), mine.end());
      std::sort(walls.begin(), walls.end());
      for (std::size_t i = 0; i < mine.size(); ++i)
        d.anchors.push_back({mine[i].first, walls[i].first - mine[i].first, walls[i].second, f, false});
    }
    if (d.anchors.size() > best.anchors.size()) best = std::move(d);
  }
  std::sort(best.anchors.begin(), best.anchors.end(), [](const AnchorPoint& a, const AnchorPoint& b) {
    return a.mono != b.mono ? a.mono < b.mono : a.offset < b.offset;
  });
  return best;
}

using TiedCopies = std::unordered_map<MessageKey, std::vector<std::pair<TimeNs, std::int32_t>>, MessageKeyHash>;

// Ties groups of unanchored rows to boots, one way after the other (see the file's comment).
// Each way returns true when it tied the group.
class GroupTies {
 public:
  GroupTies(const IngestResult& in, WallClock& clock, BootTable& out)
      : in_(in), clock_(clock), out_(out), e_(in.events), mono_(e_.column(event_col::mono_ns)),
        file_(e_.column(event_col::file)) {
    collect();
    anchored_boots_ = out_.boots.size();
  }

  std::map<std::string, Unanchored>& groups() noexcept { return groups_; }

  // 1. The same printk read in a tied source.
  bool by_same_printk(Unanchored& g, const std::string& what) {
    std::map<std::int32_t, std::size_t> votes;
    for (auto r : g.rows) {
      if (static_cast<EventKind>(e_.column(event_col::kind).get_int(r)) == EventKind::log_end) continue;
      const auto it = tied_.find(message_key(e_, r));
      if (it == tied_.end()) continue;
      const TimeNs m = mono_.get_int(r);
      const auto& v = it->second;
      const auto c = std::lower_bound(v.begin(), v.end(), std::pair<TimeNs, std::int32_t>{m - kMonoMatchNs, -1});
      // Early boot messages can repeat with the same stamp in every boot: each boot gets a vote.
      for (auto x = c; x != v.end() && x->first <= m + kMonoMatchNs; ++x)
        if (x == c || x->second != (x - 1)->second) ++votes[x->second];
    }
    if (votes.empty()) return false;
    auto best = votes.begin();
    for (auto it = votes.begin(); it != votes.end(); ++it)
      if (it->second > best->second) best = it;
    assign(g, best->first, TieQuality::kExact,
           fmt::format("{} tied to boot {} by {} kernel message(s) with the same text and monotonic stamp in an "
                       "anchored source",
                       what, boot_label(out_, static_cast<std::size_t>(best->first)), best->second));
    return true;
  }

  // 2. The same messages read in a file that stamps them with wall time only: each pair of
  // copies is an anchor (that file's wall - this file's mono).
  // A boot message printed in every boot could pair with a copy from another boot: at least
  // two pairs must agree on an offset, and the file's last message must not fall after the
  // file was written.
  bool by_wall_copies(Unanchored& g, const std::string& what) {
    Boot b;
    if (auto derived = derived_anchors(in_, clock_, g.rows); !derived.anchors.empty()) {
      b.id = g.id;
      b.anchors = std::move(derived.anchors);
      b.epochs = build_epochs(b.anchors, {});
      std::size_t agree = 0;
      for (const auto& ep : b.epochs) agree = std::max(agree, ep.anchors);
      const TimeNs mtime = in_.files[g.file].mtime_ns;
      if (agree < 2 || (mtime != kNoTime && b.map(g.max_mono) > mtime + kNsPerDay)) b.anchors.clear();
    }
    if (b.anchors.empty()) return false;
    out_.boots.push_back(std::move(b));
    assign(g, static_cast<std::int32_t>(out_.boots.size() - 1), TieQuality::kExact,
           fmt::format("{} placed through {} message(s) also read with wall stamps in {}", what,
                       out_.boots.back().anchors.size(), in_.files[out_.boots.back().anchors.front().file].path));
    return true;
  }

  // 3. The manifest: it describes the boot the collection ran in, the one the file ends in.
  bool by_manifest(Unanchored& g, const std::string& what) {
    const Manifest* man = in_.manifest ? &*in_.manifest : nullptr;
    const bool manifest_applies =
        man && ((!g.id.empty() && g.id == man->boot_id) || (g.id.empty() && g.last_of_file && (man->boot_time_ns || !man->boot_id.empty())));
    if (!manifest_applies) return false;
    std::int32_t target = -1;
    for (std::size_t b = 0; b < out_.boots.size() && target < 0; ++b)
      if (!man->boot_id.empty() && out_.boots[b].id == man->boot_id) target = static_cast<std::int32_t>(b);
    if (target < 0 && man->boot_time_ns)
      for (std::size_t b = 0; b < anchored_boots_ && target < 0; ++b)
        if (std::llabs(out_.boots[b].boot_wall() - *man->boot_time_ns) <= 2 * kNsPerSec) target = static_cast<std::int32_t>(b);
    if (target >= 0) {
      assign(g, target, TieQuality::kExact, fmt::format("{} tied to boot {} named by manifest.json", what, boot_label(out_, static_cast<std::size_t>(target))));
      return true;
    }
    if (!man->boot_time_ns) return false;
    Boot b;
    b.id = man->boot_id;
    b.source = BootSource::kManifest;
    b.epochs.push_back(Epoch{std::numeric_limits<TimeNs>::min(), *man->boot_time_ns, 0, kNsPerSec});
    b.source_note = "boot time from manifest.json (suspends in this boot are not accounted for)";
    out_.boots.push_back(std::move(b));
    assign(g, static_cast<std::int32_t>(out_.boots.size() - 1), TieQuality::kManifest,
           fmt::format("{} placed from the manifest's boot time {} (suspends after it are not accounted for)", what,
                       format_rfc3339(*man->boot_time_ns, 0)));
    return true;
  }

  // 4. The anchored boot whose monotonic range is nearest this group's.
  bool by_overlapping_boot(Unanchored& g, const std::string& what) {
    std::int32_t target = -1;
    TimeNs best = 0;
    for (std::size_t b = 0; b < anchored_boots_; ++b) {
      const Boot& boot = out_.boots[b];
      if (boot.anchors.empty() || (!g.id.empty() && !boot.id.empty())) continue;
      if (g.min_mono > boot.max_mono() || g.max_mono < boot.min_mono()) continue;
      const TimeNs dist = std::llabs(g.max_mono - boot.max_mono()) + std::llabs(g.min_mono - boot.min_mono());
      if (target < 0 || dist <= best) {
        target = static_cast<std::int32_t>(b);
        best = dist;
      }
    }
    if (target < 0) return false;
    assign(g, target, TieQuality::kApproximate,
           fmt::format("approximate: {} guessed to be in boot {} (the monotonic ranges overlap; no message matched)", what,
                       boot_label(out_, static_cast<std::size_t>(target))));
    return true;
  }

  // 5. The modification time: the file's last message was written at or before it.
  bool by_mtime(Unanchored& g, const std::string& what) {
    const TimeNs mtime = g.file < in_.files.size() ? in_.files[g.file].mtime_ns : kNoTime;
    if (!g.last_of_file || mtime == kNoTime) return false;
    Boot b;
    b.id = g.id;
    b.source = BootSource::kMtime;
    b.epochs.push_back(Epoch{std::numeric_limits<TimeNs>::min(), mtime - g.max_mono, 0, 0});
    b.source_note = fmt::format("approximate: boot time from {}'s modification time minus its last monotonic stamp",
                                in_.files[g.file].path);
    out_.boots.push_back(std::move(b));
    assign(g, static_cast<std::int32_t>(out_.boots.size() - 1), TieQuality::kApproximate,
           fmt::format("approximate: {} placed so that the last monotonic stamp falls at the file's modification "
                       "time {} (boot ≈ mtime - last mono)",
                       what, format_rfc3339(mtime, 0)));
    return true;
  }

 private:
  // The untied rows with a monotonic stamp, grouped by boot id (else file and boot of the file),
  // and the tied ones by message, to vote with.
  void collect() {
    const Column& seq = e_.column(event_col::boot_seq);
    const Column& bid = e_.column(event_col::boot_id);
    std::map<std::uint32_t, std::pair<std::int64_t, std::string>> last_row_group;  // file -> (line, key)
    for (std::size_t r = 0; r < e_.rows(); ++r) {
      if (!mono_.is_valid(r) || out_.event_boot[r] >= 0) continue;
      const std::string id = bid.is_valid(r) ? std::string(bid.get_string(r)) : std::string();
      const auto f = static_cast<std::uint32_t>(file_.get_int(r));
      const auto s = static_cast<std::int32_t>(seq.get_int(r));
      const std::string key = id.empty() ? fmt::format("f:{:08}:{:08}", f, s) : "i:" + id;
      Unanchored& g = groups_[key];
      if (g.rows.empty()) {
        g.id = id;
        g.file = f;
        g.seq = s;
      }
      g.rows.push_back(static_cast<std::uint32_t>(r));
      const TimeNs m = mono_.get_int(r);
      if (g.min_mono == kNoTime || m < g.min_mono) g.min_mono = m;
      if (g.max_mono == kNoTime || m > g.max_mono) g.max_mono = m;
      auto& last = last_row_group[f];
      const std::int64_t line = e_.column(event_col::line).get_int(r);
      if (last.second.empty() || line >= last.first) last = {line, key};
    }
    for (const auto& [f, lk] : last_row_group) groups_[lk.second].last_of_file = true;
    if (groups_.empty()) return;
    // The tied copies, by message, of the messages the groups hold (the only ones looked up):
    // the cost follows the unanchored rows, not every tied event. A last-line mark has no text
    // of its own: it votes for nothing, and nothing votes by it.
    for (const auto& [key, g] : groups_)
      for (auto r : g.rows)
        if (static_cast<EventKind>(e_.column(event_col::kind).get_int(r)) != EventKind::log_end)
          tied_.try_emplace(message_key(e_, r));
    for (std::size_t r = 0; r < e_.rows(); ++r) {
      if (!mono_.is_valid(r) || out_.event_boot[r] < 0) continue;
      if (static_cast<EventKind>(e_.column(event_col::kind).get_int(r)) == EventKind::log_end) continue;
      if (const auto it = tied_.find(message_key(e_, r)); it != tied_.end())
        it->second.emplace_back(mono_.get_int(r), out_.event_boot[r]);
    }
    for (auto& [key, v] : tied_) std::sort(v.begin(), v.end());
  }

  void assign(Unanchored& g, std::int32_t b, TieQuality q, const std::string& note) {
    for (auto r : g.rows) {
      out_.event_boot[r] = b;
      out_.event_tie[r] = q;
    }
    auto& files = out_.boots[static_cast<std::size_t>(b)].files;
    std::vector<std::uint32_t> seen;
    for (auto r : g.rows) {
      const auto f = static_cast<std::uint32_t>(file_.get_int(r));
      if (std::find(seen.begin(), seen.end(), f) != seen.end()) continue;
      seen.push_back(f);
      if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
      out_.file_notes[f].push_back(note);
    }
  }

  const IngestResult& in_;
  WallClock& clock_;
  BootTable& out_;
  const Table& e_;
  const Column& mono_;
  const Column& file_;
  std::map<std::string, Unanchored> groups_;  // ordered: deterministic
  TiedCopies tied_;
  std::size_t anchored_boots_ = 0;  // boots with anchors of their own (the later ones are derived)
};

}  // namespace

void tie_unanchored_groups(const IngestResult& in, WallClock& clock, BootTable& out) {
  out.file_notes.resize(in.files.size());
  out.event_tie.resize(in.events.rows(), TieQuality::kExact);
  GroupTies ties(in, clock, out);
  for (auto& [key, g] : ties.groups()) {
    const std::string what = g.id.empty() ? (g.seq ? fmt::format("boot {} of the file", g.seq + 1) : std::string("monotonic stamps"))
                                          : "boot " + g.id;
    if (ties.by_same_printk(g, what) || ties.by_wall_copies(g, what) || ties.by_manifest(g, what) ||
        ties.by_overlapping_boot(g, what) || ties.by_mtime(g, what))
      continue;
    out.file_notes[g.file].push_back(fmt::format("{}: no anchor, matching message, manifest or modification time ties "
                                                 "them to a boot; their wall stamps are used where present",
                                                 what));
  }
}

}  // namespace gpucost::align_detail
