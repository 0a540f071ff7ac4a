#pragma once
// Helpers of the simulator tests: generated directories (made once per test process), file
// reading, and the few stamp parsers the checks need (written here, independently of the
// project's parsers, so that a test never trusts the code it checks).

#include <simdjson.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gpucost/sim/simulate.hpp"
#include "gpucost/time.hpp"

namespace gpucost::sim::testing {

namespace fs = std::filesystem;

/// Removes the directories the tests made when the test process ends.
struct TempDirs {
  std::vector<fs::path> paths;
  ~TempDirs() {
    std::error_code ec;
    for (const auto& p : paths) fs::remove_all(p, ec);
  }
};

inline fs::path temp_dir(const std::string& name) {
  static TempDirs dirs;
  fs::path p = fs::temp_directory_path() / ("gpucost-sim-test-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(p);
  dirs.paths.push_back(p);
  return p;
}

/// A generated directory, made once per process for (scenario, seed, hours).
inline const fs::path& generated(ScenarioKind kind, std::uint64_t seed, double hours) {
  static std::map<std::string, fs::path> made;
  const std::string key = std::string(scenario_name(kind)) + "-" + std::to_string(seed) + "-" + std::to_string(hours);
  auto it = made.find(key);
  if (it != made.end()) return it->second;
  SimOptions o;
  o.scenario = kind;
  o.seed = seed;
  o.hours = hours;
  o.out_dir = temp_dir(key).string();
  simulate(o);
  return made.emplace(key, fs::path(o.out_dir)).first->second;
}

/// The laptop fixture most tests read: 2.5 h, one suspend, several Xids and AC switches.
inline const fs::path& laptop() { return generated(ScenarioKind::kLaptop, 42, 2.5); }

inline std::string read_file(const fs::path& p) {
  if (p.extension() == ".gz") {
    gzFile f = gzopen(p.string().c_str(), "rb");
    std::string out;
    char buf[65536];
    int n;
    while (f && (n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
    if (f) gzclose(f);
    return out;
  }
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<std::string> read_lines(const fs::path& p) {
  std::vector<std::string> lines;
  std::istringstream in(read_file(p));
  std::string l;
  while (std::getline(in, l)) lines.push_back(l);
  return lines;
}

/// `[ 1234.567890]` at the start of s: monotonic ns, or -1.
inline TimeNs parse_mono_stamp(const std::string& s, std::size_t& end) {
  if (s.size() < 15 || s[0] != '[') return -1;
  const auto close = s.find(']');
  if (close == std::string::npos) return -1;
  const std::string inner = s.substr(1, close - 1);
  const auto dot = inner.find('.');
  if (dot == std::string::npos || inner.size() - dot - 1 != 6) return -1;
  std::size_t i = 0;
  while (i < dot && inner[i] == ' ') ++i;
  if (i == dot) return -1;
  for (std::size_t k = i; k < inner.size(); ++k)
    if (k != dot && !std::isdigit(static_cast<unsigned char>(inner[k]))) return -1;
  end = close + 1;
  return std::stoll(inner.substr(i, dot - i)) * kNsPerSec + std::stoll(inner.substr(dot + 1)) * kNsPerUs;
}

/// `Nov  6 09:17:01` -> month, day, seconds of day; false when the prefix is not one.
inline bool parse_syslog_stamp(const std::string& s, int& month, int& day, int& sec_of_day) {
  static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (s.size() < 16 || s[3] != ' ' || s[6] != ' ' || s[9] != ':' || s[12] != ':' || s[15] != ' ') return false;
  month = 0;
  for (int m = 0; m < 12; ++m)
    if (s.compare(0, 3, kMonths[m]) == 0) month = m + 1;
  if (!month) return false;
  if (!(s[4] == ' ' || std::isdigit(static_cast<unsigned char>(s[4]))) || !std::isdigit(static_cast<unsigned char>(s[5])))
    return false;
  if (s[4] == '0') return false;  // the day is padded with a space, never a zero
  day = (s[4] == ' ' ? 0 : s[4] - '0') * 10 + (s[5] - '0');
  for (int i : {7, 8, 10, 11, 13, 14})
    if (!std::isdigit(static_cast<unsigned char>(s[static_cast<std::size_t>(i)]))) return false;
  sec_of_day = ((s[7] - '0') * 10 + (s[8] - '0')) * 3600 + ((s[10] - '0') * 10 + (s[11] - '0')) * 60 +
               (s[13] - '0') * 10 + (s[14] - '0');
  return true;
}

/// A JSON string value as std::string (throws when it is not a string).
template <typename T>
std::string str(T&& v) {
  std::string_view s = std::forward<T>(v);
  return std::string(s);
}

/// truth.json, parsed.
struct TruthDoc {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  explicit TruthDoc(const fs::path& dir) {
    root = parser.parse(simdjson::padded_string(read_file(dir / "truth.json")));
  }
};

}  // namespace gpucost::sim::testing
