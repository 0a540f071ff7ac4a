// nvidia-smi pmon: detection, binding by header, idle rows, snapshots, time.
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "gpucost/ingest/ingest.hpp"
#include "ingest/formats/formats.hpp"

namespace gpucost {
namespace {

std::string read_data(const std::string& rel) {
  std::ifstream in(std::string(GPUCOST_TEST_DATA) + "/" + rel, std::ios::binary);
  EXPECT_TRUE(in.good()) << rel;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Parsed {
  IngestResult out;
  Diagnostics diag;
  const FileDiagnostics& file() const { return diag.files.at(0); }
  std::uint64_t nonblank() const { return file().lines - file().blank; }
  const Table& procs() const { return out.processes; }
};

Parsed parse_data(const std::string& rel) {
  Parsed p;
  IngestStage(IngestOptions{}).run_buffer(read_data(rel), rel, FormatId::unknown, p.out, p.diag);
  return p;
}

std::optional<double> flt(const Parsed& p, std::size_t row, std::size_t col) {
  if (!p.procs().column(col).is_valid(row)) return std::nullopt;
  return p.procs().column(col).get_float(row);
}
std::int64_t num(const Parsed& p, std::size_t row, std::size_t col) {
  EXPECT_TRUE(p.procs().column(col).is_valid(row)) << "row " << row << " col " << col;
  return p.procs().column(col).get_int(row);
}

TEST(PmonFormat, FixturesAreDetectedAndFullyAccepted) {
  for (const char* f : {"gpu/pmon-default-idle-2gpu.txt", "gpu/pmon-s-um-fb-ccpm-driver550.txt", "gpu/pmon-o-DT.txt"}) {
    const Parsed p = parse_data(f);
    EXPECT_EQ(p.file().format, FormatId::pmon) << f;
    EXPECT_EQ(p.file().accepted, p.nonblank()) << f;
    EXPECT_EQ(p.file().rejected(), 0u) << f;
    EXPECT_GT(p.out.samples.rows(), 0u) << f;  // a GPU sample row per GPU per interval
    EXPECT_TRUE(p.procs().consistent()) << f;
    EXPECT_TRUE(p.out.samples.consistent()) << f;
  }
}

std::optional<double> sample(const Parsed& p, std::size_t row, GpuMetric m) {
  const Column& c = p.out.samples.column(sample_col::first_metric + static_cast<std::size_t>(m));
  if (!c.is_valid(row)) return std::nullopt;
  return c.get_float(row);
}

// Each GPU of each interval is a sample row: the sum of its processes' sm and mem (`-` adds
// nothing), 0 for a GPU whose row of dashes says no process ran; nothing else is measured.
TEST(PmonFormat, EachGpuOfEachIntervalIsASampleOfItsProcessesSums) {
  const Parsed p = parse_data("gpu/pmon-default-idle-2gpu.txt");
  const Table& s = p.out.samples;
  ASSERT_EQ(s.rows(), 6u);
  const std::int64_t gpus[] = {0, 1, 0, 1, 0, 1};
  const std::int64_t lines[] = {3, 4, 5, 7, 8, 10};
  const double sm[] = {97, 0, 99, 0, 96, 2};   // 98 + Xorg's 1; 96 + Xorg's `-`
  const double mem[] = {54, 0, 55, 0, 53, 1};
  for (std::size_t r = 0; r < 6; ++r) {
    SCOPED_TRACE(r);
    EXPECT_EQ(s.column(sample_col::gpu).get_int(r), gpus[r]);
    EXPECT_EQ(s.column(sample_col::line).get_int(r), lines[r]);
    EXPECT_EQ(static_cast<WallKind>(s.column(sample_col::wall_kind).get_int(r)), WallKind::kRelative);
    EXPECT_EQ(s.column(sample_col::wall_raw_ns).get_int(r), static_cast<std::int64_t>(r / 2) * kNsPerSec);
    EXPECT_EQ(s.column(sample_col::interval_ns).get_int(r), kNsPerSec);
    EXPECT_EQ(sample(p, r, GpuMetric::sm_pct), sm[r]);
    EXPECT_EQ(sample(p, r, GpuMetric::mem_pct), mem[r]);
    EXPECT_EQ(sample(p, r, GpuMetric::power_w), std::nullopt);
    EXPECT_EQ(sample(p, r, GpuMetric::gpu_temp_c), std::nullopt);
  }
  EXPECT_EQ(p.file().records, 12u);  // 6 process rows and 6 sample rows
}

// The real pmon of an H200 collection (-o DT, every second): one sample a second, the one
// process's sm as the GPU's, the rows of dashes before it started as 0.
TEST(PmonFormat, TheRealH200PmonIsOneSampleASecond) {
  const Parsed p = parse_data("real/collect-h200-580/nvidia-smi-pmon.txt");
  EXPECT_EQ(p.file().rejected(), 0u);
  const Table& s = p.out.samples;
  ASSERT_EQ(s.rows(), 127u);  // 133 lines, the two header lines printed three times
  double sum = 0;
  std::size_t busy = 0, zero = 0;
  for (std::size_t r = 0; r < s.rows(); ++r) {
    EXPECT_EQ(s.column(sample_col::gpu).get_int(r), 0);
    EXPECT_EQ(s.column(sample_col::interval_ns).get_int(r), kNsPerSec);
    const auto v = sample(p, r, GpuMetric::sm_pct);
    ASSERT_TRUE(v) << r;
    sum += *v;
    busy += *v > 0;
    zero += *v == 0;
  }
  EXPECT_EQ(sum, 7477.0);  // the sm column of the 111 process rows, by hand (awk)
  EXPECT_EQ(busy, 79u);
  EXPECT_EQ(zero, 48u);  // 16 rows of dashes and 32 seconds of python3 at 0 %
  EXPECT_EQ(s.column(sample_col::wall_raw_ns).get_int(0), civil_to_ns(CivilTime{2026, 12, 4, 2, 3, 7, 0}));
  bool noted = false;
  for (const auto& n : p.file().notes) noted |= n.find("pmon: 127 GPU sample rows") == 0;
  EXPECT_TRUE(noted);
}

TEST(PmonFormat, IdleRowsCarryNoProcessAndSnapshotsFollowIntervals) {
  const Parsed p = parse_data("gpu/pmon-default-idle-2gpu.txt");
  ASSERT_EQ(p.procs().rows(), 6u);  // 8 rows, 2 of them idle GPUs
  const std::int64_t lines[] = {3, 5, 6, 8, 9, 10};
  const std::int64_t snapshots[] = {0, 1, 1, 2, 2, 2};
  for (std::size_t r = 0; r < 6; ++r) {
    EXPECT_EQ(num(p, r, process_col::line), lines[r]);
    EXPECT_EQ(num(p, r, process_col::snapshot), snapshots[r]) << r;
    EXPECT_EQ(static_cast<WallKind>(num(p, r, process_col::wall_kind)), WallKind::kRelative);
    EXPECT_EQ(num(p, r, process_col::wall_raw_ns), snapshots[r] * kNsPerSec);
    EXPECT_FALSE(p.procs().column(process_col::user).is_valid(r));
    EXPECT_FALSE(p.procs().column(process_col::cpu_pct).is_valid(r));
    EXPECT_FALSE(p.procs().column(process_col::stat).is_valid(r));
  }
  EXPECT_EQ(num(p, 0, process_col::pid), 21433);
  EXPECT_EQ(num(p, 0, process_col::gpu), 0);
  EXPECT_EQ(flt(p, 0, process_col::gpu_sm_pct), 97.0);
  EXPECT_EQ(flt(p, 0, process_col::gpu_mem_pct), 54.0);
  EXPECT_EQ(p.procs().column(process_col::command).get_string(0), "python3");
  // `    0       2101     G     -     -     -     -   Xorg`: no values is null, not 0.
  EXPECT_EQ(num(p, 4, process_col::pid), 2101);
  EXPECT_EQ(flt(p, 4, process_col::gpu_sm_pct), std::nullopt);
  EXPECT_EQ(flt(p, 4, process_col::gpu_mem_pct), std::nullopt);
  // A command with a blank in it (Firefox's content process) keeps it.
  EXPECT_EQ(num(p, 5, process_col::gpu), 1);
  EXPECT_EQ(num(p, 5, process_col::pid), 3377);
  EXPECT_EQ(p.procs().column(process_col::command).get_string(5), "Web Content");
  EXPECT_EQ(flt(p, 5, process_col::gpu_sm_pct), 2.0);
}

TEST(PmonFormat, FbColumnBeforeSmIsBoundByName) {
  const Parsed p = parse_data("gpu/pmon-s-um-fb-ccpm-driver550.txt");
  ASSERT_EQ(p.procs().rows(), 4u);
  EXPECT_EQ(num(p, 0, process_col::pid), 310442);
  EXPECT_EQ(flt(p, 0, process_col::gpu_sm_pct), std::nullopt);
  EXPECT_EQ(p.procs().column(process_col::command).get_string(0), "python3.10");
  EXPECT_EQ(num(p, 1, process_col::pid), 1702231);
  EXPECT_EQ(flt(p, 1, process_col::gpu_sm_pct), 41.0);
  EXPECT_EQ(flt(p, 1, process_col::gpu_mem_pct), 2.0);
  EXPECT_EQ(num(p, 3, process_col::gpu), 1);
  EXPECT_EQ(flt(p, 3, process_col::gpu_sm_pct), 86.0);
  EXPECT_EQ(flt(p, 3, process_col::gpu_mem_pct), 27.0);
  for (std::size_t r = 0; r < 4; ++r) EXPECT_EQ(num(p, r, process_col::snapshot), 0);
  // fb, ccpm, jpg, ofa are known columns without a place in the process table: no notes but
  // the one that says what the GPU sample rows are.
  ASSERT_EQ(p.file().notes.size(), 1u);
  EXPECT_EQ(p.file().notes[0].rfind("pmon: ", 0), 0u) << p.file().notes[0];
}

TEST(PmonFormat, DateTimeColumns) {
  const Parsed p = parse_data("gpu/pmon-o-DT.txt");
  ASSERT_EQ(p.procs().rows(), 4u);
  const TimeNs t11 = civil_to_ns(CivilTime{2024, 11, 5, 14, 3, 11, 0});
  const TimeNs raws[] = {t11, t11, t11 + kNsPerSec, t11 + kNsPerSec};
  const std::int64_t snapshots[] = {0, 0, 1, 1};
  for (std::size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(static_cast<WallKind>(num(p, r, process_col::wall_kind)), WallKind::kLocal);
    EXPECT_EQ(num(p, r, process_col::wall_raw_ns), raws[r]);
    EXPECT_EQ(num(p, r, process_col::snapshot), snapshots[r]);
  }
  EXPECT_EQ(num(p, 1, process_col::pid), 48305);
  EXPECT_EQ(flt(p, 1, process_col::gpu_sm_pct), 9.0);
}

TEST(PmonFormat, RowsBeforeHeaderAndMismatchesAreRejected) {
  const std::string text =
      "    0      21433     C    97    54     -     -   python3\n"
      "# gpu        pid  type    sm   mem   enc   dec   command\n"
      "# Idx          #   C/G     %     %     %     %   name\n"
      "    0      21433     C    97\n"
      "    0      21433     C    x7    54     -     -   python3\n"
      "    0      21433     C    96    53     -     -   python3\n";
  Parsed p;
  IngestStage(IngestOptions{}).run_buffer(text, "pmon.log", FormatId::unknown, p.out, p.diag);
  EXPECT_EQ(p.file().format, FormatId::pmon);
  EXPECT_EQ(p.file().problems[static_cast<std::size_t>(Problem::no_header)], 1u);
  EXPECT_EQ(p.file().problems[static_cast<std::size_t>(Problem::column_mismatch)], 1u);
  EXPECT_EQ(p.file().problems[static_cast<std::size_t>(Problem::bad_number)], 1u);
  ASSERT_EQ(p.procs().rows(), 1u);
  EXPECT_EQ(num(p, 0, process_col::line), 6);
}

TEST(PmonFormat, Scores) {
  const LogFormat& f = formats::pmon_format();
  EXPECT_EQ(f.score("# gpu        pid  type    sm   mem   enc   dec   command"), 100);
  EXPECT_EQ(f.score("# gpu        pid  type    fb    ccpm  sm   mem   enc   dec   jpg   ofa   command"), 100);
  EXPECT_EQ(f.score("# Idx          #   C/G     %     %     %     %   name"), 90);
  EXPECT_GT(f.score("    0      21433     C    97    54     -     -   python3"), 0);
  EXPECT_GT(f.score("    1          -     -     -     -     -     -   -"), 0);
  EXPECT_EQ(f.score("# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk"), 0);
  EXPECT_EQ(f.score("    0    119     59      -    100      0      0      0      0      0   6800   1665"), 0);
}

}  // namespace
}  // namespace gpucost
