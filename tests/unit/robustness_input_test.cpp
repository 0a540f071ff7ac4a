// Bad bytes in input files (docs/robustness.md): each test puts the bad input beside good data,
// runs the built binary, and asserts the exit code, the diagnostic (problem kind, file:line
// sample) and that the good data is still in the report.
#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

#include "robustness_util.hpp"

namespace gpucost::robust {
namespace {

// Deterministic bytes that are not text (a PNG, a core dump, /var/log/wtmp in the directory).
std::string garbage(std::size_t n, std::uint32_t seed) {
  std::string s(n, '\0');
  std::uint32_t x = seed;
  for (auto& c : s) {
    x = x * 1664525u + 1013904223u;
    c = static_cast<char>(x >> 24);
  }
  return s;
}

std::string to_crlf(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

std::string gzip(std::string_view data) {
  std::string out(compressBound(static_cast<uLong>(data.size())) + 64, '\0');
  z_stream z{};
  deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);  // 16: gzip header
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// s with what inserted before the first occurrence of where.
std::string insert_at(std::string_view s, std::string_view where, std::string_view what) {
  const std::size_t at = s.find(where);
  std::string out(s.substr(0, at));
  out.append(what).append(s.substr(at));
  return out;
}

// An Xid 31 line of kern.log (real layout) at second `s` of 11:28, with a pid to tell them apart.
std::string xid_line(int s, int pid) {
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "Nov 29 11:28:%02d", s % 60);
  return std::string(stamp) + " zeus kernel: NVRM: Xid (PCI:0000:c1:00): 31, pid=" + std::to_string(pid) +
         ", Ch 0000003b, intr 00000000. MMU Fault: ENGINE HOST0 HUBCLIENT_HOST_CPU faulted @ 0x1_0c3c0000. "
         "Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE\n";
}

TEST(RobustInput, BinaryFileIsListedAsUnknownAndTheRestIsAnalyzed) {
  Scratch d("binary_file");
  put_good_data(d.path());
  write_bytes(d / "core.bin", garbage(64 * 1024, 7));
  auto a = analyze(d.path());
  ASSERT_TRUE(a->parsed) << a->child.err;
  EXPECT_EQ(a->child.exit_code, 0) << a->child.err;
  EXPECT_EQ(a->format("core.bin"), "unknown");
  EXPECT_EQ(a->problems("core.bin", "unknown_format"), 1u);
  const auto s = a->samples("core.bin", "unknown_format");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].find("0: "), std::string::npos) << s[0];  // a whole-file problem: line 0
  EXPECT_NE(s[0].find("match no known format"), std::string::npos) << s[0];
  EXPECT_EQ(a->count("core.bin", "records"), 0u);
  EXPECT_TRUE(a->good_data_present()) << a->child.out.substr(0, 2000);
}

TEST(RobustInput, BinaryBlockInsideAKernLogIsCountedAndTheLinesAroundItAreKept) {
  Scratch d("binary_block");
  put_good_data(d.path());
  // What a crash leaves in kern.log: zero padding, then the first line written after the reboot
  // on the same line; and a block of binary bytes (first byte \x01: no layout starts that way).
  std::string log = kKernLogLines;
  log += std::string(3000, '\0') + xid_line(30, 4242);
  std::string junk = garbage(300, 3);
  for (auto& c : junk)  // one line of it: CR ends a line too
    if (c == '\n' || c == '\r') c = '\x02';
  log += '\x01';
  log += junk;
  log += '\n';
  log += xid_line(40, 5001) + xid_line(41, 5002);
  write_bytes(d / "kern.log", log);
  auto a = analyze(d.path());
  ASSERT_TRUE(a->parsed) << a->child.err;
  // 1 rejected line of 7 in kern.log, 26 non-blank lines in all: 3.8 %, under the default 5 %.
  EXPECT_EQ(a->child.exit_code, 0) << a->child.err;
  EXPECT_EQ(a->problems("kern.log", "binary_data"), 1u) << simdjson::to_string(a->file("kern.log"));
  const auto s = a->samples("kern.log", "binary_data");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].rfind("5: \\x01", 0), 0u) << s[0];  // line 5, control bytes shown as \xNN
  EXPECT_NE(s[0].find("binary bytes"), std::string::npos) << s[0];
  // Both Xid lines before the block, the line behind the zero padding, both after it.
  EXPECT_EQ(a->count("kern.log", "records"), 5u);
  EXPECT_EQ(a->events("xid"), 5u);
  bool noted = false;
  for (auto n : a->file("kern.log")["notes"].get_array()) {
    std::string_view t;
    if (!n.get(t) && t.find("3000 NUL bytes skipped") != std::string_view::npos) noted = true;
  }
  EXPECT_TRUE(noted) << a->child.out.substr(0, 4000);
  EXPECT_TRUE(a->good_data_present());
  EXPECT_NE(a->child.err.find("binary_data"), std::string::npos) << a->child.err;  // summarized on stderr
}

