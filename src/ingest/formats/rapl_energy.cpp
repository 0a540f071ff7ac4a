// The CPU energy counters collect-logs.sh reads from the kernel's powercap tree
// (/sys/class/powercap/intel-rapl:N[/intel-rapl:N:M]/energy_uj; AMD processors expose the same
// tree under the same names on recent kernels), one row per domain and round:
//
//   # gpucost-rapl-energy 1: <stamp> <zone> <name> <energy_uj> <max_energy_range_uj>
//   2026-12-07T16:00:01.250113Z intel-rapl:0 package-0 73948225603 262143328850
//
// A counter is cumulative energy in microjoules that wraps at max_energy_range_uj: the power of
// a domain is the difference of two consecutive rows over their interval, one sample stamped at
// the later row. A counter that went back by more than a wrap explains (a reset: a reboot, the
// driver reloaded) gives no sample and counts Problem::counter_reset. Only the package domains
// (`package-N`) and their DRAM (`dram`) are samples: `core` and `uncore` are parts of the
// package already counted, and `psys` (the platform) includes it.
#include <fmt/format.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"
#include "ingest/formats/rfc3339_stamp.hpp"

namespace gpucost::formats {
namespace {

constexpr std::string_view kHeader = "# gpucost-rapl-energy";
// A wrap that would mean more than this from one domain is no wrap but a reset: the largest
// server packages draw some 500 W (Xeon 6980P, EPYC 9965), their DRAM less.
constexpr double kMaxDomainWatts = 2000;

// One row, taken apart.
struct Row {
  Rfc3339Stamp stamp;
  std::string_view zone, name;
  std::uint64_t energy_uj = 0, max_uj = 0;
};

// AMD processors' domains are in the same intel-rapl tree (the powercap control type's name).
bool is_zone(std::string_view z) noexcept { return z.substr(0, 11) == "intel-rapl:"; }

// Which samples a domain gives (false: none, a part or a sum of what the others count).
bool source_of(std::string_view name, HostPowerSource& s) noexcept {
  if (name.substr(0, 8) == "package-") {
    s = HostPowerSource::kCpuPackage;
    return true;
  }
  if (name == "dram") {
    s = HostPowerSource::kCpuDram;
    return true;
  }
  return false;
}

// 0: not a row; 1: a row with a bad stamp or number; 2: a row.
int take_apart(std::string_view line, Row& row) noexcept {
  std::array<std::string_view, 6> f;
  const std::size_t n = text::split_ws(line, f);
  if (n != 5 || !is_zone(f[1])) return 0;
  row.zone = f[1];
  row.name = f[2];
  const auto e = text::to_int<std::uint64_t>(f[3]);
  const auto m = text::to_int<std::uint64_t>(f[4]);
  if (!parse_rfc3339(f[0], row.stamp) || !e || !m) return 1;
  row.energy_uj = *e;
  row.max_uj = *m;
  return 2;
}

// Real lines of the format, with what the parser makes of them (tests/unit/format_samples_test.cpp).
constexpr FormatSample kSamples[] = {
    {"rapl-energy.txt", "tests/data/host_power/rapl-energy-2-packages.txt",
     R"smp(# gpucost-rapl-energy 1: <stamp> <zone> <name> <energy_uj> <max_energy_range_uj>
2026-12-07T16:20:01.004217Z intel-rapl:0 package-0 219903124418 262143328850
2026-12-07T16:20:01.004217Z intel-rapl:0:0 dram 44114873236 65712999613
2026-12-07T16:20:01.004217Z intel-rapl:1 package-1 102538012950 262143328850
2026-12-07T16:20:01.004217Z intel-rapl:1:0 dram 40923313377 65712999613
2026-12-07T16:20:02.009938Z intel-rapl:0 package-0 220089401175 262143328850
2026-12-07T16:20:02.009938Z intel-rapl:0:0 dram 44136915780 65712999613
2026-12-07T16:20:02.009938Z intel-rapl:1 package-1 102721467218 262143328850
2026-12-07T16:20:02.009938Z intel-rapl:1:0 dram 40944862415 65712999613
)smp",
     4},
};

class Parser {
 public:
  explicit Parser(FileSink& sink) : sink_(sink) {}

