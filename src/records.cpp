#include "gpucost/records.hpp"

#include <array>

#include "gpucost/text.hpp"

namespace gpucost {

namespace {
struct KindInfo {
  std::string_view name, desc;
};
constexpr KindInfo kKinds[] = {
#define GPUCOST_X(name, desc) {#name, desc},
    GPUCOST_EVENT_KINDS(GPUCOST_X)
#undef GPUCOST_X
};
constexpr FormatInfo kFormats[] = {
#define GPUCOST_X(name, family, sample_priority, traits, hints, desc) {#name, family, sample_priority, traits, hints, desc},
    GPUCOST_FORMATS(GPUCOST_X)
#undef GPUCOST_X
};
constexpr FormatInfo kUnknownFormat{"unknown", "unknown", 0, 0, "", "not recognized"};
struct MetricInfo {
  std::string_view name, unit, dmon, query, desc;
};
constexpr MetricInfo kMetrics[] = {
#define GPUCOST_X(name, unit, dmon, query, desc) {#name, unit, dmon, query, desc},
    GPUCOST_GPU_METRICS(GPUCOST_X)
#undef GPUCOST_X
};

bool word_in(std::string_view list, std::string_view word) {
  while (!list.empty()) {
    std::string_view w = text::next_token(list);
    if (w == word) return true;
  }
  return false;
}
}  // namespace

std::string_view event_kind_name(EventKind k) noexcept {
  const auto i = static_cast<std::size_t>(k);
  return i < kEventKindCount ? kKinds[i].name : "unknown";
}
std::string_view event_kind_description(EventKind k) noexcept {
  const auto i = static_cast<std::size_t>(k);
  return i < kEventKindCount ? kKinds[i].desc : "";
}
std::optional<EventKind> event_kind_from_name(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kEventKindCount; ++i)
    if (kKinds[i].name == name) return static_cast<EventKind>(i);
  return std::nullopt;
}

const FormatInfo& format_info(FormatId f) noexcept {
  const auto i = static_cast<std::size_t>(f);
  return i < kFormatCount ? kFormats[i] : kUnknownFormat;
}
std::string_view format_name(FormatId f) noexcept { return format_info(f).name; }
std::string_view format_family(FormatId f) noexcept { return format_info(f).family; }
std::string_view format_description(FormatId f) noexcept { return format_info(f).description; }

std::string_view gpu_metric_name(GpuMetric m) noexcept { return kMetrics[static_cast<std::size_t>(m)].name; }
std::string_view gpu_metric_unit(GpuMetric m) noexcept { return kMetrics[static_cast<std::size_t>(m)].unit; }

std::optional<GpuMetric> gpu_metric_from_dmon(std::string_view header) noexcept {
  for (std::size_t i = 0; i < kGpuMetricCount; ++i)
    if (word_in(kMetrics[i].dmon, header)) return static_cast<GpuMetric>(i);
  return std::nullopt;
}

std::optional<GpuMetric> gpu_metric_from_query(std::string_view field) noexcept {
  for (std::size_t i = 0; i < kGpuMetricCount; ++i)
    if (word_in(kMetrics[i].query, field)) return static_cast<GpuMetric>(i);
  return std::nullopt;
}

Table make_sample_table() {
  Table t("samples");
  t.add_column("wall_kind", ColumnType::kInt64);
  t.add_column("wall_raw_ns", ColumnType::kInt64, "ns");
  t.add_column("file", ColumnType::kInt64);
  t.add_column("line", ColumnType::kInt64);
  t.add_column("gpu", ColumnType::kInt64);
  t.add_column("interval_ns", ColumnType::kInt64, "ns");
  for (const auto& m : kMetrics) t.add_column(std::string(m.name), ColumnType::kFloat64, std::string(m.unit));
  return t;
}

