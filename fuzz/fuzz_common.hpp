#pragma once
// Shared by the fuzz targets: parse the fuzzer's bytes as one format (or detect it), then check
// what every parser promises (CONTRIBUTING rules in docs/robustness.md) and abort when a promise
// is broken, so that libFuzzer keeps the input as a reproducer. Crashes, leaks, undefined
// behaviour and hangs are caught by the sanitizers and libFuzzer's -timeout themselves.

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "gpucost/diagnostics.hpp"
#include "gpucost/ingest/ingest.hpp"
#include "gpucost/records.hpp"

namespace gpucost::fuzz {

[[noreturn]] inline void fail(const char* what, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: fuzz invariant broken: %s\n", file, line, what);
  std::abort();
}
#define FUZZ_CHECK(cond) \
  do {                   \
    if (!(cond)) ::gpucost::fuzz::fail(#cond, __FILE__, __LINE__); \
  } while (0)

/// Limits small enough for the fuzzer to reach: 4 KiB lines, 40 events of a kind per file.
inline constexpr std::size_t kFuzzMaxLine = 4096;
inline constexpr std::size_t kFuzzMaxEvents = 40;

inline IngestOptions fuzz_ingest_options() {
  IngestOptions o;
  o.threads = 1;
  o.parse.max_line_length = kFuzzMaxLine;
  o.parse.max_events_per_kind = kFuzzMaxEvents;
  return o;
}

/// One ingest stage per process (building the recognizer is not free).
inline const IngestStage& fuzz_stage() {
  static const IngestStage stage(fuzz_ingest_options());
  return stage;
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Every row of a table names a file ingest read and a line of it.
inline void check_rows(const Table& t, std::size_t file_col, std::size_t line_col, const IngestResult& out,
                       const Diagnostics& diag) {
  FUZZ_CHECK(t.consistent());
  for (std::size_t r = 0; r < t.rows(); ++r) {
    FUZZ_CHECK(t.column(file_col).is_valid(r));
    const auto f = t.column(file_col).get_int(r);
    FUZZ_CHECK(f >= 0 && static_cast<std::size_t>(f) < out.files.size());
    FUZZ_CHECK(!t.ts().is_valid(r));  // ingest never places rows; align does
    if (t.column(line_col).is_valid(r)) {
      const auto l = t.column(line_col).get_int(r);
      FUZZ_CHECK(l >= 1 && static_cast<std::uint64_t>(l) <= diag.files[static_cast<std::size_t>(f)].lines);
    }
  }
}

/// What ingest promises for any input: tables of equal-length columns whose rows point at real
/// lines; each line counted once as blank, accepted or continuation at most; samples bounded;
/// no more events of a kind than the limit; problem counts at least the samples kept.
inline void check_ingest(const IngestResult& out, const Diagnostics& diag) {
  FUZZ_CHECK(out.files.size() == diag.files.size());
  for (const FileDiagnostics& f : diag.files) {
    FUZZ_CHECK(f.blank <= f.lines);
    FUZZ_CHECK(f.accepted + f.continuations + f.blank <= f.lines);
    std::array<std::size_t, kProblemCount> kept{};
    for (const ProblemSample& s : f.samples) {
      FUZZ_CHECK(s.line <= f.lines);
      FUZZ_CHECK(s.excerpt.size() <= 1024);
      ++kept[static_cast<std::size_t>(s.problem)];
    }
    for (std::size_t p = 0; p < kProblemCount; ++p) {
      FUZZ_CHECK(kept[p] <= Diagnostics::kSamplesPerKind);
      FUZZ_CHECK(kept[p] <= f.problems[p]);
    }
  }
  check_rows(out.samples, sample_col::file, sample_col::line, out, diag);
  check_rows(out.events, event_col::file, event_col::line, out, diag);
  check_rows(out.processes, process_col::file, process_col::line, out, diag);
  std::vector<std::array<std::size_t, kEventKindCount>> kinds(out.files.size());
  for (std::size_t r = 0; r < out.events.rows(); ++r) {
    const auto k = out.events.column(event_col::kind).get_int(r);
    FUZZ_CHECK(k >= 0 && static_cast<std::size_t>(k) < kEventKindCount);
    const auto f = static_cast<std::size_t>(out.events.column(event_col::file).get_int(r));
    FUZZ_CHECK(++kinds[f][static_cast<std::size_t>(k)] <= kFuzzMaxEvents);
    const auto wk = out.events.column(event_col::wall_kind).get_int(r);
    FUZZ_CHECK(wk >= 0 && wk <= static_cast<std::int64_t>(WallKind::kRelative));
  }
  for (const BootAnchor& a : out.anchors) FUZZ_CHECK(a.file < out.files.size());
  // Host power samples (rapl_energy, ipmi_dcmi_power) point at a line of their file and hold a
  // finite, non-negative power over a non-negative span.
  for (const HostPowerSample& h : out.host_power) {
    FUZZ_CHECK(h.file < diag.files.size() && h.line >= 1 && h.line <= diag.files[h.file].lines);
    FUZZ_CHECK(std::isfinite(h.watts) && h.watts >= 0);
    FUZZ_CHECK(h.interval_ns >= 0);
  }
}

/// Parses bytes as format `f` (FormatId::unknown: detect) and checks the result.
inline void parse_and_check(const std::uint8_t* data, std::size_t size, FormatId f) {
  IngestResult out;
  Diagnostics diag;
  fuzz_stage().run_buffer(as_text(data, size), "fuzz.log", f, out, diag, 1'764'445'845'000'000'000);
  check_ingest(out, diag);
  FUZZ_CHECK(diag.files.size() == 1);
  if (f != FormatId::unknown) FUZZ_CHECK(diag.files[0].format == f);
}

}  // namespace gpucost::fuzz

/// One fuzz target per format: `GPUCOST_FUZZ_FORMAT(dmon)`.
#define GPUCOST_FUZZ_FORMAT(name)                                                       \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {  \
    ::gpucost::fuzz::parse_and_check(data, size, ::gpucost::FormatId::name);            \
    return 0;                                                                           \
  }
