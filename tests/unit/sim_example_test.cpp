// examples/laptop-training is what its documented command writes, byte for byte.
#include <gtest/gtest.h>

#include "unit/sim_test_util.hpp"

namespace gpucost::sim::testing {
namespace {

TEST(SimExample, CommittedExampleIsWhatTheCommandWrites) {
  // examples/README.md: gpucost simulate --scenario laptop --seed 42 --hours 2.5 --out examples/laptop-training
  const fs::path committed = fs::path(GPUCOST_SOURCE_DIR) / "examples" / "laptop-training";
  ASSERT_TRUE(fs::exists(committed / "truth.json")) << committed;
  SimOptions o;
  o.scenario = ScenarioKind::kLaptop;
  o.seed = 42;
  o.hours = 2.5;
  o.out_dir = temp_dir("example").string();
  const SimResult r = simulate(o);
  for (const auto& [name, bytes] : r.files) {
    ASSERT_TRUE(fs::exists(committed / name)) << name;
    EXPECT_EQ(fs::file_size(committed / name), bytes) << name;
    EXPECT_TRUE(read_file(fs::path(o.out_dir) / name) == read_file(committed / name))
        << name << " differs: regenerate the example with the command in examples/README.md";
  }
}

}  // namespace
}  // namespace gpucost::sim::testing
