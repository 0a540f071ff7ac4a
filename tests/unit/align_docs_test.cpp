// docs/timeline.md lists every event kind with the description records.hpp gives it.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "gpucost/records.hpp"

namespace gpucost {
namespace {

TEST(TimelineDoc, ListsEveryEventKind) {
  std::ifstream f(std::string(GPUCOST_SOURCE_DIR) + "/docs/timeline.md");
  ASSERT_TRUE(f) << "docs/timeline.md is missing";
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string doc = ss.str();
  for (std::size_t i = 0; i < kEventKindCount; ++i) {
    const auto k = static_cast<EventKind>(i);
    const std::string row = "| `" + std::string(event_kind_name(k)) + "` | " + std::string(event_kind_description(k)) + " |";
    EXPECT_NE(doc.find(row), std::string::npos) << "missing or outdated row: " << row;
  }
}

}  // namespace
}  // namespace gpucost
