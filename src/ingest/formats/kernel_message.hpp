#pragma once
// Pieces every kernel-message format shares (dmesg, kern.log/syslog, journalctl short): the
// `[ 1234.567890]` stamp and printk caller ids, elision lines people insert, whether an unstamped
// line reads like a kernel message, and the message being assembled from continuation lines.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>
#include <string>
#include <string_view>

#include "gpucost/ingest/format.hpp"
#include "ingest/formats/stamps.hpp"

namespace gpucost::formats {

/// `[ 1234.567890]` at the start of s (also dmesg -d's `[ 1234.567890 <    0.000123>]`):
/// mono receives ns since boot, length the bytes through the `]`.
bool parse_mono_stamp(std::string_view s, TimeNs& mono, std::size_t& length) noexcept;

/// parse_mono_stamp's general byte loop (what it falls back to); exposed for the tests that hold
/// the fast path to it.
bool parse_mono_stamp_loop(std::string_view s, TimeNs& mono, std::size_t& length) noexcept;

/// parse_mono_stamp's fast path: only the shape kernels print, `[`, blanks and 1 to 8 digits,
/// `.`, 6 digits, `]`, read with 64-bit word operations; false for anything else (then
/// parse_mono_stamp_loop decides). Where true, it gives what parse_mono_stamp_loop gives.
bool parse_mono_stamp_fixed(std::string_view s, TimeNs& mono, std::size_t& length) noexcept;

/// parse_mono_stamp for the lines of one file, faster: consecutive kernel stamps mostly share
/// their seconds (`[77176.`), so the bytes up to the dot are compared with the last stamp's and
/// only the fraction is read. Gives what parse_mono_stamp gives.
class MonoStampCache {
 public:
  bool parse(std::string_view s, TimeNs& mono, std::size_t& length) noexcept;

 private:
  std::uint64_t head_ = 0;  // the last stamp's bytes up to its dot, in the low bytes
  std::uint64_t mask_ = 0;  // those bytes' mask; 0: nothing remembered
  std::size_t dot_ = 0;
  TimeNs seconds_ns_ = 0;
};

/// The message after a kernel stamp: skips a printk caller id (`[  T291]`, ` [    C3]`) and
/// exactly one separating blank, so that ` dump_stack+0x..` keeps its own leading blank in every
/// source (dmesg, kern.log and the journal then give the same text).
std::string_view after_kernel_stamp(std::string_view rest) noexcept;

/// An elision a person inserted into a paste: `...`, `[    ....    ]`, `…`, `[...]`, `<snip>`.
bool is_elision(std::string_view line) noexcept;

/// How much a line without a stamp reads like a kernel message, 0 (not at all) to 45: a driver
/// name followed by a PCI address (`pcieport 0000:00:1d.0:`), `NVRM:`, `nvidia-modeset:`,
/// `[drm]`, or a well-known subsystem prefix (`ACPI:`, `usb 1-1:`, `i915`, `PM:` ...).
int kernel_likeness(std::string_view line) noexcept;

/// Number of leading blanks.
std::size_t indentation(std::string_view line) noexcept;

/// True for the first message of a boot (`Linux version 6.1.0 ...`).
bool is_linux_version(std::string_view text) noexcept;

/// A step back of monotonic time larger than this starts a new boot (smaller ones are printk
/// reordering between CPUs).
inline constexpr TimeNs kBootRestartNs = 2 * kNsPerSec;

/// Where a 32-bit jiffies clock wraps: 2^32 ms (HZ=1000), `[4294967.296000]`.
inline constexpr TimeNs kJiffiesWrapNs = 4'294'967'296'000'000LL;
/// Old kernels start that counter 300 s before the wrap (INITIAL_JIFFIES); a boot whose first
/// stamp lies this close below the wrap is read as such a boot, not as 49.7 days of uptime.
inline constexpr TimeNs kJiffiesWrapWindowNs = 600 * kNsPerSec;

/// Monotonic stamps of old kernels whose printk clock is jiffies that start near the 32-bit
/// wrap (`[4294729.355000]` a minute after boot, then `[    2.104000]` once wrapped): turned into
/// time since the boot's first stamp, so boot-time lines (the AC adapter's initial state) read as
/// boot time and the wrap is no new boot.
class JiffiesWrap {
 public:
  /// The stamp as uptime. `boot_start`: the first stamp of a boot (of the file, or after
  /// `Linux version`), which decides whether the boot's clock started near the wrap.
  TimeNs adjust(TimeNs mono, bool boot_start) noexcept {
    if (boot_start) base_ = mono >= kJiffiesWrapNs - kJiffiesWrapWindowNs && mono < kJiffiesWrapNs ? mono : kNoTime;
    if (base_ == kNoTime || mono == kNoTime) return mono;
    if (mono >= base_ && mono < kJiffiesWrapNs) return mono - base_;
    if (mono < kJiffiesWrapNs - kJiffiesWrapWindowNs) return mono + (kJiffiesWrapNs - base_);  // past the wrap
    return mono - base_;
  }
  /// True while the current boot's stamps are being moved.
  bool active() const noexcept { return base_ != kNoTime; }
  /// The boot's first stamp as printed (valid while active()).
  TimeNs base() const noexcept { return base_; }

