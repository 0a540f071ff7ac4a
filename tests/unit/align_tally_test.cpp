// A file's tally counted in two parts (samples, then process rows placed on their own thread)
// and added up is the tally one pass over both would have made; so are a file's stamp ranges
// (samples and events, then process rows read on their own thread).
#include <gtest/gtest.h>

#include <random>

#include "align/internal.hpp"

namespace gpucost::align_detail {
namespace {

struct Row {
  TimeNs t;
  std::uint64_t line;
  int source;  // 0 wall, 1 mtime, 2 none
};

void count(FileTally& t, const Row& r) {
  if (r.source == 0) ++t.wall;
  else if (r.source == 1) ++t.mtime;
  else ++t.unplaced;
  t.saw(r.t);
  t.series(r.t, r.line);
}

TEST(FileTally, TwoPartsAddedUpAreOnePass) {
  std::mt19937 rng(5);
  for (int round = 0; round < 300; ++round) {
    std::vector<Row> a, b;  // each part a series of its own, with steps back now and then
    for (auto* part : {&a, &b}) {
      const std::size_t n = rng() % 40;
      TimeNs t = static_cast<TimeNs>(rng() % 1000) * kNsPerSec;
      for (std::size_t i = 0; i < n; ++i) {
        t += (rng() % 5 == 0 ? -1 : 1) * static_cast<TimeNs>(rng() % 50) * kNsPerSec;
        part->push_back({rng() % 9 == 0 ? kNoTime : t, i + 1, static_cast<int>(rng() % 3)});
      }
    }
    FileTally one;
    for (const Row& r : a) count(one, r);
    one.series_prev = kNoTime;  // each placement starts its series afresh
    for (const Row& r : b) count(one, r);
    FileTally first, second;
    for (const Row& r : a) count(first, r);
    for (const Row& r : b) count(second, r);
    first.add(second);
    ASSERT_EQ(first.wall, one.wall) << round;
    ASSERT_EQ(first.mtime, one.mtime) << round;
    ASSERT_EQ(first.unplaced, one.unplaced) << round;
    ASSERT_EQ(first.first, one.first) << round;
    ASSERT_EQ(first.last, one.last) << round;
    ASSERT_EQ(first.backwards, one.backwards) << round;
    ASSERT_EQ(first.first_steps.size(), one.first_steps.size()) << round;
    for (std::size_t k = 0; k < one.first_steps.size(); ++k) {
      ASSERT_EQ(first.first_steps[k].line, one.first_steps[k].line) << round;
      ASSERT_EQ(first.first_steps[k].ts, one.first_steps[k].ts) << round;
      ASSERT_EQ(first.first_steps[k].prev, one.first_steps[k].prev) << round;
    }
  }
}

TEST(RawRange, TwoPartsAddedUpAreOnePass) {
  std::mt19937 rng(11);
  for (int round = 0; round < 500; ++round) {
    struct Stamp {
      TimeNs raw, interval;
    };
    std::vector<Stamp> a, b;  // few distinct stamps: ties between the parts, and within them
    for (auto* part : {&a, &b})
      for (std::size_t i = 0, n = rng() % 12; i < n; ++i)
        part->push_back({static_cast<TimeNs>(rng() % 6) * kNsPerSec, static_cast<TimeNs>(rng() % 4)});
    RawRange one, first, second;
    for (const auto& s : a) one.add(s.raw, s.interval), first.add(s.raw, s.interval);
    for (const auto& s : b) one.add(s.raw, s.interval), second.add(s.raw, s.interval);
    first.add(second);
    ASSERT_EQ(first.rows, one.rows) << round;
    if (one.rows == 0) continue;
    ASSERT_EQ(first.min, one.min) << round;
    ASSERT_EQ(first.max, one.max) << round;
    ASSERT_EQ(first.interval_at_max, one.interval_at_max) << round;  // the last row at the maximum
  }
}

}  // namespace
}  // namespace gpucost::align_detail
