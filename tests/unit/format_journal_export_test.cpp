// journalctl -o export: systemd's documented entries (text and binary), and damaged entries.
#include <gtest/gtest.h>

#include <string>

#include "gpucost/ingest/detect.hpp"
#include "structured_test_util.hpp"

namespace gpucost {
namespace {

using testing::catch_all;
using testing::read_test_file;
using testing::run_format;
using testing::sample_reasons;

std::string le64(std::uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

// Every line read is blank, accepted or rejected: nothing is lost from the accounting.
void expect_accounted(testing::ParseRun& run) {
  auto& d = run.diag();
  std::uint64_t problems = 0;
  for (auto n : d.problems) problems += n;
  EXPECT_EQ(d.blank + d.accepted + problems, d.lines);
}

const std::string kGood =
    "__CURSOR=s=1;i=1\n__REALTIME_TIMESTAMP=1700000000000000\n_TRANSPORT=kernel\nMESSAGE=taints kernel.\n";

TEST(JournalExport, SystemdDocumentedEntriesIncludingBinaryMessage) {
  const std::string data = read_test_file("structured/journal-export-systemd-doc.export");
  auto run = run_format(FormatId::journal_export, data, [](auto& r) {
    catch_all(r, "AccountsService");
    catch_all(r, "(root) CMD");
    catch_all(r, "foo");
  });
  EXPECT_EQ(run->detection.format, FormatId::journal_export);
  auto& d = run->diag();
  // 24 + 24 field lines, two separators, then 28 lines around the binary MESSAGE (whose raw
  // bytes are read past the line reader and are no lines).
  EXPECT_EQ(d.lines, 78u);
  EXPECT_EQ(d.blank, 2u);
  EXPECT_EQ(d.accepted, 76u);
  EXPECT_EQ(d.rejected(), 0u);
  expect_accounted(*run);

  Table& e = run->events();
  ASSERT_EQ(e.rows(), 3u);
  EXPECT_EQ(e.column(event_col::wall_raw_ns).get_int(0), 1342540861416409 * kNsPerUs);
  EXPECT_EQ(e.column(event_col::ident).get_string(0), "gdm-password]");
  EXPECT_EQ(e.column(event_col::pid).get_int(0), 587);
  EXPECT_EQ(e.column(event_col::line).get_int(0), 1);
  EXPECT_EQ(e.column(event_col::text).get_string(1), "(root) CMD (run-parts /etc/cron.hourly)");
  EXPECT_EQ(e.column(event_col::ident).get_string(1), "/USR/SBIN/CROND");
  EXPECT_EQ(e.column(event_col::line).get_int(1), 26);
  // The binary field: 7 bytes "foo\nbar", length as little-endian uint64.
  EXPECT_EQ(e.column(event_col::text).get_string(2), "foo\nbar");
  EXPECT_EQ(e.column(event_col::ident).get_string(2), "python3");
  EXPECT_EQ(e.column(event_col::pid).get_int(2), 16853);
  EXPECT_EQ(e.column(event_col::boot_id).get_string(2), "ec25d6795f0645619ddac9afdef453ee");
  EXPECT_EQ(e.column(event_col::boot_seq).get_int(2), 1);
  EXPECT_FALSE(e.column(event_col::mono_ns).is_valid(2));  // not a kernel entry

  // Entries 1 and 2 say the same boot time within a microsecond
  // (1342540861416409 - 21415215982 = 1342519446200427, 1342540861421465 - 21415221039 =
  // 1342519446200426): one anchor; the third entry is another boot.
  auto& a = run->sink->anchors();
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].wall_raw_ns - a[0].mono_ns, 1342519446200427 * kNsPerUs);
  EXPECT_EQ(a[1].mono_ns, 5794517905481 * kNsPerUs);
  EXPECT_EQ(a[1].boot_id, "ec25d6795f0645619ddac9afdef453ee");
}

TEST(JournalExport, KernelEntryWithMultiLineBinaryMessage) {
  const std::string msg = "NVRM: Xid (PCI:0000:01:00): 79, pid=1234, GPU has fallen off the bus.\nNVRM: GPU 0000:01:00.0: GPU has fallen off the bus.";
  const std::string data = "__REALTIME_TIMESTAMP=1700000000000000\n__MONOTONIC_TIMESTAMP=4909923000\n"
                           "_BOOT_ID=0123456789abcdef0123456789abcdef\n_TRANSPORT=kernel\n"
                           "_SOURCE_MONOTONIC_TIMESTAMP=4909922970\nMESSAGE\n" +
                           le64(msg.size()) + msg + "\nPRIORITY=3\n";
  auto run = run_format(FormatId::journal_export, data);
  EXPECT_EQ(run->diag().accepted, 7u);
  Table& e = run->events();
  ASSERT_EQ(e.rows(), 1u);
  EXPECT_EQ(e.column(event_col::kind).get_int(0), static_cast<int>(EventKind::xid));
  EXPECT_EQ(e.column(event_col::code).get_int(0), 79);
  EXPECT_EQ(e.column(event_col::text).get_string(0), msg);
  EXPECT_EQ(e.column(event_col::mono_ns).get_int(0), 4909922970 * kNsPerUs);
  EXPECT_EQ(e.column(event_col::ident).get_string(0), "kernel");
}

TEST(JournalExport, EntryWithoutRealtimeIsRejectedWholeAndNeighboursStay) {
  const std::string data = kGood + "\n__CURSOR=s=2\n_BOOT_ID=aaaa\nMESSAGE=taints kernel.\n\n" + kGood;
  auto run = run_format(FormatId::journal_export, data);
  EXPECT_EQ(run->problems(Problem::missing_field), 3u);  // the entry's three lines are lost
  EXPECT_EQ(sample_reasons(run->diag(), Problem::missing_field), "journal entry has no __REALTIME_TIMESTAMP");
  ASSERT_EQ(run->diag().samples.size(), 1u);
  EXPECT_EQ(run->diag().samples[0].line, 6u);  // reported on the entry's first line
  EXPECT_EQ(run->diag().samples[0].excerpt, "__CURSOR=s=2");
  EXPECT_EQ(run->diag().accepted, 8u);
  EXPECT_EQ(run->events().rows(), 2u);
  expect_accounted(*run);
}

TEST(JournalExport, BadRealtimeIsABadTimestamp) {
  auto run = run_format(FormatId::journal_export, "__REALTIME_TIMESTAMP=soon\nMESSAGE=x\n\n" + kGood);
  EXPECT_EQ(run->problems(Problem::bad_timestamp), 2u);
  EXPECT_EQ(sample_reasons(run->diag(), Problem::bad_timestamp),
            "__REALTIME_TIMESTAMP \"soon\" is not a count of microseconds since the epoch");
  EXPECT_EQ(run->events().rows(), 1u);
  expect_accounted(*run);
}

TEST(JournalExport, StrayLineIsRejectedAloneInsideAUsableEntry) {
  const std::string data = "__REALTIME_TIMESTAMP=1700000000000000\nthis is not a field\nlower=case\n"
                           "_TRANSPORT=kernel\nMESSAGE=taints kernel.\n";
  auto run = run_format(FormatId::journal_export, data);
  EXPECT_EQ(run->problems(Problem::unparsable_line), 2u);
  EXPECT_EQ(sample_reasons(run->diag(), Problem::unparsable_line),
            "neither KEY=value nor a binary field name | the text before '=' is not a journal field name");
  EXPECT_EQ(run->diag().accepted, 3u);
  EXPECT_EQ(run->events().rows(), 1u);
  expect_accounted(*run);
}

TEST(JournalExport, ImplausibleBinaryLengthSkipsToTheNextEntry) {
  const std::string data = "__REALTIME_TIMESTAMP=1700000000000000\nMESSAGE\n" + le64(~0ull) +
                           "garbage\nMORE=garbage\n\n" + kGood;
  auto run = run_format(FormatId::journal_export, data);
  EXPECT_EQ(sample_reasons(run->diag(), Problem::unparsable_line),
            "binary field MESSAGE claims 18446744073709551615 bytes; skipped to the next blank line");
  // The entry's four lines (stamp, name, the garbage line, MORE=) are lost.
  EXPECT_EQ(run->problems(Problem::unparsable_line), 4u);
  EXPECT_EQ(run->events().rows(), 1u);
  EXPECT_EQ(run->diag().accepted, 4u);
  expect_accounted(*run);
}

TEST(JournalExport, BinaryValueWithoutNewlineBreaksTheEntry) {
  const std::string data = "__REALTIME_TIMESTAMP=1700000000000000\nMESSAGE\n" + le64(3) + "abcX\n\n" + kGood;
  auto run = run_format(FormatId::journal_export, data);
  EXPECT_EQ(sample_reasons(run->diag(), Problem::unparsable_line),
            "binary field MESSAGE: its 3 bytes are not followed by a newline; skipped to the next blank line");
  EXPECT_EQ(run->events().rows(), 1u);
  expect_accounted(*run);
}

TEST(JournalExport, FileEndingInsideBinaryValue) {
  const std::string data = kGood + "\n__REALTIME_TIMESTAMP=1700000000000000\nMESSAGE\n" + le64(100) + "only ten b";
  auto run = run_format(FormatId::journal_export, data);
  EXPECT_EQ(sample_reasons(run->diag(), Problem::unparsable_line),
            "binary field MESSAGE: the file ends after 10 of its 100 bytes");
  EXPECT_EQ(run->problems(Problem::unparsable_line), 2u);
  EXPECT_EQ(run->events().rows(), 1u);
  expect_accounted(*run);

  auto run2 = run_format(FormatId::journal_export, kGood + "\n__REALTIME_TIMESTAMP=1\nMESSAGE\n\x03\x00");
  EXPECT_EQ(sample_reasons(run2->diag(), Problem::unparsable_line),
            "binary field MESSAGE: the file ends inside its 8-byte length");
}

TEST(JournalExport, Scores) {
  const LogFormat& f = *find_format(FormatId::journal_export);
  EXPECT_EQ(f.score("__CURSOR=s=739ad463348b4ceca5a9e69c95a3c93f;i=4ece7"), 100);
  EXPECT_EQ(f.score("_SYSTEMD_UNIT=session-35898.scope"), 40);
  EXPECT_EQ(f.score("PRIORITY=6"), 40);
  EXPECT_EQ(f.score("MESSAGE"), 60);
  // /etc/os-release is KEY=value too, but no journal.
  EXPECT_EQ(f.score("NAME=\"Debian GNU/Linux\""), 0);
  EXPECT_EQ(f.score("VERSION_ID=\"12\""), 0);
  EXPECT_EQ(f.score("Nov 29 19:50:45 host kernel: x=1"), 0);
  EXPECT_EQ(f.score(""), 0);
}

TEST(JournalExport, OsReleaseIsNotDetected) {
  auto src = make_buffer_source("PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\n"
                                "VERSION_ID=\"12\"\nVERSION=\"12 (bookworm)\"\nID=debian\n");
  EXPECT_NE(detect_format(*src).format, FormatId::journal_export);
}

}  // namespace
}  // namespace gpucost