Table make_event_table() {
  Table t("events");
  t.add_column("wall_kind", ColumnType::kInt64);
  t.add_column("wall_raw_ns", ColumnType::kInt64, "ns");
  t.add_column("mono_ns", ColumnType::kInt64, "ns");
  t.add_column("boot_id", ColumnType::kDict);
  t.add_column("boot_seq", ColumnType::kInt64);
  t.add_column("kind", ColumnType::kInt64);
  t.add_column("format", ColumnType::kInt64);
  t.add_column("file", ColumnType::kInt64);
  t.add_column("line", ColumnType::kInt64);
  t.add_column("code", ColumnType::kInt64);
  t.add_column("gpu", ColumnType::kDict);
  t.add_column("pid", ColumnType::kInt64);
  t.add_column("process", ColumnType::kDict);
  t.add_column("ident", ColumnType::kDict);
  t.add_column("text", ColumnType::kDict);  // a message that repeats is held once
  t.add_column("flags", ColumnType::kInt64);
  t.add_column("repeat", ColumnType::kInt64);
  return t;
}

std::uint64_t event_total(const Table& events) noexcept {
  if (events.rows() == 0) return 0;
  const ColumnReader repeat(events.column(event_col::repeat));
  std::uint64_t n = 0;
  for (std::size_t r = 0; r < events.rows(); ++r) n += repeat.is_valid(r) ? static_cast<std::uint64_t>(repeat.get_int(r)) : 1;
  return n;
}

Table make_process_table() {
  Table t("processes");
  t.add_column("wall_kind", ColumnType::kInt64);
  t.add_column("wall_raw_ns", ColumnType::kInt64, "ns");
  t.add_column("file", ColumnType::kInt64);
  t.add_column("line", ColumnType::kInt64);
  t.add_column("snapshot", ColumnType::kInt64);
  t.add_column("user", ColumnType::kDict);
  t.add_column("pid", ColumnType::kInt64);
  t.add_column("cpu_pct", ColumnType::kFloat64, "%");
  t.add_column("mem_pct", ColumnType::kFloat64, "%");
  t.add_column("vsz_kib", ColumnType::kInt64, "KiB");
  t.add_column("rss_kib", ColumnType::kInt64, "KiB");
  t.add_column("stat", ColumnType::kDict);
  t.add_column("command", ColumnType::kDict);
  t.add_column("gpu", ColumnType::kInt64);
  t.add_column("gpu_sm_pct", ColumnType::kFloat64, "%");
  t.add_column("gpu_mem_pct", ColumnType::kFloat64, "%");
  return t;
}

std::string normalize_pci_bus(std::string_view s) {
  s = text::trim(s);
  if (s.substr(0, 4) == "PCI:") s.remove_prefix(4);
  // [domain:]bus:device[.function]; domains print with 4, 5 or 8 hex digits.
  std::array<std::string_view, 3> parts{};
  std::size_t n = 0;
  std::string_view rest = s;
  while (n < 3) {
    const auto colon = rest.find(':');
    parts[n++] = rest.substr(0, colon);
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  if (n < 2) return {};
  std::string_view domain = "0000", bus, dev;
  if (n == 3) {
    domain = parts[0];
    bus = parts[1];
    dev = parts[2];
  } else {
    bus = parts[0];
    dev = parts[1];
  }
  if (auto dot = dev.find('.'); dot != std::string_view::npos) dev = dev.substr(0, dot);
  auto all_hex = [](std::string_view v) {
    if (v.empty()) return false;
    for (char c : v)
      if (!text::is_hex(c)) return false;
    return true;
  };
  if (!all_hex(domain) || !all_hex(bus) || !all_hex(dev) || bus.size() > 2 || dev.size() > 2 ||
      domain.size() > 8)
    return {};
  // Keep the low 4 hex digits of long domains (00000000 -> 0000) unless the high ones matter.
  while (domain.size() > 4 && domain.front() == '0') domain.remove_prefix(1);
  std::string out;
  for (std::size_t i = domain.size(); i < 4; ++i) out += '0';
  out += text::to_lower(domain);
  out += ':';
  if (bus.size() == 1) out += '0';
  out += text::to_lower(bus);
  out += ':';
  if (dev.size() == 1) out += '0';
  out += text::to_lower(dev);
  return out;
}

}  // namespace gpucost
