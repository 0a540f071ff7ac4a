// docs/timeline.md lists every event kind of records/events.hpp.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "gpucost/records/events.hpp"

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
    const std::string row = "| `" + std::string(event_kind_name(k)) + "` | ";
    EXPECT_NE(doc.find(row), std::string::npos) << "event kind not documented: " << event_kind_name(k);
  }
}

}  // namespace
}  // namespace gpucost
