// Fuzz target: the align stage (zones, years, boots, suspends, dedup, windows) on tables built
// straight from the fuzzer's bytes, then the feature stage on the result. Rows are built as the
// parsers build them (ts null, raw stamps per WallKind within the ranges the parsers produce,
// files in order, lines rising within a file), but in combinations no real directory has.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <string>

#include "fuzz_common.hpp"
#include "gpucost/align/align.hpp"
#include "gpucost/features/features.hpp"

namespace {
using namespace gpucost;

const TimeNs kBase = civil_to_ns(CivilTime{2026, 11, 29, 19, 50, 45, 0});
const TimeNs kMinNs = civil_to_ns(CivilTime{1970, 1, 1, 0, 0, 0, 0});
const TimeNs kMaxNs = civil_to_ns(CivilTime{2200, 12, 31, 23, 59, 59, 999'999'999});
constexpr TimeNs kMaxMono = 1'000'000'000 * kNsPerSec;  // 9-digit seconds, as parse_mono_stamp reads

// Real kernel messages, so that copies of one message in several files can meet in dedup.
constexpr const char* kTexts[] = {
    "NVRM: Xid (PCI:0000:01:00): 31, pid=35097, name=python3, channel 0x0000005c",
    "NVRM: Xid (PCI:0000:b3:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
    "pcieport 0000:00:03.1: AER: Correctable error message received from 0000:00:00.0",
    "ACPI: AC: AC Adapter [ADP1] (on-line)",
    "PM: suspend entry (deep)",
    "PM: suspend exit",
    "Linux version 6.1.0-13-amd64 (debian-kernel@lists.debian.org)",
};
constexpr const char* kBoots[] = {"", "", "1f0e3a2b9c8d4e5f", "7a6b5c4d3e2f1a0b"};

struct Builder {
  FuzzedDataProvider& fdp;
  IngestResult in;

