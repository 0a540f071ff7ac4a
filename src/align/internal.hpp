#pragma once
// Internals of the align stage, shared by its files (see docs/timeline.md for the rules):
//   zone_inference.cpp  which zone local stamps are in
//   year_inference.cpp  the year / date / start that stamps without one lack, per file
//   wall_clock.cpp      raw wall stamps -> UTC, with the per-file dating
//   boot_anchors.cpp    anchors -> boots and epochs (monotonic -> UTC, piecewise over suspends)
//   boot_ties.cpp       files without anchors tied to a boot (matched text, manifest, range, mtime)
//   dedup.cpp           one event per kernel message read from several sources
//   placement.cpp       every row of the three tables placed, windowed, sorted
//   suspends.cpp        Timeline::suspends from suspend/resume events
//   align.cpp           the stage: places the rows, windows, sorts, writes notes

#ifndef GPUCOST_LAYER_ALIGN
#error "gpucost_align header: include it only in gpucost_align or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpucost/align/align.hpp"
#include "gpucost/align/zone.hpp"

namespace gpucost::align_detail {

/// Copies of one kernel message agree on monotonic time to the microsecond they print.
inline constexpr TimeNs kMonoMatchNs = kNsPerUs;
/// Anchors at least this fine are "precise" (journal µs stamps): an epoch takes their median.
inline constexpr TimeNs kFineAnchorNs = kNsPerMs;
/// Slack around a precise anchor's offset: two clock reads, scheduling jitter.
inline constexpr TimeNs kFineSlackNs = kNsPerMs;

/// How a row's time was obtained; a lower value is better (dedup keeps the best copy).
enum class Placement : std::uint8_t {
  kMonotonic = 0,  ///< monotonic stamp + anchors of its boot
  kUtcWall,        ///< a UTC wall stamp
  kLocalWall,      ///< a local wall stamp and the zone (and an inferred year or date)
  kApproximate,    ///< mtime, relative stamps placed from mtime, dmesg -T, a guessed boot
  kNone,           ///< not placed
};

/// What a file's stamps lack and how it was filled in.
struct FileDating {
  std::optional<std::int64_t> year;  ///< kLocalNoYear: the year that provisional year 0 stands for
  TimeNs day0_local = kNoTime;       ///< kLocalNoDate: local ns of day 0's midnight
  TimeNs relative_start = kNoTime;   ///< kRelative: UTC instant of raw 0
  bool relative_approximate = false; ///< relative_start came from the mtime
  std::vector<std::string> notes;    ///< for FileDiagnostics::notes
};

/// Extremes of the raw stamps of one kind in one file (all tables and anchors).
struct RawRange {
  TimeNs min = kNoTime, max = kNoTime;
  TimeNs interval_at_max = kNoTime;  ///< kRelative samples: the interval of the last row
  std::uint64_t rows = 0;
  void add(TimeNs raw, TimeNs interval = kNoTime) {
    if (rows++ == 0 || raw < min) min = raw;
    if (rows == 1 || raw >= max) {
      max = raw;
      interval_at_max = interval;
    }
  }
  /// Adds the stamps of `later` (read after this range's): the same range as adding them one
  /// by one.
  void add(const RawRange& later) {
    if (later.rows == 0) return;
    if (rows == 0 || later.min < min) min = later.min;
    if (rows == 0 || later.max >= max) {
      max = later.max;
      interval_at_max = later.interval_at_max;
    }
    rows += later.rows;
  }
};

/// A dated stamp (kUtc, kLocal) more than this after the later of its file's modification time
/// and the collection's end is a clock set wrong or an entry forged ahead, not a date.
inline constexpr TimeNs kFutureSlackNs = kNsPerDay;

/// Per file, the latest dated stamp that can be true: kFutureSlackNs after the later of the
/// file's modification time and the manifest's collection end (each when known and not before
/// 2000); kNoTime, no ceiling, when neither is. A stamp beyond it places nothing, anchors no
/// boot and dates no other file (Problem::implausible_time): one journal entry a year ahead must
/// not move the files without a year into the next year.
std::vector<TimeNs> wall_ceilings(const IngestResult& in);
/// True when a stamp of this kind is dated and beyond its file's ceiling.
inline bool beyond_ceiling(std::span<const TimeNs> ceilings, std::int64_t kind, TimeNs raw, std::int64_t file) noexcept {
  if (kind != static_cast<std::int64_t>(WallKind::kUtc) && kind != static_cast<std::int64_t>(WallKind::kLocal)) return false;
  if (file < 0 || static_cast<std::size_t>(file) >= ceilings.size()) return false;
  const TimeNs c = ceilings[static_cast<std::size_t>(file)];
  return c != kNoTime && raw > c;
}
/// The stamps of one file beyond its ceiling: how many lines had one, and the first of them.
struct FutureStamps {
  std::uint64_t lines = 0;
  std::uint64_t first_line = 0;
  TimeNs first_raw = kNoTime;
  WallKind first_kind = WallKind::kNone;
};
/// Per file, the lines whose stamps are beyond its ceiling (rows of the three tables and anchors;
/// a line counted once however many rows it gave).
std::vector<FutureStamps> find_future_stamps(const IngestResult& in, std::span<const TimeNs> ceilings);

/// Per file, per WallKind (indexed by the enum value).
struct FileStamps {
  RawRange kinds[6];
  const RawRange& of(WallKind k) const { return kinds[static_cast<int>(k)]; }
};
/// The range of file f's stamps of kind k (nullptr when f or k is out of range).
RawRange* range_of(std::vector<FileStamps>& stamps, std::int64_t file, std::int64_t kind) noexcept;
/// The stamps of every table's rows and of the anchors, per file and kind; with threads != 1,
/// millions of process rows are read on a thread of their own (the same ranges).
/// Stamps beyond their file's ceiling (wall_ceilings) are left out.
std::vector<FileStamps> collect_file_stamps(const IngestResult& in, std::span<const TimeNs> ceilings,
                                            unsigned threads = 1);

/// `raw` (a kLocalNoYear stamp of provisional year k, no_year_raw()) placed in `year` + k.
TimeNs with_year(TimeNs raw, std::int64_t year) noexcept;
/// The provisional year k of a kLocalNoYear stamp (the rollovers before it).
std::int64_t rollovers_of(TimeNs raw) noexcept;
/// Local midnight (ns) of the civil day containing local time t.
TimeNs local_midnight(TimeNs local) noexcept;

/// Raw wall stamps to UTC, using the zone and each file's dating.
class WallClock {
 public:
  WallClock(const Zone& zone, const std::vector<FileDating>& dating, const std::vector<InputFile>& files,
            std::span<const TimeNs> ceilings = {})
      : zone_(&zone), local_(zone), dating_(&dating), files_(&files), ceilings_(ceilings) {}
  /// UTC of a stamp; kNoTime when the stamp or the file's dating is missing, or the stamp is
  /// beyond its file's ceiling (wall_ceilings).
  TimeNs to_utc(WallKind kind, TimeNs raw, std::uint32_t file);
  /// The Placement a stamp of this kind earns.
  static Placement placement_of(WallKind kind, bool unreliable) noexcept;
  LocalToUtc& local() noexcept { return local_; }
  /// A local time (kLocal raw) that a fall-back repeats has one UTC reading per offset; to_utc
  /// gives the earlier. The earliest later reading not before `not_before` (the row before it in
  /// its file), or `earlier` when there is none: samples keep their order across the repeated hour.
  TimeNs later_reading(TimeNs local, TimeNs earlier, TimeNs not_before) const;

