// A record as a parser builds it and the row it becomes (include/gpucost/ingest/rows.hpp): a GPU
// sample's fields land in their sample_col columns, unknown values as nulls.
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "gpucost/ingest/rows.hpp"

namespace gpucost {
namespace {

TEST(SampleRows, FieldsLandInTheirColumnsAndUnknownsAreNull) {
  Table t = make_sample_table();
  std::array<double, kGpuMetricCount> m;
  m.fill(std::nan(""));
  m[static_cast<std::size_t>(GpuMetric::power_w)] = 412.5;
  m[static_cast<std::size_t>(GpuMetric::sm_pct)] = 98;
  push_sample_row(
      t, {.wall_kind = WallKind::kLocal, .wall_raw_ns = 1'700'000'000 * kNsPerSec, .line = 7, .gpu = 3, .metrics = m},
      5);
  push_sample_row(t, {.wall_kind = WallKind::kRelative, .line = 8, .gpu = 0, .interval_ns = kNsPerSec, .metrics = m},
                  5);
  ASSERT_EQ(t.rows(), 2u);
  ASSERT_TRUE(t.consistent());
  EXPECT_FALSE(t.ts().is_valid(0));  // align places it
  EXPECT_EQ(t.column(sample_col::wall_kind).get_int(0), static_cast<std::int64_t>(WallKind::kLocal));
  EXPECT_EQ(t.column(sample_col::wall_raw_ns).get_int(0), 1'700'000'000 * kNsPerSec);
  EXPECT_EQ(t.column(sample_col::file).get_int(0), 5);
  EXPECT_EQ(t.column(sample_col::line).get_int(0), 7);
  EXPECT_EQ(t.column(sample_col::gpu).get_int(0), 3);
  EXPECT_FALSE(t.column(sample_col::interval_ns).is_valid(0));  // not known yet
  EXPECT_EQ(t.column(sample_col::interval_ns).get_int(1), kNsPerSec);
  EXPECT_FALSE(t.column(sample_col::wall_raw_ns).is_valid(1));
  const std::size_t power = sample_col::first_metric + static_cast<std::size_t>(GpuMetric::power_w);
  const std::size_t sm = sample_col::first_metric + static_cast<std::size_t>(GpuMetric::sm_pct);
  const std::size_t mem = sample_col::first_metric + static_cast<std::size_t>(GpuMetric::mem_pct);
  EXPECT_DOUBLE_EQ(t.column(power).get_float(0), 412.5);
  EXPECT_DOUBLE_EQ(t.column(sm).get_float(1), 98);
  EXPECT_FALSE(t.column(mem).is_valid(0));  // NaN: not sampled
}

}  // namespace
}  // namespace gpucost
