#include "gpucost/ingest/file_sink.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <iterator>
#include <unordered_set>

#include "gpucost/text.hpp"

namespace gpucost {

namespace {
std::atomic<std::size_t> live_sinks{0}, peak_live_sinks{0};
}  // namespace

FileSink::FileSink(std::uint32_t file_index, std::string path, TimeNs mtime_ns, const ParseOptions& options,
                   const EventRecognizer& recognizer)
    : file_(file_index), options_(options), recognizer_(recognizer) {
  diag_.path = std::move(path);
  diag_.mtime_ns = mtime_ns;
  const std::size_t now = live_sinks.fetch_add(1, std::memory_order_relaxed) + 1;
  std::size_t peak = peak_live_sinks.load(std::memory_order_relaxed);
  while (now > peak && !peak_live_sinks.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {}
}

FileSink::~FileSink() { live_sinks.fetch_sub(1, std::memory_order_relaxed); }

std::size_t FileSink::live() noexcept { return live_sinks.load(std::memory_order_relaxed); }
std::size_t FileSink::peak_live() noexcept { return peak_live_sinks.load(std::memory_order_relaxed); }
void FileSink::reset_peak_live() noexcept { peak_live_sinks.store(live(), std::memory_order_relaxed); }

void FileSink::line_read(const Line& line) {
  ++diag_.lines;
  if (text::is_blank(line.text)) ++diag_.blank;
  if (line.truncated)
    problem(line, Problem::truncated_line,
            fmt::format("line longer than {} bytes; the rest was dropped", options_.max_line_length));
}

void FileSink::prompt(const Line& line) {
  ++diag_.prompts;
  ShellHints h;
  parse_shell_prompt(line.text, &h);
  // A prompt with no command (the one left at the end of a paste, a `^C`) says nothing about
  // the output before it: the hints of the last command stay.
  if (h.command.empty()) return;
  hints_ = std::move(h);
  hints_.line = line.number;
  // The first few in the notes; the count says how many there were.
  if (diag_.prompts <= 3)
    diag_.notes.push_back(fmt::format("line {}: shell prompt `{}`: read as a hint ({})", line.number,
                                      text::excerpt(hints_.command, 160), hints_.describe()));
}

void FileSink::problem(const Line& line, Problem p, std::string_view reason) {
  // A line no layout matched because it is binary says so: the report then tells garbage from
  // a log line in an unexpected layout.
  if (p == Problem::unparsable_line && text::looks_binary(line.text)) {
    if (Diagnostics::wants_sample(diag_, Problem::binary_data))
      Diagnostics::record(diag_, Problem::binary_data, line.number, line.offset, line.text,
                          fmt::format("{} (the line holds NUL or control bytes)", reason));
    else ++diag_.problems[static_cast<std::size_t>(Problem::binary_data)];
    return;
  }
  Diagnostics::record(diag_, p, line.number, line.offset, line.text, reason);
}

void FileSink::file_problem(Problem p, std::string_view reason) { Diagnostics::record(diag_, p, 0, 0, {}, reason); }

bool FileSink::message(const MessageRecord& m) {
  if (m.wall_raw_ns != kNoTime || m.mono_ns != kNoTime) {
    // Looks up only when the boot changes; lines of one boot only overwrite three stamps.
    if (current_stamp_ >= last_stamps_.size() || last_stamps_[current_stamp_].boot_seq != m.boot_seq ||
        last_stamps_[current_stamp_].boot_id != m.boot_id)
      touch_stamp(m.boot_seq, m.boot_id);
    LastStamp& s = last_stamps_[current_stamp_];
    s.line = m.line;
    s.wall_kind = m.wall_kind;
    s.wall_raw_ns = m.wall_raw_ns;
    s.mono_ns = m.mono_ns;
  }
  MessageMemo::Entry* found = memo_.lookup(recognizer_, m.ident, m.text);
  if (!found) return false;
  MessageMemo::Entry& memo = *found;
  const Recognition& r = memo.recognition;
  EventFields f = fields_of(r.kind, m, r.code, r.pid, r.process);
  f.gpu = memo.gpu.empty() ? r.gpu : std::string_view(memo.gpu);
  f.ident = memo.ident;
  f.text = memo.text;
  const bool runs = options_.aggregate_repeats && event_kind_aggregates(f.kind);
  if (runs && !memo.key_parts_known) {
    memo.strings_hash = RepeatRuns::strings_hash(f);
    memo.bucket_ns = repeat_bucket_ns(f.kind, f.text);
    memo.key_parts_known = true;
  }
  RepeatRuns::Key key;
  if (runs) {
    key = RepeatRuns::message_key(f, memo.strings_hash, memo.bucket_ns);
    key.origin = memo.serial;
  }
  add_event(f, 1, true, key);
  record();
  return true;
}

FileSink::LastStamp& FileSink::touch_stamp(std::int32_t boot_seq, std::string_view boot_id) {
  auto it = boot_stamps_.find(std::pair<std::int32_t, std::string_view>(boot_seq, boot_id));
  if (it == boot_stamps_.end()) {
    last_stamps_.push_back({std::string(boot_id), boot_seq});
    it = boot_stamps_.emplace(std::pair(boot_seq, std::string(boot_id)), last_stamps_.size() - 1).first;
  }
  current_stamp_ = it->second;
  LastStamp& s = last_stamps_[current_stamp_];
  s.touched = ++touches_;
  return s;
}

void FileSink::finish() {
  // In the order the boots were last met.
  std::sort(last_stamps_.begin(), last_stamps_.end(),
            [](const LastStamp& a, const LastStamp& b) { return a.touched < b.touched; });
  for (const LastStamp& s : last_stamps_) {
    MessageRecord m;
    m.line = s.line;
    m.wall_kind = s.wall_kind;
    m.wall_raw_ns = s.wall_raw_ns;
    m.mono_ns = s.mono_ns;
    m.boot_id = s.boot_id;
    m.boot_seq = s.boot_seq;
    event(EventKind::log_end, m);
  }
  last_stamps_.clear();
  boot_stamps_.clear();
  current_stamp_ = SIZE_MAX;
}

EventFields FileSink::fields_of(EventKind kind, const MessageRecord& m, std::int64_t code, std::int64_t pid,
                                std::string_view process) noexcept {
  EventFields f;
  f.kind = kind;
  f.wall_kind = m.wall_kind;
  f.wall_raw_ns = m.wall_raw_ns;
  f.mono_ns = m.mono_ns;
  f.boot_id = m.boot_id;
  f.boot_seq = m.boot_seq;
  f.line = m.line;
  f.code = code;
  f.pid = pid != INT64_MIN ? pid : m.ident_pid;
  f.process = process;
  f.ident = m.ident;
  f.text = m.text;
  f.flags = m.flags;
  return f;
}

void FileSink::event(EventKind kind, const MessageRecord& m, std::int64_t code, std::string_view gpu, std::int64_t pid,
                     std::string_view process) {
  EventFields f = fields_of(kind, m, code, pid, process);
  std::string norm;
  if (!gpu.empty()) {
    norm = normalize_pci_bus(gpu);
    f.gpu = norm.empty() ? gpu : std::string_view(norm);
  }
  const bool runs = options_.aggregate_repeats && event_kind_aggregates(f.kind);
  add_event(f, 1, true, runs ? RepeatRuns::message_key(f) : RepeatRuns::Key{});
  if (kind != EventKind::log_end) record();  // a mark is no record of the file's own
}

void FileSink::append_event_rows(const Table& events) {
  const Column& repeat = events.column(event_col::repeat);
  // Only a message's first row in the chunk can continue a run of this sink: the chunk's sink
  // split its later rows from that one with everything one pass knows (the run's latest line).
  std::unordered_set<std::uint64_t> met;
  for (std::size_t r = 0; r < events.rows(); ++r) {
    const EventFields f = event_fields(events, r);
    const bool runs = options_.aggregate_repeats && event_kind_aggregates(f.kind);
    const RepeatRuns::Key key = runs ? RepeatRuns::message_key(f) : RepeatRuns::Key{};
    const bool first = met.insert(key.hash).second;
    add_event(f, repeat.is_valid(r) ? static_cast<std::uint64_t>(repeat.get_int(r)) : 1, first, key);
  }
}

void FileSink::add_event(const EventFields& f, std::uint64_t repeat, bool may_join, const RepeatRuns::Key& key) {
  Table& t = out_.events;
  const bool runs = options_.aggregate_repeats && event_kind_aggregates(f.kind);
  if (runs && may_join) {
    if (RepeatRuns::Run* run = runs_.find_run(t, f, key)) {
      Column& c = t.column(event_col::repeat);
      c.set_int(run->row, c.get_int(run->row) + static_cast<std::int64_t>(repeat));
      RepeatRuns::join(*run, f);
      return;
    }
  }
  auto& n = kind_counts_[static_cast<std::size_t>(f.kind)];
  if (n >= options_.max_events_per_kind) {
    if (n == options_.max_events_per_kind)
      Diagnostics::record(diag_, Problem::events_dropped, f.line, 0, f.text,
                          fmt::format("more than {} rows of {} events in this file; the rest are counted only",
                                      options_.max_events_per_kind, event_kind_name(f.kind)));
    else ++diag_.problems[static_cast<std::size_t>(Problem::events_dropped)];
    diag_.problems[static_cast<std::size_t>(Problem::events_dropped)] += repeat - 1;  // a run: its lines
    ++n;
    return;
  }
  ++n;
  push_event_row(t, f, format_, file_, repeat);
  if (runs) runs_.started(f, static_cast<std::uint32_t>(t.rows() - 1), key);
}

void FileSink::sample(const SampleFields& f) {
  push_sample_row(out_.samples, f, file_);
  record();
}

void FileSink::anchor(const BootAnchor& a) {
  if (a.mono_ns == kNoTime || a.wall_raw_ns == kNoTime) return;
  // A clock never set (1970 + uptime) would put the whole boot in 1970 and split it from its
  // other copies: such a stamp anchors nothing. (Year-less and relative stamps say no year.)
  if ((a.wall_kind == WallKind::kUtc || a.wall_kind == WallKind::kLocal) && a.wall_raw_ns < kPlausibleWallFloorNs) {
    Diagnostics::record(diag_, Problem::implausible_time, a.line, 0, {},
                        fmt::format("wall stamp {} is before 2000: a clock never set; not used as a boot anchor",
                                    format_rfc3339(a.wall_raw_ns, 6)));
    return;
  }
  if (chunk_ && !synced_) {
    if (offered_ && anchor_forced(a.boot_seq, a.mono_ns)) {
      synced_ = true;
      synced_at_ = out_.anchors.size();
    } else {
      unsynced_.push_back(a);
      unsynced_.back().file = file_;
    }
  }
  offer_anchor(a);
}

void FileSink::offer_anchor(const BootAnchor& a) {
  // Thin, so that memory stays bounded (format.hpp says when an anchor is kept). The forced
  // anchors make the choice the same in whichever chunk of the file it is made, from the first
  // forced anchor of the chunk on.
  const bool keep = anchor_forced(a.boot_seq, a.mono_ns) || anchor_moved(a.mono_ns, a.wall_raw_ns, a.precision_ns);
  offered_ = true;
  offered_mono_ = a.mono_ns;
  offered_seq_ = a.boot_seq;
  if (!keep) return;
  last_anchor_offset_ = a.wall_raw_ns - a.mono_ns;
  last_anchor_mono_ = a.mono_ns;
  BootAnchor copy = a;
  copy.file = file_;
  out_.anchors.push_back(std::move(copy));
}

void FileSink::release_empty_tables() {
  for (Table* t : {&out_.samples, &out_.events, &out_.processes})
    if (t->rows() == 0) *t = Table();
}

void FileSink::observe_utc_offset(TimeNs offset_ns) {
  for (auto& z : out_.zone_evidence)
    if (z.offset_ns == offset_ns) {
      ++z.count;
      return;
    }
  out_.zone_evidence.push_back(ZoneEvidence{file_, offset_ns, 1});
}

}  // namespace gpucost
