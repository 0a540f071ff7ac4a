#pragma once
// Helpers for the kernel/syslog/journal format tests: parse a buffer or a file under tests/data
// through the ingest stage (detection included) and read back the events.

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/ingest/ingest.hpp"

namespace gpucost::testing {

/// One event row, read back from the event table.
struct Ev {
  EventKind kind = EventKind::user;
  std::int64_t code = INT64_MIN;
  std::string gpu;
  std::int64_t pid = INT64_MIN;
  std::string process;
  std::int64_t line = 0;
  TimeNs mono_ns = kNoTime;
  WallKind wall_kind = WallKind::kNone;
  TimeNs wall_raw_ns = kNoTime;
  std::int64_t boot_seq = 0;
  std::string boot_id;
  std::string ident;
  std::string text;
  std::int64_t flags = 0;
  std::int64_t repeat = 1;  ///< lines the row stands for (a run of repeats)
};

/// The result of parsing one file.
struct Parsed {
  IngestResult out;
  Diagnostics diag;

  const FileDiagnostics& file() const { return diag.files.at(0); }
  FormatId format() const { return file().format; }
  /// Accepted plus continuation lines over non-blank lines.
  double understood() const {
    const auto& f = file();
    const auto nonblank = f.lines - f.blank;
    return nonblank == 0 ? 1.0 : static_cast<double>(f.accepted + f.continuations) / static_cast<double>(nonblank);
  }
  std::vector<Ev> events() const {
    std::vector<Ev> v;
    const Table& t = out.events;
    auto i64 = [&](std::size_t col, std::size_t row) {
      return t.column(col).is_valid(row) ? t.column(col).get_int(row) : INT64_MIN;
    };
    auto str = [&](std::size_t col, std::size_t row) {
      return t.column(col).is_valid(row) ? std::string(t.column(col).get_string(row)) : std::string();
    };
    for (std::size_t r = 0; r < t.rows(); ++r) {
      Ev e;
      e.kind = static_cast<EventKind>(i64(event_col::kind, r));
      e.code = i64(event_col::code, r);
      e.gpu = str(event_col::gpu, r);
      e.pid = i64(event_col::pid, r);
      e.process = str(event_col::process, r);
      e.line = i64(event_col::line, r);
      e.mono_ns = i64(event_col::mono_ns, r);
      e.wall_kind = static_cast<WallKind>(i64(event_col::wall_kind, r));
      e.wall_raw_ns = i64(event_col::wall_raw_ns, r);
      e.boot_seq = i64(event_col::boot_seq, r);
      e.boot_id = str(event_col::boot_id, r);
      e.ident = str(event_col::ident, r);
      e.text = str(event_col::text, r);
      e.flags = i64(event_col::flags, r);
      e.repeat = i64(event_col::repeat, r);
      v.push_back(std::move(e));
    }
    return v;
  }
  /// Events of one kind.
  std::vector<Ev> events(EventKind k) const {
    std::vector<Ev> all = events(), v;
    for (auto& e : all)
      if (e.kind == k) v.push_back(std::move(e));
    return v;
  }
};

/// Parses data as file `name` (the name may break a detection tie); FormatId::unknown = detect.
inline Parsed parse_text(std::string_view data, std::string_view name = "input.log",
                         FormatId format = FormatId::unknown, const std::string& patterns_file = {}) {
  IngestOptions o;
  o.threads = 1;
  o.patterns_file = patterns_file;
  // A row per line: these tests read what the parser made of each line; repeats within a second
  // joined into one row are tested in repeat_runs_test.cpp.
  o.parse.aggregate_repeats = false;
  IngestStage stage(o);
  Parsed p;
  stage.run_buffer(data, name, format, p.out, p.diag);
  return p;
}

/// Contents of a file under tests/data.
inline std::string read_test_file(const std::string& rel) {
  std::ifstream in(std::string(GPUCOST_TEST_DATA) + "/" + rel, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Parses a file under tests/data; its path relative to the sample directory is the name.
inline Parsed parse_data_file(const std::string& rel, std::string_view name = {}) {
  const std::string data = read_test_file(rel);
  return parse_text(data, name.empty() ? std::string_view(rel) : name);
}

/// `[ s.micro]` as ns.
constexpr TimeNs mono(std::int64_t s, std::int64_t us) { return s * kNsPerSec + us * kNsPerUs; }

/// Raw stamp of a local time without year: provisional year 2000 (+ rollovers), no_year_raw().
inline TimeNs no_year(unsigned month, unsigned day, unsigned h, unsigned m, unsigned s, std::int64_t year = 2000,
                      std::int64_t nanos = 0) {
  return no_year_raw({year - 2000, month, day, ((h * 60 + m) * 60 + s) * kNsPerSec + nanos});
}

/// A parameterized test's name from its case's file: `kern/xid31-mmu-fault-dmesg-proton.txt` ->
/// `kern_xid31_mmu_fault_dmesg_proton`.
template <class Case>
std::string sample_name(const ::testing::TestParamInfo<Case>& info) {
  std::string n = info.param.file;
  if (const auto dot = n.rfind('.'); dot != std::string::npos) n.resize(dot);
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

}  // namespace gpucost::testing