TEST(RobustInput, RejectedLinesAboveTheMaximumRateExitFourWithTheWholeReport) {
  Scratch d("error_rate");
  put_good_data(d.path());
  std::string log = kKernLogLines;
  for (int i = 0; i < 4; ++i) log.append("\x01\x02\x03 binary ").append(std::to_string(i)).append("\n");
  write_bytes(d / "kern.log", log);
  const fs::path out = d / ".." / (d.path().filename().string() + "-report.json");
  // 4 rejected lines of 26: 15 %.
  auto a = analyze(d.path(), {"-o", out.string()});
  EXPECT_EQ(a->child.exit_code, 4) << a->child.err;
  EXPECT_NE(a->child.err.find("more than --max-error-rate"), std::string::npos) << a->child.err;
  const std::string written = read_bytes(out);
  fs::remove(out);
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.parse(simdjson::padded_string(written)).get(doc), simdjson::SUCCESS) << "report not written in full";
  bool exceeded = false;
  ASSERT_EQ(doc["diagnostics"]["error_rate_exceeded"].get(exceeded), simdjson::SUCCESS);
  EXPECT_TRUE(exceeded);
  std::uint64_t binary = 0;
  EXPECT_EQ(doc["diagnostics"]["problems"]["binary_data"].get(binary), simdjson::SUCCESS);
  EXPECT_EQ(binary, 4u);
  // The same input with a higher limit: exit 0.
  auto b = analyze(d.path(), {"--max-error-rate", "0.2"});
  EXPECT_EQ(b->child.exit_code, 0) << b->child.err;
  EXPECT_TRUE(b->good_data_present());
  EXPECT_EQ(b->events("xid"), 2u);
}

TEST(RobustInput, TruncatedGzipKeepsTheLinesBeforeTheDamage) {
  Scratch d("truncated_gz");
  put_good_data(d.path());
  std::string log;
  for (int i = 0; i < 2000; ++i) log += xid_line(i, 10000 + i);
  const std::string gz = gzip(log);
  write_bytes(d / "kern.log.1.gz", std::string_view(gz).substr(0, gz.size() / 2));
  auto a = analyze(d.path());
  ASSERT_TRUE(a->parsed) << a->child.err;
  EXPECT_EQ(a->child.exit_code, 0) << a->child.err;  // a file-level problem, not rejected lines
  EXPECT_EQ(a->problems("kern.log.1.gz", "truncated_gzip"), 1u);
  const auto s = a->samples("kern.log.1.gz", "truncated_gzip");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].find("truncated gzip stream"), std::string::npos) << s[0];
  const auto records = a->count("kern.log.1.gz", "records");
  EXPECT_GT(records, 100u);   // the first half of the stream...
  EXPECT_LT(records, 2000u);  // ...not the lost half
  EXPECT_TRUE(a->good_data_present());
}

TEST(RobustInput, TwentyMegabyteLineWithoutNewlineIsCutAndCounted) {
  Scratch d("long_line");
  put_good_data(d.path());
  write_bytes(d / "kern.log", std::string(kKernLogLines) + std::string(20 << 20, 'x'));
  auto a = analyze(d.path());
  ASSERT_TRUE(a->parsed) << a->child.err;
  EXPECT_EQ(a->count("kern.log", "lines"), 4u);
  EXPECT_EQ(a->problems("kern.log", "truncated_line"), 1u);
  const auto s = a->samples("kern.log", "truncated_line");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].rfind("4: xxxx", 0), 0u) << s[0];
  EXPECT_NE(s[0].find("longer than 65536 bytes"), std::string::npos) << s[0];
  EXPECT_EQ(a->events("xid"), 2u);
  EXPECT_TRUE(a->good_data_present());
  // The cut line is also unreadable as a log line: 2 problems of 23 lines (8.7 %).
  EXPECT_EQ(a->child.exit_code, 4) << joined(a->samples("kern.log", "unparsable_line"));
}

