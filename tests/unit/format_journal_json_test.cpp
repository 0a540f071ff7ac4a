// journalctl -o json: real lines, field semantics, byte arrays, and bad lines beside good ones.
#include <gtest/gtest.h>

#include <string>

#include "structured_test_util.hpp"

namespace gpucost {
namespace {

using testing::catch_all;
using testing::read_test_file;
using testing::run_format;
using testing::sample_reasons;

// 2020-09-08T05:10:04.928338Z, the first entry of the real sample (`date -u -d @1599541804`).
constexpr TimeNs kRealtime1 = 1599541804928338 * kNsPerUs;

std::string bytes_as_json_array(std::string_view s) {
  std::string out = "[ ";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(static_cast<unsigned char>(s[i]));
  }
  return out + " ]";
}

TEST(JournalJson, RealKernelLinesAreDetectedAndFullyAccepted) {
  const std::string data = read_test_file("real/journal/json-kernel-transport-ext4-oneline.txt");
  auto run = run_format(FormatId::journal_json, data, [](auto& r) { catch_all(r, "EXT4-fs error", "kernel"); });
  EXPECT_EQ(run->detection.format, FormatId::journal_json);
  EXPECT_EQ(run->detection.score, 200);  // two lines, each certain
  auto& d = run->diag();
  EXPECT_EQ(d.lines, 2u);
  EXPECT_EQ(d.accepted, 2u);
  EXPECT_EQ(d.rejected(), 0u);

  // Anchor from journald's pair: realtime 1599541804928338 µs, monotonic 108101422325 µs.
  // The second entry (…961820 / 108101455807) says the same boot time to the microsecond
  // (both differences are 1599433703506013 µs), so the sink keeps one anchor.
  auto& anchors = run->sink->anchors();
  ASSERT_EQ(anchors.size(), 1u);
  EXPECT_EQ(anchors[0].boot_id, "c4b33c96f240457abc130dcb73da2b24");
  EXPECT_EQ(anchors[0].mono_ns, 108101422325 * kNsPerUs);
  EXPECT_EQ(anchors[0].wall_raw_ns, kRealtime1);
  EXPECT_EQ(anchors[0].wall_kind, WallKind::kUtc);
  EXPECT_EQ(anchors[0].precision_ns, kNsPerUs);
  EXPECT_EQ(anchors[0].line, 1u);

  Table& e = run->events();
  ASSERT_EQ(e.rows(), 2u);
  EXPECT_EQ(e.column(event_col::wall_kind).get_int(0), static_cast<int>(WallKind::kUtc));
  EXPECT_EQ(e.column(event_col::wall_raw_ns).get_int(0), kRealtime1);
  // The printk stamp (_SOURCE_MONOTONIC_TIMESTAMP 108101136410 µs), not journald's receipt.
  EXPECT_EQ(e.column(event_col::mono_ns).get_int(0), 108101136410 * kNsPerUs);
  EXPECT_EQ(e.column(event_col::mono_ns).get_int(1), 108101169896 * kNsPerUs);
  EXPECT_EQ(e.column(event_col::wall_raw_ns).get_int(1), 1599541804961820 * kNsPerUs);
  EXPECT_EQ(e.column(event_col::boot_id).get_string(0), "c4b33c96f240457abc130dcb73da2b24");
  EXPECT_EQ(e.column(event_col::ident).get_string(0), "kernel");
  EXPECT_EQ(e.column(event_col::line).get_int(1), 2);
  EXPECT_FALSE(e.column(event_col::pid).is_valid(0));  // kernel entries carry no _PID
  EXPECT_EQ(e.column(event_col::text).get_string(1), "EXT4-fs error (device sdc2) in ext4_free_blocks:4969: IO failure");
}

TEST(JournalJson, UserEntryTakesIdentifierAndPidAndNoMonotonic) {
  // Shaped like systemd's documented example entry (docs/JOURNAL_EXPORT_FORMATS.md), as JSON.
  const std::string data =
      R"({"__CURSOR":"s=739ad463348b4ceca5a9e69c95a3c93f;i=4ece8","__REALTIME_TIMESTAMP":"1342540861421465",)"
      R"("__MONOTONIC_TIMESTAMP":"21415221039","_BOOT_ID":"6c7c6013a26343b29e964691ff25d04c","_TRANSPORT":"syslog",)"
      R"j("SYSLOG_IDENTIFIER":"/USR/SBIN/CROND","SYSLOG_PID":"8278","MESSAGE":"(root) CMD (run-parts /etc/cron.hourly)",)j"
      R"("_PID":"8279","_COMM":"run-parts"})"
      "\n"
      R"({"__REALTIME_TIMESTAMP":"1342540861421466","_COMM":"run-parts","SYSLOG_PID":"77","MESSAGE":"(root) CMD again"})"
      "\n";
  auto run = run_format(FormatId::journal_json, data, [](auto& r) { catch_all(r, "(root) CMD"); });
  EXPECT_EQ(run->diag().accepted, 2u);
  Table& e = run->events();
  ASSERT_EQ(e.rows(), 2u);
  EXPECT_EQ(e.column(event_col::ident).get_string(0), "/USR/SBIN/CROND");
  EXPECT_EQ(e.column(event_col::pid).get_int(0), 8279);  // _PID wins over SYSLOG_PID
  EXPECT_FALSE(e.column(event_col::mono_ns).is_valid(0));
  EXPECT_EQ(e.column(event_col::wall_raw_ns).get_int(0), 1342540861421465 * kNsPerUs);
  EXPECT_EQ(e.column(event_col::ident).get_string(1), "run-parts");  // no SYSLOG_IDENTIFIER: _COMM
  EXPECT_EQ(e.column(event_col::pid).get_int(1), 77);                 // no _PID: SYSLOG_PID
  EXPECT_FALSE(e.column(event_col::boot_id).is_valid(1));
  ASSERT_EQ(run->sink->anchors().size(), 1u);
  EXPECT_EQ(run->sink->anchors()[0].mono_ns, 21415221039 * kNsPerUs);
}

TEST(JournalJson, MessageAsByteArrayIsDecoded) {
  // An Xid line with a non-UTF-8 byte (0xff) at the end: journald stores it as a byte array.
  const std::string msg = "NVRM: Xid (PCI:0000:01:00): 79, pid=1234, GPU has fallen off the bus.\xff";
  const std::string data = R"({"__REALTIME_TIMESTAMP":"1700000000000000","_TRANSPORT":"kernel",)"
                           R"("_SOURCE_MONOTONIC_TIMESTAMP":"4909922970","MESSAGE":)" +
                           bytes_as_json_array(msg) + "}\n";
  auto run = run_format(FormatId::journal_json, data);
  EXPECT_EQ(run->diag().accepted, 1u);
  Table& e = run->events();
  ASSERT_EQ(e.rows(), 1u);
  EXPECT_EQ(e.column(event_col::kind).get_int(0), static_cast<int>(EventKind::xid));
  EXPECT_EQ(e.column(event_col::code).get_int(0), 79);
  EXPECT_EQ(e.column(event_col::text).get_string(0), msg);
  EXPECT_EQ(e.column(event_col::mono_ns).get_int(0), 4909922970 * kNsPerUs);
}

TEST(JournalJson, DocumentedByteArrayAndMultiValueForms) {
  // systemd's JSON format document: BINARY = "this is a binary value \a" as numbers; a field set
  // twice becomes a list of values; a field too large for journalctl becomes null.
  const std::string data =
      R"({"__REALTIME_TIMESTAMP":"1","MESSAGE":[ 116, 104, 105, 115, 32, 105, 115, 32, 97, 32, 98, 105, 110, 97, 114, 121, 32, 118, 97, 108, 117, 101, 32, 7 ]})"
      "\n"
      R"({"__REALTIME_TIMESTAMP":"2","MESSAGE":[ "this is the first value", "second" ],"_UDEV_DEVLINK":[ "/dev/alias1", "/dev/alias2" ]})"
      "\n"
      R"({"__REALTIME_TIMESTAMP":"3","MESSAGE":[ null, [ 116, 104, 105, 115, 32, 105, 115 ] ]})"
      "\n"
      R"({"__REALTIME_TIMESTAMP":"4","MESSAGE":null,"LARGE":null})"
      "\n";
  auto run = run_format(FormatId::journal_json, data, [](auto& r) { catch_all(r, "this is"); });
  EXPECT_EQ(run->diag().accepted, 4u);
  EXPECT_EQ(run->diag().rejected(), 0u);
  Table& e = run->events();
  ASSERT_EQ(e.rows(), 3u);
  EXPECT_EQ(e.column(event_col::text).get_string(0), "this is a binary value \a");
  EXPECT_EQ(e.column(event_col::text).get_string(1), "this is the first value");
  EXPECT_EQ(e.column(event_col::text).get_string(2), "this is");
}

TEST(JournalJson, JsonSeqAndColonSpacingAreAccepted) {
  const std::string data =
      "\x1e{ \"__REALTIME_TIMESTAMP\" : \"1700000000000001\", \"MESSAGE\" : \"taints kernel.\", \"_TRANSPORT\" : \"kernel\" }\n"
      "\x1e{\"__REALTIME_TIMESTAMP\":\"1700000000000002\",\"MESSAGE\":\"taints kernel.\",\"_TRANSPORT\":\"kernel\"}\n";
  auto run = run_format(FormatId::journal_json, data);
  EXPECT_EQ(run->detection.format, FormatId::journal_json);
  EXPECT_EQ(run->diag().accepted, 2u);
  ASSERT_EQ(run->events().rows(), 2u);
  EXPECT_EQ(run->events().column(event_col::kind).get_int(1), static_cast<int>(EventKind::taint));
}

TEST(JournalJson, BootsAreNumberedInOrderOfAppearance) {
  const std::string data =
      R"({"__REALTIME_TIMESTAMP":"1700000001000000","__MONOTONIC_TIMESTAMP":"5000000","_BOOT_ID":"aaaa","MESSAGE":"m1"})" "\n"
      R"({"__REALTIME_TIMESTAMP":"1700000002000000","__MONOTONIC_TIMESTAMP":"1000000","_BOOT_ID":"bbbb","MESSAGE":"m2"})" "\n"
      R"({"__REALTIME_TIMESTAMP":"1700000002000001","_BOOT_ID":"aaaa","MESSAGE":"m3"})" "\n";
  auto run = run_format(FormatId::journal_json, data, [](auto& r) { catch_all(r, "m"); });
  Table& e = run->events();
  ASSERT_EQ(e.rows(), 3u);
  EXPECT_EQ(e.column(event_col::boot_seq).get_int(0), 0);
  EXPECT_EQ(e.column(event_col::boot_seq).get_int(1), 1);
  EXPECT_EQ(e.column(event_col::boot_seq).get_int(2), 0);
  auto& a = run->sink->anchors();
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[1].boot_id, "bbbb");
  EXPECT_EQ(a[1].boot_seq, 1);
  EXPECT_EQ(a[1].wall_raw_ns - a[1].mono_ns, (1700000002000000 - 1000000) * kNsPerUs);
}

