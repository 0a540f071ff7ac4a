#include "gpucost/ingest/rows.hpp"

#include <cassert>

namespace gpucost {

namespace {

std::string_view string_or_empty(const Column& c, std::size_t r) {
  return c.is_valid(r) ? c.get_string(r) : std::string_view{};
}
std::int64_t int_or_none(const Column& c, std::size_t r) { return c.is_valid(r) ? c.get_int(r) : INT64_MIN; }

void push_string_or_null(Column& c, std::string_view s) {
  if (s.empty()) c.push_null();
  else c.push_string(s);
}

}  // namespace

EventFields event_fields(const Table& e, std::size_t r) {
  EventFields f;
  f.kind = static_cast<EventKind>(e.column(event_col::kind).get_int(r));
  f.wall_kind = static_cast<WallKind>(e.column(event_col::wall_kind).get_int(r));
  f.wall_raw_ns = int_or_none(e.column(event_col::wall_raw_ns), r);
  f.mono_ns = int_or_none(e.column(event_col::mono_ns), r);
  f.boot_id = string_or_empty(e.column(event_col::boot_id), r);
  f.boot_seq = static_cast<std::int32_t>(e.column(event_col::boot_seq).get_int(r));
  f.line = static_cast<std::uint64_t>(e.column(event_col::line).get_int(r));
  f.code = int_or_none(e.column(event_col::code), r);
  f.gpu = string_or_empty(e.column(event_col::gpu), r);
  f.pid = int_or_none(e.column(event_col::pid), r);
  f.process = string_or_empty(e.column(event_col::process), r);
  f.ident = string_or_empty(e.column(event_col::ident), r);
  f.text = e.column(event_col::text).get_string(r);
  f.flags = e.column(event_col::flags).get_int(r);
  return f;
}

void push_event_row(Table& t, const EventFields& f, FormatId format, std::uint32_t file, std::uint64_t repeat) {
  t.column(event_col::ts_ns).push_null();
  t.column(event_col::wall_kind).push_int(static_cast<std::int64_t>(f.wall_kind));
  t.column(event_col::wall_raw_ns).push_int_or_null(f.wall_raw_ns);
  t.column(event_col::mono_ns).push_int_or_null(f.mono_ns);
  push_string_or_null(t.column(event_col::boot_id), f.boot_id);
  t.column(event_col::boot_seq).push_int(f.boot_seq);
  t.column(event_col::kind).push_int(static_cast<std::int64_t>(f.kind));
  t.column(event_col::format).push_int(static_cast<std::int64_t>(format));
  t.column(event_col::file).push_int(file);
  t.column(event_col::line).push_int(static_cast<std::int64_t>(f.line));
  t.column(event_col::code).push_int_or_null(f.code);
  push_string_or_null(t.column(event_col::gpu), f.gpu);
  t.column(event_col::pid).push_int_or_null(f.pid);
  push_string_or_null(t.column(event_col::process), f.process);
  push_string_or_null(t.column(event_col::ident), f.ident);
  t.column(event_col::text).push_string(f.text);
  t.column(event_col::flags).push_int(f.flags);
  t.column(event_col::repeat).push_int(static_cast<std::int64_t>(repeat));
}

void push_sample_row(Table& t, const SampleFields& f, std::uint32_t file) {
  assert(f.metrics.size() == kGpuMetricCount);
  t.ts().push_null();
  t.column(sample_col::wall_kind).push_int(static_cast<std::int64_t>(f.wall_kind));
  t.column(sample_col::wall_raw_ns).push_int_or_null(f.wall_raw_ns);
  t.column(sample_col::file).push_int(file);
  t.column(sample_col::line).push_int(static_cast<std::int64_t>(f.line));
  t.column(sample_col::gpu).push_int(f.gpu);
  t.column(sample_col::interval_ns).push_int_or_null(f.interval_ns);
  for (std::size_t m = 0; m < kGpuMetricCount; ++m)
    t.column(sample_col::first_metric + m).push_float_or_null(f.metrics[m]);
}

}  // namespace gpucost
