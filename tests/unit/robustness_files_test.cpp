// Bad things in the input directory (docs/robustness.md): many tiny files, links that loop,
// FIFOs, sockets and devices, files that cannot be read, files that change while being read; and
// the input directory is never written to. Each test asserts the exit code, the diagnostic and
// that the good data beside the bad is still in the report. (tests/unit/ingest_test.cpp checks
// the same walk at the library level.)
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <atomic>
#include <cstring>
#include <map>
#include <thread>

#include "gpucost/ingest/ingest.hpp"
#include "robustness_util.hpp"

namespace gpucost::robust {
namespace {

// The first sample of a problem in a file, or "".
std::string first(const Analysis& a, std::string_view file, std::string_view problem) {
  const auto s = a.samples(file, problem);
  return s.empty() ? std::string() : s[0];
}

TEST(RobustFiles, TenThousandTinyFilesAreAllRead) {
  Scratch d("tiny_files");
  put_good_data(d.path());
  constexpr int kFiles = 10'000;
  for (int i = 0; i < kFiles; ++i) {
    // One real-layout kern.log line each, a distinct second and pid (no two are copies).
    const int s = i % 3600;
    char line[256];
    std::snprintf(line, sizeof line,
                  "Nov 29 %02d:%02d:%02d zeus kernel: NVRM: Xid (PCI:0000:c1:00): 13, pid=%d, Graphics Exception\n",
                  10 + i / 3600, s / 60, s % 60, 10000 + i);
    write_bytes(d / ("jobs/" + std::to_string(i / 100) + "/kern.log." + std::to_string(i % 100)), line);
  }
  RunOptions o;
  o.timeout_s = 600;  // a hang guard, not a timing assertion
  auto a = analyze(d.path(), {}, o);
  ASSERT_FALSE(a->child.hung);
  ASSERT_TRUE(a->parsed) << a->child.err.substr(0, 2000);
  EXPECT_EQ(a->child.exit_code, 0) << a->child.err.substr(0, 2000);
  std::uint64_t files = 0;
  ASSERT_EQ(a->doc["diagnostics"]["files"].get(files), simdjson::SUCCESS);
  EXPECT_EQ(files, kFiles + 2u);
  EXPECT_EQ(a->events("xid"), static_cast<std::uint64_t>(kFiles));
  EXPECT_EQ(a->count("jobs/99/kern.log.99", "records"), 1u);
  EXPECT_TRUE(a->good_data_present());
}

TEST(RobustFiles, LinksThatLoopAndSpecialFilesAreSkippedWithoutBlocking) {
  Scratch d("special");
  put_good_data(d.path());
  fs::create_directory_symlink(d.path(), d / "good" / "loop");   // a directory loop
  fs::create_symlink("self", d / "self");                          // a link to itself (ELOOP)
  fs::create_symlink(d / "missing", d / "broken");                 // a broken link
  fs::create_symlink("/dev/zero", d / "zero");                     // a device that never ends
  fs::create_symlink("/dev/null", d / "null");
  ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0644), 0);              // no writer: open() would block
  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string sock_path = (d / "sock").string();
  ASSERT_LT(sock_path.size(), sizeof addr.sun_path);
  std::strncpy(addr.sun_path, sock_path.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);

  RunOptions o;
  o.timeout_s = 120;
  auto a = analyze(d.path(), {}, o);
  ::close(sock);
  ASSERT_FALSE(a->child.hung) << "blocked on a special file";
  ASSERT_TRUE(a->parsed) << a->child.err;
  EXPECT_EQ(a->child.exit_code, 0) << a->child.err;
  const std::map<std::string, std::string> want{
      {"self", "cannot stat (broken link or loop?): Too many levels of symbolic links"},
      {"broken", "cannot stat (broken link or loop?): No such file or directory"},
      {"zero", "device file: skipped without reading"},
      {"null", "device file: skipped without reading"},
      {"fifo", "FIFO: skipped without reading"},
      {"sock", "socket: skipped without reading"},
  };
  for (const auto& [file, reason] : want) {
    EXPECT_EQ(a->problems(file, "not_regular_file"), 1u) << file;
    EXPECT_NE(first(*a, file, "not_regular_file").find(reason), std::string::npos) << file << ": " << first(*a, file, "not_regular_file");
    EXPECT_EQ(a->count(file, "lines"), 0u) << file;
  }
  EXPECT_FALSE(a->has_file("good/loop/good/dmesg.txt"));
  EXPECT_TRUE(a->good_data_present());
}

// Runs `in_child` with the privileges of nobody when the tests run as root (as CI does): root
// reads any file whatever its mode.
void drop_to_nobody() {
  if (::geteuid() != 0) return;
  ::setgroups(0, nullptr);
  if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(126);
}