TEST(JournalJson, StampsOfAClockNeverSetAnchorNothing) {
  // Issue 21: __REALTIME_TIMESTAMP 0 and 1970 + uptime (a board without a real-time clock).
  const std::string data =
      R"({"__REALTIME_TIMESTAMP":"0","__MONOTONIC_TIMESTAMP":"5000000","_BOOT_ID":"aaaa","MESSAGE":"m1"})" "\n"
      R"({"__REALTIME_TIMESTAMP":"5000001","__MONOTONIC_TIMESTAMP":"5000001","_BOOT_ID":"aaaa","MESSAGE":"m2"})" "\n"
      R"({"__REALTIME_TIMESTAMP":"1700000002000000","__MONOTONIC_TIMESTAMP":"6000000","_BOOT_ID":"aaaa","MESSAGE":"m3"})" "\n";
  auto run = run_format(FormatId::journal_json, data, [](auto& r) { catch_all(r, "m"); });
  Table& e = run->events();
  ASSERT_EQ(e.rows(), 3u);
  EXPECT_FALSE(e.column(event_col::wall_raw_ns).is_valid(0));
  EXPECT_EQ(e.column(event_col::mono_ns).get_int(0), 5000000 * kNsPerUs);  // placed by its boot
  EXPECT_FALSE(e.column(event_col::wall_raw_ns).is_valid(1));
  EXPECT_EQ(e.column(event_col::wall_raw_ns).get_int(2), 1700000002000000 * kNsPerUs);
  EXPECT_FALSE(e.column(event_col::mono_ns).is_valid(2));
  ASSERT_EQ(run->sink->anchors().size(), 1u);
  EXPECT_EQ(run->sink->anchors()[0].line, 3u);
  EXPECT_EQ(run->sink->diagnostics().problems[static_cast<std::size_t>(Problem::implausible_time)], 2u);
}

