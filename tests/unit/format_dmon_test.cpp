// nvidia-smi dmon: detection, column binding by header, nulls, time placement, rejected rows.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>

#include "gpucost/ingest/ingest.hpp"
#include "ingest/formats/formats.hpp"
#include "ingest/formats/nvidia_smi_common.hpp"
#include "gpucost/text.hpp"

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
};

Parsed parse_text(const std::string& text, const std::string& name, TimeNs interval = kNsPerSec) {
  IngestOptions o;
  o.parse.default_interval_ns = interval;
  Parsed p;
  IngestStage(o).run_buffer(text, name, FormatId::unknown, p.out, p.diag);
  return p;
}

Parsed parse_data(const std::string& rel, TimeNs interval = kNsPerSec) {
  return parse_text(read_data(rel), rel, interval);
}

std::optional<double> metric(const Parsed& p, std::size_t row, GpuMetric m) {
  const Column& c = p.out.samples.column(sample_metric_col(m));
  if (!c.is_valid(row)) return std::nullopt;
  return c.get_float(row);
}

std::int64_t col_int(const Parsed& p, std::size_t row, std::size_t col) {
  EXPECT_TRUE(p.out.samples.column(col).is_valid(row)) << "row " << row << " col " << col;
  return p.out.samples.column(col).get_int(row);
}

const ProblemSample* sample_of(const Parsed& p, Problem kind) {
  for (const auto& s : p.file().samples)
    if (s.problem == kind) return &s;
  return nullptr;
}

TEST(DmonFormat, RealSamplesAreDetectedAndFullyAccepted) {
  const struct {
    const char* file;
    std::size_t rows;
  } cases[] = {
      {"real/dmon/pucet-o-DT-ecc-dash-2021.txt", 3},
      {"real/dmon/3gpu-mixed-rtx30-driver535-trailing-space.txt", 3},
      {"real/dmon/slurm-pucm-fb-bar1-ccpm-mtemp.txt", 5},
      {"real/dmon/default-single-gpu-dcgm-exporter-issue.txt", 4},
      {"real/dmon/dcgm-go-sample-dmon-old-temp-col.txt", 2},
  };
  for (const auto& c : cases) {
    const Parsed p = parse_data(c.file);
    EXPECT_EQ(p.file().format, FormatId::dmon) << c.file;
    EXPECT_EQ(p.file().accepted, p.nonblank()) << c.file;
    EXPECT_EQ(p.file().rejected(), 0u) << c.file;
    EXPECT_EQ(p.out.samples.rows(), c.rows) << c.file;
    EXPECT_TRUE(p.out.samples.consistent()) << c.file;
  }
}

TEST(DmonFormat, DateTimeRowOfThePucetSample) {
  // Row 2: ` 20210102   19:12:33      0    39    19     -     0     0     0     0  4006  1582     -     -     0     0     0`
  const Parsed p = parse_data("real/dmon/pucet-o-DT-ecc-dash-2021.txt");
  ASSERT_EQ(p.out.samples.rows(), 3u);
  EXPECT_EQ(col_int(p, 1, sample_col::line), 4);
  EXPECT_EQ(col_int(p, 1, sample_col::gpu), 0);
  EXPECT_EQ(metric(p, 1, GpuMetric::power_w), 39.0);
  EXPECT_EQ(metric(p, 1, GpuMetric::gpu_temp_c), 19.0);
  EXPECT_EQ(metric(p, 1, GpuMetric::pclk_mhz), 1582.0);
  EXPECT_EQ(metric(p, 1, GpuMetric::mclk_mhz), 4006.0);
  EXPECT_EQ(metric(p, 1, GpuMetric::mem_temp_c), std::nullopt);
  EXPECT_EQ(metric(p, 1, GpuMetric::sbecc), std::nullopt);
  EXPECT_EQ(metric(p, 1, GpuMetric::dbecc), std::nullopt);
  EXPECT_EQ(metric(p, 1, GpuMetric::pci_err), 0.0);
  EXPECT_EQ(metric(p, 1, GpuMetric::txpci_mbs), 0.0);
  EXPECT_EQ(metric(p, 1, GpuMetric::fb_mb), std::nullopt);  // not selected: no column
  EXPECT_EQ(static_cast<WallKind>(col_int(p, 1, sample_col::wall_kind)), WallKind::kLocal);
  EXPECT_EQ(col_int(p, 1, sample_col::wall_raw_ns), civil_to_ns(CivilTime{2021, 1, 2, 19, 12, 33, 0}));
  // Row 1 differs: pclk 582, txpci 1.
  EXPECT_EQ(metric(p, 0, GpuMetric::pclk_mhz), 582.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::txpci_mbs), 1.0);
  // `-d 2`: the interval is inferred from the stamps, for every row.
  for (std::size_t r = 0; r < 3; ++r) EXPECT_EQ(col_int(p, r, sample_col::interval_ns), 2 * kNsPerSec);
}