 private:
  const Zone* zone_;
  LocalToUtc local_;
  const std::vector<FileDating>* dating_;
  const std::vector<InputFile>* files_;
  std::span<const TimeNs> ceilings_;
};

/// Kind + first line of the text: what identifies copies of one message across sources (the
/// sources join continuation lines differently, so only the first line is compared).
struct MessageKey {
  std::int64_t kind = 0;
  std::string_view text;
  bool operator==(const MessageKey&) const = default;
};
struct MessageKeyHash {
  std::size_t operator()(const MessageKey& k) const noexcept {
    return std::hash<std::string_view>{}(k.text) * 31 + static_cast<std::size_t>(k.kind);
  }
};
MessageKey message_key(const Table& events, std::size_t row);

// ---- zone ----
struct ZoneChoice {
  Zone zone;
  std::string reason;
};
/// --tz, else RFC 3339 offsets, else messages read both in UTC and local time, else the
/// manifest, else the machine's zone.
ZoneChoice choose_zone(const IngestResult& in, const AlignOptions& options, const std::vector<FileStamps>& stamps);
/// An offset (local - UTC, rounded to 15 min) shown by copies of the same messages read in a
/// UTC source and in a local-time source.
struct MatchedOffset {
  TimeNs offset = 0;
  std::size_t votes = 0;
  std::uint32_t local_file = 0, utc_file = 0;  ///< one pair of files that showed it
};
/// Every offset the matched messages show, most votes first.
std::vector<MatchedOffset> matched_message_offsets(const IngestResult& in);

// ---- year / date / start ----
/// Fills dating[f] for every file; returns Timeline::year_reason.
std::string infer_dating(const IngestResult& in, const AlignOptions& options, const Zone& zone,
                         const std::vector<FileStamps>& stamps, std::vector<FileDating>& dating);

// ---- boots ----
/// One anchor on the UTC timeline.
struct AnchorPoint {
  TimeNs mono = 0;
  TimeNs offset = 0;     ///< UTC wall - mono (wall truncated to its precision)
  TimeNs precision = kNsPerSec;
  std::uint32_t file = 0;
  bool outlier = false;  ///< (epochs) contradicted by its neighbours: a delayed wall stamp
};

/// A stretch of a boot between two suspends: wall = mono + offset for mono >= begin_mono.
struct Epoch {
  TimeNs begin_mono = 0;  ///< first mono of the epoch (the split point; minimum for the first)
  TimeNs offset = 0;
  std::size_t anchors = 0;
  TimeNs uncertainty = 0; ///< half-width of the offset's interval
};

/// A suspend seen in a boot's events: suspend-entry mono, resume mono.
struct MonoCycle {
  TimeNs entry = kNoTime, exit = kNoTime;
};

/// How a boot's mono -> UTC mapping is known.
enum class BootSource : std::uint8_t { kAnchors, kManifest, kMtime };

struct Boot {
  std::string id;                    ///< _BOOT_ID when known
  std::vector<AnchorPoint> anchors;  ///< sorted by mono
  std::vector<Epoch> epochs;         ///< sorted by begin_mono; never empty once built
  BootSource source = BootSource::kAnchors;
  std::string source_note;           ///< for kManifest/kMtime boots: why
  std::vector<std::uint32_t> files;  ///< files whose anchors or events belong here