TEST(JournalJson, OnlyTheKernelTransportIsTheKernel) {
  const std::string data =
      R"({"__REALTIME_TIMESTAMP":"1700000001000000","_TRANSPORT":"kernel","SYSLOG_IDENTIFIER":"kernel","MESSAGE":"m1"})" "\n"
      R"({"__REALTIME_TIMESTAMP":"1700000002000000","_TRANSPORT":"syslog","SYSLOG_IDENTIFIER":"kernel","_UID":"1000","MESSAGE":"m2"})" "\n"
      R"({"__REALTIME_TIMESTAMP":"1700000003000000","_TRANSPORT":"journal","_COMM":"kernel","MESSAGE":"m3"})" "\n"
      R"({"__REALTIME_TIMESTAMP":"1700000004000000","_TRANSPORT":"stdout","MESSAGE":"m4"})" "\n"
      R"({"__REALTIME_TIMESTAMP":"1700000005000000","_TRANSPORT":"syslog","SYSLOG_IDENTIFIER":"cron","MESSAGE":"m5"})" "\n";
  auto run = run_format(FormatId::journal_json, data, [](auto& r) { catch_all(r, "m"); });
  Table& e = run->events();
  ASSERT_EQ(e.rows(), 2u);
  EXPECT_EQ(e.column(event_col::text).get_string(0), "m1");
  EXPECT_EQ(e.column(event_col::text).get_string(1), "m5");
  const auto& d = run->sink->diagnostics();
  EXPECT_EQ(d.problems[static_cast<std::size_t>(Problem::spoofed_kernel_ident)], 3u);
  EXPECT_EQ(d.accepted, 5u);
}