 private:
  TimeNs base_ = kNoTime;
};

/// The message being assembled. Lines are views that die at the next read, so start() copies the
/// first line into reused buffers (no allocation once they have grown); continuation lines are
/// appended with '\n'; flush() classifies the whole message when the next message or the end of
/// the file shows that it is complete. A parser whose line source tells it before the lines'
/// bytes move (LineSource::set_keeper) borrows the first line's text instead, and keep()s it when
/// told: most messages are one line, flushed before the source reads on.
class PendingMessage {
 public:
  bool active() const noexcept { return active_; }
  /// The record of the next message, reset, for the parser to fill in place before start():
  /// a record built elsewhere and copied in was read back before its field stores had landed,
  /// which cost more than filling it here. Only while no message is active.
  MessageRecord& next_record() noexcept {
    rec_ = MessageRecord{};
    return rec_;
  }
  /// Begins the message next_record() holds; its ident and boot id are copied, and its text too
  /// unless `borrow` (then it must stay valid until keep(), append() or flush()). Trailing
  /// blanks are dropped.
  void start(bool stamped, std::size_t indent, bool borrow = false);
  /// Begins message m, as next_record() = m, then start().
  void start(const MessageRecord& m, bool stamped, std::size_t indent, bool borrow = false) {
    rec_ = m;
    start(stamped, indent, borrow);
  }
  /// Copies a borrowed text into the message's own buffer (its line is about to be overwritten).
  void keep() {
    if (!borrowed_) return;
    borrowed_ = false;
    text_.assign(rec_.text);
    rec_.text = text_;
  }
  /// Joins a continuation line (trimmed) and flags the message kFlagContinued. A message is
  /// capped like a line, at sink's --max-line-length: what does not fit is dropped, the message
  /// flagged kFlagTruncated and counted once as truncated_line (lines without end cannot make
  /// one message of a gigabyte).
  void append(std::string_view line, FileSink& sink);
  /// Hands the message to sink.message(); true when it became an event. No-op when inactive.
  bool flush(FileSink& sink);
  /// Drops the message without emitting it.
  void clear() noexcept {
    active_ = false;
    borrowed_ = false;
  }

  const MessageRecord& record() const noexcept { return rec_; }
  /// Moves the message's line number and boot ordinal (a chunk's state taken over by the file's:
  /// its lines were numbered from the chunk's start, its boots from 0).
  void move_by(std::uint64_t lines, std::int32_t boots) noexcept {
    rec_.line += lines;
    rec_.boot_seq += boots;
  }
  /// The message text so far (first line plus joined continuations).
  std::string_view text() const noexcept { return borrowed_ ? rec_.text : std::string_view(text_); }
  /// Whether its first line carried a stamp, and how far that line was indented.
  bool stamped() const noexcept { return stamped_; }
  std::size_t indent() const noexcept { return indent_; }

 private:
  MessageRecord rec_;
  std::string text_, ident_, boot_id_;
  bool active_ = false;
  bool borrowed_ = false;  // rec_.text is the first line's, not text_
  bool stamped_ = false;
  bool capped_ = false;  // the cap was reached: further lines are counted, not kept
  std::size_t indent_ = 0;
};

/// The time fields of the last stamped message, lent to unstamped lines (kFlagApproxTime).
struct LastStamp {
  WallKind wall_kind = WallKind::kNone;
  TimeNs wall_raw_ns = kNoTime;
  TimeNs mono_ns = kNoTime;

  void remember(const MessageRecord& m) noexcept {
    wall_kind = m.wall_kind;
    wall_raw_ns = m.wall_raw_ns;
    mono_ns = m.mono_ns;
  }
  /// Copies the fields into m and flags it approximate.
  void lend(MessageRecord& m) const noexcept {
    m.wall_kind = wall_kind;
    m.wall_raw_ns = wall_raw_ns;
    m.mono_ns = mono_ns;
    m.flags |= kFlagApproxTime;
  }
};

// Chunked parsing (format.hpp's LogFormat::continue_chunk): what the kernel-message parsers
// (the syslog family, dmesg) share when they take over a chunk parsed from a fresh state.

/// Whether a chunk whose first year-less stamp has month `first_month` (0: it had none) placed
/// its stamps as one pass does from the clock `before`: no rollover before the chunk, and none
/// at its first stamp (Dec -> Jan).
bool year_clock_continues(const NoYearClock& before, unsigned first_month) noexcept;

/// Whether a chunk's first monotonic stamp `raw`, read from a fresh wrap state (a boot start or
/// not: `fresh_boot_start`), leaves the wrap state that one pass leaves reading it from `before`
/// (as a boot start or not: `boot_start`).
bool wrap_continues(const JiffiesWrap& before, TimeNs raw, bool fresh_boot_start, bool boot_start) noexcept;

/// Takes a chunk over once it passed its format's checks: the message the chunk before left
/// pending goes to `file_sink`; the chunk's boot ordinals (in `chunk_sink` and in the message it
/// leaves pending) move by the `before_boots` before it, and that message's line past the file's
/// lines so far.
void take_chunk_over(PendingMessage& before_pending, std::int32_t before_boots, std::int32_t chunk_boots,
                     PendingMessage& chunk_pending, FileSink& file_sink, FileSink& chunk_sink);

}  // namespace gpucost::formats
