// The merge of chunked parsing (sink_merge.hpp): the sink of a file's next chunk appended to the
// sink of the chunks before it, so that the result is what one pass over the file gives (see
// FileSink::append_chunk in file_sink.hpp, and src/ingest/chunked_parse.cpp for the chunks).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>

#include "ingest/sink_merge.hpp"

namespace gpucost {

void FileSink::renumber_boots(std::span<const std::int32_t> to_file) {
  const auto map = [&](std::int64_t b) {
    return b >= 0 && static_cast<std::size_t>(b) < to_file.size() ? to_file[static_cast<std::size_t>(b)]
                                                                   : static_cast<std::int32_t>(b);
  };
  Column& seq = out_.events.column(event_col::boot_seq);
  for (std::size_t row = 0; row < seq.size(); ++row) seq.set_int(row, map(seq.get_int(row)));
  for (BootAnchor& a : out_.anchors) a.boot_seq = map(a.boot_seq);
  for (BootAnchor& a : unsynced_) a.boot_seq = map(a.boot_seq);
  boot_stamps_.clear();
  for (std::size_t i = 0; i < last_stamps_.size(); ++i) {
    LastStamp& s = last_stamps_[i];
    s.boot_seq = map(s.boot_seq);
    boot_stamps_.emplace(std::pair(s.boot_seq, s.boot_id), i);
  }
  offered_seq_ = map(offered_seq_);
  runs_.renumber_boots(to_file);
}

void FileSink::append_chunk(FileSink& chunk) {
  FileDiagnostics& c = chunk.diag_;
  // The chunk's lines were numbered from 1; they follow this sink's lines (every line read is
  // counted, line_read()).
  const std::uint64_t base = diag_.lines;
  if (base) {
    Column& line = chunk.out_.events.column(event_col::line);
    for (std::size_t row = 0; row < line.size(); ++row) line.set_int(row, line.get_int(row) + static_cast<std::int64_t>(base));
    for (BootAnchor& a : chunk.out_.anchors) a.line += base;
    for (BootAnchor& a : chunk.unsynced_) a.line += base;
    for (LastStamp& s : chunk.last_stamps_) s.line += base;
    for (ProblemSample& s : c.samples)
      if (s.line) s.line += base;  // 0: a problem of the whole file
    if (chunk.hints_.line) chunk.hints_.line += base;
  }
  diag_.lines += c.lines;
  diag_.blank += c.blank;
  diag_.accepted += c.accepted;
  diag_.continuations += c.continuations;
  diag_.prompts += c.prompts;
  diag_.paste_prefixed += c.paste_prefixed;
  if (!chunk.hints_.command.empty()) hints_ = std::move(chunk.hints_);
  for (auto& note : c.notes) diag_.notes.push_back(std::move(note));

  // Problem samples: one pass keeps the first kSamplesPerKind of each kind, in the order it
  // records them. The chunk's come after this sink's; the events_dropped samples that the cap
  // records while the chunk's events are appended go among them by line (an event is made at its
  // own line, after the problems of that line).
  // (The chunk itself had no cap: it recorded no events_dropped.)
  std::array<std::uint64_t, kProblemCount> before = diag_.problems;
  const std::size_t own_samples = diag_.samples.size();
  if (chunk.out_.events.rows()) {
    append_event_rows(chunk.out_.events);
    runs_.continue_with(chunk.runs_);
  }
  // The chunk counted its records (events kept or not, as event() counts them).
  diag_.records += c.records;
  std::vector<ProblemSample> dropped(std::make_move_iterator(diag_.samples.begin() + static_cast<std::ptrdiff_t>(own_samples)),
                                     std::make_move_iterator(diag_.samples.end()));
  diag_.samples.resize(own_samples);
  auto next_dropped = dropped.begin();
  for (auto& s : c.samples) {
    for (; next_dropped != dropped.end() && next_dropped->line < s.line; ++next_dropped)
      diag_.samples.push_back(std::move(*next_dropped));
    auto& kept = before[static_cast<std::size_t>(s.problem)];
    if (kept < Diagnostics::kSamplesPerKind) diag_.samples.push_back(std::move(s));
    ++kept;
  }
  for (; next_dropped != dropped.end(); ++next_dropped) diag_.samples.push_back(std::move(*next_dropped));
  for (std::size_t p = 0; p < kProblemCount; ++p) diag_.problems[p] += c.problems[p];

  // Tables other than events have no cap: moved or appended as they are.
  IngestResult& r = chunk.out_;
  if (r.samples.rows()) out_.samples.append(std::move(r.samples));
  if (r.processes.rows()) out_.processes.append(std::move(r.processes));
  for (auto& d : r.devices) out_.devices.push_back(std::move(d));
  for (auto& p : r.profiles) out_.profiles.push_back(std::move(p));
  for (auto& h : r.host_power) out_.host_power.push_back(std::move(h));
  if (r.manifest && !out_.manifest) out_.manifest = std::move(r.manifest);
  for (const ZoneEvidence& z : r.zone_evidence) {
    auto same = std::find_if(out_.zone_evidence.begin(), out_.zone_evidence.end(),
                             [&](const ZoneEvidence& e) { return e.offset_ns == z.offset_ns; });
    if (same != out_.zone_evidence.end()) same->count += z.count;
    else out_.zone_evidence.push_back(ZoneEvidence{file_, z.offset_ns, z.count});
  }

  // Anchors: what the chunk kept before its first forced anchor (format.hpp) depends on the
  // anchors before the chunk: those it offered are offered again here, as one pass offers them;
  // from that forced anchor on, the chunk kept what one pass keeps.
  if (chunk.offered_) {
    for (const BootAnchor& a : chunk.unsynced_) offer_anchor(a);
    if (chunk.synced_) {
      for (std::size_t i = chunk.synced_at_; i < r.anchors.size(); ++i) out_.anchors.push_back(std::move(r.anchors[i]));
      last_anchor_offset_ = chunk.last_anchor_offset_;
      last_anchor_mono_ = chunk.last_anchor_mono_;
      offered_mono_ = chunk.offered_mono_;
      offered_seq_ = chunk.offered_seq_;
    }
  }

  // The last stamp of each boot, in the order one pass leaves them: a boot met again moves last.
  std::sort(chunk.last_stamps_.begin(), chunk.last_stamps_.end(),
            [](const LastStamp& a, const LastStamp& b) { return a.touched < b.touched; });
  for (LastStamp& s : chunk.last_stamps_) {
    LastStamp& mine = touch_stamp(s.boot_seq, s.boot_id);
    s.touched = mine.touched;
    mine = std::move(s);
  }
  chunk.last_stamps_.clear();
  chunk.boot_stamps_.clear();
  chunk.current_stamp_ = SIZE_MAX;
  chunk.out_ = IngestResult();
  chunk.diag_ = FileDiagnostics();
}

}  // namespace gpucost
