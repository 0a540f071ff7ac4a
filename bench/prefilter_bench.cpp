// The recognizer's key prefilter (src/ingest/key_prefilter.cpp: hand-written AVX2 "Teddy" and the
// portable scan) against Hyperscan (libhyperscan-dev) doing the same job: which of the kernel
// table's four-byte keys occur in each message. Messages are the kernel messages of real-size
// logs given on the command line (kern.log of the benchmark corpora); each way runs over all of
// them REPETITIONS times and the median is printed, with a check that all three agree.
// issue 16 asked for the measurement; docs/performance.md has the figures. Not part of ctest.
// Usage: gpucost_prefilter_bench [-r REPETITIONS] KERN_LOG...
#include <hs/hs.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/key_prefilter.hpp"

using namespace gpucost;

namespace {

// The kernel table's prefilter keys (kKernel in src/ingest/recognizer.cpp, 40 patterns, when
// this was measured): the table the kernel logs' messages go through.
constexpr std::string_view kKernelKeys[] = {
    "Xid ", "Cras", "GSP ", "GSP ", "mark", "fall", "rm_i", "nvAs", "A UN", "ERRO", "ERRO", "prob", "API ", "HANG",
    "chip", "rese", "PCIe", "PCIe", "aint", "aint", "abov", "abov", "spee", "ical", "Adap", "Adap", "PM: ", "hibe",
    "PM: ", "PM: ", "PM: ", "PM: ", "PM: ", "hibe", "PM: ", "Waki", "Linu", "Kill", "segf", "trap"};

// The message of a kern.log line: after the kernel's "[ mono] " stamp, or after "kernel: ".
std::string_view message_of(std::string_view line) {
  const auto k = line.find(" kernel: ");
  if (k == std::string_view::npos) return line;
  std::string_view m = line.substr(k + 9);
  if (!m.empty() && m[0] == '[')
    if (const auto e = m.find("] "); e != std::string_view::npos) m.remove_prefix(e + 2);
  return m;
}

struct HsPrefilter {
  hs_database_t* db = nullptr;
  hs_scratch_t* scratch = nullptr;
  std::vector<std::uint64_t> bits;  // per distinct key: the bits of the patterns that have it

  explicit HsPrefilter(std::span<const std::string_view> keys) {
    std::vector<std::string> distinct;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      auto it = std::find(distinct.begin(), distinct.end(), std::string(keys[i]));
      if (it == distinct.end()) {
        distinct.emplace_back(keys[i]);
        bits.push_back(0);
        it = distinct.end() - 1;
      }
      bits[static_cast<std::size_t>(it - distinct.begin())] |= std::uint64_t{1} << i;
    }
    std::vector<const char*> exprs;
    std::vector<std::size_t> lens;
    std::vector<unsigned> flags, ids;
    for (std::size_t i = 0; i < distinct.size(); ++i) {
      exprs.push_back(distinct[i].data());
      lens.push_back(distinct[i].size());
      flags.push_back(HS_FLAG_SINGLEMATCH);
      ids.push_back(static_cast<unsigned>(i));
    }
    hs_compile_error_t* err = nullptr;
    if (hs_compile_lit_multi(exprs.data(), flags.data(), ids.data(), lens.data(), static_cast<unsigned>(exprs.size()),
                             HS_MODE_BLOCK, nullptr, &db, &err) != HS_SUCCESS) {
      std::fprintf(stderr, "hs_compile_lit_multi: %s\n", err ? err->message : "?");
      std::exit(1);
    }
    if (hs_alloc_scratch(db, &scratch) != HS_SUCCESS) std::exit(1);
  }
  std::uint64_t scan(std::string_view t) const {
    struct Ctx {
      const std::vector<std::uint64_t>* bits;
      std::uint64_t mask;
    } ctx{&bits, 0};
    hs_scan(db, t.data(), static_cast<unsigned>(t.size()), 0, scratch,
            [](unsigned id, unsigned long long, unsigned long long, unsigned, void* c) -> int {
              auto* x = static_cast<Ctx*>(c);
              x->mask |= (*x->bits)[id];
              return 0;
            },
            &ctx);
    return ctx.mask;
  }
};

template <class F>
double median_seconds(int reps, const std::vector<std::string_view>& msgs, F scan, std::uint64_t& sum) {
  std::vector<double> s;
  for (int r = 0; r < reps; ++r) {
    std::uint64_t acc = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (const auto m : msgs) acc += scan(m);
    s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    sum = acc;
  }
  std::sort(s.begin(), s.end());
  return s[s.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  std::vector<std::string> texts;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-r" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
      continue;
    }
    std::ifstream f(a, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    texts.push_back(ss.str());
  }
  std::vector<std::string_view> msgs;
  std::uint64_t bytes = 0;
  for (const auto& t : texts) {
    std::string_view rest = t;
    while (!rest.empty()) {
      const auto nl = rest.find('\n');
      msgs.push_back(message_of(rest.substr(0, nl)));
      bytes += msgs.back().size();
      rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    }
  }
  const KeyPrefilter teddy(kKernelKeys);
  const HsPrefilter hs(kKernelKeys);
  // Every way must give every message the same mask.
  std::size_t differ = 0;
  for (const auto m : msgs) differ += teddy.scan(m) != hs.scan(m) || teddy.scan(m) != teddy.scan_portable(m);
  using Way = KeyPrefilter::Way;
  for (const auto m : msgs)
    for (const Way way : {Way::kAvx2, Way::kAvx512}) differ += teddy.scan_with(way, m) != teddy.scan_portable(m);
  std::uint64_t s1 = 0, s2 = 0, s3 = 0, s4 = 0;
  const double t_teddy = median_seconds(reps, msgs, [&](std::string_view m) { return teddy.scan(m); }, s1);
  const Way other = KeyPrefilter::best_way() == Way::kAvx512 ? Way::kAvx2 : Way::kPortable;
  double t_other = 0;
  if (other != Way::kPortable)
    t_other = median_seconds(reps, msgs, [&](std::string_view m) { return teddy.scan_with(other, m); }, s4);
  else
    s4 = s1;
  const double t_portable = median_seconds(reps, msgs, [&](std::string_view m) { return teddy.scan_portable(m); }, s2);
  const double t_hs = median_seconds(reps, msgs, [&](std::string_view m) { return hs.scan(m); }, s3);
  std::printf("%zu kernel messages, %.1f MB, median of %d; masks that differ: %zu\n", msgs.size(), bytes / 1e6, reps, differ);
  std::printf("%-40s %10s %10s %10s\n", "prefilter", "seconds", "ns/msg", "MB/s");
  const auto row = [&](const char* name, double t) {
    std::printf("%-40s %10.3f %10.1f %10.0f\n", name, t, t * 1e9 / static_cast<double>(msgs.size()), bytes / 1e6 / t);
  };
  const std::string best = std::string("KeyPrefilter::scan (") + KeyPrefilter::name(KeyPrefilter::best_way()) + ")";
  row(best.c_str(), t_teddy);
  if (other != Way::kPortable) {
    const std::string o = std::string("KeyPrefilter::scan_with (") + KeyPrefilter::name(other) + ")";
    row(o.c_str(), t_other);
  }
  row("KeyPrefilter::scan_portable", t_portable);
  row("Hyperscan hs_scan (literals, block mode)", t_hs);
  return s1 == s2 && s2 == s3 && s3 == s4 && differ == 0 ? 0 : 1;
}