TEST(RobustInput, MaxLineLengthIsConfigurable) {
  Scratch d("max_line");
  put_good_data(d.path());
  write_bytes(d / "kern.log", std::string(kKernLogLines) + xid_line(40, 777).substr(0, 60) + std::string(2000, 'y') + "\n");
  auto a = analyze(d.path(), {"--max-line-length", "1024", "--max-error-rate", "1"});
  ASSERT_TRUE(a->parsed) << a->child.err;
  EXPECT_EQ(a->child.exit_code, 0);
  const auto s = a->samples("kern.log", "truncated_line");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].find("longer than 1024 bytes"), std::string::npos) << s[0];
  // The first 1024 bytes are still a kern.log line with an Xid: kept, flagged truncated.
  EXPECT_EQ(a->events("xid"), 3u);
  EXPECT_TRUE(a->good_data_present());
}

TEST(RobustInput, NulBytesInsideALineAreKeptAndEscapedInJson) {
  Scratch d("nul_inside");
  put_good_data(d.path());
  std::string line = xid_line(12, 31337);
  line = insert_at(line, "31337", std::string("\0", 1));  // pid=\031337
  line = insert_at(line, "MMU Fault", std::string("name=py\0thon, ", 14));
  write_bytes(d / "kern.log", std::string(kKernLogLines).append(line));
  auto a = analyze(d.path());
  ASSERT_TRUE(a->parsed) << a->child.err;
  EXPECT_EQ(a->child.exit_code, 0) << a->child.err;
  EXPECT_EQ(a->events("xid"), 3u);
  EXPECT_EQ(a->count("kern.log", "rejected"), 0u);
  EXPECT_TRUE(a->good_data_present());
  auto t = run({"timeline", d.path().string()});
  EXPECT_EQ(t.exit_code, 0);
  EXPECT_NE(t.out.find("name=py\\u0000thon"), std::string::npos) << t.out.substr(0, 3000);
  EXPECT_EQ(t.out.find('\0'), std::string::npos);
}

TEST(RobustInput, CrlfLineEndsReadExactlyLikeLf) {
  Scratch lf("lf"), crlf("crlf");
  const std::string journal = test_data("real/journal/json-kernel-transport-ext4-oneline.txt");
  for (const Scratch* d : {&lf, &crlf}) {
    const bool cr = d == &crlf;
    auto put = [&](const std::string& name, const std::string& text) { write_bytes(*d / name, cr ? to_crlf(text) : text); };
    put("good/dmesg.txt", test_data(kGoodDmesg));
    put("good/gpu0-dmon.txt", test_data(kGoodDmon));
    put("kern.log", kKernLogLines);
    put("journal.json", journal);
  }
  auto a = analyze(lf.path()), b = analyze(crlf.path());
  ASSERT_TRUE(a->parsed && b->parsed) << b->child.err;
  EXPECT_EQ(b->child.exit_code, 0) << b->child.err;
  EXPECT_TRUE(b->good_data_present());
  for (const char* f : {"good/dmesg.txt", "good/gpu0-dmon.txt", "kern.log", "journal.json"}) {
    EXPECT_EQ(b->count(f, "rejected"), 0u) << f;
    EXPECT_EQ(b->count(f, "records"), a->count(f, "records")) << f;
    EXPECT_EQ(b->format(f), a->format(f)) << f;
  }
  EXPECT_EQ(b->events("xid"), 2u);
  // The text of the events is the same: no '\r' kept at line ends.
  auto ta = run({"timeline", lf.path().string(), "--format", "csv"}), tb = run({"timeline", crlf.path().string(), "--format", "csv"});
  EXPECT_EQ(tb.out.find('\r'), std::string::npos);
  EXPECT_EQ(ta.out.size(), tb.out.size());
}

