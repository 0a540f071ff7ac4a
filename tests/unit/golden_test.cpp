// Golden tests: a fixture directory, the command's arguments, and the exact expected output.
// See tests/golden/README.md. GPUCOST_UPDATE_GOLDEN=1 rewrites the expectations (review the diff).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <utime.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gpucost/time.hpp"
#include "run_binary.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kGolden = fs::path(GPUCOST_TEST_DATA).parent_path() / "golden";

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> read_lines(const fs::path& p) {
  std::vector<std::string> out;
  std::ifstream f(p);
  std::string line;
  while (std::getline(f, line))
    if (!line.empty() && line[0] != '#') out.push_back(line);
  return out;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
}

// Sets every file's mtime under dir to t (seconds since the epoch): placement that depends on
// modification times must not depend on when the repository was cloned.
void pin_mtimes(const fs::path& dir, std::int64_t t) {
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    struct utimbuf tb {static_cast<time_t>(t), static_cast<time_t>(t)};
    ::utime(e.path().c_str(), &tb);
  }
}

// The output lines that start with one of the prefixes (a long report reduced to what the case
// is about).
std::string keep_lines(const std::string& out, const std::vector<std::string>& prefixes) {
  std::istringstream in(out);
  std::string line, kept;
  while (std::getline(in, line))
    for (const auto& p : prefixes)
      if (line.rfind(p, 0) == 0) {
        kept += line + "\n";
        break;
      }
  return kept;
}

// The block of output lines from the first line equal to `first` through the next line equal to
// `last`; a note when either is missing, so the comparison fails visibly.
std::string select_block(const std::string& out, const std::string& first, const std::string& last) {
  std::istringstream in(out);
  std::string line, block;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line == first) inside = true;
    if (inside) block += line + "\n";
    if (inside && line == last && block.size() > line.size() + 1) return block;
  }
  return block + "(select: block not found or not closed)\n";
}

// The first n lines of the output (what a terminal shows first).
std::string head_lines(const std::string& out, std::size_t n) {
  std::size_t pos = 0;
  for (std::size_t i = 0; i < n && pos < out.size(); ++i) {
    const auto nl = out.find('\n', pos);
    pos = nl == std::string::npos ? out.size() : nl + 1;
  }
  return out.substr(0, pos);
}

std::vector<std::string> cases() {
  std::vector<std::string> out;
  if (!fs::exists(kGolden)) return out;
  for (const auto& e : fs::directory_iterator(kGolden))
    if (e.is_directory() && fs::exists(e.path() / "args")) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, OutputMatchesExactly) {
  const fs::path dir = kGolden / GetParam();
  const fs::path work = fs::temp_directory_path() / ("gpucost_golden_" + std::to_string(::getpid()) + "_" + GetParam());
  fs::remove_all(work);
  fs::create_directories(work / "input");
  if (fs::exists(dir / "input")) fs::copy(dir / "input", work / "input", fs::copy_options::recursive);
  // input_from: paths under tests/data; input_from_repo: paths under the repository root (a
  // directory is copied whole, e.g. examples/laptop-training).
  for (const auto& [list, root] : {std::pair{"input_from", fs::path(GPUCOST_TEST_DATA)},
                                   std::pair{"input_from_repo", fs::path(GPUCOST_SOURCE_DIR)}})
    if (fs::exists(dir / list))
      for (const auto& rel : read_lines(dir / list)) {
        const fs::path src = root / rel;
        ASSERT_TRUE(fs::exists(src)) << src;
        if (fs::is_directory(src))
          fs::copy(src, work / "input", fs::copy_options::recursive | fs::copy_options::overwrite_existing);
        else
          fs::copy_file(src, work / "input" / src.filename(), fs::copy_options::overwrite_existing);
      }
  std::int64_t mtime = gpucost::civil_to_ns(gpucost::CivilTime{2026, 12, 1, 0, 0, 0, 0}) / gpucost::kNsPerSec;
  if (fs::exists(dir / "mtime")) mtime = std::stoll(read_lines(dir / "mtime").at(0));
  pin_mtimes(work / "input", mtime);

  std::vector<std::string> args = read_lines(dir / "args");
  for (auto& a : args) replace_all(a, "{input}", "input");
  auto r = gpucost::testing::run_gpucost(args, {}, work.string());
  if (fs::exists(dir / "keep")) r.out = keep_lines(r.out, read_lines(dir / "keep"));
  if (fs::exists(dir / "select")) {
    const auto bounds = read_lines(dir / "select");
    ASSERT_EQ(bounds.size(), 2u) << "select: the first and the last line of the block";
    r.out = select_block(r.out, bounds[0], bounds[1]);
  }
  if (fs::exists(dir / "head")) r.out = head_lines(r.out, std::stoul(read_lines(dir / "head").at(0)));
  int want_exit = 0;
  if (fs::exists(dir / "exit_code")) want_exit = std::stoi(read_lines(dir / "exit_code").at(0));

  const fs::path expected = dir / "expected.out";
  if (const char* u = std::getenv("GPUCOST_UPDATE_GOLDEN"); u && *u == '1') {
    std::ofstream(expected, std::ios::binary) << r.out;
    std::ofstream(dir / "exit_code") << r.exit_code << "\n";
    fs::remove_all(work);
    return;
  }
  EXPECT_EQ(r.exit_code, want_exit) << r.err;
  const std::string want = read_file(expected);
  EXPECT_EQ(r.out, want) << "stderr: " << r.err << "\n(rerun with GPUCOST_UPDATE_GOLDEN=1 and review the diff)";
  fs::remove_all(work);
}

INSTANTIATE_TEST_SUITE_P(Cases, Golden, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string n = i.param;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Golden);

}  // namespace