  TimeNs boot_wall() const { return epochs.empty() ? kNoTime : epochs.front().offset; }
  TimeNs min_mono() const { return anchors.empty() ? kNoTime : anchors.front().mono; }
  TimeNs max_mono() const { return anchors.empty() ? kNoTime : anchors.back().mono; }
  /// UTC of a monotonic stamp of this boot.
  TimeNs map(TimeNs mono) const;
  /// Anchors that went into an estimate.
  std::size_t anchors_used() const;
};

/// Splits sorted anchors into epochs; `cycles` (sorted by entry) place the split points.
/// Marks outliers in `anchors`.
std::vector<Epoch> build_epochs(std::vector<AnchorPoint>& anchors, const std::vector<MonoCycle>& cycles);

/// How an event row came to its boot.
enum class TieQuality : std::uint8_t {
  kExact,        ///< its own anchors, its boot id, or matching copies of its messages
  kManifest,     ///< the manifest's boot time (suspends not accounted for)
  kApproximate,  ///< a guess: overlapping monotonic range, or the file's modification time
};

/// Which boot every event row belongs to, and the boots themselves.
struct BootTable {
  std::vector<Boot> boots;
  std::vector<std::int32_t> event_boot;  ///< per event row: boot index or -1
  std::vector<TieQuality> event_tie;     ///< per event row: how sure its boot is
  std::vector<std::string> run_notes;
  /// Per file: notes on anchors and ties.
  std::vector<std::vector<std::string>> file_notes;
};

/// Groups anchors into boots (boot ids, per-file boot_seq, consistent offsets) and computes
/// their epochs; events of anchored groups join their boot.
void build_anchored_boots(const IngestResult& in, WallClock& clock, BootTable& out);
/// Ties event groups without anchors to a boot: matched text in an anchored source, anchors
/// derived from copies with wall stamps only, manifest, monotonic range, mtime.
void tie_unanchored_groups(const IngestResult& in, WallClock& clock, BootTable& out);
/// Recomputes every anchored boot's epochs with the suspend cycles of its events.
void finish_epochs(const IngestResult& in, BootTable& out);

// ---- placing rows ----
/// What happened to the rows of one file (for its notes).
struct FileTally {
  std::uint64_t mono = 0, mono_guess = 0, wall = 0, mtime = 0, unplaced = 0, dropped = 0;
  std::uint64_t repeated = 0;  ///< process rows of a snapshot read before (placement.cpp)
  TimeNs first = kNoTime, last = kNoTime;
  void saw(TimeNs t) {
    if (t == kNoTime) return;
    if (first == kNoTime || t < first) first = t;
    if (last == kNoTime || t > last) last = t;
  }
  /// A row of a sampled series (GPU samples, process snapshots), in line order: counts steps back
  /// in time (a clock set back, files pasted together out of order). Events are not checked:
  /// syslog lines placed by monotonic time legitimately precede neighbours stamped on arrival.
  struct Step {
    std::uint64_t line = 0, prev_line = 0;
    TimeNs ts = kNoTime, prev = kNoTime;
  };
  std::uint64_t backwards = 0;
  std::vector<Step> first_steps;  ///< the first few, for the report's samples
  TimeNs series_prev = kNoTime;
  std::uint64_t series_prev_line = 0;
  void series(TimeNs t, std::uint64_t line) {
    if (t == kNoTime) return;
    if (series_prev != kNoTime && t < series_prev && ++backwards <= 3)
      first_steps.push_back({line, series_prev_line, t, series_prev});
    series_prev = t;
    series_prev_line = line;
  }
  /// Adds what another placement of the same file's rows counted (a series placed on its own
  /// tally, after this one's): the result is the one tally both would have made one after the other.
  void add(const FileTally& o) {
    mono += o.mono;
    mono_guess += o.mono_guess;
    wall += o.wall;
    mtime += o.mtime;
    unplaced += o.unplaced;
    dropped += o.dropped;
    repeated += o.repeated;
    saw(o.first);
    saw(o.last);
    for (std::uint64_t k = 0; k < o.backwards; ++k)
      if (++backwards <= 3 && k < o.first_steps.size()) first_steps.push_back(o.first_steps[k]);
  }
};

/// --since (inclusive) / --until (exclusive); a null time is outside any given window.
struct Window {
  TimeNs since = kNoTime, until = kNoTime;
  bool open() const { return since == kNoTime && until == kNoTime; }
  bool contains(TimeNs t) const {
    if (open()) return true;
    return t != kNoTime && (since == kNoTime || t >= since) && (until == kNoTime || t < until);
  }
};

/// One event row after placement.
struct PlacedEvent {
  TimeNs ts = kNoTime;
  Placement placement = Placement::kNone;
  std::int32_t boot = -1;  ///< boot index when placed by monotonic time (see ctime in dedup)
};

/// Copies of one message grouped into clusters, stored flat (no vector per event): cluster i is
/// rows[begin[i] .. begin[i + 1]), its best copy first, the others by (file, line).
struct EventClusters {
  std::vector<std::uint32_t> rows;
  std::vector<std::uint32_t> begin{0};
  std::size_t size() const noexcept { return begin.size() - 1; }
  std::span<const std::uint32_t> operator[](std::size_t i) const noexcept {
    return {rows.data() + begin[i], rows.data() + begin[i + 1]};
  }
  std::uint32_t front(std::size_t i) const noexcept { return rows[begin[i]]; }
  /// Appends a cluster of one row.
  void add(std::uint32_t row) {
    rows.push_back(row);
    begin.push_back(static_cast<std::uint32_t>(rows.size()));
  }
  /// Appends a cluster.
  void add(std::span<const std::uint32_t> members) {
    rows.insert(rows.end(), members.begin(), members.end());
    begin.push_back(static_cast<std::uint32_t>(rows.size()));
  }
};

/// Clusters copies of one message; one cluster per kept row (the best copy) with its copies'
/// rows. Clusters are in no particular order; each lists its best first.
/// `boot_walls[b]` is boot b's wall time at monotonic 0 (`dmesg -T` copies are matched on it).
EventClusters dedup_events(const Table& events, const std::vector<PlacedEvent>& placed,
                           const std::vector<TimeNs>& boot_walls, TimeNs window_ns);

/// Kernel messages that only a forgeable source has are left out (Problem::spoofed_kernel_ident).
/// A syslog or journalctl text file that also holds other programs' lines is forgeable: any user
/// can write `HOST kernel: ...` into it with `logger -t kernel`. dmesg, the journal's JSON and
/// export forms (whose kernel entries the journal vouches for) and a text log of kernel lines only
/// (kern.log: user processes cannot log to the kernel facility) are the kernel's own sources. A
/// cluster whose copies are all in forgeable files is dropped where a kernel source covers its
/// time (between its first and last placed events) and holds events of the same kind: the kernel
/// printed that message to every one of its sources or to none. Returns the clusters dropped.
std::uint64_t drop_uncorroborated_kernel_messages(const Table& events, const std::vector<InputFile>& files,
                                                  const std::vector<PlacedEvent>& placed, EventClusters& clusters,
                                                  const std::vector<FileDiagnostics*>& file_diagnostics);

/// Copies of a run of repeats (RepeatRuns) in several files are one run: the kept copy's
/// `repeat` becomes the most lines one file holds of the cluster (a source that dropped lines
/// under rate limiting, or began mid-bucket, counts fewer; a file's rows of one cluster add up).
/// Returns the events merged away, log_end marks not counted.
std::uint64_t merge_repeat_counts(Table& events, const EventClusters& clusters);

/// Fills ts and flags of every event row (monotonic + boot, else wall stamp, else mtime).
std::vector<PlacedEvent> place_events(const IngestResult& in, const BootTable& boots, WallClock& clock,
                                      const std::vector<FileDating>& dating, Table& events, std::vector<FileTally>& tally);
/// Chooses the best copy of each cluster inside the window, sorted by (ts, file, line) with null
/// ts last: `order` (rows of `events`, for Table::permute, which the caller does once it has let
/// go of the clusters), and fills the origins in that order; returns how many events the window
/// cut. `log_end` rows are not kept: the times of those placed inside the window by a stamp of
/// their own go to `log_ends`, sorted.
std::uint64_t keep_events(const EventClusters& clusters, const std::vector<PlacedEvent>& placed,
                          Window window, const Table& events, std::vector<std::uint32_t>& order,
                          std::vector<std::uint32_t>& origin_begin, std::vector<EventOrigin>& origins,
                          std::vector<TimeNs>& log_ends);
/// Places, fills intervals, windows and sorts samples (unplaceable rows are dropped); returns
/// how many the window cut.
std::uint64_t place_samples(const IngestResult& in, WallClock& clock, Window window, Table& samples,
                            std::vector<FileTally>& tally);
/// Drops the sample rows of a GPU that a preferred source of the same GPU already covers (dmon,
/// then --query-gpu, then the file with more rows), so that no time is counted twice; notes how
/// many. Rows stay in order.
void drop_overlapping_sample_sources(const IngestResult& in, Table& samples, Diagnostics& diag);
/// At most `kMaxGpusPerDirectory` distinct GPU indices keep their sample rows: one directory is one
/// machine (the largest have 8 to 16 GPUs, an NVL72 rack 72), and every per-GPU feature grows with
/// the count. The lowest indices (of sample rows and reports) are kept, whatever the files' order;
/// the rows and reports of the others are left out and a note says how many of how many GPUs.
/// Reports without an index are bounded alike. Rows stay in order. Returns the rows dropped.
std::uint64_t cap_gpus_per_directory(Table& samples, std::vector<GpuDevice>& devices, Diagnostics& diag);
/// The GPUs one directory's samples may name (per file the formats keep as many).
inline constexpr std::size_t kMaxGpusPerDirectory = 256;
/// Places, windows and sorts process rows; returns how many the window cut.
std::uint64_t place_processes(const IngestResult& in, WallClock& clock, Window window, Table& processes,
                              std::vector<FileTally>& tally);

/// Timeline::suspends from the (sorted, deduplicated) events.
std::vector<SuspendInterval> find_suspends(const Table& events);

}  // namespace gpucost::align_detail
