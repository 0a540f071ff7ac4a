// The thread helpers every stage uses (include/gpucost/parallel.hpp): every task runs once, the
// exception a single thread would have thrown first is the one rethrown, and work beside the
// calling thread runs exactly once whether a thread takes it or not.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucost/parallel.hpp"

namespace gpucost {
namespace {

TEST(Parallel, EveryTaskRunsOnceOnAnyThreadCount) {
  for (unsigned threads : {1u, 2u, 4u, 16u}) {
    std::vector<std::atomic<int>> runs(1000);
    for_each_task(runs.size(), threads, [&](std::size_t t) { runs[t].fetch_add(1); });
    for (std::size_t t = 0; t < runs.size(); ++t)
      ASSERT_EQ(runs[t].load(), 1) << "task " << t << ", " << threads << " threads";
  }
}

TEST(Parallel, TheLowestFailingTaskIsRethrownAsOneThreadWouldThrowIt) {
  for (unsigned threads : {1u, 2u, 8u}) {
    try {
      for_each_task(200, threads, [](std::size_t t) {
        if (t == 37 || t == 150 || t == 199) throw std::runtime_error("task " + std::to_string(t));
      });
      FAIL() << "nothing thrown on " << threads << " threads";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "task 37") << threads << " threads";
    }
  }
}

TEST(Parallel, RunOnThreadsRunsTheWorkerOnEachThreadItHad) {
  std::atomic<unsigned> ran{0};
  auto worker = [&]() noexcept { ran.fetch_add(1); };
  EXPECT_EQ(run_on_threads(1, worker), 1u);
  EXPECT_EQ(ran.load(), 1u);
  ran = 0;
  const unsigned had = run_on_threads(3, worker);
  EXPECT_EQ(ran.load(), had);
  EXPECT_GE(had, 1u);
  EXPECT_LE(had, 3u);
}

TEST(Parallel, WorkBesideRunsOnceAndItsExceptionReachesFinish) {
  for (unsigned threads : {1u, 2u}) {
    for (bool worth : {false, true}) {
      int runs = 0;
      auto work = [&] { ++runs; };
      Beside beside(threads, worth, work);
      beside.finish();
      EXPECT_EQ(runs, 1) << threads << " threads, worth " << worth;

      auto failing = [] { throw std::runtime_error("beside"); };
      Beside failing_beside(threads, worth, failing);
      EXPECT_THROW(failing_beside.finish(), std::runtime_error) << threads << " threads, worth " << worth;
    }
  }
}

}  // namespace
}  // namespace gpucost
