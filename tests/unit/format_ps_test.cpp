// ps snapshots: real `ps aux` / `ps -ef` / `ps -eo` pastes (CJK start times, `systemd+` users,
// wide VSZ), header-less rows, snapshot markers, and bad rows beside good ones.
#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <random>
#include <string>

#include "ingest/formats/rfc3339_stamp.hpp"
#include "structured_test_util.hpp"

namespace gpucost {
namespace {

using testing::read_test_file;
using testing::run_format;
using testing::sample_reasons;

std::string str(const Table& t, std::size_t col, std::size_t row) {
  return t.column(col).is_valid(row) ? std::string(t.column(col).get_string(row)) : "<null>";
}

TEST(Ps, EfAndAuxWithCjkStartAndWideVsz) {
  auto run = run_format(FormatId::ps, read_test_file("structured/ps-ef-aux-cjk-start.txt"));
  EXPECT_EQ(run->detection.format, FormatId::ps);
  EXPECT_EQ(run->diag().lines, 8u);
  EXPECT_EQ(run->diag().accepted, 8u);  // two headers, six rows
  const Table& p = run->processes();
  ASSERT_EQ(p.rows(), 6u);
  // ps -ef: `root 12702 12694 0 7月03 pts/3 00:00:00 sudo su`; UID holds the user name there.
  EXPECT_EQ(str(p, process_col::user, 2), "root");
  EXPECT_EQ(p.column(process_col::pid).get_int(2), 12702);
  EXPECT_EQ(str(p, process_col::command, 2), "sudo su");
  EXPECT_FALSE(p.column(process_col::cpu_pct).is_valid(2));  // -ef has no %CPU: null, not 0
  EXPECT_FALSE(p.column(process_col::rss_kib).is_valid(2));
  EXPECT_FALSE(p.column(process_col::stat).is_valid(2));
  // ps aux after a second header: `root 1583 0.0 0.2 1329376 22868 ? Ssl 7月01 1:16 /usr/bin/containerd`
  // (the wide VSZ pushes TTY out of line).
  EXPECT_EQ(p.column(process_col::pid).get_int(3), 1583);
  EXPECT_DOUBLE_EQ(p.column(process_col::cpu_pct).get_float(3), 0.0);
  EXPECT_DOUBLE_EQ(p.column(process_col::mem_pct).get_float(3), 0.2);
  EXPECT_EQ(p.column(process_col::vsz_kib).get_int(3), 1329376);
  EXPECT_EQ(p.column(process_col::rss_kib).get_int(3), 22868);
  EXPECT_EQ(str(p, process_col::stat, 3), "Ssl");
  EXPECT_EQ(str(p, process_col::command, 3), "/usr/bin/containerd");
  EXPECT_EQ(str(p, process_col::command, 4), "/usr/sbin/sshd -D");
  for (std::size_t r = 0; r < p.rows(); ++r) {
    EXPECT_EQ(p.column(process_col::snapshot).get_int(r), 0);
    EXPECT_EQ(p.column(process_col::wall_kind).get_int(r), static_cast<int>(WallKind::kNone));
    EXPECT_FALSE(p.column(process_col::wall_raw_ns).is_valid(r));
    EXPECT_FALSE(p.column(process_col::gpu).is_valid(r));
  }
  EXPECT_EQ(run->diag().records, 6u);
}

TEST(Ps, CutUserNamesAndPastedEllipses) {
  auto run = run_format(FormatId::ps, read_test_file("structured/ps-aux-systemd-plus-users.txt"));
  EXPECT_EQ(run->detection.format, FormatId::ps);
  const Table& p = run->processes();
  ASSERT_EQ(p.rows(), 6u);
  EXPECT_EQ(str(p, process_col::user, 0), "systemd+");
  EXPECT_EQ(str(p, process_col::command, 1), "postgres: checkpointer");
  EXPECT_EQ(str(p, process_col::command, 5), "postgres: logical replication launcher");
  EXPECT_EQ(p.column(process_col::rss_kib).get_int(5), 6424);
  // The two `...` lines a person inserted are rejected, nothing else.
  EXPECT_EQ(run->problems(Problem::column_mismatch), 2u);
  EXPECT_EQ(sample_reasons(run->diag(), Problem::column_mismatch),
            "1 field does not fill the 11 columns of the header | 1 field does not fill the 11 columns of the header");
  EXPECT_EQ(run->diag().accepted, 7u);
}

TEST(Ps, CustomColumnsWithTheCommandInTheMiddle) {
  // `ps -eo pid,ppid,cmd,%mem,%cpu`: ps cuts CMD to its header's width; the two columns after it
  // are read from the right.
  auto run = run_format(FormatId::ps, read_test_file("structured/ps-eo-cmd-before-pct.txt"));
  EXPECT_EQ(run->detection.format, FormatId::ps);
  EXPECT_EQ(run->diag().accepted, 6u);
  const Table& p = run->processes();
  ASSERT_EQ(p.rows(), 5u);
  EXPECT_EQ(p.column(process_col::pid).get_int(0), 11057);
  EXPECT_EQ(str(p, process_col::command, 0), "/snap/firefox/7477/usr/lib/");
  EXPECT_DOUBLE_EQ(p.column(process_col::mem_pct).get_float(0), 7.0);
  EXPECT_DOUBLE_EQ(p.column(process_col::cpu_pct).get_float(0), 16.9);
  EXPECT_EQ(str(p, process_col::command, 4), "/usr/share/code/code --type");
  EXPECT_DOUBLE_EQ(p.column(process_col::cpu_pct).get_float(4), 12.7);
  EXPECT_EQ(str(p, process_col::user, 4), "<null>");
}

TEST(Ps, HeaderlessAuxRowsWithCjkStart) {
  auto run = run_format(FormatId::ps, read_test_file("structured/ps-aux-no-header-cjk.txt"));
  EXPECT_EQ(run->detection.format, FormatId::ps);
  EXPECT_EQ(run->diag().accepted, 6u);
  const Table& p = run->processes();
  ASSERT_EQ(p.rows(), 6u);
  EXPECT_EQ(p.column(process_col::pid).get_int(0), 603);
  EXPECT_EQ(str(p, process_col::command, 0), "/usr/bin/python2 -Es /usr/sbin/tuned -l -P");
  EXPECT_EQ(str(p, process_col::user, 3), "haojie");
  EXPECT_EQ(str(p, process_col::stat, 3), "S+");
  EXPECT_EQ(p.column(process_col::vsz_kib).get_int(3), 112828);
  EXPECT_EQ(str(p, process_col::command, 5), "/usr/local/bin/python /code/app.py");
  EXPECT_DOUBLE_EQ(p.column(process_col::cpu_pct).get_float(5), 0.3);
}

TEST(Ps, MarkersStartTimedSnapshots) {
  auto run = run_format(FormatId::ps, read_test_file("structured/ps-snapshots-marked.txt"));
  EXPECT_EQ(run->detection.format, FormatId::ps);
  EXPECT_EQ(run->diag().lines, 12u);
  EXPECT_EQ(run->diag().accepted, 12u);
  const Table& p = run->processes();
  ASSERT_EQ(p.rows(), 6u);
  // 2026-11-29T19:50:45+08:00 = 11:50:45Z.
  const TimeNs t0 = civil_to_ns(CivilTime{2026, 11, 29, 11, 50, 45, 0});
  const std::int64_t snap[] = {0, 0, 0, 1, 1, 2};
  const TimeNs wall[] = {t0, t0, t0, t0 + 1500 * kNsPerMs, t0 + 1500 * kNsPerMs, t0 + 2 * kNsPerSec};
  for (std::size_t r = 0; r < 6; ++r) {
    SCOPED_TRACE(r);
    EXPECT_EQ(p.column(process_col::snapshot).get_int(r), snap[r]);
    EXPECT_EQ(p.column(process_col::wall_kind).get_int(r), static_cast<int>(WallKind::kUtc));
    EXPECT_EQ(p.column(process_col::wall_raw_ns).get_int(r), wall[r]);
  }
  EXPECT_EQ(str(p, process_col::command, 2), "[ssh] <defunct>");
  EXPECT_EQ(str(p, process_col::stat, 2), "Z");
  EXPECT_EQ(p.column(process_col::vsz_kib).get_int(2), 0);
  EXPECT_EQ(str(p, process_col::stat, 4), "Ssl+");
  EXPECT_EQ(p.column(process_col::vsz_kib).get_int(5), 1518492);
  // Two `+08:00` markers are evidence for the zone; the `Z` line is not.
  const auto& z = run->sink->output().zone_evidence;
  ASSERT_EQ(z.size(), 1u);
  EXPECT_EQ(z[0].offset_ns, 8 * kNsPerHour);
  EXPECT_EQ(z[0].count, 2u);
}

TEST(Ps, RowsBeforeTheFirstMarkerAreAnUntimedSnapshot) {
  const std::string data =
      "USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND\n"
      "root 1 0.0 0.1 100 10 ? Ss 10:00 0:00 /sbin/init\n"
      "### gpucost-ps 2026-11-29T19:50:45\n"
      "root 1 0.0 0.1 100 10 ? Ss 10:00 0:00 /sbin/init\n"
      "### gpucost-ps yesterday\n"
      "root 1 0.0 0.1 100 10 ? Ss 10:00 0:00 /sbin/init\n";
  auto run = run_format(FormatId::ps, data);
  const Table& p = run->processes();
  ASSERT_EQ(p.rows(), 3u);
  EXPECT_EQ(p.column(process_col::snapshot).get_int(0), 0);
  EXPECT_EQ(p.column(process_col::wall_kind).get_int(0), static_cast<int>(WallKind::kNone));
  // A marker without an offset is local time.
  EXPECT_EQ(p.column(process_col::snapshot).get_int(1), 1);
  EXPECT_EQ(p.column(process_col::wall_kind).get_int(1), static_cast<int>(WallKind::kLocal));
  EXPECT_EQ(p.column(process_col::wall_raw_ns).get_int(1), civil_to_ns(CivilTime{2026, 11, 29, 19, 50, 45, 0}));
  // A bad marker still starts a snapshot, whose rows have no time.
  EXPECT_EQ(p.column(process_col::snapshot).get_int(2), 2);
  EXPECT_EQ(p.column(process_col::wall_kind).get_int(2), static_cast<int>(WallKind::kNone));
  EXPECT_EQ(sample_reasons(run->diag(), Problem::bad_timestamp), "snapshot marker time \"yesterday\" is not RFC 3339");
  EXPECT_TRUE(run->sink->output().zone_evidence.empty());
}

TEST(Ps, BadRowsAreRejectedAndGoodRowsStay) {
  const std::string header = "USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND\n";
  const std::string good = "root 1 0.0 0.1 100 10 ? Ss 10:00 0:00 /sbin/init\n";
  struct Bad {
    std::string line;
    Problem problem;
    std::string reason;
  };
  const Bad bad[] = {
      {"root abc 0.0 0.1 100 10 ? Ss 10:00 0:00 /sbin/init", Problem::bad_number, "PID \"abc\" is not a number"},
      {"root 12 x.y 0.1 100 10 ? Ss 10:00 0:00 /sbin/init", Problem::bad_number, "%CPU \"x.y\" is not a number"},
      {"root 12 0.0 0.1 lots 10 ? Ss 10:00 0:00 /sbin/init", Problem::bad_number, "VSZ \"lots\" is not a number"},
      {"root 12 0.0", Problem::column_mismatch, "3 fields do not fill the 11 columns of the header"},
  };
  for (const auto& b : bad) {
    SCOPED_TRACE(b.line);
    auto run = run_format(FormatId::ps, header + good + b.line + "\n" + good);
    EXPECT_EQ(run->processes().rows(), 2u);
    EXPECT_EQ(run->problems(b.problem), 1u);
    EXPECT_EQ(run->diag().rejected(), 1u);
    EXPECT_EQ(sample_reasons(run->diag(), b.problem), b.reason);
    ASSERT_EQ(run->diag().samples.size(), 1u);
    EXPECT_EQ(run->diag().samples[0].line, 3u);
  }
  // Rows of no known layout before any header.
  auto run = run_format(FormatId::ps, "hello world\n" + header + good);
  EXPECT_EQ(sample_reasons(run->diag(), Problem::no_header),
            "not a ps row: no header names the columns and it is not in the `ps aux` layout");
  EXPECT_EQ(run->processes().rows(), 1u);
}

TEST(Ps, StartTimesOfSeveralWordsAndLocaleDecimals) {
  const std::string data =
      "    PID                  STARTED USER     COMMAND\n"
      "      1 Sat Nov 29 19:50:45 2026 root     /sbin/init splash\n"
      "  PID  START S %CPU COMMAND\n"
      "    1 Nov 29 S  1,5 /sbin/init\n"
      "  812 19:50 R 12,0 nvidia-persistenced --user nvidia-persistenced\n"
      "  PID   RSS COMMAND\n"
      "  900  123m python train.py\n";
  auto run = run_format(FormatId::ps, data);
  EXPECT_EQ(run->diag().rejected(), 0u);
  const Table& p = run->processes();
  ASSERT_EQ(p.rows(), 4u);
  EXPECT_EQ(str(p, process_col::user, 0), "root");  // after the five words of lstart
  EXPECT_EQ(str(p, process_col::command, 0), "/sbin/init splash");
  EXPECT_EQ(str(p, process_col::stat, 1), "S");      // after the two words of `Nov 29`
  EXPECT_DOUBLE_EQ(p.column(process_col::cpu_pct).get_float(1), 1.5);
  EXPECT_EQ(str(p, process_col::command, 2), "nvidia-persistenced --user nvidia-persistenced");
  EXPECT_DOUBLE_EQ(p.column(process_col::cpu_pct).get_float(2), 12.0);
  EXPECT_EQ(p.column(process_col::rss_kib).get_int(3), 123 * 1024);  // BusyBox `123m`
  // A header after another is read with its own columns, whatever the one before spanned.
  auto again = run_format(FormatId::ps,
                          "  PID   RSS COMMAND\n"
                          "  900  123m python train.py\n"
                          "    PID                  STARTED USER     COMMAND\n"
                          "      1 Sat Nov 29 19:50:45 2026 root     /sbin/init splash\n");
  EXPECT_EQ(again->diag().rejected(), 0u);
  ASSERT_EQ(again->processes().rows(), 2u);
  EXPECT_EQ(str(again->processes(), process_col::user, 1), "root");
  EXPECT_EQ(str(again->processes(), process_col::command, 1), "/sbin/init splash");
}

// Layouts whose command is the last column are cut from the left without a token list
// (PsParser::row_command_last); the same rows with one more column after the command go the
// general way, which cuts every token. Both must read the same cells, whatever the start time
// looks like (one word, `Nov 29`, lstart's five words, a weekday with too few words after it,
// a word that only looks like a month) and however wide the blanks are. (A weekday with too few
// words after it is left out here: the general path counts the extra column among them; the
// next test pins what the command-last path makes of it.)
TEST(Ps, CommandLastRowsReadAsTheGeneralPathReadsThem) {
  std::mt19937 rng(20261202);
  auto pick = [&](std::initializer_list<const char*> xs) { return std::string(xs.begin()[rng() % xs.size()]); };
  auto blanks = [&] { return std::string(1 + rng() % 3, ' ') + (rng() % 7 == 0 ? "\t" : ""); };
  const std::string columns = "USER PID %CPU %MEM VSZ RSS TTY STAT START TIME";
  // And with 24 more columns before the command: more words than the command-last path cuts at
  // once (it cuts them one at a time then).
  std::string nis;
  for (int k = 0; k < 24; ++k) nis += " NI";
  std::string fast = columns + " COMMAND\n", general = columns + " COMMAND NI\n";
  std::string wide = columns + nis + " COMMAND\n", wide_general = columns + nis + " COMMAND NI\n";
  for (int i = 0; i < 400; ++i) {
    const std::string start = pick({"09:00", "Nov 29", "Sat Nov 29 19:50:45 2026", "7月03", "Foo 12", "Nov 123", "2025",
                                    "Dec 1"});
    const std::string command = pick({"/sbin/init splash", "[kthreadd]", "python train.py --epochs 3", "x",
                                      "/usr/bin/containerd", "bash -c 'sleep 1; echo done'"});
    const std::string head = pick({"root", "systemd+", "ml", "www-data"}) + blanks() + std::to_string(rng() % 400000) +
                             blanks() + pick({"0.0", "12.5", "350", "1,5", "-"}) + blanks() + pick({"0.1", "3.0", "-"}) +
                             blanks() + std::to_string(rng() % 9000000) + blanks() + pick({"22868", "123m", "-"}) +
                             blanks() + pick({"?", "pts/3"}) + blanks() + pick({"Ssl", "R+", "S"}) + blanks() + start +
                             blanks() + pick({"0:00", "1:16"});
    std::string zeros;
    for (int k = 0; k < 24; ++k) zeros += blanks() + "0";
    std::string row = head + blanks() + command, wide_row = head + zeros + blanks() + command;
    if (i % 50 == 7) row = wide_row = "root 12 0.0";  // too few columns: rejected by all
    fast += row + "\n";
    general += row + " 0\n";
    wide += wide_row + "\n";
    wide_general += wide_row + " 0\n";
  }
  for (const auto& [command_last, all_cut] : {std::pair{fast, general}, std::pair{wide, wide_general}}) {
    auto a = run_format(FormatId::ps, command_last);
    auto b = run_format(FormatId::ps, all_cut);
    EXPECT_EQ(a->diag().rejected(), b->diag().rejected());
    EXPECT_EQ(sample_reasons(a->diag(), Problem::bad_number), sample_reasons(b->diag(), Problem::bad_number));
    const Table& pa = a->processes();
    const Table& pb = b->processes();
    ASSERT_EQ(pa.rows(), pb.rows());
    ASSERT_GT(pa.rows(), 300u);
    for (std::size_t r = 0; r < pa.rows(); ++r) {
      for (const std::size_t c : {process_col::user, process_col::stat, process_col::command})
        ASSERT_EQ(str(pa, c, r), str(pb, c, r)) << "row " << r << " column " << c;
      for (const std::size_t c : {process_col::pid, process_col::vsz_kib, process_col::rss_kib, process_col::line}) {
        ASSERT_EQ(pa.column(c).is_valid(r), pb.column(c).is_valid(r)) << "row " << r << " column " << c;
        if (pa.column(c).is_valid(r)) {
          ASSERT_EQ(pa.column(c).get_int(r), pb.column(c).get_int(r)) << "row " << r;
        }
      }
      for (const std::size_t c : {process_col::cpu_pct, process_col::mem_pct}) {
        ASSERT_EQ(pa.column(c).is_valid(r), pb.column(c).is_valid(r)) << "row " << r << " column " << c;
        if (pa.column(c).is_valid(r)) {
          ASSERT_EQ(pa.column(c).get_float(r), pb.column(c).get_float(r)) << "row " << r;
        }
      }
    }
  }
}

// PID, VSZ and RSS of every length from 1 to 12 digits, with leading zeros, signs and stray
// bytes, at the start of the line and further in: the digits read in line and the general
// parser (a sign) read the value the text holds, and reject what is no number.
TEST(Ps, NumbersOfEveryLengthAndPlaceReadBack) {
  std::mt19937_64 rng(42);
  auto number = [&](int digits) {
    std::string s;
    for (int k = 0; k < digits; ++k) s += static_cast<char>('0' + (k == 0 && digits > 1 ? 1 + rng() % 9 : rng() % 10));
    return s;
  };
  std::string text = "PID VSZ RSS USER COMMAND\n";
  struct Want {
    std::string pid, vsz, rss;
  };
  std::vector<Want> rows;
  for (int i = 0; i < 600; ++i) {
    Want w{number(1 + i % 12), number(1 + (i / 12) % 12), number(1 + rng() % 12)};
    if (i % 37 == 5) w.vsz = "00" + w.vsz;     // leading zeros
    if (i % 41 == 9) w.rss = "12a4";            // a byte that is no digit: the row is rejected
    if (i % 43 == 11) w.pid = "+" + w.pid;      // a sign: read digit by digit
    if (i % 47 == 13) w.rss = w.rss + "/";      // after the digits
    rows.push_back(w);
    text += w.pid + std::string(1 + rng() % 9, ' ') + w.vsz + " " + w.rss + " root cmd --n 1\n";
  }
  auto run = run_format(FormatId::ps, text);
  const Table& p = run->processes();
  std::size_t r = 0;
  for (const auto& w : rows) {
    const bool bad = w.rss.find_first_not_of("0123456789") != std::string::npos;
    if (bad) continue;
    ASSERT_LT(r, p.rows());
    EXPECT_EQ(p.column(process_col::pid).get_int(r), std::stoll(w.pid)) << w.pid;
    EXPECT_EQ(p.column(process_col::vsz_kib).get_int(r), std::stoll(w.vsz)) << w.vsz;
    EXPECT_EQ(p.column(process_col::rss_kib).get_int(r), std::stoll(w.rss)) << w.rss;
    ++r;
  }
  EXPECT_EQ(r, p.rows());
  EXPECT_GT(run->diag().rejected(), 0u);
}

TEST(Ps, AWeekdayStartsFiveWordsOnlyWhenFourFollowIt) {
  const std::string data =
      "USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND\n"
      "root 1 0.0 0.1 100 10 ? S Mon 0:00 python train.py\n"        // three words after `Mon`: one word
      "root 2 0.0 0.1 100 10 ? S Mon 0:00 x\n"
      "root 3 0.0 0.1 100 10 ? S Sat Nov 29 19:50:45 2026 0:01 /sbin/init splash\n"
      "root 4 0.0 0.1 100 10 ? S Sat Nov 29 0:00 /usr/bin/containerd\n"  // lstart takes all: no command
      "root 5 0.0 0.1 100 10 ? S Nov 29 0:02 /usr/bin/dockerd -H fd://\n";
  auto run = run_format(FormatId::ps, data);
  const Table& p = run->processes();
  ASSERT_EQ(p.rows(), 4u);
  EXPECT_EQ(run->diag().problems[static_cast<std::size_t>(Problem::column_mismatch)], 1u);
  EXPECT_EQ(str(p, process_col::command, 0), "python train.py");
  EXPECT_EQ(str(p, process_col::command, 1), "x");
  EXPECT_EQ(str(p, process_col::command, 2), "/sbin/init splash");
  EXPECT_EQ(p.column(process_col::pid).get_int(2), 3);
  EXPECT_EQ(str(p, process_col::command, 3), "/usr/bin/dockerd -H fd://");
}

// Commands are coded through the PID's command of the snapshot before when it is the same
// (PidCodes): a PID whose command changed (an exec), two PIDs in one slot (4096 apart), and a
// PID's earlier command met again are each read as written.
TEST(Ps, EachRowKeepsItsOwnCommandWhateverItsPidHadBefore) {
  std::string text;
  const char* snapshots[][4] = {
      {"python train.py", "bash", "sleep 60", "[kworker/0:1]"},
      {"python train.py", "bash -c make", "sleep 60", "[kworker/0:1]"},  // 200 exec'd
      {"python train.py", "bash", "sleep 60", "vim notes.txt"},           // 200 back; 4396 in 300's slot
  };
  const int pids[][4] = {{100, 200, 300, 400}, {100, 200, 300, 400}, {100, 200, 300, 4396}};
  for (int s = 0; s < 3; ++s) {
    text += "### gpucost-ps 2026-11-20T09:0" + std::to_string(s) + ":00Z\n";
    text += "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n";
    for (int k = 0; k < 4; ++k)
      text += "root " + std::to_string(pids[s][k]) + " 0.0 0.1 1000 100 ? S 09:00 0:00 " + snapshots[s][k] + "\n";
  }
  auto run = run_format(FormatId::ps, text);
  const Table& p = run->processes();
  ASSERT_EQ(p.rows(), 12u);
  for (int s = 0; s < 3; ++s)
    for (int k = 0; k < 4; ++k) {
      const std::size_t row = static_cast<std::size_t>(4 * s + k);
      EXPECT_EQ(p.column(process_col::pid).get_int(row), pids[s][k]) << "row " << row;
      EXPECT_EQ(str(p, process_col::command, row), snapshots[s][k]) << "row " << row;
    }
  // One code per distinct command.
  EXPECT_EQ(p.column(process_col::command).dictionary().size(), 6u);
}

TEST(Ps, Scores) {
  const LogFormat& f = *find_format(FormatId::ps);
  EXPECT_EQ(f.score("USER       PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND"), 100);
  EXPECT_EQ(f.score("UID        PID  PPID  C STIME TTY          TIME CMD"), 100);
  EXPECT_EQ(f.score("### gpucost-ps 2026-11-29T19:50:45+08:00"), 100);
  EXPECT_EQ(f.score("2026-11-29T19:50:45+08:00"), 50);
  EXPECT_EQ(f.score("root         1  0.1  1.0  17564 10288 ?        Ss   13:57   0:01 /sbin/init"), 40);
  EXPECT_EQ(f.score("  11057    3627 /snap/firefox/7477/usr/lib/  7.0 16.9"), 25);
  EXPECT_EQ(f.score("    0    119     59      -    100      0      0      0      0      0   6800   1665 "), 0);
  EXPECT_EQ(f.score("# gpu    pwr  gtemp  mtemp     sm    mem"), 0);
  EXPECT_EQ(f.score("Nov 29 19:50:45 host kernel: [ 4909.922970] NVRM: Xid"), 0);
  EXPECT_EQ(f.score("2026-11-29T19:50:45.123456+01:00 host kernel: NVRM"), 0);
}

TEST(Ps, Rfc3339Stamps) {
  formats::Rfc3339Stamp s;
  ASSERT_TRUE(formats::parse_rfc3339("2026-11-29T19:50:45.123+08:00", s));
  EXPECT_EQ(s.utc_ns(), civil_to_ns(CivilTime{2026, 11, 29, 11, 50, 45, 123000000}));
  EXPECT_TRUE(s.has_offset);
  EXPECT_FALSE(s.zulu);
  ASSERT_TRUE(formats::parse_rfc3339("2026-11-29 19:50:45-05:30", s));  // date --rfc-3339=seconds
  EXPECT_EQ(s.utc_ns(), civil_to_ns(CivilTime{2026, 11, 30, 1, 20, 45, 0}));
  ASSERT_TRUE(formats::parse_rfc3339("2026-11-29T19:50:45Z", s));
  EXPECT_TRUE(s.zulu);
  EXPECT_FALSE(formats::parse_rfc3339("2026-02-30T19:50:45Z", s));
  EXPECT_FALSE(formats::parse_rfc3339("2026-11-29T19:50:45+8", s));
  EXPECT_FALSE(formats::parse_rfc3339("2026-11-29T19:50", s));
  EXPECT_FALSE(formats::parse_rfc3339("9999-12-31T23:59:59Z", s));  // beyond int64 nanoseconds
}

}  // namespace
}  // namespace gpucost
