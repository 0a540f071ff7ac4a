#pragma once
/// \file repeat_runs.hpp
/// Aggregation of repeated messages: a message that one file prints again and again (a driver
/// polling a powered-down GPU, cron every few seconds, an AER flood) becomes one event row per
/// second it was printed in, with a `repeat` count, instead of a row per line. Memory then follows
/// what is distinct (messages × seconds), not how many lines repeat. docs/timeline.md says what
/// a run keeps (its first line as the exemplar, the first stamps, the count).

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "gpucost/ingest/rows.hpp"
#include "gpucost/records/events.hpp"
#include "gpucost/records/formats.hpp"
#include "gpucost/records/stamps.hpp"
#include "gpucost/table.hpp"
#include "gpucost/time.hpp"

namespace gpucost {

/// The time bucket of a message's runs: a minute for what is only ever counted (cron jobs,
/// known-benign driver messages: gpucost/benign_messages.hpp), a second for the rest (features
/// read their instants against 1 s samples).
TimeNs repeat_bucket_ns(EventKind kind, std::string_view text) noexcept;

/// The open runs of one file's repeated messages: for each message (kind, text, ident, code,
/// GPU, process, boot, flags: everything but the line, the stamps and the printing process's
/// pid), the row of its latest run and that row's stamps. An event joins the run when its
/// message is the same and it was printed within the same bucket (repeat_bucket_ns: a second, or
/// a minute for counted-only messages): of kernel monotonic time when it carries one (and a wall
/// stamp less than a bucket and a second from the run's, so that a suspend in between splits the
/// run), else of its wall stamp; and at most kRunGapNs after the run's latest line (2 s by wall
/// stamps, whose resolution is a second), so that a message printed now and then stays a row per
/// line at its own instant: only a flood is aggregated. A monotonic stamp
/// that does not move past the run's latest is a copy of a line (a log appended to itself), not
/// a repeat: it starts a row of its own, which align's deduplication then matches. Every second
/// of a message starts a row at its first line, so that two files holding the same kernel
/// messages make the same rows (align matches a run with its copies by the second; a file that
/// begins mid-second makes a shorter run, and the longer count is kept). Events with no
/// stamp, and the kinds that do not aggregate (event_kind_aggregates), never join.
class RepeatRuns {
 public:
  /// The longest gap between two lines of one run, by monotonic time.
  static constexpr TimeNs kRunGapNs = kNsPerSec;
  /// What identifies an event's message, and the bucket of its runs.
  struct Key {
    std::uint64_t hash = 0;  ///< of everything but the line, the stamps, the pid and the boot (find() checks the boot on the row)
    TimeNs bucket_ns = kNsPerSec;  ///< repeat_bucket_ns(kind, text)
    /// Not 0: every event whose key has this origin has the same strings (text, ident, GPU,
    /// process), as those made from one MessageMemo entry do (its serial). find() then takes a
    /// run that such an event started to hold the same strings, without reading them back.
    std::uint64_t origin = 0;
  };
  /// The open run of one message: what find() confirms of its row without reading it back.
  struct Run {
    std::uint32_t row = 0;
    EventKind kind = EventKind::user;
    WallKind wall_kind = WallKind::kNone;
    std::int64_t code = INT64_MIN;
    std::int64_t flags = 0;
    TimeNs wall_raw_ns = kNoTime;
    TimeNs mono_ns = kNoTime;
    TimeNs last_mono_ns = kNoTime;  ///< of the latest event that joined
    TimeNs last_wall_ns = kNoTime;
    std::uint64_t origin = 0;       ///< Key::origin of the event that started it
    /// The first instant of the run's bucket (of monotonic time when the run has it, else of wall
    /// time), as an unsigned number: an instant t is in the bucket when
    /// `uint64(t) - bucket_start < uint64(bucket_ns)` (no division per line).
    std::uint64_t bucket_start = 0;
    std::int32_t boot_seq = 0;      ///< the row's boot ordinal (renumber_boots() keeps it so)
    bool boot_id_empty = true;      ///< the row has no boot id (then an event without one matches it unread)
  };
  /// The row that an event with these fields joins, or -1 (append a row and remember() it).
  /// `key` is message_key(f), computed once by the caller for find() and what follows it.
  std::int64_t find(const Table& events, const EventFields& f, const Key& key) const {
    const Run* run = find_run(events, f, key);
    return run ? static_cast<std::int64_t>(run->row) : -1;
  }
  /// The run that an event with these fields joins (join() it), or nullptr. The pointer is
  /// valid until the next started().
  Run* find_run(const Table& events, const EventFields& f, const Key& key) const;
  /// Notes that f joined `run` (from find_run).
  static void join(Run& run, const EventFields& f) noexcept {
    run.last_mono_ns = f.mono_ns;
    run.last_wall_ns = f.wall_raw_ns;
  }
  /// f's key.
  static Key message_key(const EventFields& f) noexcept {
    return message_key(f, strings_hash(f), repeat_bucket_ns(f.kind, f.text));
  }
  /// f's key from the parts that cost the most, computed before (MessageMemo keeps them for a
  /// message that repeats): strings_hash(f) and repeat_bucket_ns(f.kind, f.text).
  static Key message_key(const EventFields& f, std::uint64_t strings, TimeNs bucket_ns) noexcept;
  /// The hash of f's strings: text, ident, GPU and process.
  static std::uint64_t strings_hash(const EventFields& f) noexcept;
  /// Notes that `row`, just appended for f, holds the latest run of f's message.
  void started(const EventFields& f, std::uint32_t row, const Key& key);
  /// After the rows of the file's next chunk were appended (each message's first row joining its
  /// run here when it could): each message's latest line is the one the chunk saw last.
  void continue_with(const RepeatRuns& chunk);
  /// Boot ordinal b of the open runs becomes to_file[b] (FileSink::renumber_boots, which rewrites
  /// the rows' ordinals alike).
  void renumber_boots(std::span<const std::int32_t> to_file) noexcept;

 private:
  // The fields of a run's row that find() confirms and that no one changes once the row is
  // appended (the boot ordinal is renumbered when chunks merge, and strings are read from the
  // row unless the origin vouches for them), kept so that the row is not read back column by
  // column. Mutable: find_run hands out a run to join.
  //
  // An open-addressing table over the keys (hashes already), its size a power of two: a lookup
  // is a multiply and a shift where std::unordered_map divides by its bucket count, which a
  // flood of one message paid on every line.
  struct Slot {
    std::uint64_t key = 0;
    bool used = false;
    Run run;
  };
  mutable std::vector<Slot> slots_;  // empty, or 1 << bits_ slots, at most half of them used
  unsigned bits_ = 0;
  std::size_t used_ = 0;
  Run* lookup(std::uint64_t key) const noexcept;
  Run& insert(std::uint64_t key);  // the key's run, added (default) when it had none
  Slot& free_slot(std::uint64_t key) noexcept;  // the first unused slot of the key's probe sequence
};

}  // namespace gpucost
