// Per-file state is freed as files finish (issue 37: 20 000 one-line files within 256 MiB), and
// the last stamp of each of many boots is kept exactly (issue 39). Counts and peak memory (the
// binary's, read by wait4), never time.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gpucost/ingest/ingest.hpp"
#include "run_binary.hpp"

namespace fs = std::filesystem;

namespace gpucost {
namespace {

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("gpucost_memory_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

// Files listed first (rotation order) are the smallest, so that reading the largest first would
// leave every sink waiting for the merge of the files before it.
TEST(IngestMemory, SinksOfSmallFilesAreFreedAsTheyAreMerged) {
  constexpr std::size_t kFiles = 3000;
  const fs::path dir = scratch("small");
  for (std::size_t i = 0; i < kFiles; ++i) {
    std::ofstream f(dir / ("app.log." + std::to_string(kFiles - i)));
    f << "Nov 20 00:00:04 host cupsd[" << i << "]: " << std::string(i % 200 + 10, 'x') << "\n";
  }
  for (unsigned threads : {1u, 2u}) {
    IngestOptions o;
    o.threads = threads;
    IngestResult out;
    Diagnostics diag;
    const std::size_t before = FileSink::live();
    FileSink::reset_peak_live();
    IngestStage(o).run(dir, out, diag);
    EXPECT_EQ(out.files.size(), kFiles);
    EXPECT_EQ(out.lines, kFiles);
    EXPECT_EQ(FileSink::live(), before) << "threads " << threads;
    // The reading threads' sinks, and those read ahead of the first file not merged.
    EXPECT_LE(FileSink::peak_live(), before + threads * (kFilesReadAheadPerThread + 1)) << "threads " << threads;
  }
  fs::remove_all(dir);
}

// Issue 37's case: a rotated-log directory gone wrong, 20 000 one-line files (one in four
// gzipped), peaked at 391-409 MiB before per-file state was freed as files finish. The whole
// binary runs, at one thread and two, and its peak resident memory must stay under 256 MiB.
TEST(IngestMemory, TwentyThousandOneLineFilesStayWithinTheMemoryBound) {
  constexpr std::size_t kFiles = 20000;
  const fs::path dir = scratch("twenty_thousand");
  fs::create_directories(dir / "var-log-app");
  for (std::size_t i = 0; i < kFiles; ++i) {
    const std::string line = "Nov 20 " + std::string(i * 24 / kFiles < 10 ? "0" : "") +
                             std::to_string(i * 24 / kFiles) + ":00:04 ws-lab-07 cupsd[" + std::to_string(300 + i) +
                             "]: job " + std::to_string(i) + " finished " + std::string(i % 120 + 10, 'x') + "\n";
    const fs::path name = dir / "var-log-app" / ("app.log." + std::to_string(i));
    if (i % 4 == 0) {
      gzFile f = gzopen((name.string() + ".gz").c_str(), "wb6");
      ASSERT_NE(f, nullptr);
      ASSERT_EQ(gzwrite(f, line.data(), static_cast<unsigned>(line.size())), static_cast<int>(line.size()));
      gzclose(f);
    } else {
      std::ofstream(name) << line;
    }
  }
  const testing::RunOptions o = testing::memory_checked_run();
  for (const char* threads : {"1", "2"}) {
    const auto r =
        testing::run_gpucost({"analyze", dir.string(), "--threads", threads, "--format", "json", "-o", "-"}, o);
    ASSERT_FALSE(r.hung);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\"files\": " + std::to_string(kFiles) + ","), std::string::npos) << "threads " << threads;
    EXPECT_NE(r.out.find("\"lines\": " + std::to_string(kFiles) + ","), std::string::npos) << "threads " << threads;
    EXPECT_GT(r.max_rss_kib, 0);
    EXPECT_LT(r.max_rss_kib, testing::kMaxRssKib)
        << "threads " << threads << ": peak " << r.max_rss_kib / 1024 << " MiB";
  }
  fs::remove_all(dir);
}

// A file whose messages go back and forth between many boots: one log_end per boot, in the
// order the boots were last met, stamped like the last message of each.
TEST(IngestMemory, LastStampsOfManyBoots) {
  constexpr int kBoots = 5000;
  EventRecognizer recognizer;
  ParseOptions options;
  FileSink sink(0, "many-boots.log", kNoTime, options, recognizer);
  struct Want {
    int boot;
    std::uint64_t line;
  };
  std::vector<Want> want;  // the order one pass by a list leaves: a boot met again moves last
  std::uint64_t line = 0;
  const std::string ids[] = {"", "a5c1"};
  auto say = [&](int boot) {
    MessageRecord m;
    m.line = ++line;
    m.wall_kind = WallKind::kUtc;
    m.wall_raw_ns = static_cast<TimeNs>(line) * kNsPerSec + 1'790'000'000 * kNsPerSec;
    m.boot_seq = boot / 2;
    m.boot_id = ids[boot % 2];
    m.ident = "cupsd";
    m.text = "nothing to recognize";
    sink.message(m);
    auto same = std::find_if(want.begin(), want.end(), [&](const Want& w) { return w.boot == boot; });
    if (same != want.end()) want.erase(same);
    want.push_back({boot, line});
  };
  for (int b = 0; b < kBoots; ++b) say(b);
  for (int b = kBoots - 1; b >= 0; b -= 7) say(b);
  for (int b = 0; b < kBoots; b += 3) {
    say(b);
    say(b);
  }
  sink.finish();
  const Table& t = sink.events();
  ASSERT_EQ(t.rows(), want.size());
  for (std::size_t r = 0; r < t.rows(); ++r) {
    EXPECT_EQ(static_cast<EventKind>(t.column(event_col::kind).get_int(r)), EventKind::log_end);
    EXPECT_EQ(t.column(event_col::boot_seq).get_int(r), want[r].boot / 2) << r;
    const Column& id = t.column(event_col::boot_id);  // no boot id: a null
    EXPECT_EQ(id.is_valid(r) ? id.get_string(r) : std::string_view(), ids[want[r].boot % 2]) << r;
    EXPECT_EQ(static_cast<std::uint64_t>(t.column(event_col::line).get_int(r)), want[r].line) << r;
  }
}

}  // namespace
}  // namespace gpucost
