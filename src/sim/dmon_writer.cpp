// `nvidia-smi dmon -s pucvmet -o DT` as driver 535+ prints it (layout of a real capture with
// these options, see docs/simulate.md): two header lines repeated every screenful, one row per
// GPU per second, local date and time, `-` for values the GPU does not report (mtemp and ECC on
// GeForce), a trailing space on every line. Nothing is printed while the laptop sleeps (the
// process is frozen), and a GPU that fell off the bus prints no more rows.
#include "sim/emit.hpp"
#include "sim/gpu_model.hpp"
#include "sim/writers.hpp"

namespace gpucost::sim {

namespace {

constexpr int kHeaderEvery = 20;  // sampling intervals between repeated headers

constexpr const char* kNames[] = {"pwr", "gtemp", "mtemp", "sm", "mem", "enc", "dec", "jpg", "ofa", "mclk", "pclk",
                                  "pviol", "tviol", "fb", "bar1", "ccpm", "sbecc", "dbecc", "pci", "rxpci", "txpci"};
constexpr const char* kUnits[] = {"W", "C", "C", "%", "%", "%", "%", "%", "%", "MHz", "MHz",
                                  "%", "bool", "MB", "MB", "MB", "errs", "errs", "errs", "MB/s", "MB/s"};

void header(std::string& b) {
  b += "#Date        Time         gpu";
  for (const char* n : kNames) append_right(b, n, 7);
  b += " \n#YYYYMMDD    HH:MM:SS     Idx";
  for (const char* u : kUnits) append_right(b, u, 7);
  b += " \n";
}

void value(std::string& b, int v) {
  if (v < 0) append_right(b, "-", 7);
  else append_int(b, v, 7);
}

}  // namespace

void write_dmon(const World& w, OutFile& out, Truth& truth) {
  std::vector<GpuModel> models;
  for (std::size_t g = 0; g < w.gpus.size(); ++g) models.emplace_back(w, static_cast<int>(g));
  TimeNs last_end = 0;
  for (TimeNs e : w.dmon_end) last_end = std::max(last_end, e);
  int intervals = 0;
  std::string& b = out.buf();
  for (TimeNs t = ceil_second(w.collect_begin); t < std::min(w.span_end, last_end); t += kNsPerSec) {
    if (w.frozen(t)) continue;
    if (intervals % kHeaderEvery == 0) header(b);
    ++intervals;
    const CivilTime c = ns_to_civil(t + w.offset_at(t));
    char stamp[24];
    char* p = stamp;
    *p++ = ' ';
    auto put = [&](std::int64_t v, int n) {
      for (int i = n - 1; i >= 0; --i) {
        p[i] = static_cast<char>('0' + v % 10);
        v /= 10;
      }
      p += n;
    };
    put(c.year, 4);
    put(c.month, 2);
    put(c.day, 2);
    for (int i = 0; i < 4; ++i) *p++ = ' ';
    put(c.hour, 2);
    *p++ = ':';
    put(c.minute, 2);
    *p++ = ':';
    put(c.second, 2);
    bool any = false;
    for (std::size_t g = 0; g < w.gpus.size(); ++g) {
      if (t >= w.dmon_end[g]) continue;
      const GpuSample s = models[g].sample(t);
      any = true;
      truth.add_sample(static_cast<int>(g), t, s.sm, s.pwr, s.gtemp, s.stalled);
      b.append(stamp, static_cast<std::size_t>(p - stamp));
      append_int(b, static_cast<std::int64_t>(g), 8);
      for (int v : {s.pwr, s.gtemp, s.mtemp, s.sm, s.mem, s.enc, s.dec, s.jpg, s.ofa, s.mclk, s.pclk, s.pviol, s.tviol,
                    s.fb, s.bar1, s.ccpm, s.sbecc, s.dbecc, s.pci, s.rxpci, s.txpci})
        value(b, v);
      b += " \n";
    }
    if (any) truth.add_interval();
    out.maybe_flush();
  }
}

}  // namespace gpucost::sim