TEST(JournalJson, BadLinesAreRejectedWithReasonsAndGoodLinesStay) {
  const std::string good = R"({"__REALTIME_TIMESTAMP":"1700000000000000","MESSAGE":"taints kernel.","_TRANSPORT":"kernel"})";
  struct Bad {
    std::string line;
    Problem problem;
    std::string reason;
  };
  const Bad bad[] = {
      {R"({"__REALTIME_TIMESTAMP":"1700000000000000","MESSAGE":"cut he)", Problem::bad_json,
       "truncated: a string is not closed"},
      {R"({"__REALTIME_TIMESTAMP":"1700000000000000","MESSAGE":"no closing brace")", Problem::bad_json,
       "truncated: an object or array is not closed"},
      {R"({"MESSAGE":"x","__REALTIME_TIMESTAMP":"1","DEEP":[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]})", Problem::bad_json,
       "field DEEP is nested too deeply; journal fields are at most lists of byte arrays"},
      {R"({"MESSAGE":"x","__REALTIME_TIMESTAMP":123456789012345678901234567890})", Problem::bad_json,
       "field __REALTIME_TIMESTAMP: a number does not fit in 64 bits"},
      {R"({"MESSAGE":"x","__REALTIME_TIMESTAMP":1.5e15})", Problem::bad_json,
       "field __REALTIME_TIMESTAMP is the number 1.5e15, not a whole count of microseconds"},
      {R"({"MESSAGE":"no time","_BOOT_ID":"aaaa"})", Problem::missing_field,
       "journal entry has no __REALTIME_TIMESTAMP"},
      {R"({"__REALTIME_TIMESTAMP":{"us":1},"MESSAGE":"x"})", Problem::bad_json,
       "field __REALTIME_TIMESTAMP is an object, expected a string"},
      {R"({"__REALTIME_TIMESTAMP":"1","MESSAGE":true})", Problem::bad_json,
       "field MESSAGE is a boolean, expected a string"},
      {R"({"__REALTIME_TIMESTAMP":"1","MESSAGE":[104, 300]})", Problem::bad_json,
       "field MESSAGE: a byte array holds 300, not a byte"},
      {R"({"__REALTIME_TIMESTAMP":"yesterday","MESSAGE":"x"})", Problem::bad_timestamp,
       "__REALTIME_TIMESTAMP \"yesterday\" is not a count of microseconds since the epoch"},
      {R"({"__REALTIME_TIMESTAMP":"1","MESSAGE":"x"} {"more":1})", Problem::bad_json,
       "content after the end of the document"},
      {R"([1, 2, 3])", Problem::bad_json, "the line is JSON but not an object"},
      {R"({"__REALTIME_TIMESTAMP":"1","MESSAGE":"x",})", Problem::bad_json,
       "malformed JSON (a missing comma, colon, brace or key)"},
  };
  for (const auto& b : bad) {
    SCOPED_TRACE(b.line);
    const std::string data = good + "\n" + b.line + "\n" + good + "\n";
    auto run = run_format(FormatId::journal_json, data);
    auto& d = run->diag();
    EXPECT_EQ(d.lines, 3u);
    EXPECT_EQ(d.accepted, 2u);
    EXPECT_EQ(run->problems(b.problem), 1u);
    EXPECT_EQ(d.rejected(), 1u);
    EXPECT_EQ(sample_reasons(d, b.problem), b.reason);
    ASSERT_FALSE(d.samples.empty());
    EXPECT_EQ(d.samples[0].line, 2u);
    EXPECT_EQ(d.samples[0].offset, good.size() + 1);
    EXPECT_EQ(run->events().rows(), 2u);
  }
}