TEST(RobustFiles, UnreadableFilesAndDirectoriesAreReportedAndTheRestIsRead) {
  Scratch d("unreadable");
  put_good_data(d.path());
  write_bytes(d / "secret.log", kKernLogLines);
  write_bytes(d / "locked" / "kern.log", kKernLogLines);
  fs::permissions(d / "secret.log", fs::perms::none);
  fs::permissions(d / "locked", fs::perms::none);
  // nobody must reach the directory and the binary: both live under world-readable paths.
  RunOptions o;
  o.in_child = drop_to_nobody;
  auto a = analyze(d.path(), {}, o);
  if (a->child.exit_code == 126) GTEST_SKIP() << "cannot drop root privileges here";
  ASSERT_TRUE(a->parsed) << a->child.exit_code << " " << a->child.err;
  EXPECT_EQ(a->child.exit_code, 0) << a->child.err;  // file-level problems are not rejected lines
  EXPECT_EQ(a->problems("secret.log", "unreadable_file"), 1u);
  EXPECT_NE(first(*a, "secret.log", "unreadable_file").find("cannot open: Permission denied"), std::string::npos)
      << first(*a, "secret.log", "unreadable_file");
  EXPECT_EQ(a->problems("locked/", "unreadable_file"), 1u) << a->child.out.substr(0, 3000);
  EXPECT_NE(first(*a, "locked/", "unreadable_file").find("directory cannot be read: Permission denied"), std::string::npos);
  EXPECT_EQ(a->events("xid"), 0u);
  EXPECT_TRUE(a->good_data_present());
  EXPECT_NE(a->child.err.find("unreadable_file"), std::string::npos) << a->child.err;
}

TEST(RobustFiles, FilesThatGrowOrShrinkWhileReadNeitherCrashNorHang) {
  Scratch d("changing");
  put_good_data(d.path());
  const fs::path growing = d / "kern.log";
  const fs::path shrinking = d / "syslog";
  std::string block;
  for (int i = 0; i < 200; ++i) block += kKernLogLines;
  write_bytes(growing, block);
  write_bytes(shrinking, block + block + block);
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    const int g = ::open(growing.c_str(), O_WRONLY | O_APPEND);
    const int s = ::open(shrinking.c_str(), O_WRONLY);
    for (int k = 0; !stop.load(); ++k) {
      (void)!::write(g, block.data(), block.size());
      (void)!::ftruncate(s, static_cast<off_t>((k * 7919) % (3 * block.size())));  // shrink, grow with zeros
      if (k % 50 == 49) (void)!::ftruncate(g, static_cast<off_t>(block.size()));
    }
    ::close(g);
    ::close(s);
  });
  for (int run = 0; run < 10; ++run) {
    IngestResult out;
    Diagnostics diag;
    IngestOptions opt;
    opt.threads = 2;
    IngestStage(opt).run(d.path(), out, diag);  // returns: no SIGBUS, no hang
    std::uint64_t xid = 0;
    for (std::size_t r = 0; r < out.events.rows(); ++r)
      xid += out.events.column(event_col::kind).get_int(r) == static_cast<std::int64_t>(EventKind::xid);
    const FileDiagnostics* g = nullptr;
    for (const auto& f : diag.files)
      if (f.path == "kern.log") g = &f;
    ASSERT_NE(g, nullptr);
    // What was read was parsed: only the last line, cut where the file ended, may be rejected.
    EXPECT_GT(g->records, 0u);
    EXPECT_LE(g->rejected(), 1u) << run << [&] {
      std::string why;
      for (const auto& sample : g->samples)
        why.append("\n").append(problem_name(sample.problem)).append(" line ").append(std::to_string(sample.line))
            .append(": ").append(sample.reason).append(" | ").append(sample.excerpt.substr(0, 80));
      return why;
    }();
    EXPECT_GT(xid, 0u);
    EXPECT_GE(diag.usable_files(), 3u) << run;  // the good data, and kern.log
  }
  stop = true;
  writer.join();
}

// Path, size and modification time of everything under a directory.
std::map<std::string, std::pair<std::uintmax_t, std::int64_t>> listing(const fs::path& dir) {
  std::map<std::string, std::pair<std::uintmax_t, std::int64_t>> out;
  for (auto& e : fs::recursive_directory_iterator(dir)) {
    struct stat st {};
    ::lstat(e.path().c_str(), &st);
    out[fs::relative(e.path(), dir).string()] = {static_cast<std::uintmax_t>(st.st_size),
                                                 st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec};
  }
  struct stat st {};
  ::lstat(dir.c_str(), &st);
  out["."] = {0, st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec};
  return out;
}

TEST(RobustFiles, TheInputDirectoryIsNeverWrittenTo) {
  Scratch d("read_only_input"), out("read_only_output");
  put_good_data(d.path());
  write_bytes(d / "kern.log.1.gz", "\x1f\x8b\x08 truncated");
  write_bytes(d / "core.bin", std::string(1000, '\x07'));
  const auto before = listing(d.path());
  ASSERT_EQ(run({"analyze", d.path().string(), "-o", (out / "r.json").string(), "--format", "json"}).exit_code, 0);
  ASSERT_EQ(run({"analyze", d.path().string(), "-o", (out / "r.html").string(), "--format", "html"}).exit_code, 0);
  ASSERT_EQ(run({"timeline", d.path().string(), "-o", (out / "t.jsonl").string()}).exit_code, 0);
  ASSERT_EQ(run({"analyze", d.path().string()}).exit_code, 0);
  EXPECT_EQ(listing(d.path()), before);
  // And with the input directory read-only for the user, everything still works.
  RunOptions o;
  o.in_child = drop_to_nobody;
  fs::permissions(d.path(), fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  auto a = analyze(d.path(), {}, o);
  if (a->child.exit_code != 126) {
    EXPECT_EQ(a->child.exit_code, 0) << a->child.err;
    EXPECT_TRUE(a->good_data_present());
  }
  EXPECT_EQ(listing(d.path()), before);
}

}  // namespace
}  // namespace gpucost::robust