TEST(DmonFormat, SeveralGpusInOneRoundWithoutTime) {
  const Parsed p = parse_data("real/dmon/3gpu-mixed-rtx30-driver535-trailing-space.txt");
  ASSERT_EQ(p.out.samples.rows(), 3u);
  for (std::size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(col_int(p, r, sample_col::gpu), static_cast<std::int64_t>(r));
    EXPECT_EQ(static_cast<WallKind>(col_int(p, r, sample_col::wall_kind)), WallKind::kRelative);
    EXPECT_EQ(col_int(p, r, sample_col::wall_raw_ns), 0);  // one round
    EXPECT_EQ(col_int(p, r, sample_col::interval_ns), kNsPerSec);
  }
  EXPECT_EQ(metric(p, 0, GpuMetric::mclk_mhz), 6800.0);
  EXPECT_EQ(metric(p, 2, GpuMetric::power_w), 219.0);
  EXPECT_EQ(metric(p, 2, GpuMetric::gpu_temp_c), 74.0);
  EXPECT_EQ(metric(p, 1, GpuMetric::jpg_pct), 0.0);
  EXPECT_EQ(metric(p, 1, GpuMetric::mem_temp_c), std::nullopt);
}

TEST(DmonFormat, OldSingleTempColumnAndMemoryColumns) {
  const Parsed old = parse_data("real/dmon/dcgm-go-sample-dmon-old-temp-col.txt");
  ASSERT_EQ(old.out.samples.rows(), 2u);
  EXPECT_EQ(metric(old, 0, GpuMetric::gpu_temp_c), 48.0);
  EXPECT_EQ(metric(old, 0, GpuMetric::mem_temp_c), std::nullopt);
  EXPECT_EQ(metric(old, 0, GpuMetric::mclk_mhz), 3505.0);
  // GPU 0 twice: the second row is the next round, one default interval later.
  EXPECT_EQ(col_int(old, 1, sample_col::wall_raw_ns), kNsPerSec);

  const Parsed m = parse_data("real/dmon/slurm-pucm-fb-bar1-ccpm-mtemp.txt");
  ASSERT_EQ(m.out.samples.rows(), 5u);
  EXPECT_EQ(metric(m, 0, GpuMetric::mem_temp_c), 54.0);
  EXPECT_EQ(metric(m, 0, GpuMetric::fb_mb), 3953.0);
  EXPECT_EQ(metric(m, 0, GpuMetric::bar1_mb), 3952.0);
  EXPECT_EQ(metric(m, 0, GpuMetric::ccpm_mb), 0.0);
  EXPECT_EQ(metric(m, 3, GpuMetric::sm_pct), 52.0);
  EXPECT_EQ(metric(m, 4, GpuMetric::mem_temp_c), 52.0);
}

TEST(DmonFormat, TimeOnlyRowsRollOverMidnight) {
  const Parsed p = parse_data("gpu/dmon-o-T-midnight-2gpu.txt");
  ASSERT_EQ(p.out.samples.rows(), 8u);
  EXPECT_EQ(p.file().format, FormatId::dmon);
  const TimeNs expected[] = {86398, 86398, 86399, 86399, 86400, 86400, 86401, 86401};
  for (std::size_t r = 0; r < 8; ++r) {
    EXPECT_EQ(static_cast<WallKind>(col_int(p, r, sample_col::wall_kind)), WallKind::kLocalNoDate);
    EXPECT_EQ(col_int(p, r, sample_col::wall_raw_ns), expected[r] * kNsPerSec) << r;
    EXPECT_EQ(col_int(p, r, sample_col::gpu), static_cast<std::int64_t>(r % 2));
    EXPECT_EQ(col_int(p, r, sample_col::interval_ns), kNsPerSec);
  }
  EXPECT_EQ(metric(p, 5, GpuMetric::power_w), 61.0);
  EXPECT_EQ(metric(p, 5, GpuMetric::pclk_mhz), 1835.0);
}

