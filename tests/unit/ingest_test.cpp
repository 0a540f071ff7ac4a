#include "gpucost/ingest/ingest.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace gpucost {
namespace {

// Events a parse recognized: each file's `log_end` marks (its last stamped line per boot) aside.
std::size_t recognized(const IngestResult& out) {
  std::size_t n = 0;
  for (std::size_t r = 0; r < out.events.rows(); ++r)
    n += static_cast<EventKind>(out.events.column(event_col::kind).get_int(r)) != EventKind::log_end;
  return n;
}

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("gpucost_ingest_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

const char* kDmesg =
    "[24128.828315] NVRM: Xid (PCI:0000:01:00): 32, Channel ID 00000000 intr 00004000\n"
    "[24128.834365] NVRM: Xid (PCI:0000:01:00): 31, Ch 00000003, engmask 00000101, intr 10000000\n";

const FileDiagnostics* find_file(const Diagnostics& d, std::string_view path) {
  for (const auto& f : d.files)
    if (f.path == path) return &f;
  return nullptr;
}

TEST(RotationOrder, OldestRotatedFileFirst) {
  std::vector<std::string> names{"kern.log", "kern.log.1", "kern.log.10.gz", "kern.log.2.gz", "a/syslog", "dmesg.txt"};
  std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return rotation_order_less(a, b); });
  const std::vector<std::string> want{"dmesg.txt", "kern.log.10.gz", "kern.log.2.gz", "kern.log.1", "kern.log", "a/syslog"};
  EXPECT_EQ(names, want);
}

TEST(Ingest, ReadsSubdirectoriesAndGzipAndSkipsSpecialFiles) {
  const fs::path d = scratch("walk");
  fs::create_directories(d / "sub");
  std::ofstream(d / "sub" / "dmesg.txt") << kDmesg;
  {
    gzFile g = gzopen((d / "dmesg.old").c_str(), "wb");  // gzip detected by content
    gzputs(g, kDmesg);
    gzclose(g);
  }
  ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0644), 0);
  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string sock_path = (d / "sock").string();
  std::strncpy(addr.sun_path, sock_path.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  fs::create_directory_symlink(d, d / "sub" / "loop");  // a symlink loop
  fs::create_symlink(d / "missing", d / "broken");

  IngestResult out;
  Diagnostics diag;
  IngestStage(IngestOptions{}).run(d, out, diag);
  ::close(sock);

  EXPECT_EQ(recognized(out), 4u);
  ASSERT_NE(find_file(diag, "sub/dmesg.txt"), nullptr);
  const auto* gz = find_file(diag, "dmesg.old");
  ASSERT_NE(gz, nullptr);
  EXPECT_TRUE(gz->gzip);
  EXPECT_EQ(gz->format, FormatId::dmesg);
  for (const char* special : {"fifo", "sock", "broken"}) {
    const auto* f = find_file(diag, special);
    ASSERT_NE(f, nullptr) << special;
    EXPECT_EQ(f->problems[static_cast<std::size_t>(Problem::not_regular_file)], 1u) << special;
    EXPECT_EQ(f->lines, 0u);
  }
  EXPECT_EQ(find_file(diag, "sub/loop/sub/dmesg.txt"), nullptr);
}

TEST(Ingest, UnknownFilesAreListedNotFatal) {
  const fs::path d = scratch("unknown");
  std::ofstream(d / "notes.md") << "# my notes\nnothing here\n";
  std::ofstream(d / "dmesg") << kDmesg;
  std::ofstream(d / "empty.log");
  IngestResult out;
  Diagnostics diag;
  IngestStage(IngestOptions{}).run(d, out, diag);
  const auto* notes = find_file(diag, "notes.md");
  ASSERT_NE(notes, nullptr);
  EXPECT_EQ(notes->format, FormatId::unknown);
  EXPECT_EQ(notes->problems[static_cast<std::size_t>(Problem::unknown_format)], 1u);
  EXPECT_EQ(notes->lines, 2u);
  const auto* empty = find_file(diag, "empty.log");
  ASSERT_NE(empty, nullptr);
  EXPECT_EQ(empty->problems[static_cast<std::size_t>(Problem::unknown_format)], 0u);
  EXPECT_EQ(recognized(out), 2u);
  EXPECT_EQ(diag.usable_files(), 1u);
}

TEST(Ingest, OutputIsTheSameForAnyThreadCount) {
  const fs::path d = scratch("threads");
  for (int i = 0; i < 12; ++i) {
    std::ofstream f(d / ("dmesg." + std::to_string(i)));
    for (int k = 0; k < 50; ++k)
      f << "[" << 100 + i * 100 + k << ".000001] NVRM: Xid (PCI:0000:0" << i % 4 << ":00): " << 13 + k % 3
        << ", pid=" << 1000 + k << ", name=python3, Graphics Exception\n";
  }
  auto run = [&](unsigned threads) {
    IngestOptions o;
    o.threads = threads;
    IngestResult out;
    Diagnostics diag;
    IngestStage(o).run(d, out, diag);
    std::string dump;
    for (std::size_t r = 0; r < out.events.rows(); ++r)
      dump += std::to_string(out.events.column(event_col::file).get_int(r)) + ":" +
              std::string(out.events.column(event_col::text).get_string(r)) + "\n";
    for (const auto& f : diag.files) dump += f.path + "\n";
    return dump;
  };
  const std::string one = run(1);
  EXPECT_EQ(one, run(2));
  EXPECT_EQ(one, run(5));
}

TEST(Ingest, RunBufferDetectsAndParses) {
  IngestResult out;
  Diagnostics diag;
  IngestStage(IngestOptions{}).run_buffer(kDmesg, "pasted.txt", FormatId::unknown, out, diag);
  ASSERT_EQ(diag.files.size(), 1u);
  EXPECT_EQ(diag.files[0].format, FormatId::dmesg);
  EXPECT_EQ(out.events.rows(), 2u);
  EXPECT_EQ(out.events.column(event_col::code).get_int(1), 31);
}


// Issue 16: an event's text is held once per distinct message, not once per line, so a message
// repeated hundreds of thousands of times costs a dictionary code per event.
TEST(Ingest, RepeatedMessageTextIsHeldOnce) {
  std::string log;
  for (int i = 0; i < 2000; ++i) {
    const int s = i % 60, m = i / 60;
    log += "Nov 30 10:" + std::string(m < 10 ? "0" : "") + std::to_string(m) + ":" + (s < 10 ? "0" : "") +
           std::to_string(s) +
           " gpubox kernel: nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x0000c67d\n";
    if (i % 4 == 0)
      log += "Nov 30 10:00:00 gpubox kernel: nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x" +
             std::to_string(i) + "\n";
  }
  IngestResult out;
  Diagnostics diag;
  IngestOptions o;
  o.parse.aggregate_repeats = false;  // a row per line: the text of each is what is tested
  IngestStage(o).run_buffer(log, "syslog", FormatId::syslog, out, diag);
  ASSERT_EQ(out.events.rows(), 2500u);
  const Column& text = out.events.column(event_col::text);
  ASSERT_EQ(text.type(), ColumnType::kDict);
  EXPECT_EQ(text.dictionary().size(), 1u + 500u);  // the repeated message once, and each distinct one
  EXPECT_EQ(text.get_string(0), "nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x0000c67d");
  EXPECT_EQ(text.get_string(1), "nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x0");
  EXPECT_EQ(text.get_string(2499), text.get_string(0));
}

}  // namespace
}  // namespace gpucost