TEST(RobustInput, InvalidUtf8IsKeptAndEscapedInJson) {
  Scratch d("utf8");
  put_good_data(d.path());
  std::string line = xid_line(20, 4096);
  // A Latin-1 name, a cut multibyte character, and valid UTF-8 beside them.
  line = insert_at(line, "MMU Fault", "name=caf\xe9-\xe6\x9c-\xe6\x9c\x88, ");
  write_bytes(d / "kern.log", std::string(kKernLogLines).append(line));
  auto a = analyze(d.path());
  ASSERT_TRUE(a->parsed) << a->child.err;
  EXPECT_EQ(a->child.exit_code, 0) << a->child.err;
  EXPECT_EQ(a->events("xid"), 3u);
  EXPECT_TRUE(a->good_data_present());
  auto t = run({"timeline", d.path().string()});
  ASSERT_EQ(t.exit_code, 0);
  // Each byte that is not UTF-8 becomes \udcXX (lossless); the valid character stays as it is.
  EXPECT_NE(t.out.find("name=caf\\udce9-\\udce6\\udc9c-\xe6\x9c\x88, "), std::string::npos) << t.out.substr(0, 4000);
  EXPECT_EQ(t.out.find("\xe9"), std::string::npos);
  // Every line is JSON (read the way the HTML writer reads the report).
  std::size_t lines = 0;
  for (std::size_t pos = 0; pos < t.out.size(); ++lines) {
    const auto nl = t.out.find('\n', pos);
    ASSERT_NE(nl, std::string::npos);
    simdjson::dom::parser p;
    simdjson::dom::element e;
    EXPECT_EQ(p.parse(simdjson::padded_string(testing::replace_lone_surrogates(t.out.substr(pos, nl - pos)))).get(e),
              simdjson::SUCCESS);
    pos = nl + 1;
  }
  EXPECT_GE(lines, 6u);
}

