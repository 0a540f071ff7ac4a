// Issue 36: the truth harness. Each tests/truth/DIR/NAME.truth holds facts a person read from
// tests/data/real/DIR/NAME.* (never produced by running gpucost); this test ingests the sample,
// counts what the reader found and prints every fact that differs and the share found. The
// format is in docs/truth.md. A sample marked `expect-fail:` must still differ: when it starts
// passing the test fails too, so the mark is dropped in the same change.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gpucost/diagnostics.hpp"
#include "gpucost/ingest/ingest.hpp"

namespace fs = std::filesystem;

namespace gpucost {
namespace {

const fs::path kTruthDir = fs::path(GPUCOST_TEST_DATA).parent_path() / "truth";
const fs::path kReal = fs::path(GPUCOST_TEST_DATA) / "real";

/// One truth file: fact name (`event pcie_aer`, `xid 31`) -> count, and the expected-fail reason.
struct TruthFile {
  std::map<std::string, std::int64_t> facts;
  std::string expect_fail;  ///< empty: the sample must match
};

TruthFile read_truth(const fs::path& p) {
  TruthFile t;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("expect-fail:", 0) == 0) {
      t.expect_fail = line.substr(12);
      continue;
    }
    std::istringstream words(line);
    std::string what, name;
    std::int64_t n = -1;
    words >> what >> name >> n;
    if (what == "samples" || what == "gpus") {  // `samples N`, `gpus N`: no name
      n = std::stoll(name);
      name.clear();
    }
    EXPECT_TRUE((what == "event" || what == "xid" || name.empty()) && n >= 0) << p << ": bad line '" << line << "'";
    t.facts[name.empty() ? what : what + " " + name] = n;
  }
  return t;
}

/// The sample a truth file describes: the file of tests/data/real with the same stem.
fs::path sample_of(const fs::path& truth) {
  const fs::path dir = kReal / fs::relative(truth.parent_path(), kTruthDir);
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().stem() == truth.stem()) return e.path();
  return {};
}

/// What the reader found, as facts of the same names.
std::map<std::string, std::int64_t> found_facts(const fs::path& sample) {
  const IngestStage ingest(IngestOptions{});
  IngestResult out;
  Diagnostics diag;
  ingest.run(sample, out, diag);
  std::map<std::string, std::int64_t> got;
  const Table& e = out.events;
  for (std::size_t r = 0; r < e.rows(); ++r) {
    const auto kind = static_cast<EventKind>(e.column(event_col::kind).get_int(r));
    ++got["event " + std::string(event_kind_name(kind))];
    if (kind == EventKind::xid && e.column(event_col::code).is_valid(r))
      ++got["xid " + std::to_string(e.column(event_col::code).get_int(r))];
  }
  const Table& s = out.samples;
  std::set<std::int64_t> gpus;
  for (std::size_t r = 0; r < s.rows(); ++r) gpus.insert(s.column(sample_col::gpu).get_int(r));
  got["samples"] = static_cast<std::int64_t>(s.rows());
  got["gpus"] = static_cast<std::int64_t>(gpus.size());
  return got;
}

TEST(TruthHarness, EverySampleMatchesItsHandWrittenTruthOrIsMarked) {
  std::vector<fs::path> truths;
  for (const auto& e : fs::recursive_directory_iterator(kTruthDir))
    if (e.is_regular_file() && e.path().extension() == ".truth") truths.push_back(e.path());
  std::sort(truths.begin(), truths.end());
  ASSERT_FALSE(truths.empty());
  std::int64_t wanted = 0, found = 0;
  for (const fs::path& tp : truths) {
    const std::string rel = fs::relative(tp, kTruthDir).generic_string();
    const fs::path sample = sample_of(tp);
    ASSERT_FALSE(sample.empty()) << rel << ": no sample of that name";
    const TruthFile truth = read_truth(tp);
    const auto got = found_facts(sample);
    std::string diff;
    for (const auto& [fact, n] : truth.facts) {
      const auto it = got.find(fact);
      const std::int64_t g = it == got.end() ? 0 : it->second;
      wanted += n;
      found += std::min(g, n);
      if (g != n) diff += "  " + fact + ": truth " + std::to_string(n) + ", found " + std::to_string(g) + "\n";
    }
    if (!diff.empty()) std::cout << rel << (truth.expect_fail.empty() ? "" : " (expected fail)") << "\n" << diff;
    if (truth.expect_fail.empty()) {
      EXPECT_TRUE(diff.empty()) << rel << " differs from its truth:\n" << diff;
    } else {
      EXPECT_FALSE(diff.empty()) << rel << " now matches its truth: drop its expect-fail (" << truth.expect_fail << ")";
    }
  }
  std::cout << "truth harness: " << found << " of " << wanted << " facts found (" << (wanted ? 100 * found / wanted : 0)
            << " %)\n";
}

}  // namespace
}  // namespace gpucost
