// The packed column storage reads back exactly what was stored, whatever the values do to the
// encoding (widening, rebasing, scale changes, raw doubles), and stays narrow when it can.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gpucost/table.hpp"

namespace gpucost {
namespace {

void expect_same(const PackedInts& p, const std::vector<std::int64_t>& want, const char* what) {
  ASSERT_EQ(p.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(p.get(i), want[i]) << what << " at " << i;
}

TEST(PackedInts, WidthFollowsTheRangeOfTheValues) {
  PackedInts p;
  for (int i = 0; i < 100; ++i) p.push(7);
  EXPECT_EQ(p.width(), 0u);  // all equal: nothing stored per value
  p.push(200);
  EXPECT_EQ(p.width(), 1u);  // 7..200 fits one unsigned byte above the base
  p.push(7 + 65535);
  EXPECT_EQ(p.width(), 2u);
  p.push(7 + 16'777'215);
  EXPECT_EQ(p.width(), 3u);
  p.push(std::int64_t{1} << 40);
  EXPECT_EQ(p.width(), 8u);
  std::vector<std::int64_t> want(100, 7);
  want.insert(want.end(), {200, 7 + 65535, 7 + 16'777'215, std::int64_t{1} << 40});
  expect_same(p, want, "widened");
}

TEST(PackedInts, WholeSecondStampsTakeFourBytesAtMost) {
  PackedInts p;
  const std::int64_t t0 = 1'795'000'000'000'000'000;  // 2026, ns
  std::vector<std::int64_t> want;
  for (std::int64_t s = 0; s < 86400 * 30; s += 3600) {
    p.push(t0 + s * 1'000'000'000);
    want.push_back(t0 + s * 1'000'000'000);
  }
  EXPECT_LE(p.width(), 4u);
  expect_same(p, want, "seconds");
  p.push(t0 + 1);  // one stamp with nanoseconds: the scale drops, everything still reads back
  want.push_back(t0 + 1);
  expect_same(p, want, "ns");
}

TEST(PackedInts, RandomValuesRoundTripThroughEveryOperation) {
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 60; ++round) {
    PackedInts p;
    std::vector<std::int64_t> want;
    const int kind = round % 6;
    for (int i = 0; i < 2000; ++i) {
      std::int64_t v;
      switch (kind) {
        case 0: v = static_cast<std::int64_t>(rng() % 300); break;                       // small
        case 1: v = 5000 - i * 3; break;                                                  // descending
        case 2: v = static_cast<std::int64_t>(rng());  break;                             // anything
        case 3: v = (i % 7 == 0) ? INT64_MIN : (i % 11 == 0 ? INT64_MAX : i); break;      // extremes
        case 4: v = static_cast<std::int64_t>(rng() % 1000) * 1'000'000'000 - 500'000'000'000; break;
        default: v = (i < 1000 ? 1'000'000 : -3) * static_cast<std::int64_t>(rng() % 50); break;
      }
      if (rng() % 5 == 0 && !want.empty()) {  // overwrite an earlier value
        const std::size_t at = rng() % want.size();
        p.set(at, v);
        want[at] = v;
      } else {
        p.push(v);
        want.push_back(v);
      }
    }
    expect_same(p, want, "pushed");
    PackedInts copy = p;
    expect_same(copy, want, "copied");
    std::vector<std::uint32_t> order;
    for (std::uint32_t i = 0; i < want.size(); i += 3) order.push_back(static_cast<std::uint32_t>(want.size() - 1 - i));
    p.permute(order);
    std::vector<std::int64_t> permuted;
    for (auto r : order) permuted.push_back(want[r]);
    expect_same(p, permuted, "permuted");
    PackedInts joined = copy;
    joined.append(p);
    std::vector<std::int64_t> both = want;
    both.insert(both.end(), permuted.begin(), permuted.end());
    expect_same(joined, both, "appended");
    PackedInts moved = std::move(joined);
    expect_same(moved, both, "moved");
    EXPECT_EQ(joined.size(), 0u);
  }
}

TEST(PackedInts, SlotsThatDoNotMatterNeverWidenTheEncoding) {
  PackedInts p;
  for (int i = 0; i < 1000; ++i) {
    if (i % 2) p.push_any();
    else p.push(100 + i % 50);
  }
  EXPECT_EQ(p.width(), 1u);
  for (int i = 0; i < 1000; i += 2) EXPECT_EQ(p.get(static_cast<std::size_t>(i)), 100 + i % 50);
}

// append_values: batches of every shape (one value, one value among nulls, only nulls, runs,
// whole seconds with a stamp off the scale, the extremes; lengths that leave a tail after groups
// of four) read back what they held, and stay as narrow as pushing the values one by one.
TEST(PackedInts, BatchesReadBackWhatTheyHeld) {
  std::mt19937_64 rng(777);
  const std::int64_t t0 = 1'795'000'000'000'000'000;
  for (int round = 0; round < 300; ++round) {
    PackedInts batched, pushed;
    std::vector<std::int64_t> want;
    std::vector<char> matters;
    for (int b = 0; b < 12; ++b) {
      const std::size_t n = 1 + rng() % 37;
      int shape = static_cast<int>(rng() % 8);
      if (round % 2 && (shape == 3 || shape == 6)) shape = 0;  // rounds that stay narrower than 8 bytes
      std::vector<std::int64_t> v(n);
      bool valid[64];
      const bool with_nulls = rng() % 2;
      const std::int64_t c = static_cast<std::int64_t>(rng() % 1000) - 500;
      for (std::size_t i = 0; i < n; ++i) {
        switch (shape) {
          case 0: v[i] = c; break;
          case 1: v[i] = t0 + static_cast<std::int64_t>(round) * 1'000'000'000; break;
          case 2: v[i] = t0 + static_cast<std::int64_t>(rng() % 100) * 1'000'000'000 + (i == n / 2 ? 7 : 0); break;
          case 3: v[i] = (i % 3 == 0) ? INT64_MIN : (i % 3 == 1 ? INT64_MAX : c); break;
          case 4: v[i] = static_cast<std::int64_t>(want.size() + i); break;
          case 5: v[i] = -static_cast<std::int64_t>(rng() % 70000); break;
          case 6: v[i] = static_cast<std::int64_t>(rng()); break;
          default: v[i] = static_cast<std::int64_t>(rng() % 4) * 1'000'000; break;
        }
        valid[i] = !with_nulls || rng() % 3 != 0;
        if (shape == 7 && with_nulls && b % 2) valid[i] = false;  // a batch of nulls only
        if (!valid[i] && rng() % 2) v[i] = rng() % 2 ? INT64_MIN + 1 : INT64_MAX - 1;  // a null's slot: never read
      }
      batched.append_values(v.data(), with_nulls ? valid : nullptr, n);
      for (std::size_t i = 0; i < n; ++i) {
        if (valid[i]) pushed.push(v[i]);
        else pushed.push_any();
        want.push_back(v[i]);
        matters.push_back(valid[i]);
      }
    }
    ASSERT_EQ(batched.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (matters[i]) {
        ASSERT_EQ(batched.get(i), want[i]) << "round " << round << " at " << i;
      }
    }
    EXPECT_LE(batched.width(), pushed.width()) << "round " << round;
  }
}

std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

TEST(PackedFloats, ValuesReadBackBitForBit) {
  std::mt19937_64 rng(99);
  const std::vector<double> special = {0.0, -0.0, 1e-300, 4.5e15, -4.5e15, 12.3, 0.1, 63.25, 1.0 / 3.0,
                                       std::numeric_limits<double>::infinity(), 1e308, -7.0, 45.23};
  for (int round = 0; round < 40; ++round) {
    PackedFloats p;
    std::vector<double> want;
    for (int i = 0; i < 1500; ++i) {
      double v;
      switch (round % 4) {
        case 0: v = static_cast<double>(rng() % 120); break;                         // dmon integers
        case 1: v = static_cast<double>(rng() % 10000) / 10.0; break;                // ps %CPU
        case 2: v = static_cast<double>(rng() % 100000) / 100.0 - 20; break;         // 45.23 W
        default: v = special[rng() % special.size()]; break;
      }
      if (i == 700 && round % 4 != 3) v = special[rng() % special.size()];  // one surprise midway
      if (rng() % 6 == 0 && !want.empty()) {
        const std::size_t at = rng() % want.size();
        p.set(at, v);
        want[at] = v;
      } else {
        p.push(v);
        want.push_back(v);
      }
    }
    ASSERT_EQ(p.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(bits(p.get(i)), bits(want[i])) << round << " at " << i;
    PackedFloats q;
    q.push(1.5);
    q.append(p);
    ASSERT_EQ(bits(q.get(0)), bits(1.5));
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(bits(q.get(i + 1)), bits(want[i])) << "appended " << i;
  }
}

TEST(PackedColumn, NullsReadZeroAndDoNotCostWidth) {
  Column c("x", ColumnType::kInt64);
  c.push_null();
  for (int i = 0; i < 300; ++i) {
    if (i % 3 == 0) c.push_null();
    else c.push_int(1'795'000'000'000'000'000 + i);
  }
  EXPECT_FALSE(c.is_valid(0));
  EXPECT_EQ(c.get_int(0), 0);
  EXPECT_EQ(c.get_int(1), 0);
  EXPECT_EQ(c.get_int(2), 1'795'000'000'000'000'001);
  // 300 consecutive values above the base: one byte each, although nulls read as 0.
  EXPECT_LE(c.memory_bytes(), 2 * 301u + 64);
  Column f("w", ColumnType::kFloat64);
  f.push_float(12.5);
  f.push_null();
  f.set_float(1, 3.0);
  EXPECT_TRUE(f.is_valid(1));
  EXPECT_EQ(f.get_float(1), 3.0);
  f.set_null(0);
  EXPECT_EQ(f.get_float(0), 0.0);
}

}  // namespace
}  // namespace gpucost