TEST(RobustInput, JournalJsonTruncatedNestedAndHugeNumbersAreRejectedOneByOne) {
  Scratch d("journal_json");
  put_good_data(d.path());
  const std::string good =
      R"({"__REALTIME_TIMESTAMP":"1795137693119613","__MONOTONIC_TIMESTAMP":"1292707307","_BOOT_ID":"2c18e4b26c0760722a2306bc75929b67",)"
      R"("MESSAGE":"NVRM: Xid (PCI:0000:01:00): 43, pid=3112, name=python, Ch 000000bb","_SOURCE_MONOTONIC_TIMESTAMP":"1292706759",)"
      R"("_TRANSPORT":"kernel","SYSLOG_IDENTIFIER":"kernel"})";
  std::string later = good;
  later.replace(later.find("1795137693119613"), 16, "1795137699000000");
  later.replace(later.find("1292707307"), 10, "1298587694");
  later.replace(later.find("1292706759"), 10, "1298587000");
  const std::string head = R"({"__REALTIME_TIMESTAMP":"1795137693119700","MESSAGE":)";
  std::string nested_objects;
  for (int i = 0; i < 3000; ++i) nested_objects += R"({"a":)";
  nested_objects.append("1").append(3000, '}');
  const std::string file =
      good + "\n" +                                                                               // 1
      good.substr(0, 120) + "\n" +                                                                // 2: cut short
      head + std::string(5000, '[') + std::string(5000, ']') + "}\n" +                            // 3: 5000 deep
      head + R"("x","A":)" + nested_objects + "}\n" +                                             // 4: 3000 deep
      R"({"__REALTIME_TIMESTAMP":"99999999999999999999999","MESSAGE":"x"})" "\n" +                 // 5: > 2^64
      R"({"__REALTIME_TIMESTAMP":1e999,"MESSAGE":"x"})" "\n" +                                     // 6: a number
      R"({"__REALTIME_TIMESTAMP":"1795137693119613","_PID":1e400,"MESSAGE":"y"})" "\n" +          // 7: odd _PID
      head + std::string(100'000, '[') + std::string(100'000, ']') + "}\n" +                      // 8: 200 KB
      later + "\n";                                                                               // 9
  write_bytes(d / "journal.json", file);
  auto a = analyze(d.path(), {"--max-error-rate", "1"});
  ASSERT_TRUE(a->parsed) << a->child.err;
  EXPECT_EQ(a->child.exit_code, 0) << a->child.err;
  EXPECT_EQ(a->format("journal.json"), "journal_json");
  EXPECT_EQ(a->count("journal.json", "lines"), 9u);
  const std::string all = simdjson::to_string(a->file("journal.json"));
  EXPECT_EQ(a->count("journal.json", "rejected"), 6u) << all;
  EXPECT_EQ(a->problems("journal.json", "bad_json"), 4u) << all;  // lines 2, 3, 4, 6
  const auto bad = a->samples("journal.json", "bad_json");
  ASSERT_EQ(bad.size(), 3u) << all;  // the first three are kept
  EXPECT_EQ(bad[0].rfind("2: ", 0), 0u) << all;
  EXPECT_NE(bad[0].find("truncated"), std::string::npos) << all;
  EXPECT_EQ(bad[1].rfind("3: ", 0), 0u) << all;
  EXPECT_EQ(bad[2].rfind("4: ", 0), 0u) << all;
  const auto stamps = a->samples("journal.json", "bad_timestamp");
  ASSERT_EQ(stamps.size(), 1u) << all;
  EXPECT_EQ(stamps[0].rfind("5: ", 0), 0u) << all;
  const auto cut = a->samples("journal.json", "truncated_line");
  ASSERT_EQ(cut.size(), 1u) << all;
  EXPECT_EQ(cut[0].rfind("8: ", 0), 0u) << all;
  EXPECT_EQ(a->count("journal.json", "records"), 2u);  // the Xids of lines 1 and 9
  EXPECT_EQ(a->events("xid"), 2u);
  EXPECT_TRUE(a->good_data_present());
  // With the default limit, 6 rejected lines of 28 (21 %) exit 4, and the report is whole.
  auto b = analyze(d.path());
  EXPECT_EQ(b->child.exit_code, 4);
  EXPECT_TRUE(b->parsed && b->good_data_present());
}

TEST(RobustInput, DmonRowsWithMoreOrFewerColumnsThanTheHeader) {
  Scratch d("dmon_columns");
  put_good_data(d.path());
  const std::string header =
      "#Date       Time        gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk sbecc dbecc   pci rxpci txpci\n"
      "#YYYYMMDD   HH:MM:SS    Idx     W     C     C     %     %     %     %   MHz   MHz  errs  errs  errs  MB/s  MB/s\n";
  const std::string file = header +
      " 20261129   09:00:00      1    40    41     -     0     0     0     0   405   210     -     -     0     0     0\n"
      " 20261129   09:00:02      1    42    42     -     3     1     0     0   405   210     -     -     0     0\n"         // 16
      " 20261129   09:00:04      1   110    55     -    95    40     0     0  8001  2490     -     -     0    12     3  7\n"  // 18
      " 20261129   09:00:06      1   112    61     -    97    41     0     0  8001  2490     -     -     0    12     3\n";
  write_bytes(d / "gpu1-dmon.txt", file);
  auto a = analyze(d.path(), {"--max-error-rate", "1"});
  ASSERT_TRUE(a->parsed) << a->child.err;
  EXPECT_EQ(a->child.exit_code, 0);
  EXPECT_EQ(a->format("gpu1-dmon.txt"), "dmon");
  EXPECT_EQ(a->problems("gpu1-dmon.txt", "column_mismatch"), 2u);
  const auto s = a->samples("gpu1-dmon.txt", "column_mismatch");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].rfind("4: ", 0), 0u) << joined(s);
  EXPECT_NE(s[0].find("16 fields, header has 17"), std::string::npos) << joined(s);
  EXPECT_EQ(s[1].rfind("5: ", 0), 0u) << joined(s);
  EXPECT_NE(s[1].find("18 fields, header has 17"), std::string::npos) << joined(s);
  EXPECT_EQ(a->count("gpu1-dmon.txt", "records"), 2u);  // rows 3 and 6
  EXPECT_EQ(a->samples_rows(), 12u);
  EXPECT_TRUE(a->good_data_present());
  // 2 of 25 lines rejected: 8 % > 5 %.
  EXPECT_EQ(analyze(d.path())->child.exit_code, 4);
}

