// Chunked parsing of one large file (src/ingest/chunked_parse.cpp, src/ingest/sink_merge.cpp):
// a file cut into chunks at line ends, parsed in parallel and merged, gives what one pass gives,
// to the line numbers and problem samples, wherever the chunk boundaries fall. The files are
// generated here (a few thousand lines) and cut into chunks of a few KiB.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gpucost/ingest/ingest.hpp"
#include "gpucost/time.hpp"
#include "ingest/chunked_parse.hpp"
#include "run_binary.hpp"

namespace fs = std::filesystem;

namespace gpucost {
namespace {

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("gpucost_chunked_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

// ---- what must be identical -------------------------------------------------------------

void expect_same_table(const Table& want, const Table& got, const std::string& what) {
  ASSERT_EQ(want.rows(), got.rows()) << what << ": rows";
  ASSERT_EQ(want.column_count(), got.column_count()) << what;
  for (std::size_t c = 0; c < want.column_count(); ++c) {
    const Column& a = want.column(c);
    const Column& b = got.column(c);
    for (std::size_t r = 0; r < want.rows(); ++r) {
      ASSERT_EQ(a.is_valid(r), b.is_valid(r)) << what << " column " << a.name() << " row " << r;
      if (!a.is_valid(r)) continue;
      switch (a.type()) {
        case ColumnType::kFloat64:
          ASSERT_EQ(a.get_float(r), b.get_float(r)) << what << " column " << a.name() << " row " << r;
          break;
        case ColumnType::kDict:
        case ColumnType::kText:
          ASSERT_EQ(a.get_string(r), b.get_string(r)) << what << " column " << a.name() << " row " << r;
          break;
        default: ASSERT_EQ(a.get_int(r), b.get_int(r)) << what << " column " << a.name() << " row " << r;
      }
    }
  }
}

void expect_same_diagnostics(const FileDiagnostics& a, const FileDiagnostics& b, const std::string& what) {
  EXPECT_EQ(a.path, b.path) << what;
  EXPECT_EQ(a.bytes, b.bytes) << what;
  EXPECT_EQ(a.format, b.format) << what;
  EXPECT_EQ(a.lines, b.lines) << what;
  EXPECT_EQ(a.blank, b.blank) << what;
  EXPECT_EQ(a.accepted, b.accepted) << what;
  EXPECT_EQ(a.continuations, b.continuations) << what;
  EXPECT_EQ(a.prompts, b.prompts) << what;
  EXPECT_EQ(a.records, b.records) << what;
  EXPECT_EQ(a.problems, b.problems) << what;
  EXPECT_EQ(a.notes, b.notes) << what;
  ASSERT_EQ(a.samples.size(), b.samples.size()) << what;
  for (std::size_t i = 0; i < a.samples.size(); ++i) {
    EXPECT_EQ(a.samples[i].problem, b.samples[i].problem) << what << " sample " << i;
    EXPECT_EQ(a.samples[i].line, b.samples[i].line) << what << " sample " << i;
    EXPECT_EQ(a.samples[i].offset, b.samples[i].offset) << what << " sample " << i;
    EXPECT_EQ(a.samples[i].excerpt, b.samples[i].excerpt) << what << " sample " << i;
    EXPECT_EQ(a.samples[i].reason, b.samples[i].reason) << what << " sample " << i;
  }
}

void expect_same(const IngestResult& a, const Diagnostics& da, const IngestResult& b, const Diagnostics& db,
                 const std::string& what) {
  expect_same_table(a.events, b.events, what + " events");
  expect_same_table(a.samples, b.samples, what + " samples");
  expect_same_table(a.processes, b.processes, what + " processes");
  ASSERT_EQ(a.anchors.size(), b.anchors.size()) << what << ": anchors";
  for (std::size_t i = 0; i < a.anchors.size(); ++i) {
    const BootAnchor &x = a.anchors[i], &y = b.anchors[i];
    EXPECT_TRUE(x.boot_id == y.boot_id && x.file == y.file && x.boot_seq == y.boot_seq && x.line == y.line &&
                x.mono_ns == y.mono_ns && x.wall_raw_ns == y.wall_raw_ns && x.wall_kind == y.wall_kind &&
                x.precision_ns == y.precision_ns)
        << what << ": anchor " << i << " (line " << x.line << " vs " << y.line << ")";
  }
  ASSERT_EQ(a.zone_evidence.size(), b.zone_evidence.size()) << what;
  for (std::size_t i = 0; i < a.zone_evidence.size(); ++i)
    EXPECT_TRUE(a.zone_evidence[i].offset_ns == b.zone_evidence[i].offset_ns &&
                a.zone_evidence[i].count == b.zone_evidence[i].count)
        << what << ": zone evidence " << i;
  EXPECT_EQ(a.bytes, b.bytes) << what;
  EXPECT_EQ(a.lines, b.lines) << what;
  ASSERT_EQ(da.files.size(), db.files.size()) << what;
  for (std::size_t i = 0; i < da.files.size(); ++i) expect_same_diagnostics(da.files[i], db.files[i], what);
  EXPECT_EQ(da.notes, db.notes) << what;
}

struct Ingested {
  IngestResult out;
  Diagnostics diag;
};

Ingested ingest(const fs::path& dir, unsigned threads, std::uint64_t chunk_bytes, std::size_t max_events = 1'000'000) {
  IngestOptions o;
  o.threads = threads;
  o.chunk_min_file_bytes = 1;
  o.chunk_bytes = chunk_bytes;
  o.parse.max_events_per_kind = max_events;
  Ingested r;
  IngestStage(o).run(dir, r.out, r.diag);
  return r;
}

// The byte offset at which each line of `text` starts (line 1 at index 0).
std::vector<std::size_t> line_starts(const std::string& text) {
  std::vector<std::size_t> starts{0};
  for (std::size_t i = 0; i + 1 < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(i + 1);
  return starts;
}

// One pass (one thread) against chunked parses: on 2 to 4 threads with the default plan, and
// with a chunk boundary exactly at each of `interesting` (1-based line numbers).
void expect_chunked_as_one_pass(const fs::path& dir, const std::string& text, const std::vector<std::size_t>& interesting,
                                std::size_t max_events = 1'000'000) {
  const Ingested one = ingest(dir, 1, 0, max_events);
  ASSERT_EQ(one.diag.files.size(), 1u);
  for (unsigned threads : {2u, 3u, 4u}) {
    const Ingested many = ingest(dir, threads, 0, max_events);
    expect_same(one.out, one.diag, many.out, many.diag, std::to_string(threads) + " threads");
  }
  const auto starts = line_starts(text);
  for (const std::size_t line : interesting) {
    ASSERT_LT(line - 1, starts.size());
    // Chunks of exactly the bytes before the line: its start is the first chunk boundary.
    const std::size_t chunk = starts[line - 1];
    const Ingested many = ingest(dir, 2, chunk, max_events);
    expect_same(one.out, one.diag, many.out, many.diag, "a chunk starting at line " + std::to_string(line));
    if (::testing::Test::HasFailure()) return;  // one boundary's failures say enough
  }
}

// What a generator wrote, and the lines worth a chunk boundary.
struct Generated {
  std::string text;
  std::vector<std::size_t> interesting;
  std::size_t lines = 0;

  /// The next line is worth a chunk boundary.
  void mark() { interesting.push_back(lines + 1); }
  void put(const std::string& line) {
    text += line;
    text += '\n';
    ++lines;
  }
};

// Writes `g` as `file` alone in a directory, checks that it is read as `format`, and compares
// chunked parses with one pass (expect_chunked_as_one_pass).
void expect_file_chunked_as_one_pass(const std::string& file, FormatId format, const Generated& g,
                                     std::size_t max_events = 1'000'000);

// One pass over the file at `path` as `format`, straight into a sink (no ingest around it).
std::unique_ptr<FileSink> parse_in_one_pass(const std::string& path, const LogFormat& format,
                                            const EventRecognizer& recognizer, const ParseOptions& options) {
  auto sink = std::make_unique<FileSink>(0, fs::path(path).filename().string(), kNoTime, options, recognizer);
  sink->set_format(format.id());
  std::string err;
  auto src = open_line_source(path, err);
  EXPECT_TRUE(src) << err;
  if (src) format.parse(*src, *sink);
  return sink;
}

// ---- a journal (journalctl -o json) -----------------------------------------------------

constexpr const char* kBootA = "0f3c5a1e2b4d4c6e8a9b0c1d2e3f4a5b";
constexpr const char* kBootB = "9e8d7c6b5a4f4e3d2c1b0a9f8e7d6c5b";


void expect_file_chunked_as_one_pass(const std::string& file, FormatId format, const Generated& g,
                                     std::size_t max_events) {
  const fs::path dir = scratch(file);
  std::ofstream(dir / file, std::ios::binary) << g.text;
  {
    const Ingested one = ingest(dir, 1, 0, max_events);
    ASSERT_EQ(one.diag.files.size(), 1u);
    ASSERT_EQ(one.diag.files[0].format, format);
  }
  expect_chunked_as_one_pass(dir, g.text, g.interesting, max_events);
  fs::remove_all(dir);
}

std::string journal_entry(std::int64_t realtime_us, std::int64_t mono_us, const char* boot, bool kernel,
                          std::string_view ident, std::string_view message) {
  std::string e = "{\"__REALTIME_TIMESTAMP\":\"" + std::to_string(realtime_us) + "\",\"__MONOTONIC_TIMESTAMP\":\"" +
                  std::to_string(mono_us) + "\"";
  if (boot) e += std::string(",\"_BOOT_ID\":\"") + boot + "\"";
  e += kernel ? ",\"_TRANSPORT\":\"kernel\",\"_SOURCE_MONOTONIC_TIMESTAMP\":\"" + std::to_string(mono_us - 40) + "\""
              : ",\"_TRANSPORT\":\"syslog\",\"_PID\":\"811\"";
  e += ",\"SYSLOG_IDENTIFIER\":\"" + std::string(ident) + "\",\"MESSAGE\":\"" + std::string(message) + "\"}";
  return e;
}

// 3000 lines over the new year (UTC), boot A, then boot B (its monotonic clock restarted), a
// few entries of A again (two journals merged), then B; a resume inside A (the wall clock jumps
// an hour ahead of the monotonic one), a flood of one message, cut and damaged lines, entries
// without a boot id, one from 1970, one that only calls itself kernel, escapes, blank lines and
// a pasted shell prompt.
Generated generate_journal() {
  Generated g;
  const std::int64_t t0 = civil_to_ns(CivilTime{2026, 12, 31, 22, 0, 0, 0}) / kNsPerUs;
  std::int64_t mono_a = 3'600'000'000, mono_b = 5'000'000, resume = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::int64_t wall = t0 + static_cast<std::int64_t>(i) * 5'000'000;  // an entry each 5 s: the new year at 1440
    const bool in_b = (i >= 1200 && i < 2400) || i >= 2450;
    if (i == 1200 || i == 2400 || i == 2450 || i == 600 || i == 1440) g.mark();
    if (i == 600) resume = 3'600'000'000;  // suspended an hour: wall runs ahead of monotonic
    std::int64_t& mono = in_b ? mono_b : mono_a;
    mono += 5'000'000;
    const std::int64_t mono_now = in_b ? mono : mono - resume;
    const char* boot = in_b ? kBootB : kBootA;
    if (i % 131 == 7) {  // no _BOOT_ID: stays in the boot of the entry before
      g.mark();
      g.put(journal_entry(wall, mono_now, nullptr, false, "anacron", "Job `cron.daily' started"));
    } else if (i % 97 == 3) {
      g.mark();
      g.put("{\"__REALTIME_TIMESTAMP\":\"" + std::to_string(wall) + "\",\"MESSAGE\":\"cut here");
    } else if (i == 333) {
      g.mark();
      g.put(journal_entry(5'000'000, mono_now, boot, true, "kernel", "clock never set"));
    } else if (i == 444) {
      g.mark();
      g.put(journal_entry(wall, mono_now, boot, false, "kernel", "NVRM: Xid (PCI:0000:01:00): 79, spoofed"));
    } else if (i >= 1500 && i < 1900) {
      if (i == 1500 || i == 1899) g.mark();
      g.put(journal_entry(wall, mono_now, boot, true, "kernel",
                        "nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state"));
    } else if (i % 7 == 0) {
      g.put(journal_entry(wall, mono_now, boot, true, "kernel",
                        "NVRM: Xid (PCI:0000:01:00): 31, pid=" + std::to_string(1000 + i) +
                            ", Ch 00000003, intr 10000000. MMU Fault"));
    } else if (i % 11 == 0) {
      g.put(journal_entry(wall, mono_now, boot, false, "systemd", "Started \\\"Session " + std::to_string(i) + "\\\"."));
    } else if (i % 13 == 0) {
      g.put(journal_entry(wall, mono_now, boot, false, "CRON", "(root) CMD (run-parts /etc/cron.hourly)"));
    } else {
      g.put(journal_entry(wall, mono_now, boot, false, "NetworkManager", "<info>  device (wlp2s0): state change"));
    }
    if (i % 401 == 200) g.put("");
    if (i == 2100) {
      g.mark();
      g.put("user@host:~$ journalctl -o json --since yesterday");
    }
  }
  return g;
}

fs::path write_journal(const std::string& name, const Generated& g) {
  const fs::path dir = scratch(name);
  std::ofstream(dir / "journal.json", std::ios::binary) << g.text;
  return dir;
}

TEST(ChunkedParse, JournalGivesWhatOnePassGivesWhereverTheChunksStart) {
  expect_file_chunked_as_one_pass("journal.json", FormatId::journal_json, generate_journal());
}

TEST(ChunkedParse, JournalEventCapAppliesOnceOverTheChunks) {
  // 400 flood lines and about 250 Xids against a cap of 100 per kind: the cap is reached inside
  // a later chunk, whose events pass it at the merge.
  const Generated g = generate_journal();
  const fs::path dir = write_journal("journal_cap", g);
  const Ingested one = ingest(dir, 1, 0, 100);
  ASSERT_EQ(one.diag.files.size(), 1u);
  EXPECT_GT(one.diag.files[0].problems[static_cast<std::size_t>(Problem::events_dropped)], 0u);
  fs::remove_all(dir);
  expect_file_chunked_as_one_pass("journal.json", FormatId::journal_json, Generated{g.text, {1502, 1700, 2000}}, 100);
}

// The merge itself, below ingest: the chunks are many, and the ones that begin with an entry
// without a boot id are parsed again (what a fresh parser gave them cannot be renumbered), the
// others merged.
TEST(ChunkedParse, JournalChunksAreMergedAndOnlyTheUnknowableParsedAgain) {
  const Generated g = generate_journal();
  const fs::path dir = write_journal("journal_direct", g);
  const std::string path = (dir / "journal.json").string();
  const EventRecognizer recognizer;
  const ParseOptions options;
  const LogFormat& format = *find_format(FormatId::journal_json);
  const auto one_pass = parse_in_one_pass(path, format, recognizer, options);
  FileSink& one = *one_pass;
  const auto starts = line_starts(g.text);
  // A boundary at an entry without a boot id (line 8, i = 7) and at one with (line 300).
  for (const std::size_t first : {std::size_t{8}, std::size_t{300}}) {
    FileSink chunked(0, "journal.json", kNoTime, options, recognizer);
    chunked.set_format(FormatId::journal_json);
    ChunkedRead read;
    ChunkPlanOptions plan;
    plan.threads = 2;
    plan.chunk_bytes = starts[first - 1];
    ASSERT_TRUE(parse_in_chunks(path, format, chunked, recognizer, plan, read));
    EXPECT_GT(read.chunks, 2u);
    EXPECT_LT(read.parsed_again, read.chunks - 1) << "every chunk was parsed again: the merge was not exercised";
    if (first == 8) {
      EXPECT_GE(read.parsed_again, 1u);
    }
    EXPECT_EQ(read.bytes, g.text.size());
    EXPECT_EQ(chunked.diagnostics().lines, one.diagnostics().lines);
    EXPECT_EQ(chunked.diagnostics().records, one.diagnostics().records);
    expect_same_table(one.events(), chunked.events(), "events, first boundary at line " + std::to_string(first));
    EXPECT_EQ(one.anchors().size(), chunked.anchors().size());
  }
  fs::remove_all(dir);
}

TEST(ChunkedParse, SmallCompressedOrUnchunkableFilesAreParsedInOnePass) {
  const fs::path dir = scratch("unchunkable");
  std::ofstream(dir / "dmesg.txt") << "[    1.000000] Linux version 6.1.0\n[    2.000000] NVRM: loading\n";
  const EventRecognizer recognizer;
  const ParseOptions options;
  FileSink sink(0, "dmesg.txt", kNoTime, options, recognizer);
  ChunkedRead read;
  ChunkPlanOptions plan;
  plan.threads = 4;
  plan.chunk_bytes = 8;
  // ps does not hand its state over (its header): not chunked, nothing read.
  EXPECT_FALSE(parse_in_chunks((dir / "dmesg.txt").string(), *find_format(FormatId::ps), sink, recognizer, plan, read));
  EXPECT_EQ(sink.diagnostics().lines, 0u);
  // One thread, or a file under the threshold: one pass.
  plan.threads = 1;
  EXPECT_FALSE(parse_in_chunks((dir / "dmesg.txt").string(), *find_format(FormatId::journal_json), sink, recognizer, plan, read));
  plan.threads = 4;
  plan.min_file_bytes = 1 << 20;
  EXPECT_FALSE(parse_in_chunks((dir / "dmesg.txt").string(), *find_format(FormatId::journal_json), sink, recognizer, plan, read));
  fs::remove_all(dir);
}

// ---- a kern.log (classic syslog with the kernel's [mono] stamps) ------------------------

std::string bsd_stamp(std::int64_t t_s) {
  const CivilTime c = ns_to_civil(t_s * kNsPerSec);
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s %2u %02u:%02u:%02u", kMonths[c.month - 1], c.day, c.hour, c.minute, c.second);
  return buf;
}

std::string mono_stamp(std::int64_t mono_us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "[%5lld.%06lld]", static_cast<long long>(mono_us / 1'000'000),
                static_cast<long long>(mono_us % 1'000'000));
  return buf;
}

// 4000 lines, one every 3 s from Dec 31 21:00 (no year in the stamps: the new year at line
// 3600, then a straggler stamped Dec 31); a reboot at line 1500 (`Linux version`, the monotonic
// clock back at 0) and one at line 2700 said only by `Linux version` (no [mono] on its line);
// Xids with indented continuation lines; a flood of one message; impossible stamps, a line with
// nothing to continue, cron and systemd lines.
Generated generate_kern_log() {
  Generated g;
  const std::int64_t t0 = civil_to_ns(CivilTime{2026, 12, 31, 21, 0, 0, 0}) / kNsPerSec;
  std::int64_t boot_start = t0 - 100'000;  // the first boot began 100 000 s before
  for (int i = 0; i < 4000; ++i) {
    const std::int64_t t = t0 + 3 * static_cast<std::int64_t>(i);
    if (i == 1500) {
      boot_start = t;
      g.mark();
      g.put(bsd_stamp(t) + " gpu-box kernel: " + mono_stamp(0) + " Linux version 6.1.0-28-amd64 (debian-kernel@lists.debian.org)");
      continue;
    }
    const std::int64_t mono_us = (t - boot_start) * 1'000'000 + 123'456;
    const std::string kernel = bsd_stamp(t) + " gpu-box kernel: " + mono_stamp(mono_us) + " ";
    if (i == 2700) {  // a boot said only by `Linux version`, on a line without [mono]
      g.mark();
      g.put(bsd_stamp(t) + " gpu-box kernel: Linux version 6.1.0-29-amd64 (debian-kernel@lists.debian.org)");
    }
    if (i == 3600 || i == 3601) g.mark();
    if (i == 3601) g.put(bsd_stamp(t0 + 3 * 3599) + " gpu-box CRON[77]: (root) CMD (late straggler)");
    if (i >= 2000 && i < 2400) {
      // The flood: four lines in the same second (a run of repeats, wherever a chunk starts).
      for (int k = 0; k < 4; ++k) {
        if (i == 2000 || (i == 2101 && k == 2)) g.mark();
        g.put(bsd_stamp(t) + " gpu-box kernel: " + mono_stamp(mono_us + 200'000 * k) +
              " nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state");
      }
    } else if (i % 5 == 0) {
      g.put(kernel + "NVRM: Xid (PCI:0000:01:00): 79, pid=" + std::to_string(2000 + i) + ", GPU has fallen off the bus.");
      if (i % 50 == 0) {
        g.mark();
        g.put("    NVRM: GPU at PCI:0000:01:00: GPU-5a3c1e2b-1d4f-4c6e-8a9b-0c1d2e3f4a5b");
        g.mark();
        g.put("    NVRM: GPU Board Serial Number: 1652221012345");
      }
    } else if (i % 173 == 11) {
      g.mark();
      g.put("Nov 31 10:00:00 gpu-box kernel: [    1.000000] no such day");
    } else if (i % 211 == 13) {
      g.put("");
      g.mark();
      g.put("some words that nobody wrote as a log line");
    } else if (i % 7 == 1) {
      g.put(bsd_stamp(t) + " gpu-box CRON[" + std::to_string(3000 + i) + "]: (root) CMD (run-parts /etc/cron.hourly)");
    } else {
      g.put(bsd_stamp(t) + " gpu-box systemd[1]: Started session-" + std::to_string(i) + ".scope - Session of user ml.");
    }
  }
  return g;
}

// journalctl's short output: the kern.log's shape without [mono] stamps, zero-padded days, and
// the journal's structure: a `systemctl status` block pasted at line 800, `-- Reboot --` at 1500,
// `-- Boot ID --` at 3000 (from there on the chunks are parsed again: the boot id is state).
Generated generate_journal_short() {
  Generated g;
  const std::int64_t t0 = civil_to_ns(CivilTime{2026, 12, 31, 21, 0, 0, 0}) / kNsPerSec;
  for (int i = 0; i < 4000; ++i) {
    const std::int64_t t = t0 + 3 * static_cast<std::int64_t>(i);
    std::string stamp = bsd_stamp(t);
    if (stamp[4] == ' ') stamp[4] = '0';  // journalctl pads the day with a zero
    if (i == 800) {
      for (const char* l : {"\xe2\x97\x8f nvidia-persistenced.service - NVIDIA Persistence Daemon",
                            "     Loaded: loaded (/lib/systemd/system/nvidia-persistenced.service; enabled)",
                            "     Active: active (running) since Thu 2026-12-31 21:40:00 UTC; 1min ago"}) {
        g.mark();
        g.put(l);
      }
    }
    if (i == 1500 || i == 3000) {
      g.mark();
      g.put(i == 1500 ? "-- Reboot --" : "-- Boot 0f3c5a1e2b4d4c6e8a9b0c1d2e3f4a5b --");
      g.mark();
    }
    if (i == 3600) g.mark();
    if (i % 5 == 0) {
      g.put(stamp + " gpu-box kernel: NVRM: Xid (PCI:0000:01:00): 79, pid=" + std::to_string(2000 + i) +
          ", GPU has fallen off the bus.");
      if (i % 50 == 0) {
        g.mark();
        g.put("    NVRM: GPU at PCI:0000:01:00: GPU-5a3c1e2b-1d4f-4c6e-8a9b-0c1d2e3f4a5b");
      }
    } else if (i % 7 == 1) {
      g.put(stamp + " gpu-box CRON[" + std::to_string(3000 + i) + "]: (root) CMD (run-parts /etc/cron.hourly)");
    } else {
      g.put(stamp + " gpu-box systemd[1]: Started session-" + std::to_string(i) + ".scope - Session of user ml.");
    }
  }
  return g;
}

TEST(ChunkedParse, JournalShortGivesWhatOnePassGivesWhereverTheChunksStart) {
  expect_file_chunked_as_one_pass("journal.txt", FormatId::journal_short, generate_journal_short());
}

TEST(ChunkedParse, KernLogGivesWhatOnePassGivesWhereverTheChunksStart) {
  const Generated g = generate_kern_log();
  expect_file_chunked_as_one_pass("kern.log", FormatId::syslog, g);
  expect_file_chunked_as_one_pass("kern.log", FormatId::syslog, Generated{g.text, {2200}}, 100);  // the flood, capped
}

// A source of the lines of `text` that overwrites the bytes of every line it returned before
// with '#' now and then (each time it is about to, it tells its keeper, when it has one); or, when
// it says it cannot tell (`tells` false), before every line, so that a reader must copy what it
// keeps of a line at once.
class ScribblingSource final : public LineSource {
 public:
  ScribblingSource(std::string_view text, bool tells) : text_(text), tells_(tells) {}
  bool set_keeper(LineKeeper* keeper) noexcept override {
    keeper_ = keeper;
    return tells_;
  }
  bool next(Line& line) override {
    if (at_ >= text_.size()) return false;
    // Every seventh line, or every line for a source that cannot tell: old lines are overwritten.
    if (!tells_ || ++count_ % 7 == 0) {
      if (keeper_ && tells_) keeper_->keep_lines();
      for (std::string& old : lines_) std::fill(old.begin(), old.end(), '#');
    }
    const std::size_t nl = text_.find('\n', at_);
    const std::size_t end = nl == std::string_view::npos ? text_.size() : nl;
    lines_.emplace_back(text_.substr(at_, end - at_));  // a deque: older copies stay where they are
    line.text = lines_.back();
    line.number = ++number_;
    line.offset = at_;
    line.truncated = false;
    at_ = end + 1;
    return true;
  }
  std::size_t read_raw(std::size_t, std::string&) override { return 0; }
  bool rewind() override { return false; }
  const std::string& error() const noexcept override { return error_; }
  std::uint64_t bytes_read() const noexcept override { return std::min<std::uint64_t>(at_, text_.size()); }

 private:
  std::string_view text_;
  bool tells_;
  LineKeeper* keeper_ = nullptr;
  std::size_t at_ = 0;
  std::uint64_t number_ = 0, count_ = 0;
  std::deque<std::string> lines_;
  std::string error_;
};

// The syslog parser's pending message borrows its first line while the source will tell before
// that line's bytes move, and copies it when told or when the source cannot tell: both give the
// same events, continuation lines and problems.
TEST(ChunkedParse, KernLogMessagesBorrowedFromTheSourceAreThoseCopied) {
  const Generated g = generate_kern_log();
  const EventRecognizer recognizer;
  ParseOptions options;
  options.aggregate_repeats = false;  // a row per message: every message's text is compared
  const LogFormat& format = *find_format(FormatId::syslog);
  FileSink copied(0, "kern.log", kNoTime, options, recognizer), borrowed(0, "kern.log", kNoTime, options, recognizer);
  ScribblingSource cannot_tell(g.text, false), tells(g.text, true);
  format.parse(cannot_tell, copied);
  format.parse(tells, borrowed);
  EXPECT_GT(copied.events().rows(), 1000u);
  EXPECT_GT(copied.diagnostics().continuations, 100u);
  expect_same_table(copied.events(), borrowed.events(), "events");
  EXPECT_EQ(copied.diagnostics().continuations, borrowed.diagnostics().continuations);
  EXPECT_EQ(copied.diagnostics().problems, borrowed.diagnostics().problems);
  EXPECT_EQ(copied.diagnostics().records, borrowed.diagnostics().records);
  // A parser that borrowed without being told would read the '#'s: none are in the texts.
  const Column& text = borrowed.events().column(event_col::text);
  for (std::size_t r = 0; r < text.size(); ++r) ASSERT_EQ(text.get_string(r).find("##"), std::string_view::npos) << r;
}

// Chunks of a kern.log are merged (boot ordinals moved by the boot before them) until the new
// year; after it, and where a chunk begins inside a multi-line message, they are parsed again.
TEST(ChunkedParse, KernLogChunksAreMergedUntilTheYearTurns) {
  const Generated g = generate_kern_log();
  const fs::path dir = scratch("kernlog_direct");
  const std::string path = (dir / "kern.log").string();
  std::ofstream(path, std::ios::binary) << g.text;
  const EventRecognizer recognizer;
  const ParseOptions options;
  const LogFormat& format = *find_format(FormatId::syslog);
  const auto one_pass = parse_in_one_pass(path, format, recognizer, options);
  FileSink& one = *one_pass;
  FileSink chunked(0, "kern.log", kNoTime, options, recognizer);
  chunked.set_format(FormatId::syslog);
  ChunkedRead read;
  ChunkPlanOptions plan;
  plan.threads = 2;
  plan.chunk_bytes = g.text.size() / 16;
  ASSERT_TRUE(parse_in_chunks(path, format, chunked, recognizer, plan, read));
  EXPECT_GE(read.chunks, 16u);
  EXPECT_GE(read.parsed_again, 1u);  // the chunks after the new year (line 3600 of 4000+)
  EXPECT_LE(read.parsed_again, read.chunks / 2);
  expect_same_table(one.events(), chunked.events(), "kern.log events");
  EXPECT_EQ(one.anchors().size(), chunked.anchors().size());
  EXPECT_EQ(one.diagnostics().problems, chunked.diagnostics().problems);
  fs::remove_all(dir);
}

// ---- dmesg ---------------------------------------------------------------------------

// 3000 lines of `dmesg` with monotonic stamps: a reboot at line 1200 (`Linux version`, the clock
// back at 0) and one at 2500 said only by `Linux version` (a `dmesg -T` line), NVRM messages with indented continuation lines, messages whose stamp was cut
// (untimed, not indented), a flood, a binary line.
Generated generate_dmesg() {
  Generated g;
  std::int64_t boot_us = -50'000'000'000;  // the first boot's clock at 50 000 s at the start
  for (int i = 0; i < 3000; ++i) {
    const std::int64_t now_us = static_cast<std::int64_t>(i) * 2'000'000;
    if (i == 1200) {
      boot_us = now_us;
      g.mark();
      g.put(mono_stamp(0) + " Linux version 6.1.0-28-amd64 (debian-kernel@lists.debian.org)");
      continue;
    }
    const std::string stamp = mono_stamp(now_us - boot_us + 345) + " ";
    if (i == 2500) {  // a boot said only by `Linux version`, on a `dmesg -T` line (no monotonic restart)
      g.mark();
      g.put("[Thu Dec 31 21:00:00 2026] Linux version 6.1.0-29-amd64 (debian-kernel@lists.debian.org)");
    }
    if (i >= 1800 && i < 2100) {
      // The flood: four lines in the same second (a run of repeats, wherever a chunk starts).
      for (int k = 0; k < 4; ++k) {
        if (i == 1800 || (i == 1901 && k == 2)) g.mark();
        g.put(mono_stamp(now_us - boot_us + 345 + 200'000 * k) +
              " nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state");
      }
    } else if (i % 5 == 0) {
      g.put(stamp + "NVRM: Xid (PCI:0000:01:00): 79, pid=" + std::to_string(4000 + i) + ", GPU has fallen off the bus.");
      if (i % 40 == 0) {
        g.mark();
        g.put("    NVRM: GPU at PCI:0000:01:00: GPU-5a3c1e2b-1d4f-4c6e-8a9b-0c1d2e3f4a5b");
      }
    } else if (i % 97 == 3) {
      g.mark();
      g.put("ACPI: AC: AC Adapter [ADP1] (off-line)");  // its stamp cut from the paste
    } else if (i == 777) {
      g.mark();
      g.put(std::string("\x01\x02\x03garbage\x7f\x00\x05", 13));
    } else {
      g.put(stamp + "usb 1-" + std::to_string(i % 9) + ": new high-speed USB device number " + std::to_string(i));
    }
  }
  return g;
}

// `dmesg -e`: a base stamp per minute (`[Dec31 23:59]`, no year) and deltas after it, over the
// new year (line 1500 of 2000).
Generated generate_dmesg_relative() {
  Generated g;
  const std::int64_t t0 = civil_to_ns(CivilTime{2026, 12, 31, 22, 45, 0, 0}) / kNsPerSec;
  for (int i = 0; i < 2000; ++i) {
    const std::int64_t t = t0 + 3 * static_cast<std::int64_t>(i);
    std::string l;
    if (i % 20 == 0) {
      const CivilTime c = ns_to_civil(t * kNsPerSec);
      char base[32];
      std::snprintf(base, sizeof base, "[%s%u %02u:%02u] ", c.month == 12 ? "Dec" : "Jan", c.day, c.hour, c.minute);
      l = base;
      if (i == 1500 || i == 1520) g.mark();
    } else {
      l = "[  +3.000000] ";
    }
    l += i % 3 == 0 ? "NVRM: Xid (PCI:0000:01:00): 31, pid=" + std::to_string(i) + ", MMU Fault" : "usb 1-1: reset";
    g.put(l);
  }
  return g;
}

TEST(ChunkedParse, DmesgGivesWhatOnePassGivesWhereverTheChunksStart) {
  expect_file_chunked_as_one_pass("dmesg.txt", FormatId::dmesg, generate_dmesg());
}

TEST(ChunkedParse, DmesgRelativeStampsGiveWhatOnePassGivesOverTheNewYear) {
  expect_file_chunked_as_one_pass("dmesg.txt", FormatId::dmesg, generate_dmesg_relative());
}

// ---- random mixes ------------------------------------------------------------------------

// Files of 400 lines drawn at random (fixed seeds) from the lines that carry state in each
// format, after 70 ordinary ones that lock detection; cut into chunks of random sizes.
enum class Mix { kKernLog, kJournalShort, kDmesg, kJournal };

Generated random_mix(Mix mix, unsigned seed) {
  std::mt19937 rng(seed);
  const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  Generated g;
  std::int64_t t = civil_to_ns(CivilTime{2026, 12, 31, 20, 0, 0, 0}) / kNsPerSec;
  std::int64_t mono_us = 50'000'000'000;
  bool boot_b = false;
  for (int i = 0; i < 470; ++i) {
    t += pick(4) == 0 ? 3600 : pick(30);  // now and then an hour: the new year comes in some files
    mono_us += 1'000'000 * (pick(30) + 1);
    const int kind = i < 70 ? 0 : pick(10);
    std::string stamp = bsd_stamp(t);
    if (mix == Mix::kJournalShort && stamp[4] == ' ') stamp[4] = '0';
    const std::string host = stamp + " gpu-box ";
    const std::string kmono = mix == Mix::kKernLog ? mono_stamp(mono_us) + " " : "";
    if (kind == 1 && mix != Mix::kJournal) {  // a reboot
      mono_us = 0;
      if (mix == Mix::kDmesg) g.put(mono_stamp(0) + " Linux version 6.1.0");
      else g.put(host + "kernel: " + (mix == Mix::kKernLog ? mono_stamp(0) + " " : "") + "Linux version 6.1.0");
      continue;
    }
    switch (mix) {
      case Mix::kJournal: {
        if (kind == 1) boot_b = !boot_b;
        const char* boot = kind == 2 ? nullptr : boot_b ? kBootB : kBootA;
        if (kind == 3) g.put("{\"__REALTIME_TIMESTAMP\":\"12");
        else if (kind == 4) g.put("");
        else if (kind == 5 && pick(3) == 0) g.put("$ journalctl -o json");
        else
          g.put(journal_entry(t * 1'000'000, mono_us, boot, pick(2) == 0, "kernel",
                              pick(2) ? "NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus." : "usb 1-1: reset"));
        break;
      }
      case Mix::kDmesg:
        if (kind == 2) g.put("    NVRM: continued");
        else if (kind == 3) g.put("NVRM: a message whose stamp was cut");
        else if (kind == 4) g.put("");
        else if (kind == 5) g.put("[Thu Dec 31 21:00:00 2026] Linux version 6.1.0-29-amd64");
        else g.put(mono_stamp(mono_us) + " NVRM: Xid (PCI:0000:01:00): 31, pid=" + std::to_string(i) + ", MMU Fault");
        break;
      case Mix::kKernLog:
      case Mix::kJournalShort:
        if (kind == 2) g.put("    NVRM: continued");
        else if (kind == 3) g.put(pick(2) ? "NVRM: a message whose stamp was cut" : "words with nothing to continue");
        else if (kind == 4) g.put("");
        else if (kind == 5) g.put(bsd_stamp(t - 30) + " gpu-box CRON[1]: (root) CMD (a straggler)");
        else if (kind == 6 && mix == Mix::kJournalShort)
          g.put(pick(2) ? "-- Reboot --" : "\xe2\x97\x8f nvidia-persistenced.service - NVIDIA Persistence Daemon");
        else if (kind == 7) g.put("Nov 31 10:00:00 gpu-box kernel: no such day");
        else g.put(host + "kernel: " + kmono + "NVRM: Xid (PCI:0000:01:00): 79, pid=" + std::to_string(i));
        break;
    }
  }
  return g;
}

TEST(ChunkedParse, RandomMixesGiveWhatOnePassGives) {
  const std::pair<Mix, FormatId> mixes[] = {{Mix::kKernLog, FormatId::syslog},
                                            {Mix::kJournalShort, FormatId::journal_short},
                                            {Mix::kDmesg, FormatId::dmesg},
                                            {Mix::kJournal, FormatId::journal_json}};
  for (const auto& [mix, format] : mixes) {
    for (unsigned seed = 1; seed <= 12; ++seed) {
      const Generated g = random_mix(mix, seed);
      const fs::path dir = scratch("mix");
      std::ofstream(dir / "log.txt", std::ios::binary) << g.text;
      const Ingested one = ingest(dir, 1, 0);
      ASSERT_EQ(one.diag.files.size(), 1u);
      ASSERT_EQ(one.diag.files[0].format, format) << "seed " << seed;
      std::mt19937 rng(seed);
      for (int cut = 0; cut < 6; ++cut) {
        const std::size_t chunk = 40 + rng() % 3000;
        const Ingested many = ingest(dir, 2 + cut % 2, chunk);
        expect_same(one.out, one.diag, many.out, many.diag,
                    "mix " + std::to_string(static_cast<int>(mix)) + " seed " + std::to_string(seed) + " chunks of " +
                        std::to_string(chunk));
        if (::testing::Test::HasFailure()) return;
      }
      fs::remove_all(dir);
    }
  }
}

// ---- the whole run: the JSON report ------------------------------------------------------

void expect_same_report_in_chunks(const fs::path& dir) {
  const auto one = gpucost::testing::run_gpucost({"analyze", dir.string(), "--format", "json", "--no-timings", "--threads", "1"});
  ASSERT_LT(one.exit_code, 5) << one.err;
  ASSERT_GT(one.out.size(), 1000u);
  for (const char* threads : {"2", "4"}) {
    const auto many = gpucost::testing::run_gpucost({"-v", "analyze", dir.string(), "--format", "json", "--no-timings",
                                                     "--threads", threads, "--chunk-size", "20000"});
    ASSERT_EQ(many.exit_code, one.exit_code) << many.err;
    EXPECT_NE(many.err.find("chunks on"), std::string::npos) << "not parsed in chunks:\n" << many.err;
    EXPECT_TRUE(one.out == many.out) << "--threads " << threads << " with chunks changed the JSON report";
  }
  const auto t1 = gpucost::testing::run_gpucost({"timeline", dir.string(), "--threads", "1"});
  const auto t2 = gpucost::testing::run_gpucost({"timeline", dir.string(), "--threads", "2", "--chunk-size", "20000"});
  ASSERT_EQ(t1.exit_code, t2.exit_code) << t2.err;
  EXPECT_FALSE(t1.out.empty());
  EXPECT_TRUE(t1.out == t2.out) << "--threads 2 with chunks changed the timeline";
}

TEST(ChunkedParse, ReportsAreByteIdenticalForAnyThreadCount) {
  const Generated journal = generate_journal();
  const fs::path dir = write_journal("journal_e2e", journal);
  expect_same_report_in_chunks(dir);
  fs::remove_all(dir);
  const Generated kern = generate_kern_log();
  const fs::path kern_dir = scratch("kernlog_e2e");
  std::ofstream(kern_dir / "kern.log", std::ios::binary) << kern.text;
  expect_same_report_in_chunks(kern_dir);
  fs::remove_all(kern_dir);
  const Generated dmesg = generate_dmesg();
  const fs::path dmesg_dir = scratch("dmesg_e2e");
  std::ofstream(dmesg_dir / "dmesg.txt", std::ios::binary) << dmesg.text;
  expect_same_report_in_chunks(dmesg_dir);
  fs::remove_all(dmesg_dir);
}

}  // namespace
}  // namespace gpucost
