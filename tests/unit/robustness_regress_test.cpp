// Regression tests of what fuzzing found (docs/robustness.md, "Findings"): each reproducer is
// also kept in fuzz/corpus/<target>/regress-*, replayed under the sanitizers by ctest in the
// sanitizer build. Here the same inputs run in the normal build, with the outcome asserted.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "align_fixtures.hpp"
#include "gpucost/ingest/ingest.hpp"
#include "gpucost/ingest/line_source.hpp"
#include "gpucost/text.hpp"
#include "ingest/formats/kernel_message.hpp"
#include "ingest/formats/stamps.hpp"
#include "robustness_util.hpp"
#include "structured_test_util.hpp"

namespace gpucost::robust {
namespace {

using gpucost::testing::run_format;
using gpucost::testing::sample_reasons;

std::uint64_t count(const FileDiagnostics& d, Problem p) { return d.problems[static_cast<std::size_t>(p)]; }

// Finding 1 (fuzz_dmon, fuzz_query_gpu, fuzz_detect): a year the logs cannot mean, such as 4042,
// overflowed int64 nanoseconds (undefined behaviour). Such a date is now a bad timestamp; the
// rows around it are kept.
TEST(RobustRegress, DmonDateOutsideTheStampYearsIsABadTimestamp) {
  const std::string file =
      "#Date       Time        gpu   pwr gtemp    sm   mem\n"
      "#YYYYMMDD   HH:MM:SS    Idx     W     C     %     %\n"
      " 20210102   19:12:31      0    37    19     0     0\n"
      " 40420204   19:12:33      0    39    19     0     0\n"
      " 18991231   19:12:35      0    39    19     0     0\n"
      " 20210102   19:12:37      0    39    19     0     0\n";
  auto run = run_format(FormatId::dmon, file);
  EXPECT_EQ(count(run->diag(), Problem::bad_timestamp), 2u) << sample_reasons(run->diag(), Problem::unparsable_line);
  EXPECT_EQ(run->sink->samples().rows(), 2u);
}

TEST(RobustRegress, QueryGpuTimestampOutsideTheStampYearsIsABadTimestamp) {
  const std::string file =
      "timestamp, index, utilization.gpu [%]\n"
      "2024/06/03 09:14:02.201, 0, 5 %\n"
      "4048/06/03 09:14:02.201, 0, 6 %\n"
      "2024/06/03 09:14:07.201, 0, 7 %\n";
  auto run = run_format(FormatId::query_gpu_csv, file);
  EXPECT_EQ(count(run->diag(), Problem::bad_timestamp), 1u);
  EXPECT_EQ(run->sink->samples().rows(), 2u);
}

TEST(RobustRegress, StampLayoutsRejectYearsOutsideTheStampYears) {
  formats::ParsedStamp p;
  std::string_view zone;
  EXPECT_TRUE(formats::parse_short_full("Sun 2026-11-29 19:50:45 CET rest", p, zone));
  EXPECT_FALSE(formats::parse_short_full("Sun 2826-11-29 19:50:45 CET rest", p, zone));  // fuzz_time
  EXPECT_TRUE(formats::parse_rfc3339("2200-12-31T23:59:59Z", p));
  EXPECT_FALSE(formats::parse_rfc3339("2201-01-01T00:00:00Z", p));
  EXPECT_FALSE(formats::parse_rfc3339("9999-12-31T23:59:59Z", p));
  EXPECT_FALSE(formats::parse_rfc3339("0001-01-01T00:00:00Z", p));
  EXPECT_FALSE(formats::parse_rfc3339("1969-12-31T23:59:59Z", p));
  EXPECT_TRUE(formats::parse_rfc3339("1970-01-01T00:00:00Z", p));  // machines without a clock say so
  EXPECT_TRUE(formats::parse_ctime("Sun Nov 29 19:50:45 2026", p));
  EXPECT_FALSE(formats::parse_ctime("Sun Nov 29 19:50:45 9999", p));
  TimeNs utc = 0;
  EXPECT_TRUE(formats::parse_unix_stamp("1764445845.123456 host", utc, p));
  EXPECT_EQ(utc, 1'764'445'845'123'456'000);
  EXPECT_FALSE(formats::parse_unix_stamp("99999999999.123456 host", utc, p));  // year 5138
}

// Finding 2: dmesg stamps of 10 to 12 digits of seconds overflowed; 9 digits (31 years of uptime)
// is the most a kernel prints.
TEST(RobustRegress, MonotonicStampsLongerThanThirtyYearsAreNoStamps) {
  TimeNs mono = 0;
  std::size_t len = 0;
  EXPECT_TRUE(formats::parse_mono_stamp("[999999999.999999] x", mono, len));
  EXPECT_EQ(mono, 999'999'999'999'999'000);
  EXPECT_FALSE(formats::parse_mono_stamp("[9999999999.000000] x", mono, len));
  EXPECT_FALSE(formats::parse_mono_stamp("[999999999999.999999] x", mono, len));
}

// Finding 3: every line alternating December and January is a year rollover; 263 of them
// overflowed. The count stops at 20.
TEST(RobustRegress, YearRolloversStopAtTwenty) {
  formats::NoYearClock clock;
  TimeNs last = 0;
  for (int i = 0; i < 400; ++i) {
    CivilTime c;
    c.month = i % 2 ? 1 : 12;
    c.day = 15;
    last = clock.place(c);
  }
  EXPECT_EQ(clock.rollovers(), formats::NoYearClock::kMaxRollovers);
  EXPECT_EQ(no_year_stamp(last).rollovers, formats::NoYearClock::kMaxRollovers);
}

// Finding 9 (fuzz_time, CI smoke run): a BSD stamp `фев 29 16:12:25` parsed with the year left at
// 1970, so its civil date (1970-02-29) was no date. The stand-in year is 2000, a leap year.
TEST(RobustRegress, BsdStampOfFebruaryTwentyNinthIsAValidCivilDate) {
  formats::ParsedStamp p;
  formats::DayPadding pad;
  ASSERT_TRUE(formats::parse_bsd_stamp("фев 29 16:12:25 box kernel: x", p, pad));
  EXPECT_TRUE(valid_date(p.civil.year, p.civil.month, p.civil.day));
  EXPECT_EQ(p.civil.month, 2u);
  EXPECT_EQ(p.civil.day, 29u);
  EXPECT_FALSE(formats::parse_bsd_stamp("Feb 30 16:12:25 box kernel: x", p, pad));
}

// Finding 8 (fuzz_time, 60 s campaign): `Feb 29` after a year rollover was placed in provisional
// year 2001, which has no Feb 29: it became Mar 1 for good, even when the real year (a log from
// Dec 2023 into 2024) has one. Every provisional year has a Feb 29 now (no_year_raw()).
TEST(RobustRegress, FebruaryTwentyNinthAfterANewYearSurvivesUntilTheYearIsKnown) {
  formats::NoYearClock clock;
  CivilTime dec{2000, 12, 31, 23, 59, 0, 0}, feb{2000, 2, 29, 10, 0, 0, 0};
  clock.place(dec);
  const NoYearStamp s = no_year_stamp(clock.place(feb));
  EXPECT_EQ(s.rollovers, 1);
  EXPECT_EQ(s.month, 2u);
  EXPECT_EQ(s.day, 29u);
  EXPECT_EQ(s.time_of_day, 10 * kNsPerHour);
  // Dec 31 of one provisional year is still one day before Jan 1 of the next.
  EXPECT_EQ(no_year_raw({1, 1, 1, 0}) - no_year_raw({0, 12, 31, 0}), kNsPerDay);

  Scratch d("leap");
  write_bytes(d.path() / "kern.log",
              "Dec 31 23:59:00 box kernel: [ 100.000000] NVRM: Xid (PCI:0000:01:00): 13, pid=7, name=python, Graphics Exception\n"
              "Feb 29 10:00:00 box kernel: [ 200.000000] NVRM: Xid (PCI:0000:01:00): 31, pid=7, name=python, MMU Fault\n"
              "Mar  1 10:00:00 box kernel: [ 300.000000] NVRM: Xid (PCI:0000:01:00): 43, pid=7, name=python, Ch 00000010\n");
  for (const auto& [year, feb_day] : {std::pair{"2023", "2024-02-29T"}, std::pair{"2022", "2023-03-01T"}}) {
    const Child c = run({"timeline", d.path().string(), "--year", year, "--tz", "UTC"});
    EXPECT_EQ(c.exit_code, 0) << c.err;
    EXPECT_NE(c.out.find(feb_day), std::string::npos) << year << "\n" << c.out;
  }
}

// The same for dmon -o T rows alternating 23:59 and 00:00: a midnight every other row; the days
// stop at twenty years.
TEST(RobustRegress, MidnightsOfTimeOnlyDmonStopAtTwentyYears) {
  std::string file = "#Time        gpu    sm\n#HH:MM:SS    Idx     %\n";
  for (int i = 0; i < 40'000; ++i) file += i % 2 ? " 00:00:01      0     5\n" : " 23:59:59      0     5\n";
  auto run = run_format(FormatId::dmon, file);
  ASSERT_EQ(run->sink->samples().rows(), 40'000u);
  const Column& raw = run->sink->samples().column(sample_col::wall_raw_ns);
  EXPECT_EQ(raw.get_int(1999), 1000 * kNsPerDay + kNsPerSec);     // 1000 midnights: counted
  EXPECT_EQ(raw.get_int(39'999), 7'300 * kNsPerDay + kNsPerSec);  // 20 000: stopped at 7 300
}

// Finding 4: __REALTIME_TIMESTAMP up to 2^63 ns was accepted, and a monotonic stamp that large
// overflowed boot time + monotonic in align. Both are bounded now.
TEST(RobustRegress, JournalStampsBeyondTheStampYearsAreBadTimestamps) {
  const std::string file =
      R"({"__REALTIME_TIMESTAMP":"1795137693119613","__MONOTONIC_TIMESTAMP":"1292707307","MESSAGE":"a"})" "\n"
      R"({"__REALTIME_TIMESTAMP":"9223372036854775","MESSAGE":"year 2262"})" "\n"
      R"({"__REALTIME_TIMESTAMP":"1795137693119614","__MONOTONIC_TIMESTAMP":"9000000000000000","MESSAGE":"b"})" "\n";
  auto run = run_format(FormatId::journal_json, file);
  EXPECT_EQ(count(run->diag(), Problem::bad_timestamp), 1u);
  EXPECT_EQ(run->diag().accepted, 2u);
  ASSERT_EQ(run->sink->anchors().size(), 1u);  // the 285-year uptime makes no anchor
  EXPECT_EQ(run->sink->anchors()[0].mono_ns, 1'292'707'307'000);
}

// A modification time after 2262 (a broken clock, an odd archive) overflowed the mtime in ns.
TEST(RobustRegress, ModificationTimesOutsideTheStampYearsAreNoTime) {
  Scratch d("mtime");
  write_bytes(d / "dmesg.txt", test_data(kGoodDmesg));
  const timespec times[2] = {{0, UTIME_OMIT}, {10'413'792'000, 0}};  // 2300-01-01: past int64 ns, inside ext4's range
  ASSERT_EQ(::utimensat(AT_FDCWD, (d / "dmesg.txt").c_str(), times, 0), 0);
  struct stat st {};
  ASSERT_EQ(::stat((d / "dmesg.txt").c_str(), &st), 0);
  if (st.st_mtim.tv_sec != 10'413'792'000) GTEST_SKIP() << "this file system cannot hold the year 2300";
  IngestResult out;
  Diagnostics diag;
  IngestStage(IngestOptions{}).run(d.path(), out, diag);
  ASSERT_EQ(out.files.size(), 1u);
  EXPECT_EQ(out.files[0].mtime_ns, kNoTime);
  EXPECT_EQ(out.events.rows(), 4u);  // three events and the file's last-line mark (FileSink::finish)
}

// Lines a parser rejects that hold NUL or control bytes are binary_data, not unparsable_line.
TEST(RobustRegress, RejectedBinaryLinesAreBinaryData) {
  const std::string file = std::string(kKernLogLines) + std::string("\x01\x02garbage\x7f\n") + "not a log line\n" +
                           std::string("a\0b\n", 4);
  auto run = run_format(FormatId::syslog, file);
  EXPECT_EQ(count(run->diag(), Problem::binary_data), 2u) << sample_reasons(run->diag(), Problem::unparsable_line);
  EXPECT_EQ(count(run->diag(), Problem::unparsable_line), 1u);
  EXPECT_NE(sample_reasons(run->diag(), Problem::binary_data).find("binary bytes"), std::string::npos);
  // Random bytes (compressed data, an image) have a control character in about one byte of
  // nine; a text line with a stray bell or backspace is still text.
  EXPECT_TRUE(text::looks_binary("\x8b\x1f\x03\xff\xd8\x91\x12\xa0\xc4\x7f\x05\x99\x88\x77\x66\x55"));
  EXPECT_FALSE(text::looks_binary("Nov 29 11:28:11 zeus kernel: beep\x07 and a backspace\x08 in a message"));
  EXPECT_FALSE(text::looks_binary("\x1b[0;31mERROR\x1b[0m\tcolours and tabs\r"));
  EXPECT_FALSE(text::looks_binary("caf\xe9 \xe6\x9c\x88 Latin-1 and UTF-8 are text"));
}

// Zero padding in front of a line (a crash's remains in kern.log) is dropped and counted; the
// line behind it is read.
TEST(RobustRegress, ZeroPaddingBeforeALineIsSkippedAndCounted) {
  const std::string data = std::string(5000, '\0') + "first\n" + std::string(3, '\0') + "\nsecond\n";
  auto src = make_buffer_source(data, 1024);
  Line l;
  ASSERT_TRUE(src->next(l));
  EXPECT_EQ(l.text, "first");
  EXPECT_FALSE(l.truncated);
  ASSERT_TRUE(src->next(l));
  EXPECT_EQ(l.text, "");
  ASSERT_TRUE(src->next(l));
  EXPECT_EQ(l.text, "second");
  EXPECT_EQ(l.number, 3u);
  EXPECT_EQ(src->nul_bytes_skipped(), 5003u);
}

// A log that another process keeps appending to is read up to its size when opened.
TEST(RobustRegress, FilesAreReadUpToTheirSizeWhenOpened) {
  Scratch d("size_at_open");
  write_bytes(d / "live.log", "one\ntwo\n");
  std::string err;
  auto src = open_line_source((d / "live.log").string(), err);
  ASSERT_TRUE(src) << err;
  {
    std::ofstream f(d / "live.log", std::ios::app);
    f << "three\n";
  }
  Line l;
  std::vector<std::string> lines;
  while (src->next(l)) lines.emplace_back(l.text);
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two"}));
  EXPECT_TRUE(src->error().empty());
}


// Finding 5 (fuzz_pmon): a GPU index or pid beyond 32 bits overflowed the snapshot key. Both are
// bad numbers now; the other rows are read.
TEST(RobustRegress, PmonGpuAndPidOutOfRangeAreBadNumbers) {
  const std::string file =
      "# gpu        pid  type    sm   mem   enc   dec   command\n"
      "# Idx          #   C/G     %     %     %     %   name\n"
      "    0      21433     C    97    54     -     -   python3\n"
      "    3709551615 2410087     C    97    54     -     -   python3\n"
      "    0  99999999999999     C    97    54     -     -   python3\n"
      "    0      21433     C    98    55     -     -   python3\n";
  auto run = run_format(FormatId::pmon, file);
  EXPECT_EQ(count(run->diag(), Problem::bad_number), 2u) << sample_reasons(run->diag(), Problem::bad_number);
  EXPECT_EQ(run->sink->processes().rows(), 2u);
}

// Finding 6 (fuzz_nvidia_smi_q, fuzz_query_gpu): a PCIe generation or width of 3.2e11 (or
// 5.6e114) was converted to int: undefined behaviour. Out of range, it is no value.
TEST(RobustRegress, PcieGenerationAndWidthOutOfRangeAreNoValues) {
  const std::string q =
      "==============NVSMI LOG==============\n\n"
      "Timestamp                           : Mon Nov  5 14:50:59 2018\n"
      "Driver Version                      : 410.48\n\n"
      "Attached GPUs                       : 1\n"
      "GPU 00000000:18:00.0\n"
      "    Product Name                    : Tesla V100-PCIE-32GB\n"
      "    PCI\n"
      "        Bus Id                      : 00000000:18:00.0\n"
      "        GPU Link Info\n"
      "            PCIe Generation\n"
      "                Max                 : 321618000000\n"
      "                Current             : 3\n"
      "            Link Width\n"
      "                Max                 : 16x\n"
      "                Current             : 5e114x\n";
  auto run = run_format(FormatId::nvidia_smi_q, q);
  ASSERT_EQ(run->sink->devices().size(), 1u);
  const GpuDevice& d = run->sink->devices()[0];
  EXPECT_FALSE(d.pcie_gen_max.has_value());
  EXPECT_EQ(d.pcie_gen_current, 3);
  EXPECT_EQ(d.pcie_width_max, 16);
  EXPECT_FALSE(d.pcie_width_current.has_value());

  const std::string csv =
      "index, name, pcie.link.width.current, pcie.link.width.max\n"
      "0, NVIDIA A100, 16, 16\n"
      "1, NVIDIA A100, 5.55556e+114, 16\n"
      "70000, NVIDIA A100, 16, 16\n";
  auto run2 = run_format(FormatId::query_gpu_csv, csv);
  EXPECT_EQ(count(run2->diag(), Problem::bad_number), 2u) << sample_reasons(run2->diag(), Problem::bad_number);
  ASSERT_EQ(run2->sink->devices().size(), 1u);
  EXPECT_EQ(run2->sink->devices()[0].pcie_width_current, 16);
}


// --since/--until took any year 0000..9999 and overflowed; outside the stamp years they are a
// usage error.
TEST(RobustRegress, SinceAndUntilOutsideTheStampYearsAreUsageErrors) {
  Scratch d("since");
  put_good_data(d.path());
  for (const char* bad : {"9999-01-01", "1600-01-01T00:00:00Z"}) {
    const Child c = run({"analyze", d.path().string(), "--since", bad});
    EXPECT_EQ(c.exit_code, 2) << bad;
    EXPECT_NE(c.err.find("years 1970..2200"), std::string::npos) << c.err;
    EXPECT_TRUE(c.out.empty());
  }
  EXPECT_EQ(run({"analyze", d.path().string(), "--since", "2026-11-29", "--until", "2200-12-31"}).exit_code, 0);
}


// Finding 7 (fuzz_align): stamps 1900 and 2219 apart in one directory overflowed the distance
// between them in year inference (`lo - d.hi`): instants of 1900..2250 can lie further apart
// than int64 nanoseconds hold. The stamp years are 1970..2200 now, with at most 20 years added,
// so every difference fits. The extremes together must align (the sanitizer build checks that
// nothing overflows on the way).
TEST(RobustRegress, StampsAtBothEndsOfTheStampYearsAlign) {
  test::Input b;
  const auto sys = b.file("kern.log", FormatId::syslog, test::at(2200, 12, 31));
  const auto dmon = b.file("dmon.txt", FormatId::dmon, kNoTime);
  const auto dm = b.file("dmesg.txt", FormatId::dmesg, test::at(2200, 12, 31, 23, 59, 59));
  b.event({.file = sys, .line = 1, .wall_kind = WallKind::kUtc, .wall = test::at(1970, 1, 1), .text = "a"});
  b.event({.file = sys, .line = 2, .wall_kind = WallKind::kUtc, .wall = test::at(2200, 12, 31, 23, 59, 59), .text = "b"});
  b.event({.file = sys, .line = 3, .wall_kind = WallKind::kLocalNoYear, .wall = test::at(2020, 12, 31), .text = "c"});
  b.sample(dmon, 1, 0, WallKind::kLocalNoDate, 0);
  b.sample(dmon, 2, 0, WallKind::kLocalNoDate, 7'300 * kNsPerDay + kNsPerSec);
  b.event({.file = dm, .line = 1, .mono = kMaxMonotonicNs, .text = "d"});
  for (const std::string tz : {"", "+14:00", "-12:00", "Pacific/Kiritimati"}) {
    AlignOptions o;
    o.tz = tz;
    Diagnostics diag;
    const Timeline t = test::align(b.in, o, &diag);
    EXPECT_EQ(t.events.rows(), 4u) << tz;
    EXPECT_EQ(t.samples.rows(), 2u) << tz;
    EXPECT_LE(t.first_ns, t.last_ns) << tz;
  }
}

}  // namespace
}  // namespace gpucost::robust