TEST(RobustInput, TimeGoingBackwardsIsKeptAndFlagged) {
  Scratch d("backwards");
  put_good_data(d.path());
  const std::string file =
      "#Date       Time        gpu   pwr gtemp    sm   mem\n"
      "#YYYYMMDD   HH:MM:SS    Idx     W     C     %     %\n"
      " 20261129   09:00:00      1    40    41     0     0\n"
      " 20261129   09:00:02      1    42    42     3     1\n"
      " 20261129   07:59:58      1   110    55    95    40\n"  // the clock was set back an hour
      " 20261129   08:00:00      1   112    61    97    41\n";
  write_bytes(d / "gpu1-dmon.txt", file);
  auto a = analyze(d.path());
  ASSERT_TRUE(a->parsed) << a->child.err;
  EXPECT_EQ(a->child.exit_code, 0) << a->child.err;  // a note, not a rejected line
  EXPECT_EQ(a->count("gpu1-dmon.txt", "rejected"), 0u);
  EXPECT_EQ(a->problems("gpu1-dmon.txt", "time_backwards"), 1u);
  const auto s = a->samples("gpu1-dmon.txt", "time_backwards");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].find("5: "), std::string::npos) << s[0];
  EXPECT_NE(s[0].find("2026-11-29T07:59:58.000Z is 1 h 0 min before line 4's 2026-11-29T09:00:02.000Z"), std::string::npos)
      << s[0];
  EXPECT_EQ(a->count("gpu1-dmon.txt", "records"), 4u);
  EXPECT_EQ(a->samples_rows(), 14u);  // every row kept
  EXPECT_TRUE(a->good_data_present());
}

TEST(RobustInput, EmptyFilesAreNotedAndAnEmptyDirectoryIsNoUsableInput) {
  Scratch d("empty");
  put_good_data(d.path());
  write_bytes(d / "empty.log", "");
  write_bytes(d / "blank.log", "\n\n   \n\t\n");
  auto a = analyze(d.path());
  ASSERT_TRUE(a->parsed) << a->child.err;
  EXPECT_EQ(a->child.exit_code, 0) << a->child.err;
  for (const char* f : {"empty.log", "blank.log"}) {
    EXPECT_TRUE(a->has_file(f)) << f;
    EXPECT_EQ(a->count(f, "rejected"), 0u) << f;
    EXPECT_EQ(a->problems(f, "unknown_format"), 0u) << f;
    std::string_view note;
    EXPECT_EQ(a->file(f)["notes"].at(0).get(note), simdjson::SUCCESS) << f;
    EXPECT_EQ(note, "empty file (no non-blank lines)") << f;
  }
  EXPECT_TRUE(a->good_data_present());

  Scratch e("only_empty");
  write_bytes(e / "empty.log", "");
  auto b = run({"analyze", e.path().string()});
  EXPECT_EQ(b.exit_code, 3);
  EXPECT_TRUE(b.out.empty());
  EXPECT_NE(b.err.find("no usable input"), std::string::npos) << b.err;
}

TEST(RobustInput, MaxEventsPerKindKeepsTheFirstAndCountsTheRest) {
  Scratch d("max_events");
  put_good_data(d.path());
  std::string log;
  for (int i = 0; i < 20; ++i) log += xid_line(i, 2000 + i);
  write_bytes(d / "kern.log", log);
  auto a = analyze(d.path(), {"--max-events-per-kind", "5"});
  ASSERT_TRUE(a->parsed) << a->child.err;
  EXPECT_EQ(a->child.exit_code, 0) << a->child.err;  // nothing rejected: counted, not kept
  EXPECT_EQ(a->problems("kern.log", "events_dropped"), 15u);
  const auto s = a->samples("kern.log", "events_dropped");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].rfind("6: ", 0), 0u) << s[0];
  EXPECT_NE(s[0].find("more than 5 rows of xid events"), std::string::npos) << s[0];
  EXPECT_EQ(a->events("xid"), 5u);
  EXPECT_TRUE(a->good_data_present());
}

}  // namespace
}  // namespace gpucost::robust