TEST(JournalJson, TruncatedLineIsReportedOnce) {
  const std::string good = R"({"__REALTIME_TIMESTAMP":"1700000000000000","MESSAGE":"ok"})";
  // The source cuts a line only once no newline is in sight within a read block (1 MiB).
  const std::string longline = R"({"__REALTIME_TIMESTAMP":"1","MESSAGE":")" + std::string(2 << 20, 'x') + "\"}";
  auto run = run_format(FormatId::journal_json, good + "\n" + longline + "\n",
                        [](auto& r) { r.options.max_line_length = 200; });
  EXPECT_EQ(run->diag().accepted, 1u);
  EXPECT_EQ(run->problems(Problem::truncated_line), 1u);
  EXPECT_EQ(run->problems(Problem::bad_json), 0u);
}

TEST(JournalJson, LinesLongerThanTheParsersFirstBufferAreRead) {
  // The parser starts with a 64 KiB buffer; a longer line (allowed by --max-line-length) grows it.
  const std::string msg = "taints kernel. " + std::string(200000, 'y');
  const std::string data = R"({"__REALTIME_TIMESTAMP":"1","_TRANSPORT":"kernel","MESSAGE":")" + msg + "\"}\n";
  auto run = run_format(FormatId::journal_json, data, [](auto& r) { r.options.max_line_length = 1 << 20; });
  EXPECT_EQ(run->diag().accepted, 1u);
  ASSERT_EQ(run->events().rows(), 1u);
  EXPECT_EQ(run->events().column(event_col::text).get_string(0).size(), msg.size());
}

TEST(JournalJson, ScoresOnlyJournalObjects) {
  const LogFormat& f = *find_format(FormatId::journal_json);
  EXPECT_EQ(f.score(R"({ "__CURSOR" : "s=1;i=2" })"), 100);
  EXPECT_EQ(f.score("\x1e{\"MESSAGE\":\"x\"}"), 100);
  EXPECT_EQ(f.score(R"({"traceEvents": []})"), 0);
  EXPECT_EQ(f.score("Nov 29 19:50:45 host kernel: MESSAGE"), 0);
  EXPECT_EQ(f.score("__REALTIME_TIMESTAMP=1342540861416409"), 0);
}

}  // namespace
}  // namespace gpucost
