#include "report/chart_data.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "gpucost/benign_messages.hpp"
#include "gpucost/features/xid_catalog.hpp"
#include "gpucost/text.hpp"
#include "gpucost/text/json.hpp"

namespace gpucost {

namespace {

// The three metrics of the timeline chart, in point order after ts_ns.
struct SeriesMetric {
  GpuMetric metric;
  bool max;  // bucket aggregate: max (keeps thermal peaks visible) instead of mean
};
constexpr SeriesMetric kSeriesMetrics[] = {
    {GpuMetric::sm_pct, false}, {GpuMetric::power_w, false}, {GpuMetric::gpu_temp_c, true}};
constexpr std::size_t kSeriesWidth = std::size(kSeriesMetrics);

struct Bucket {
  TimeNs ts = kNoTime;
  double sum[kSeriesWidth] = {};
  double max[kSeriesWidth] = {};
  std::size_t n[kSeriesWidth] = {};
};

// Readers of the chart's metric columns (millions of rows, read once each).
struct SeriesReaders {
  explicit SeriesReaders(const Table& s)
      : metrics{ColumnReader(s.column(sample_metric_col(kSeriesMetrics[0].metric))),
                ColumnReader(s.column(sample_metric_col(kSeriesMetrics[1].metric))),
                ColumnReader(s.column(sample_metric_col(kSeriesMetrics[2].metric)))} {}
  ColumnReader metrics[kSeriesWidth];
};
static_assert(kSeriesWidth == 3);

void add_to_bucket(Bucket& b, const SeriesReaders& s, std::size_t row) {
  for (std::size_t m = 0; m < kSeriesWidth; ++m) {
    const ColumnReader& c = s.metrics[m];
    if (!c.is_valid(row)) continue;
    const double v = c.get_float(row);
    if (!std::isfinite(v)) continue;
    b.sum[m] += v;
    b.max[m] = b.n[m] ? std::max(b.max[m], v) : v;
    ++b.n[m];
  }
}

GpuSeries::Point point_of(const Bucket& b) {
  std::optional<double> v[kSeriesWidth];
  for (std::size_t m = 0; m < kSeriesWidth; ++m)
    if (b.n[m]) v[m] = kSeriesMetrics[m].max ? b.max[m] : b.sum[m] / static_cast<double>(b.n[m]);
  return {b.ts, v[0], v[1], v[2]};
}

void write_value(JsonWriter& w, const std::optional<double>& v) {
  if (v) w.value(*v);
  else w.null();
}

// Median of the sampling intervals of some rows (0 when none is known): the value at index
// n / 2 of the known ones in sorted order. Sampling intervals repeat, so runs of one value are
// counted and only the runs are sorted; when they hardly repeat, the values are selected from.
// `each_row(f)` calls f(row) for every row.
template <class EachRow>
TimeNs median_interval(const Table& s, EachRow each_row) {
  std::vector<std::pair<TimeNs, std::uint64_t>> runs;  // (value, count) of consecutive equal values
  std::uint64_t n = 0;
  const ColumnReader c(s.column(sample_col::interval_ns));
  each_row([&](std::size_t r) {
    if (!c.is_valid(r)) return;
    const TimeNs v = c.get_int(r);
    if (v <= 0) return;
    ++n;
    if (!runs.empty() && runs.back().first == v) ++runs.back().second;
    else runs.emplace_back(v, 1);
  });
  if (n == 0) return 0;
  if (runs.size() > n / 4) {
    std::vector<TimeNs> iv;
    iv.reserve(n);
    for (const auto& [v, k] : runs) iv.insert(iv.end(), k, v);
    std::nth_element(iv.begin(), iv.begin() + static_cast<std::ptrdiff_t>(iv.size() / 2), iv.end());
    return iv[iv.size() / 2];
  }
  std::sort(runs.begin(), runs.end());
  std::uint64_t seen = 0;
  for (const auto& [v, k] : runs) {
    seen += k;
    if (seen > n / 2) return v;
  }
  return runs.back().first;
}

// The first line of a message, cut at a UTF-8 boundary to at most `limit` bytes.
std::string short_text(std::string_view text, std::size_t limit = 160) {
  const auto nl = text.find('\n');
  if (nl != std::string_view::npos) text = text.substr(0, nl);
  text = text::trim(text);
  if (text.size() <= limit) return std::string(text);
  std::size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "...";
}

// How urgent an event is on the chart: `critical` (the GPU is lost or needs a reboot),
// `warning` (hardware or driver trouble to act on), `info` (application faults, power and
// system events).
std::string_view mark_severity(EventKind k, const Column& code, const Column& text, std::size_t r) {
  switch (k) {
    case EventKind::fallen_off_bus:
    case EventKind::rm_init_failed: return "critical";
    case EventKind::xid: {
      if (!code.is_valid(r)) return "warning";
      const std::int64_t x = code.get_int(r);
      if (x == 154) {
        // The recovery action after `to 0x`: none, a reboot, or something to do.
        const std::string_view t = text.get_string(r);
        const auto p = t.find("to 0x");
        const char a = p != std::string_view::npos && p + 5 < t.size() ? t[p + 5] : '?';
        return a == '0' ? "info" : a == '2' || a == '7' ? "critical" : "warning";
      }
      const XidInfo* xi = xid_info(x);
      if (!xi) return "warning";
      if (xi->xid_class == "application") return "info";
      if (xi->xid_class == "bus" || xi->needs == XidNeeds::kReboot || xi->needs == XidNeeds::kRma) return "critical";
      return "warning";
    }
    case EventKind::pcie_aer:
      return !code.is_valid(r) || code.get_int(r) == 1 ? "warning" : code.get_int(r) >= 2 ? "critical" : "info";
    case EventKind::gsp_error:
    case EventKind::nv_assert:
    case EventKind::gpu_reset:
    case EventKind::driver_error:
    case EventKind::pcie_link_degraded:
    case EventKind::thermal: return "warning";
    default: return "info";
  }
}

int category_rank(std::string_view c) {
  if (c == "error") return 0;
  if (c == "thermal") return 1;
  if (c == "power") return 2;
  return 3;
}

}  // namespace

std::optional<std::string_view> mark_category(EventKind k) noexcept {
  switch (k) {
    case EventKind::xid:
    case EventKind::fallen_off_bus:
    case EventKind::rm_init_failed:
    case EventKind::gsp_error:
    case EventKind::nv_assert:
    case EventKind::gpu_reset:
    case EventKind::driver_error:
    case EventKind::pcie_aer:
    case EventKind::pcie_link_degraded: return "error";
    case EventKind::thermal: return "thermal";
    case EventKind::ac_online:
    case EventKind::ac_offline:
    case EventKind::lid_close:
    case EventKind::lid_open:
    case EventKind::suspend:
    case EventKind::resume: return "power";
    case EventKind::boot:
    case EventKind::shutdown:
    case EventKind::oom_kill: return "system";
    default: return std::nullopt;
  }
}

HostName host_name(const Timeline& t) {
  // The record schema keeps no syslog/journal hostname yet, so the manifest is the only source.
  if (t.manifest && !t.manifest->host.empty()) return {t.manifest->host, "manifest"};
  return {"unknown", "unknown"};
}

SeriesSection chart_series(const Timeline& t, std::size_t max_points) {
  if (max_points < 2) max_points = 2;
  const Table& s = t.samples;
  // Per GPU: how many rows, the first and the last (rows are in time order already). The rows
  // are then read again GPU by GPU between those two, not copied into a list per GPU: millions
  // of indices written to fresh pages cost more than reading a GPU column again.
  struct GpuRows {
    std::uint64_t count = 0;
    std::size_t first = 0, last = 0;
  };
  std::map<int, GpuRows> rows_by_gpu;
  const ColumnReader gpu(s.column(sample_col::gpu)), ts(s.ts());
  auto in_series = [&](std::size_t r) { return ts.is_valid(r) && gpu.is_valid(r); };
  int last_gpu = 0;
  GpuRows* last_rows = nullptr;  // rows of one GPU come in runs
  for (std::size_t r = 0; r < s.rows(); ++r)
    if (in_series(r)) {
      const int g = static_cast<int>(gpu.get_int(r));
      if (!last_rows || g != last_gpu) {
        last_rows = &rows_by_gpu[g];
        last_gpu = g;
        if (last_rows->count == 0) last_rows->first = r;
      }
      ++last_rows->count;
      last_rows->last = r;
    }
  const SeriesReaders metrics(s);

  SeriesSection series;
  series.max_points = max_points;
  for (const auto& [index, rows] : rows_by_gpu) {
    // f(r) for each row of this GPU, in order.
    const auto each_row = [&, g = index, &span = rows](auto f) {
      for (std::size_t r = span.first; r <= span.last; ++r)
        if (in_series(r) && gpu.get_int(r) == g) f(r);
    };
    const TimeNs first = ts.get_int(rows.first), last = ts.get_int(rows.last);
    // Bucket width so that (last - first) / bucket < max_points; 0 = one point per sample.
    const TimeNs bucket = rows.count <= max_points ? 0 : (last - first) / static_cast<TimeNs>(max_points) + 1;
    GpuSeries& g = series.gpus.emplace_back();
    g.gpu = index;
    g.samples = rows.count;
    g.interval_ns = median_interval(s, each_row);
    g.bucket_ns = bucket;
    g.first = first;
    g.last = last;
    Bucket b;
    std::int64_t current = -1;
    TimeNs begin = 0, end = 0;  // the current bucket's instants [begin, end), with a width
    std::uint64_t points = 0;
    each_row([&](std::size_t r) {
      const TimeNs at = ts.get_int(r);
      std::int64_t k;
      if (!bucket) {
        k = static_cast<std::int64_t>(points);
      } else if (current >= 0 && at >= begin && at < end) {
        k = current;  // no division for the rows of a bucket after its first
      } else {
        k = (at - first) / bucket;
        begin = first + k * bucket;
        end = begin + bucket;
      }
      if (k != current) {
        if (current >= 0) g.points.push_back(point_of(b));
        b = Bucket{};
        b.ts = bucket ? first + k * bucket : at;
        current = k;
        ++points;
      }
      add_to_bucket(b, metrics, r);
    });
    if (current >= 0) g.points.push_back(point_of(b));
  }
  return series;
}

void write_series_json(JsonWriter& w, const SeriesSection& series) {
  w.begin_object();
  w.key("metrics").begin_array();
  for (const auto& m : kSeriesMetrics)
    w.begin_object()
        .kv("name", gpu_metric_name(m.metric))
        .kv("unit", gpu_metric_unit(m.metric))
        .kv("bucket_aggregate", m.max ? "max" : "mean")
        .end_object();
  w.end_array();
  w.kv("point_layout", "[ts_ns, sm_pct, power_w, gpu_temp_c]");
  w.kv("max_points", static_cast<std::uint64_t>(series.max_points));
  w.key("gpus").begin_array();
  for (const auto& g : series.gpus) {
    w.begin_object().kv("gpu", g.gpu).kv("samples", g.samples);
    w.kv("interval_ns", static_cast<std::int64_t>(g.interval_ns));
    w.kv("bucket_ns", static_cast<std::int64_t>(g.bucket_ns));
    w.kv("first", format_rfc3339(g.first)).kv("last", format_rfc3339(g.last));
    w.key("points").begin_array();
    for (const auto& pt : g.points) {
      w.begin_array().value(static_cast<std::int64_t>(pt.ts));
      write_value(w, pt.sm_pct);
      write_value(w, pt.power_w);
      write_value(w, pt.gpu_temp_c);
      w.end_array();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

MarksSection chart_marks(const Timeline& t, std::size_t max_marks) {
  const Table& e = t.events;
  struct Mark {
    std::size_t row;
    std::string_view category;
  };
  std::vector<Mark> marks;
  std::map<std::string_view, std::uint64_t> by_kind;
  std::uint64_t unplaced = 0, benign = 0;
  const Column& text = e.column(event_col::text);
  for (std::size_t r = 0; r < e.rows(); ++r) {
    const auto kind = static_cast<EventKind>(e.column(event_col::kind).get_int(r));
    const auto cat = mark_category(kind);
    if (!cat) continue;
    // Known-harmless driver lines are no event to look at: R11 counts them (F066).
    if (kind == EventKind::driver_error && is_benign_driver_message(text.get_string(r))) {
      benign += event_repeat(e, r);
      continue;
    }
    marks.push_back({r, *cat});
    by_kind[event_kind_name(kind)] += event_repeat(e, r);
    if (!e.ts().is_valid(r)) unplaced += event_repeat(e, r);
  }
  const std::size_t total = marks.size();
  if (marks.size() > max_marks) {
    // Keep the most telling ones (errors, then thermal, power, system), then restore time order
    // (rows are in time order, unplaced last).
    std::stable_sort(marks.begin(), marks.end(),
                     [](const Mark& a, const Mark& b) { return category_rank(a.category) < category_rank(b.category); });
    marks.resize(max_marks);
    std::sort(marks.begin(), marks.end(), [](const Mark& a, const Mark& b) { return a.row < b.row; });
  }

  // GPU index of an event: its `gpu` is a PCI bus id (matched against the devices) or an index.
  auto gpu_index = [&](std::string_view g) -> std::optional<int> {
    if (g.empty()) return std::nullopt;
    for (const auto& d : t.devices)
      if (d.index && !d.pci_bus.empty() && d.pci_bus == normalize_pci_bus(g)) return *d.index;
    if (auto n = text::to_int(g)) return static_cast<int>(*n);
    return std::nullopt;
  };

  MarksSection out;
  out.total = total;
  out.unplaced = unplaced;
  out.shown = marks.size();
  out.left_out = total - marks.size();
  out.max_marks = max_marks;
  out.benign_left_out = benign;
  out.by_kind.assign(by_kind.begin(), by_kind.end());
  for (const auto& m : marks) {
    const std::size_t r = m.row;
    const auto kind = static_cast<EventKind>(e.column(event_col::kind).get_int(r));
    ChartMark& c = out.items.emplace_back();
    if (e.ts().is_valid(r)) c.ts = e.ts().get_int(r);
    c.kind = event_kind_name(kind);
    c.category = m.category;
    c.severity = mark_severity(kind, e.column(event_col::code), text, r);
    if (e.column(event_col::code).is_valid(r)) c.code = e.column(event_col::code).get_int(r);
    c.gpu = e.column(event_col::gpu).is_valid(r) ? e.column(event_col::gpu).get_string(r) : "";
    c.gpu_index = gpu_index(c.gpu);
    // An Xid naming a MIG GPU instance (`GPU-I:05`, issue 38): the instance, on its GPU.
    c.gpu_instance = xid_gpu_instance(text.get_string(r));
    c.text = short_text(text.get_string(r));
    const auto file = static_cast<std::size_t>(e.column(event_col::file).get_int(r));
    if (file < t.files.size()) c.file = t.files[file].path;
    c.line = e.column(event_col::line).get_int(r);
    c.repeat = event_repeat(e, r);
  }
  return out;
}

void write_marks_json(JsonWriter& w, const MarksSection& marks) {
  w.begin_object();
  w.kv("total", marks.total).kv("unplaced", marks.unplaced);
  w.kv("shown", marks.shown).kv("left_out", marks.left_out);
  w.kv("max_marks", marks.max_marks);
  w.kv("benign_left_out", marks.benign_left_out);
  w.key("by_kind").begin_object();
  for (const auto& [k, n] : marks.by_kind) w.kv(k, n);
  w.end_object();
  w.key("items").begin_array();
  for (const auto& c : marks.items) {
    w.begin_object();
    if (c.ts != kNoTime) w.kv("ts", format_rfc3339(c.ts)).kv("ts_ns", static_cast<std::int64_t>(c.ts));
    else w.key("ts").null().key("ts_ns").null();
    w.kv("kind", c.kind).kv("category", c.category).kv("severity", c.severity);
    w.key("code");
    if (c.code) w.value(*c.code);
    else w.null();
    w.key("gpu");
    if (c.gpu.empty()) w.null();
    else w.value(c.gpu);
    w.key("gpu_index").value(c.gpu_index);
    if (c.gpu_instance) w.kv("gpu_instance", static_cast<std::int64_t>(*c.gpu_instance));
    w.kv("text", c.text);
    w.key("file");
    if (c.file) w.value(*c.file);
    else w.null();
    w.kv("line", c.line).kv("repeat", c.repeat);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace gpucost
