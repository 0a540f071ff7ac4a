#include "gpucost/ingest/repeat_runs.hpp"

#include <functional>

#include "gpucost/benign_messages.hpp"

namespace gpucost {

namespace {

std::string_view string_or_empty(const Column& c, std::size_t r) {
  return c.is_valid(r) ? c.get_string(r) : std::string_view{};
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) noexcept {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

}  // namespace

TimeNs repeat_bucket_ns(EventKind kind, std::string_view text) noexcept {
  if (kind == EventKind::cron || (kind == EventKind::driver_error && is_benign_driver_message(text))) return kNsPerMin;
  return kNsPerSec;
}

std::uint64_t RepeatRuns::strings_hash(const EventFields& f) noexcept {
  const std::hash<std::string_view> hs;
  std::uint64_t h = hs(f.text);
  h = mix(h, hs(f.ident));
  h = mix(h, hs(f.gpu));
  h = mix(h, hs(f.process));
  return h;
}

// Not the boot: a chunk of a file numbers its boots from 0 until the merge renumbers them, and its
// runs must be found under the same key (find() checks the boot on the row).
RepeatRuns::Key RepeatRuns::message_key(const EventFields& f, std::uint64_t strings, TimeNs bucket_ns) noexcept {
  std::uint64_t h = static_cast<std::uint64_t>(f.kind);
  h = mix(h, static_cast<std::uint64_t>(f.wall_kind));
  h = mix(h, static_cast<std::uint64_t>(f.code));
  h = mix(h, static_cast<std::uint64_t>(f.flags));
  h = mix(h, strings);
  return {h, bucket_ns};
}

namespace {

// The first instant of the bucket of width w that holds t, as an unsigned number (wrapping, so
// that no instant overflows): t' is in that bucket when uint64(t') - start < w.
std::uint64_t bucket_start_of(TimeNs t, TimeNs w) noexcept {
  const TimeNs into = ((t % w) + w) % w;
  return static_cast<std::uint64_t>(t) - static_cast<std::uint64_t>(into);
}

bool in_bucket(TimeNs t, std::uint64_t start, TimeNs w) noexcept {
  return static_cast<std::uint64_t>(t) - start < static_cast<std::uint64_t>(w);
}

}  // namespace

RepeatRuns::Run* RepeatRuns::find_run(const Table& e, const EventFields& f, const Key& key) const {
  if (!event_kind_aggregates(f.kind)) return nullptr;
  Run* found = lookup(key.hash);
  if (!found) return nullptr;
  Run& run = *found;
  // The same bucket: of monotonic time when the event has it, else of wall time. (A run's key
  // holds its bucket width: the run's bucket_start is of the same width.)
  const TimeNs w = key.bucket_ns;
  if (f.mono_ns != kNoTime) {
    if (run.mono_ns == kNoTime || !in_bucket(f.mono_ns, run.bucket_start, w) || f.mono_ns <= run.last_mono_ns ||
        f.mono_ns - run.last_mono_ns > kRunGapNs)
      return nullptr;
    if ((f.wall_raw_ns == kNoTime) != (run.wall_raw_ns == kNoTime)) return nullptr;
    const TimeNs far = w + kNsPerSec;
    if (f.wall_raw_ns != kNoTime && (f.wall_raw_ns - run.wall_raw_ns >= far || run.wall_raw_ns - f.wall_raw_ns >= far))
      return nullptr;
  } else {
    if (run.mono_ns != kNoTime || f.wall_raw_ns == kNoTime || run.wall_raw_ns == kNoTime ||
        !in_bucket(f.wall_raw_ns, run.bucket_start, w) || f.wall_raw_ns - run.last_wall_ns > 2 * kRunGapNs ||
        f.wall_raw_ns < run.last_wall_ns)
      return nullptr;
  }
  // A hash is not the message: the row must say the same (a collision only starts a new run).
  // The run keeps what no one changes once the row is appended (and the boot ordinal, which
  // renumber_boots() moves alike); only the strings are read from the row: the boot id when
  // either has one, the rest unless the run began from the same strings as f (key.origin).
  if (run.kind != f.kind || run.wall_kind != f.wall_kind || run.code != f.code || run.flags != f.flags ||
      run.boot_seq != f.boot_seq)
    return nullptr;
  const std::size_t r = run.row;
  if (!(run.boot_id_empty && f.boot_id.empty()) && string_or_empty(e.column(event_col::boot_id), r) != f.boot_id)
    return nullptr;
  if (key.origin == 0 || run.origin != key.origin) {
    if (e.column(event_col::text).get_string(r) != f.text || string_or_empty(e.column(event_col::ident), r) != f.ident ||
        string_or_empty(e.column(event_col::gpu), r) != f.gpu || string_or_empty(e.column(event_col::process), r) != f.process)
      return nullptr;
  }
  return &run;
}

void RepeatRuns::started(const EventFields& f, std::uint32_t row, const Key& key) {
  if (!event_kind_aggregates(f.kind)) return;
  Run& run = insert(key.hash);
  run = Run{row, f.kind, f.wall_kind, f.code, f.flags, f.wall_raw_ns, f.mono_ns, f.mono_ns, f.wall_raw_ns, key.origin};
  const TimeNs t = f.mono_ns != kNoTime ? f.mono_ns : f.wall_raw_ns;
  if (t != kNoTime) run.bucket_start = bucket_start_of(t, key.bucket_ns);
  run.boot_seq = f.boot_seq;
  run.boot_id_empty = f.boot_id.empty();
}

void RepeatRuns::renumber_boots(std::span<const std::int32_t> to_file) noexcept {
  for (Slot& s : slots_)
    if (s.used && s.run.boot_seq >= 0 && static_cast<std::size_t>(s.run.boot_seq) < to_file.size())
      s.run.boot_seq = to_file[static_cast<std::size_t>(s.run.boot_seq)];
}

void RepeatRuns::continue_with(const RepeatRuns& chunk) {
  for (const Slot& later : chunk.slots_) {
    if (!later.used) continue;
    Run* run = lookup(later.key);
    if (!run) continue;
    run->last_mono_ns = later.run.last_mono_ns;
    run->last_wall_ns = later.run.last_wall_ns;
  }
}


namespace {
std::size_t slot_of(std::uint64_t key, unsigned bits) noexcept { return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> (64 - bits)); }
}  // namespace

RepeatRuns::Run* RepeatRuns::lookup(std::uint64_t key) const noexcept {
  if (slots_.empty()) return nullptr;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = slot_of(key, bits_);; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (!s.used) return nullptr;
    if (s.key == key) return &s.run;
  }
}

RepeatRuns::Slot& RepeatRuns::free_slot(std::uint64_t key) noexcept {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = slot_of(key, bits_);; i = (i + 1) & mask)
    if (!slots_[i].used) return slots_[i];
}

RepeatRuns::Run& RepeatRuns::insert(std::uint64_t key) {
  if (Run* run = lookup(key)) return *run;
  if (2 * (used_ + 1) > slots_.size()) {
    std::vector<Slot> old = std::move(slots_);
    bits_ = bits_ == 0 ? 4 : bits_ + 1;
    slots_.assign(std::size_t{1} << bits_, Slot{});
    for (const Slot& s : old)
      if (s.used) free_slot(s.key) = s;
  }
  Slot& s = free_slot(key);
  s.used = true;
  s.key = key;
  ++used_;
  return s.run;
}

}  // namespace gpucost
