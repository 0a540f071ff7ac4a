// Micro-benchmarks of the hot paths: each log format of a generated laptop directory parsed from
// memory (detection, parse, merge: what ingest does per file), the tokenizer, packed column
// appends. Run: build/bench/gpucost_bench [--benchmark_filter=Ps]. Figures are in bytes/s
// of log text (or values/s); docs/performance.md explains them. Not part of ctest.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "gpucost/ingest/ingest.hpp"
#include "gpucost/sim/simulate.hpp"
#include "gpucost/table.hpp"
#include "ingest/formats/blank_tokens.hpp"

namespace fs = std::filesystem;
using namespace gpucost;

namespace {

// A 12 h laptop directory, generated once per process, its files held in memory.
const std::map<std::string, std::string>& corpus() {
  static const std::map<std::string, std::string> files = [] {
    const fs::path dir = fs::temp_directory_path() / ("gpucost-bench-" + std::to_string(::getpid()));
    sim::SimOptions o;
    o.scenario = sim::ScenarioKind::kLaptop;
    o.seed = 1;
    o.hours = 12;
    o.out_dir = dir.string();
    sim::simulate(o);
    std::map<std::string, std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) {
      std::ifstream in(e.path(), std::ios::binary);
      std::ostringstream ss;
      ss << in.rdbuf();
      out[e.path().filename().string()] = ss.str();
    }
    fs::remove_all(dir);
    return out;
  }();
  return files;
}

void parse_file(benchmark::State& state, const char* name) {
  const std::string& data = corpus().at(name);
  const IngestStage stage(IngestOptions{});
  for (auto _ : state) {
    IngestResult out;
    Diagnostics diag;
    stage.run_buffer(data, name, FormatId::unknown, out, diag);
    benchmark::DoNotOptimize(out.samples.rows() + out.events.rows() + out.processes.rows());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * data.size()));
}

void BM_Ps(benchmark::State& s) { parse_file(s, "ps.txt"); }
void BM_Dmon(benchmark::State& s) { parse_file(s, "dmon.log"); }
void BM_JournalJson(benchmark::State& s) { parse_file(s, "journal.json"); }
void BM_Syslog(benchmark::State& s) { parse_file(s, "syslog"); }
void BM_KernLog(benchmark::State& s) { parse_file(s, "kern.log"); }
void BM_Dmesg(benchmark::State& s) { parse_file(s, "dmesg.txt"); }
BENCHMARK(BM_Ps)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Dmon)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_JournalJson)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Syslog)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_KernLog)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Dmesg)->Unit(benchmark::kMillisecond);

// Cutting every line of ps.txt into blank-separated tokens.
void BM_BlankTokens(benchmark::State& state) {
  const std::string& data = corpus().at("ps.txt");
  for (auto _ : state) {
    std::size_t tokens = 0;
    std::string_view rest = data;
    while (!rest.empty()) {
      const auto nl = rest.find('\n');
      formats::BlankTokens cut(rest.substr(0, nl));
      std::string_view tok;
      while (cut.next(tok)) ++tokens;
      rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    }
    benchmark::DoNotOptimize(tokens);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * data.size()));
}
BENCHMARK(BM_BlankTokens)->Unit(benchmark::kMillisecond);

// Appending whole-second stamps and small measurements: one push at a time vs batches.
void BM_ColumnPush(benchmark::State& state) {
  for (auto _ : state) {
    Column ts("ts", ColumnType::kInt64), w("w", ColumnType::kFloat64);
    for (std::int64_t i = 0; i < 100'000; ++i) {
      ts.push_int(1'795'000'000'000'000'000 + i * 1'000'000'000);
      w.push_float(static_cast<double>(40 + i % 60));
    }
    benchmark::DoNotOptimize(ts.size() + w.size());
  }
  state.SetItemsProcessed(state.iterations() * 200'000);
}
BENCHMARK(BM_ColumnPush)->Unit(benchmark::kMicrosecond);

void BM_ColumnAppendBatch(benchmark::State& state) {
  std::int64_t t[256];
  double v[256];
  for (auto _ : state) {
    Column ts("ts", ColumnType::kInt64), w("w", ColumnType::kFloat64);
    for (std::int64_t i = 0; i < 100'000; i += 256) {
      for (std::int64_t k = 0; k < 256; ++k) {
        t[k] = 1'795'000'000'000'000'000 + (i + k) * 1'000'000'000;
        v[k] = static_cast<double>(40 + (i + k) % 60);
      }
      ts.append_ints(t, nullptr, 256);
      w.append_floats(v, 256);
    }
    benchmark::DoNotOptimize(ts.size() + w.size());
  }
  state.SetItemsProcessed(state.iterations() * 2 * 100'096);
}
BENCHMARK(BM_ColumnAppendBatch)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