  void line(const Line& line) {
    const std::string_view t = text::trim(line.text);
    if (text::is_blank(t)) return;
    if (t[0] == '#') {  // the header, or a comment
      sink_.accept();
      return;
    }
    Row row;
    const int got = take_apart(t, row);
    if (got == 0) {
      sink_.problem(line, Problem::unparsable_line,
                    "not a `<stamp> <zone> <name> <energy_uj> <max_energy_range_uj>` row");
      return;
    }
    if (got == 1) {
      sink_.problem(line, Problem::bad_number, "the stamp is not RFC 3339 or a counter is not a whole number");
      return;
    }
    sink_.accept();
    WallKind kind = WallKind::kLocal;
    TimeNs raw = row.stamp.local_ns;
    if (row.stamp.has_offset) {
      kind = WallKind::kUtc;
      raw = row.stamp.utc_ns();
      if (!row.stamp.zulu) sink_.observe_utc_offset(row.stamp.offset_ns);
    }
    HostPowerSource source{};
    if (!source_of(row.name, source)) return;
    Last& last = last_of(row.zone);
    const bool seen = last.seen && last.kind == kind;  // the first reading of a domain only starts it
    const Reading prev = last.reading;
    last.kind = kind;
    last.reading = Reading{raw, row.energy_uj};
    last.seen = true;
    if (!seen) return;
    const TimeNs dt = raw - prev.raw;
    if (dt <= 0) {
      sink_.problem(line, Problem::counter_reset,
                    fmt::format("{}'s reading is not later than the one before it: no power from this step", row.zone));
      return;
    }
    double joules_uj = 0;
    if (row.energy_uj >= prev.energy_uj) {
      joules_uj = static_cast<double>(row.energy_uj - prev.energy_uj);
    } else {
      // The counter wrapped at max_energy_range_uj, or was reset.
      const bool can_wrap = row.max_uj > 0 && prev.energy_uj <= row.max_uj;
      joules_uj = can_wrap ? static_cast<double>(row.max_uj - prev.energy_uj) + static_cast<double>(row.energy_uj) : -1;
      if (!can_wrap || joules_uj / 1e6 / (static_cast<double>(dt) / 1e9) > kMaxDomainWatts) {
        sink_.problem(line, Problem::counter_reset,
                      fmt::format("{}'s energy went back from {} to {} uJ, more than a wrap at {} uJ explains "
                                  "(a reset): no power from this step",
                                  row.zone, prev.energy_uj, row.energy_uj, row.max_uj));
        return;
      }
    }
    HostPowerSample s;
    s.file = sink_.file_index();
    s.line = line.number;
    s.wall_kind = kind;
    s.wall_raw_ns = raw;
    s.interval_ns = dt;
    s.watts = joules_uj / 1e6 / (static_cast<double>(dt) / 1e9);
    s.source = source;
    s.domain = std::string(row.zone);
    sink_.output().host_power.push_back(std::move(s));
    sink_.record();
  }

 private:
  struct Reading {
    TimeNs raw = kNoTime;
    std::uint64_t energy_uj = 0;
  };
  struct Last {
    std::string zone;
    WallKind kind = WallKind::kNone;
    Reading reading;
    bool seen = false;
  };
  // A machine has a few domains: a linear search, and a string made once per domain.
  Last& last_of(std::string_view zone) {
    for (auto& l : last_)
      if (l.zone == zone) return l;
    Last l;
    l.zone = std::string(zone);
    last_.push_back(std::move(l));
    return last_.back();
  }

  FileSink& sink_;
  std::vector<Last> last_;
};

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::rapl_energy; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }

  int score(std::string_view line) const noexcept override {
    const std::string_view t = text::trim(line);
    if (t.substr(0, kHeader.size()) == kHeader) return kSignatureScore;
    Row row;
    return take_apart(t, row) == 2 ? 100 : 0;
  }

  void parse(LineSource& src, FileSink& sink) const override {
    Parser p(sink);
    feed_lines(src, sink, p);
  }
};

}  // namespace

const LogFormat& rapl_energy_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