TEST(DmonFormat, UntimedRoundsOfFourGpusUseTheDmonInterval) {
  const Parsed p = parse_data("gpu/dmon-pucvmet-4gpu-no-time.txt", 2 * kNsPerSec);
  ASSERT_EQ(p.out.samples.rows(), 10u);
  EXPECT_EQ(p.file().accepted, p.nonblank());
  for (std::size_t r = 0; r < 10; ++r) {
    EXPECT_EQ(static_cast<WallKind>(col_int(p, r, sample_col::wall_kind)), WallKind::kRelative);
    EXPECT_EQ(col_int(p, r, sample_col::wall_raw_ns), static_cast<TimeNs>(r / 4) * 2 * kNsPerSec) << r;
    EXPECT_EQ(col_int(p, r, sample_col::interval_ns), 2 * kNsPerSec);
    EXPECT_EQ(col_int(p, r, sample_col::gpu), static_cast<std::int64_t>(r % 4));
  }
  // Row 6: `    1   111    83    20     6     0     0  4513  1733     0     0 11653     2     -     -     0    27    12`
  EXPECT_EQ(metric(p, 5, GpuMetric::power_w), 111.0);
  EXPECT_EQ(metric(p, 5, GpuMetric::gpu_temp_c), 83.0);
  EXPECT_EQ(metric(p, 5, GpuMetric::pviol_pct), 0.0);
  EXPECT_EQ(metric(p, 5, GpuMetric::tviol), 0.0);
  EXPECT_EQ(metric(p, 5, GpuMetric::fb_mb), 11653.0);
  EXPECT_EQ(metric(p, 5, GpuMetric::sbecc), std::nullopt);
  EXPECT_EQ(metric(p, 5, GpuMetric::rxpci_mbs), 27.0);
  EXPECT_EQ(metric(p, 5, GpuMetric::txpci_mbs), 12.0);
}

TEST(DmonFormat, RepeatedHeadersRebindAndBadRowsAreRejectedAlone) {
  const Parsed p = parse_data("gpu/dmon-repeated-header-changes.txt");
  EXPECT_EQ(p.file().format, FormatId::dmon);
  ASSERT_EQ(p.out.samples.rows(), 5u);
  EXPECT_EQ(p.file().accepted, 11u);  // 6 header lines and 5 rows
  EXPECT_EQ(p.file().problems[static_cast<std::size_t>(Problem::bad_number)], 1u);
  EXPECT_EQ(p.file().problems[static_cast<std::size_t>(Problem::column_mismatch)], 1u);
  const ProblemSample* bad = sample_of(p, Problem::bad_number);
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->line, 9u);
  EXPECT_NE(bad->reason.find("`mem`"), std::string::npos) << bad->reason;
  EXPECT_NE(bad->reason.find("9x"), std::string::npos) << bad->reason;
  const ProblemSample* mismatch = sample_of(p, Problem::column_mismatch);
  ASSERT_NE(mismatch, nullptr);
  EXPECT_EQ(mismatch->line, 10u);
  EXPECT_EQ(mismatch->reason, "row has 6 fields, header has 7");

  const std::int64_t lines[] = {3, 4, 8, 11, 15};
  for (std::size_t r = 0; r < 5; ++r) EXPECT_EQ(col_int(p, r, sample_col::line), lines[r]);
  // Under the second header: no power column, fb and bar1 are there.
  EXPECT_EQ(metric(p, 2, GpuMetric::power_w), std::nullopt);
  EXPECT_EQ(metric(p, 2, GpuMetric::sm_pct), 98.0);
  EXPECT_EQ(metric(p, 2, GpuMetric::fb_mb), 22105.0);
  EXPECT_EQ(metric(p, 2, GpuMetric::bar1_mb), 5.0);
  EXPECT_EQ(metric(p, 3, GpuMetric::mem_pct), 91.0);
  // The third header brings the default columns back.
  EXPECT_EQ(metric(p, 4, GpuMetric::power_w), 268.0);
  EXPECT_EQ(metric(p, 4, GpuMetric::fb_mb), std::nullopt);
  EXPECT_EQ(metric(p, 4, GpuMetric::pclk_mhz), 1710.0);
  // Rejected rows are no rounds: the five kept rows of GPU 0 are rounds 0..4.
  for (std::size_t r = 0; r < 5; ++r)
    EXPECT_EQ(col_int(p, r, sample_col::wall_raw_ns), static_cast<TimeNs>(r) * kNsPerSec);
}

