#pragma once
// Helpers of the bad-input tests (robustness_*_test.cpp, docs/robustness.md): scratch
// directories, files written byte for byte, the built binary run with a hook in the child (drop
// privileges, limit file sizes), a reader that closes stdout early like `head`, a hang guard,
// and the JSON report read back.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <simdjson.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "json_reading.hpp"
#include "run_binary.hpp"

namespace gpucost::robust {

namespace fs = std::filesystem;

/// A scratch directory under /tmp, removed (permissions restored first) when the test ends.
class Scratch {
 public:
  explicit Scratch(const std::string& name)
      : path_(fs::temp_directory_path() / ("gpucost_robust_" + std::to_string(::getpid()) + "_" + name)) {
    clean();
    fs::create_directories(path_);
    fs::permissions(path_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                               fs::perms::others_read | fs::perms::others_exec);
  }
  ~Scratch() { clean(); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& rel) const { return path_ / rel; }

 private:
  void clean() {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(path_, ec))) return;
    for (auto it = fs::recursive_directory_iterator(path_, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (!it->is_symlink(ec)) fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  fs::path path_;
};

/// Writes bytes exactly (binary mode; NULs, CRs and invalid UTF-8 kept).
inline void write_bytes(const fs::path& p, std::string_view data) {
  fs::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
}

/// The bytes of a file ("" when it cannot be read).
inline std::string read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// A file of tests/data.
inline std::string test_data(const std::string& rel) { return read_bytes(fs::path(GPUCOST_TEST_DATA) / rel); }

/// The good data put beside bad input in every test: a real dmesg of a GPU that fell off the bus
/// (tests/data/report/logs/dmesg-xid79.txt: one fallen_off_bus, one driver_error, one driver_load)
/// and a real dmon file of GPU 0 (10 sample rows, headers repeated once).
inline constexpr const char* kGoodDmesg = "report/logs/dmesg-xid79.txt";
inline constexpr const char* kGoodDmon = "report/logs/gpu0-dmon.txt";
inline void put_good_data(const fs::path& dir) {
  write_bytes(dir / "good" / "dmesg.txt", test_data(kGoodDmesg));
  write_bytes(dir / "good" / "gpu0-dmon.txt", test_data(kGoodDmon));
}

/// Real kern.log lines (tests/data/real/kern/xid31-journalctl-k-driver450.txt): a GPU line and
/// two Xid 31 events, as a classic syslog file prints them.
inline constexpr const char* kKernLogLines =
    "Nov 29 11:28:11 zeus kernel: NVRM: GPU at PCI:0000:c1:00: GPU-<uuid redacted>\n"
    "Nov 29 11:28:11 zeus kernel: NVRM: Xid (PCI:0000:c1:00): 31, pid=12890, Ch 0000003b, intr 00000000. MMU "
    "Fault: ENGINE HOST0 HUBCLIENT_HOST_CPU faulted @ 0x1_0c3c0000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE\n"
    "Nov 29 11:28:11 zeus kernel: NVRM: Xid (PCI:0000:c1:00): 31, pid=12890, Ch 0000003e, intr 00000000. MMU "
    "Fault: ENGINE GRAPHICS HUBCLIENT_SCC faulted @ 0x1_8c710000. Fault is of type FAULT_PTE ACCESS_TYPE_VIRT_READ\n";

/// What a run of the binary gave, and how to run it (run_binary.hpp).
using Child = testing::RunResult;
using RunOptions = testing::RunOptions;

/// Runs GPUCOST_BINARY with args (TZ=UTC), capturing stdout and stderr.
inline Child run(const std::vector<std::string>& args, const RunOptions& o = {}) { return testing::run_gpucost(args, o); }

/// `{}`: what lookups in an absent file entry read.
inline simdjson::dom::element empty_object() {
  static simdjson::dom::parser parser;
  static const simdjson::padded_string text(std::string_view("{}"));
  static const simdjson::dom::element e = parser.parse(text).value();
  return e;
}

/// `gpucost analyze DIR --format json` and its parsed report.
struct Analysis {
  Child child;
  simdjson::dom::parser parser;
  simdjson::padded_string json;
  simdjson::dom::element doc;
  bool parsed = false;

  /// The `files` entry of a path (relative to DIR); an empty object when absent (see has_file).
  simdjson::dom::element file(std::string_view path) const {
    simdjson::dom::array files;
    if (parsed && doc["files"].get(files) == simdjson::SUCCESS)
      for (auto f : files) {
        std::string_view p;
        if (f["path"].get(p) == simdjson::SUCCESS && p == path) return f;
      }
    return empty_object();
  }
  bool has_file(std::string_view path) const {
    std::string_view p;
    return file(path)["path"].get(p) == simdjson::SUCCESS;
  }
  /// A count in a file entry (`lines`, `records`, `rejected` ...).
  std::uint64_t count(std::string_view path, std::string_view key) const {
    std::uint64_t v = 0;
    if (file(path)[key].get(v)) v = {};
    return v;
  }
  /// How many lines of a file had a problem (by name, `binary_data`).
  std::uint64_t problems(std::string_view path, std::string_view problem) const {
    std::uint64_t v = 0;
    if (file(path)["problems"][problem].get(v)) v = {};
    return v;
  }
  /// The samples of a problem in a file: `line: excerpt | reason` each.
  std::vector<std::string> samples(std::string_view path, std::string_view problem) const {
    std::vector<std::string> out;
    simdjson::dom::array arr;
    if (file(path)["samples"].get(arr) != simdjson::SUCCESS) return out;
    for (auto s : arr) {
      std::string_view p, excerpt, reason;
      std::uint64_t line = 0;
      if (s["problem"].get(p) || p != problem) continue;
      if (s["line"].get(line)) line = {};
      if (s["excerpt"].get(excerpt)) excerpt = {};
      if (s["reason"].get(reason)) reason = {};
      out.push_back(std::to_string(line) + ": " + std::string(excerpt) + " | " + std::string(reason));
    }
    return out;
  }
  /// The format detected for a file (`dmesg`, `unknown`).
  std::string format(std::string_view path) const {
    std::string_view f;
    if (file(path)["format"].get(f)) f = {};
    return std::string(f);
  }
  /// Events of a kind in the timeline (timeline.events_by_kind).
  std::uint64_t events(std::string_view kind) const {
    std::uint64_t v = 0;
    if (!parsed || doc["timeline"]["events_by_kind"][kind].get(v)) v = {};
    return v;
  }
  /// GPU sample rows in the timeline.
  std::uint64_t samples_rows() const {
    std::uint64_t v = 0;
    if (!parsed || doc["timeline"]["samples"].get(v)) v = {};
    return v;
  }
  /// Run-wide problem count (diagnostics.problems).
  std::uint64_t total(std::string_view problem) const {
    std::uint64_t v = 0;
    if (!parsed || doc["diagnostics"]["problems"][problem].get(v)) v = {};
    return v;
  }
  /// True when the good data of put_good_data() is all in the report.
  bool good_data_present() const {
    return count("good/dmesg.txt", "records") == 3 && count("good/dmesg.txt", "rejected") == 0 &&
           events("fallen_off_bus") >= 1 && events("driver_load") >= 1 && count("good/gpu0-dmon.txt", "records") == 10 &&
           samples_rows() >= 10;
  }
};

/// Runs analyze on dir (JSON report on stdout) with extra arguments.
inline std::unique_ptr<Analysis> analyze(const fs::path& dir, std::vector<std::string> extra = {},
                                         const RunOptions& o = {}) {
  auto a = std::make_unique<Analysis>();
  std::vector<std::string> args{"analyze", dir.string(), "--format", "json", "--no-timings"};
  args.insert(args.end(), extra.begin(), extra.end());
  a->child = run(args, o);
  // Bytes that were not UTF-8 are lone low surrogates in our JSON: read as the HTML writer reads it.
  a->json = simdjson::padded_string(testing::replace_lone_surrogates(a->child.out));
  a->parsed = a->parser.parse(a->json).get(a->doc) == simdjson::SUCCESS;
  return a;
}

/// Every line of a file's samples joined, for failure messages.
inline std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

}  // namespace gpucost::robust
