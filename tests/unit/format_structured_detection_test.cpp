// Detection of the structured formats against every sample in tests/data: each structured
// fixture is claimed by its own format, and no other sample is claimed by one of them.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "gpucost/ingest/detect.hpp"
#include "structured_test_util.hpp"

namespace gpucost {
namespace {

bool is_structured(FormatId f) {
  return f == FormatId::journal_json || f == FormatId::journal_export || f == FormatId::ps ||
         f == FormatId::torch_trace || f == FormatId::manifest;
}

FormatId expected_for(const std::string& name) {
  if (name.rfind("json-", 0) == 0) return FormatId::journal_json;
  if (name.rfind("journal-export", 0) == 0) return FormatId::journal_export;
  if (name.rfind("ps-", 0) == 0 || name == "ps.log") return FormatId::ps;
  if (name.rfind("torch-trace", 0) == 0) return FormatId::torch_trace;
  if (name == "manifest.json") return FormatId::manifest;
  return FormatId::unknown;
}

TEST(StructuredDetection, EverySampleGoesToTheRightFormat) {
  namespace fs = std::filesystem;
  std::size_t checked = 0;
  for (const auto& entry : fs::recursive_directory_iterator(GPUCOST_TEST_DATA)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    if (name == "SOURCES.md") continue;
    const std::string rel = fs::relative(entry.path(), GPUCOST_TEST_DATA).string();
    std::string err;
    auto src = open_line_source(entry.path().string(), err);
    ASSERT_TRUE(src) << err;
    const Detection d = detect_format(*src, rel);
    const FormatId want = expected_for(name);
    SCOPED_TRACE(rel);
    if (want != FormatId::unknown) EXPECT_EQ(d.format, want) << "got " << format_name(d.format);
    else EXPECT_FALSE(is_structured(d.format)) << "claimed by " << format_name(d.format);
    ++checked;
  }
  EXPECT_GE(checked, 40u);
}

}  // namespace
}  // namespace gpucost