TEST(DmonFormat, RowBeforeAnyHeaderAndCrlf) {
  const Parsed p = parse_data("gpu/dmon-row-before-header-crlf.txt");
  EXPECT_EQ(p.file().format, FormatId::dmon);
  EXPECT_EQ(p.file().problems[static_cast<std::size_t>(Problem::no_header)], 1u);
  const ProblemSample* s = sample_of(p, Problem::no_header);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->line, 1u);
  ASSERT_EQ(p.out.samples.rows(), 2u);
  EXPECT_EQ(metric(p, 0, GpuMetric::pclk_mhz), 1665.0);
  EXPECT_EQ(metric(p, 1, GpuMetric::power_w), 158.0);
  EXPECT_EQ(col_int(p, 1, sample_col::gpu), 1);
}

TEST(DmonFormat, BadDateAndUnknownColumnsNotedOnce) {
  const std::string text =
      "#Date       Time        gpu   pwr  foo\n"
      "#YYYYMMDD   HH:MM:SS    Idx     W    x\n"
      " 20210102   19:12:31      0    37    1\n"
      " 20211302   19:12:33      0    39    1\n"
      "#Date       Time        gpu   pwr  foo\n"
      " 20210102   19:12:35      0    41    1\n";
  const Parsed p = parse_text(text, "dmon.txt");
  EXPECT_EQ(p.file().format, FormatId::dmon);
  ASSERT_EQ(p.out.samples.rows(), 2u);
  EXPECT_EQ(p.file().problems[static_cast<std::size_t>(Problem::bad_timestamp)], 1u);
  std::size_t foo_notes = 0;
  for (const auto& n : p.file().notes)
    if (n.find("`foo`") != std::string::npos) ++foo_notes;
  EXPECT_EQ(foo_notes, 1u);
  // 19:12:31 -> 19:12:35 with the bad row between: one step of 4 s.
  EXPECT_EQ(col_int(p, 0, sample_col::interval_ns), 4 * kNsPerSec);
}

TEST(DmonFormat, FieldSplitMatchesAPlainTokenizer) {
  // The splitter scans 8 bytes at a time; compare it with next_token on lines of every shape:
  // tokens and gaps shorter and longer than 8 bytes, at both ends, with tabs and CRs.
  std::mt19937 rng(12345);
  const std::string alphabet = "   0123456789-.abcXYZ";
  std::vector<std::string_view> got;
  for (int i = 0; i < 20000; ++i) {
    std::string line;
    const int n = static_cast<int>(rng() % 60);
    for (int k = 0; k < n; ++k) {
      const unsigned r = rng() % 100;
      line += r < 2 ? '\t' : r < 3 ? '\r' : alphabet[rng() % alphabet.size()];
    }
    formats::nvsmi::split_blanks(line, got);
    std::vector<std::string_view> want;
    std::string_view rest = line;
    while (!text::ltrim(rest).empty()) want.push_back(text::next_token(rest));
    ASSERT_EQ(got, want) << "line: [" << line << "]";
  }
}

TEST(DmonFormat, Scores) {
  const LogFormat& f = formats::dmon_format();
  EXPECT_EQ(f.score("# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk "), 100);
  EXPECT_EQ(f.score("#Date       Time        gpu   pwr gtemp mtemp    sm   mem"), 100);
  EXPECT_EQ(f.score("#Time        gpu  rxpci  txpci"), 100);
  EXPECT_EQ(f.score("# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz "), 90);
  EXPECT_EQ(f.score("#YYYYMMDD   HH:MM:SS    Idx     W     C     C     %     %"), 90);
  const int row = f.score("    0    119     59      -    100      0      0      0      0      0   6800   1665 ");
  EXPECT_GT(row, 0);
  EXPECT_LT(row, 90);
  EXPECT_GT(f.score(" 20210102   19:12:31      0    37    19     -     0     0     0     0  4006   582"), 0);
  // pmon lines are not dmon's.
  EXPECT_EQ(f.score("# gpu        pid  type    sm   mem   enc   dec   command"), 0);
  EXPECT_EQ(f.score("# Idx          #   C/G     %     %     %     %   name"), 0);
  EXPECT_EQ(f.score("    0      21433     C    97    54     -     -   python3"), 0);
  EXPECT_EQ(f.score("    1          -     -     -     -     -     -   -"), 0);
  EXPECT_EQ(f.score("Nov 29 19:50:45 host kernel: [ 4909.922970] NVRM: Xid"), 0);
  EXPECT_EQ(f.score(""), 0);
}

}  // namespace
}  // namespace gpucost
