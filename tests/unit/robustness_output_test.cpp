// Where the output goes wrong (docs/robustness.md): a reader that closes the pipe early
// (`gpucost timeline big | head -1`), a full disk under -o FILE or on stdout. A failed run leaves
// no half-written report; a closed pipe ends quietly. (tests/unit/cli_test.cpp checks -o FILE's
// rename and `features -o /dev/full`.)
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>

#include "robustness_util.hpp"

namespace gpucost::robust {
namespace {

// A directory whose timeline is far longer than a pipe holds: 40 000 Xid lines of dmesg (about
// 12 MB of JSON Lines) beside the good data.
const Scratch& big_input() {
  static const std::unique_ptr<Scratch> d = [] {
    auto s = std::make_unique<Scratch>("big");
    put_good_data(s->path());
    std::string log;
    for (int i = 0; i < 40'000; ++i) {
      char line[200];
      std::snprintf(line, sizeof line,
                    "[%6d.%06d] NVRM: Xid (PCI:0000:01:00): 13, pid=%d, name=python3, Graphics Exception\n", 100 + i,
                    i % 1000000, 1000 + i);
      log += line;
    }
    write_bytes(*s / "dmesg.big.txt", log);
    return s;
  }();
  return *d;
}

TEST(RobustOutput, ClosedPipeEndsQuietly) {
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"timeline", big_input().path().string()},
        std::vector<std::string>{"timeline", big_input().path().string(), "--format", "csv"},
        std::vector<std::string>{"analyze", big_input().path().string(), "--format", "json"}}) {
    RunOptions o;
    o.close_stdout_after = 1;  // `| head -c 1`: the reader goes away after the first bytes
    o.timeout_s = 300;
    const Child c = run(cmd, o);
    ASSERT_FALSE(c.hung) << cmd[0];
    EXPECT_TRUE(c.stdout_closed) << cmd[0];
    // The conventional ends of a closed pipe: a quiet 0, or death by SIGPIPE (128 + 13).
    EXPECT_TRUE(c.exit_code == 0 || c.exit_code == 128 + SIGPIPE) << cmd[0] << " " << c.exit_code;
    EXPECT_EQ(c.err, "") << cmd[0];
  }
}

TEST(RobustOutput, TheWholeTimelineArrivesWhenTheReaderStays) {
  const Child c = run({"timeline", big_input().path().string()});
  EXPECT_EQ(c.exit_code, 0) << c.err;
  std::size_t lines = 0;
  for (char ch : c.out) lines += ch == '\n';
  EXPECT_EQ(lines, 40'000u + 3u);  // every Xid, plus the good dmesg's three events
}

// The child may write at most 64 KiB into any file (a full disk, as write() sees it).
void small_disk() {
  std::signal(SIGXFSZ, SIG_IGN);  // EFBIG from write() instead of death by signal
  rlimit r{64 * 1024, 64 * 1024};
  ::setrlimit(RLIMIT_FSIZE, &r);
}

TEST(RobustOutput, FullDiskUnderOutputFileExitsFiveAndLeavesNoHalfWrittenFile) {
  Scratch out("full_disk");
  write_bytes(out / "report.json", "the previous report\n");
  RunOptions o;
  o.in_child = small_disk;
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"analyze", big_input().path().string(), "--format", "json", "-o", (out / "report.json").string()},
        std::vector<std::string>{"timeline", big_input().path().string(), "-o", (out / "report.json").string()}}) {
    const Child c = run(cmd, o);
    EXPECT_EQ(c.exit_code, 5) << cmd[0] << ": " << c.err;
    EXPECT_TRUE(c.out.empty()) << cmd[0];
    EXPECT_NE(c.err.find("gpucost: error: cannot write " + (out / "report.json").string() + ": File too large"),
              std::string::npos)
        << c.err;
    // One line, not one per failed write.
    EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1) << c.err;
    // The previous report is untouched and no temporary file is left beside it.
    EXPECT_EQ(read_bytes(out / "report.json"), "the previous report\n");
    std::size_t entries = 0;
    for ([[maybe_unused]] auto& e : fs::directory_iterator(out.path())) ++entries;
    EXPECT_EQ(entries, 1u) << cmd[0];
  }
}

TEST(RobustOutput, FullDiskOnAnOutputDeviceExitsFive) {
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"analyze", big_input().path().string(), "-o", "/dev/full"},
        std::vector<std::string>{"timeline", big_input().path().string(), "-o", "/dev/full"}}) {
    const Child c = run(cmd);
    EXPECT_EQ(c.exit_code, 5) << cmd[0];
    EXPECT_NE(c.err.find("No space left on device"), std::string::npos) << c.err;
    EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1) << c.err;
  }
}

}  // namespace
}  // namespace gpucost::robust