  TimeNs instant() {
    if (fdp.ConsumeIntegralInRange(0, 15) == 0) return fdp.ConsumeIntegralInRange(kMinNs, kMaxNs);
    return kBase + fdp.ConsumeIntegralInRange<TimeNs>(-400 * kNsPerDay, 400 * kNsPerDay);
  }
  TimeNs raw(WallKind wk) {
    switch (wk) {
      case WallKind::kNone: return kNoTime;
      case WallKind::kUtc:
      case WallKind::kLocal: return instant();
      case WallKind::kLocalNoYear: {
        const CivilTime c = ns_to_civil(instant());
        const int k = fdp.ConsumeIntegralInRange(0, 15) == 0 ? fdp.ConsumeIntegralInRange(0, 20)
                                                             : fdp.ConsumeIntegralInRange(0, 2);
        return no_year_raw({k, c.month, c.day, ((c.hour * 60 + c.minute) * 60 + c.second) * kNsPerSec + c.nanos});
      }
      // dmon -o T and relative rows: at most twenty years of days (nvsmi::DayCounter, place_row).
      case WallKind::kLocalNoDate: return fdp.ConsumeIntegralInRange<TimeNs>(0, 7'301 * kNsPerDay);
      case WallKind::kRelative: return fdp.ConsumeIntegralInRange<TimeNs>(0, 7'300 * kNsPerDay);
    }
    return kNoTime;
  }
  WallKind wall_kind() { return static_cast<WallKind>(fdp.ConsumeIntegralInRange(0, 5)); }
  TimeNs mono() {
    if (fdp.ConsumeBool()) return kNoTime;
    return fdp.ConsumeIntegralInRange(0, 15) == 0 ? fdp.ConsumeIntegralInRange<TimeNs>(0, kMaxMono)
                                                  : fdp.ConsumeIntegralInRange<TimeNs>(0, 30 * kNsPerDay);
  }

  void event(std::uint32_t file, std::uint64_t line) {
    Table& t = in.events;
    const WallKind wk = wall_kind();
    t.column(event_col::ts_ns).push_null();
    t.column(event_col::wall_kind).push_int(static_cast<std::int64_t>(wk));
    t.column(event_col::wall_raw_ns).push_int_or_null(raw(wk));
    t.column(event_col::mono_ns).push_int_or_null(mono());
    const char* boot = kBoots[fdp.ConsumeIntegralInRange<std::size_t>(0, 3)];
    if (*boot) t.column(event_col::boot_id).push_string(boot);
    else t.column(event_col::boot_id).push_null();
    t.column(event_col::boot_seq).push_int(fdp.ConsumeIntegralInRange(0, 3));
    const auto kind = fdp.ConsumeIntegralInRange<std::int64_t>(0, kEventKindCount - 1);
    t.column(event_col::kind).push_int(kind);
    t.column(event_col::format).push_int(static_cast<std::int64_t>(in.files[file].format));
    t.column(event_col::file).push_int(file);
    t.column(event_col::line).push_int(static_cast<std::int64_t>(line));
    if (fdp.ConsumeBool()) t.column(event_col::code).push_int(fdp.ConsumeIntegralInRange(0, 200));
    else t.column(event_col::code).push_null();
    if (fdp.ConsumeBool()) t.column(event_col::gpu).push_string(fdp.ConsumeBool() ? "0000:01:00" : "1");
    else t.column(event_col::gpu).push_null();
    if (fdp.ConsumeBool()) t.column(event_col::pid).push_int(fdp.ConsumeIntegralInRange(1, 4'194'304));
    else t.column(event_col::pid).push_null();
    t.column(event_col::process).push_null();
    t.column(event_col::ident).push_string(fdp.ConsumeBool() ? "kernel" : "systemd-logind");
    if (fdp.ConsumeBool()) t.column(event_col::text).push_string(kTexts[fdp.ConsumeIntegralInRange<std::size_t>(0, 6)]);
    else t.column(event_col::text).push_string(fdp.ConsumeRandomLengthString(80));
    t.column(event_col::flags).push_int(fdp.ConsumeIntegralInRange(0, 15));
  }

  void sample(std::uint32_t file, std::uint64_t line) {
    Table& t = in.samples;
    const WallKind wk = wall_kind();
    t.column(sample_col::ts_ns).push_null();
    t.column(sample_col::wall_kind).push_int(static_cast<std::int64_t>(wk));
    t.column(sample_col::wall_raw_ns).push_int_or_null(raw(wk));
    t.column(sample_col::file).push_int(file);
    t.column(sample_col::line).push_int(static_cast<std::int64_t>(line));
    t.column(sample_col::gpu).push_int(fdp.ConsumeIntegralInRange(0, 3));
    if (fdp.ConsumeBool()) t.column(sample_col::interval_ns).push_int(fdp.ConsumeIntegralInRange<TimeNs>(kNsPerMs, kNsPerDay));
    else t.column(sample_col::interval_ns).push_null();
    for (std::size_t m = 0; m < kGpuMetricCount; ++m) {
      if (fdp.ConsumeBool()) t.column(sample_col::first_metric + m).push_float(fdp.ConsumeFloatingPointInRange(-1e6, 1e6));
      else t.column(sample_col::first_metric + m).push_null();
    }
  }

  void process(std::uint32_t file, std::uint64_t line, std::int64_t snapshot) {
    Table& t = in.processes;
    const WallKind wk = wall_kind();
    const TimeNs r = raw(wk);
    for (std::size_t c = 0; c < t.column_count(); ++c) {
      switch (c) {
        case process_col::wall_kind: t.column(c).push_int(static_cast<std::int64_t>(wk)); break;
        case process_col::wall_raw_ns: t.column(c).push_int_or_null(r); break;
        case process_col::file: t.column(c).push_int(file); break;
        case process_col::line: t.column(c).push_int(static_cast<std::int64_t>(line)); break;
        case process_col::snapshot: t.column(c).push_int(snapshot); break;
        case process_col::pid: t.column(c).push_int(fdp.ConsumeIntegralInRange(1, 4'194'304)); break;
        case process_col::command: t.column(c).push_string(fdp.ConsumeBool() ? "python train.py" : "Xorg"); break;
        case process_col::cpu_pct:
        case process_col::gpu_sm_pct: t.column(c).push_float(fdp.ConsumeFloatingPointInRange(0.0, 6400.0)); break;
        default: t.column(c).push_null(); break;
      }
    }
  }

  void anchor(std::uint32_t file, std::uint64_t line) {
    BootAnchor a;
    a.file = file;
    a.line = line;
    a.boot_id = kBoots[fdp.ConsumeIntegralInRange<std::size_t>(0, 3)];
    a.boot_seq = fdp.ConsumeIntegralInRange(0, 3);
    a.mono_ns = fdp.ConsumeIntegralInRange<TimeNs>(0, fdp.ConsumeBool() ? 30 * kNsPerDay : kMaxMono);
    a.wall_kind = static_cast<WallKind>(fdp.ConsumeIntegralInRange(1, 3));
    a.wall_raw_ns = raw(a.wall_kind);
    a.precision_ns = fdp.ConsumeIntegralInRange<TimeNs>(1, kNsPerSec);
    in.anchors.push_back(std::move(a));
  }

  void manifest(std::uint32_t file) {
    Manifest m;
    m.file = file;
    if (fdp.ConsumeBool()) m.utc_offset_ns = fdp.ConsumeIntegralInRange(-56, 56) * 15 * kNsPerMin;
    if (fdp.ConsumeBool()) m.timezone_name = fdp.ConsumeBool() ? "Asia/Shanghai" : fdp.ConsumeRandomLengthString(20);
    if (fdp.ConsumeBool()) m.boot_time_ns = instant();
    if (fdp.ConsumeBool()) m.start_ns = instant();
    if (fdp.ConsumeBool()) m.end_ns = instant();
    if (fdp.ConsumeBool()) m.interval_ns = fdp.ConsumeIntegralInRange<TimeNs>(kNsPerMs, kNsPerHour);
    if (fdp.ConsumeBool()) m.boot_id = kBoots[fdp.ConsumeIntegralInRange<std::size_t>(0, 3)];
    in.manifest = std::move(m);
  }
};

AlignOptions options(FuzzedDataProvider& fdp) {
  static constexpr const char* kZones[] = {"", "UTC", "+08:00", "-05:30", "Asia/Shanghai", "America/New_York",
                                           "Europe/Berlin", "Australia/Lord_Howe"};
  AlignOptions o;
  o.tz = kZones[fdp.ConsumeIntegralInRange<std::size_t>(0, 7)];
  if (fdp.ConsumeIntegralInRange(0, 3) == 0) o.year = fdp.ConsumeIntegralInRange(1970, 2200);
  if (fdp.ConsumeIntegralInRange(0, 3) == 0) {
    o.since = kBase + fdp.ConsumeIntegralInRange<TimeNs>(-30 * kNsPerDay, 30 * kNsPerDay);
    if (fdp.ConsumeBool()) o.until = o.since + fdp.ConsumeIntegralInRange<TimeNs>(1, 60 * kNsPerDay);
  }
  return o;
}

void check_timeline(const Timeline& t, const IngestResult& in, const AlignOptions& o) {
  FUZZ_CHECK(t.samples.consistent() && t.events.consistent() && t.processes.consistent());
  FUZZ_CHECK(t.events.rows() <= in.events.rows());
  FUZZ_CHECK(t.samples.rows() <= in.samples.rows());
  FUZZ_CHECK(t.origin_begin.size() == t.events.rows() + 1);
  FUZZ_CHECK(t.origin_begin.back() == t.origins.size());
  FUZZ_CHECK(std::is_sorted(t.origin_begin.begin(), t.origin_begin.end()));
  for (const EventOrigin& e : t.origins) FUZZ_CHECK(e.file < in.files.size());
  auto sorted = [&](const Table& tab) {
    TimeNs prev = kNoTime;
    bool nulls = false;
    for (std::size_t r = 0; r < tab.rows(); ++r) {
      if (!tab.ts().is_valid(r)) {
        nulls = true;
        continue;
      }
      FUZZ_CHECK(!nulls);  // unplaced rows come last
      const TimeNs ts = tab.ts().get_int(r);
      FUZZ_CHECK(ts >= prev);
      if (o.since != kNoTime) FUZZ_CHECK(ts >= o.since);
      if (o.until != kNoTime) FUZZ_CHECK(ts < o.until);
      prev = ts;
    }
  };
  sorted(t.events);
  sorted(t.samples);
  for (std::size_t r = 0; r < t.samples.rows(); ++r) FUZZ_CHECK(t.samples.ts().is_valid(r));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider fdp(data, size);
  const AlignOptions opts = options(fdp);
  Builder b{fdp, {}};
  const int nfiles = fdp.ConsumeIntegralInRange(1, 4);
  for (int i = 0; i < nfiles; ++i) {
    InputFile f;
    f.path = "f" + std::to_string(i);
    f.abs_path = "/logs/" + f.path;
    f.format = static_cast<FormatId>(fdp.ConsumeIntegralInRange<int>(0, kFormatCount - 1));
    if (fdp.ConsumeBool()) f.mtime_ns = b.instant();
    b.in.files.push_back(std::move(f));
  }
  for (std::uint32_t file = 0; file < b.in.files.size() && fdp.remaining_bytes() > 0; ++file) {
    std::uint64_t line = 0;
    std::int64_t snapshot = 0;
    const int rows = fdp.ConsumeIntegralInRange(0, 64);
    for (int r = 0; r < rows && fdp.remaining_bytes() > 0; ++r) {
      line += fdp.ConsumeIntegralInRange(1, 100);
      switch (fdp.ConsumeIntegralInRange(0, 6)) {
        case 0: case 1: b.event(file, line); break;
        case 2: b.sample(file, line); break;
        case 3: snapshot += fdp.ConsumeBool(); b.process(file, line, snapshot); break;
        case 4: b.anchor(file, line); break;
        case 5:
          b.in.zone_evidence.push_back(ZoneEvidence{file, fdp.ConsumeIntegralInRange(-56, 56) * 15 * kNsPerMin,
                                                    fdp.ConsumeIntegralInRange<std::uint64_t>(1, 1000)});
          break;
        default: b.manifest(file); break;
      }
    }
  }
  Timeline timeline;
  Diagnostics diag;
  for (const InputFile& f : b.in.files) {
    FileDiagnostics d;
    d.path = f.path;
    d.format = f.format;
    d.mtime_ns = f.mtime_ns;
    diag.files.push_back(std::move(d));
  }
  AlignStage(opts).run(b.in, timeline, diag);
  check_timeline(timeline, b.in, opts);
  FeatureSet features;
  FeatureStage(FeatureOptions{}).run(timeline, features);
  return 0;
}
