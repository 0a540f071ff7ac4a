// Fuzz target: any bytes, cut into lines, through SyslogPrefixCache and through a fresh
// parse_syslog_line each: both must read every line the same (the cache only skips re-reading
// a prefix that repeats the line before).
#include <string>
#include <string_view>

#include "fuzz_common.hpp"
#include "ingest/formats/syslog_prefix.hpp"

namespace {

bool same(const gpucost::formats::SyslogLine& a, const gpucost::formats::SyslogLine& b) {
  const auto& x = a.stamp;
  const auto& y = b.stamp;
  return a.form == b.form && x.civil.year == y.civil.year && x.civil.month == y.civil.month &&
         x.civil.day == y.civil.day && x.civil.hour == y.civil.hour && x.civil.minute == y.civil.minute &&
         x.civil.second == y.civil.second && x.civil.nanos == y.civil.nanos && x.offset_ns == y.offset_ns &&
         x.has_offset == y.has_offset && x.offset_colon == y.offset_colon && x.fraction_sep == y.fraction_sep &&
         x.fraction_digits == y.fraction_digits && x.length == y.length && a.padding == b.padding &&
         a.unix_utc_ns == b.unix_utc_ns && a.mono_ns == b.mono_ns && a.kernel_mono == b.kernel_mono &&
         a.zone == b.zone && a.host == b.host && a.ident == b.ident && a.pid == b.pid && a.text == b.text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view rest = gpucost::fuzz::as_text(data, size);
  gpucost::formats::SyslogPrefixCache cache;
  std::string line;  // a copy, overwritten line after line as the reader's buffer is
  while (!rest.empty()) {
    const std::size_t nl = rest.find('\n');
    line.assign(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    gpucost::formats::SyslogLine fresh, cached;
    const bool ok = gpucost::formats::parse_syslog_line(line, fresh);
    FUZZ_CHECK(cache.parse(line, cached) == ok);
    if (ok) FUZZ_CHECK(same(cached, fresh));
  }
  return 0;
}
