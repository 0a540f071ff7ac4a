#include "gpucost/report/timeline_writer.hpp"

#include <fmt/format.h>

#include "gpucost/text/csv.hpp"
#include "gpucost/text/json.hpp"

namespace gpucost {

namespace {

std::string seen_in(const Timeline& t, std::size_t row) {
  std::string s;
  if (row + 1 >= t.origin_begin.size()) return s;
  for (auto i = t.origin_begin[row]; i < t.origin_begin[row + 1]; ++i) {
    const auto& o = t.origins[i];
    if (!s.empty()) s += ' ';
    s += o.file < t.files.size() ? t.files[o.file].path : std::string("?");
    s += ':';
    s += std::to_string(o.line);
  }
  return s;
}

}  // namespace

WriteStatus write_timeline(const Timeline& t, TimelineFormat format, Output& out) {
  const Table& e = t.events;
  std::string buf;
  if (format == TimelineFormat::kCsv) {
    buf += kTimelineCsvHeader;
    buf += '\n';
  }
  for (std::size_t r = 0; r < e.rows(); ++r) {
    const bool has_ts = e.ts().is_valid(r);
    const TimeNs ts = has_ts ? e.ts().get_int(r) : kNoTime;
    const auto fmt_id = static_cast<FormatId>(e.column(event_col::format).get_int(r));
    const auto file = static_cast<std::size_t>(e.column(event_col::file).get_int(r));
    const std::string& path = file < t.files.size() ? t.files[file].path : std::string();
    const auto kind = static_cast<EventKind>(e.column(event_col::kind).get_int(r));
    const bool approx = (e.column(event_col::flags).get_int(r) & (kFlagApproxTime | kFlagUnreliableWall)) != 0;
    auto opt_str = [&](std::size_t col) -> std::string_view {
      return e.column(col).is_valid(r) ? e.column(col).get_string(r) : std::string_view{};
    };
    if (format == TimelineFormat::kJsonl) {
      JsonWriter w(buf, false);
      w.begin_object();
      w.key("ts");
      if (has_ts) w.value(format_rfc3339(ts, 6)); else w.null();
      w.key("ts_ns");
      if (has_ts) w.value(static_cast<std::int64_t>(ts)); else w.null();
      w.kv("source", format_family(fmt_id)).kv("format", format_name(fmt_id));
      w.kv("file", path).kv("line", e.column(event_col::line).get_int(r));
      w.kv("kind", event_kind_name(kind));
      w.key("code");
      if (e.column(event_col::code).is_valid(r)) w.value(e.column(event_col::code).get_int(r)); else w.null();
      w.key("gpu");
      if (e.column(event_col::gpu).is_valid(r)) w.value(opt_str(event_col::gpu)); else w.null();
      w.key("pid");
      if (e.column(event_col::pid).is_valid(r)) w.value(e.column(event_col::pid).get_int(r)); else w.null();
      w.key("process");
      if (e.column(event_col::process).is_valid(r)) w.value(opt_str(event_col::process)); else w.null();
      w.key("ident");
      if (e.column(event_col::ident).is_valid(r)) w.value(opt_str(event_col::ident)); else w.null();
      w.kv("text", e.column(event_col::text).get_string(r));
      w.kv("approximate", approx);
      w.key("seen_in").begin_array();
      if (r + 1 < t.origin_begin.size())
        for (auto i = t.origin_begin[r]; i < t.origin_begin[r + 1]; ++i) {
          const auto& o = t.origins[i];
          w.value(fmt::format("{}:{}", o.file < t.files.size() ? t.files[o.file].path : "?", o.line));
        }
      w.end_array();
      w.kv("repeat", event_repeat(e, r));
      w.end_object();
      buf += '\n';
    } else {
      CsvWriter c(buf);
      c.field(has_ts ? format_rfc3339(ts, 6) : "").field(has_ts ? std::to_string(ts) : "");
      c.field(format_family(fmt_id)).field(format_name(fmt_id)).field(path);
      c.field(std::to_string(e.column(event_col::line).get_int(r))).field(event_kind_name(kind));
      c.field(e.column(event_col::code).is_valid(r) ? std::to_string(e.column(event_col::code).get_int(r)) : "");
      c.field(opt_str(event_col::gpu));
      c.field(e.column(event_col::pid).is_valid(r) ? std::to_string(e.column(event_col::pid).get_int(r)) : "");
      c.field(opt_str(event_col::process)).field(opt_str(event_col::ident));
      c.field(e.column(event_col::text).get_string(r)).field(approx ? "true" : "false").field(seen_in(t, r));
      c.field(std::to_string(event_repeat(e, r)));
      c.end_row();
    }
    if (buf.size() > (1 << 16)) {
      const WriteStatus s = out.write(buf);
      buf.clear();
      if (s != WriteStatus::kOk) return s;
    }
  }
  const WriteStatus s = out.write(buf);
  if (s != WriteStatus::kOk) return s;
  return out.finish();
}

}  // namespace gpucost
