// A kernel message is the kernel's when one of the kernel's own sources of the directory has it
// (issue 39): `logger -t kernel "NVRM: Xid ..."` lands in /var/log/syslog (and in journalctl's
// text output) as `HOST kernel: NVRM: Xid ...`, exactly as the kernel's lines do, but never in
// dmesg, in kern.log (user processes cannot log to the kernel facility: syslog(3) turns LOG_KERN
// into LOG_USER) or in the journal's kernel transport. See docs/timeline.md, "Who sent a kernel line".
#include <algorithm>
#include <bitset>
#include <cstdint>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "align/internal.hpp"

namespace gpucost::align_detail {

namespace {

enum class KernelSource : std::uint8_t {
  kNone,  // holds no kernel lines
  kOwn,  // the kernel's own: dmesg, the journal's JSON or export, a log of kernel lines only
  kForgeable,  // kernel lines among other programs' lines in a text log
};

bool is_text_log(FormatId f) { return f == FormatId::syslog || f == FormatId::journal_short; }

// What each file is as a source of kernel lines, from its event rows.
std::vector<KernelSource> kernel_sources(const Table& e, const std::vector<InputFile>& files) {
  const Column& file = e.column(event_col::file);
  const Column& ident = e.column(event_col::ident);
  const Column& kind = e.column(event_col::kind);
  std::vector<bool> kernel(files.size(), false), other(files.size(), false);
  for (std::size_t r = 0; r < e.rows(); ++r) {
    const auto f = static_cast<std::size_t>(file.get_int(r));
    if (f >= files.size() || static_cast<EventKind>(kind.get_int(r)) == EventKind::log_end) continue;
    const bool k = !ident.is_valid(r) || ident.get_string(r) == "kernel";
    (k ? kernel : other)[f] = true;
  }
  std::vector<KernelSource> out(files.size(), KernelSource::kNone);
  for (std::size_t f = 0; f < files.size(); ++f) {
    if (!kernel[f]) continue;
    const FormatId fmt = files[f].format;
    if (fmt == FormatId::dmesg || fmt == FormatId::journal_json || fmt == FormatId::journal_export)
      out[f] = KernelSource::kOwn;
    else if (is_text_log(fmt)) out[f] = other[f] ? KernelSource::kForgeable : KernelSource::kOwn;
  }
  return out;
}

// The time a kernel source covers and the kinds of event it holds.
struct Coverage {
  TimeNs first = kNoTime, last = kNoTime;
  std::bitset<kEventKindCount> kinds;
};

bool well_placed(const PlacedEvent& p) { return p.ts != kNoTime && p.placement < Placement::kApproximate; }

}  // namespace

std::uint64_t drop_uncorroborated_kernel_messages(const Table& e, const std::vector<InputFile>& files,
                                                  const std::vector<PlacedEvent>& placed, EventClusters& clusters,
                                                  const std::vector<FileDiagnostics*>& file_diagnostics) {
  const std::vector<KernelSource> source = kernel_sources(e, files);
  if (std::none_of(source.begin(), source.end(), [](KernelSource s) { return s == KernelSource::kForgeable; }) ||
      std::none_of(source.begin(), source.end(), [](KernelSource s) { return s == KernelSource::kOwn; }))
    return 0;
  const Column& file = e.column(event_col::file);
  const Column& kind = e.column(event_col::kind);
  const Column& ident = e.column(event_col::ident);
  const Column& line = e.column(event_col::line);
  const Column& text = e.column(event_col::text);
  auto file_of = [&](std::uint32_t r) { return static_cast<std::size_t>(file.get_int(r)); };
  auto is_kernel_line = [&](std::uint32_t r) { return !ident.is_valid(r) || ident.get_string(r) == "kernel"; };

  std::vector<Coverage> cover(files.size());
  for (std::size_t r = 0; r < e.rows(); ++r) {
    const std::size_t f = file_of(static_cast<std::uint32_t>(r));
    if (f >= source.size() || source[f] != KernelSource::kOwn || !well_placed(placed[r])) continue;
    Coverage& c = cover[f];
    const TimeNs ts = placed[r].ts;
    if (c.first == kNoTime || ts < c.first) c.first = ts;
    if (c.last == kNoTime || ts > c.last) c.last = ts;
    c.kinds.set(static_cast<std::size_t>(kind.get_int(r)));
  }
  // The kernel source that covers a row's time and holds its kind, or SIZE_MAX.
  auto covering = [&](std::uint32_t r) {
    const TimeNs ts = placed[r].ts;
    const auto k = static_cast<std::size_t>(kind.get_int(r));
    for (std::size_t f = 0; f < cover.size(); ++f)
      if (cover[f].kinds.test(k) && cover[f].first <= ts && ts <= cover[f].last) return f;
    return SIZE_MAX;
  };

  EventClusters kept;
  kept.rows.reserve(clusters.rows.size());
  kept.begin.reserve(clusters.begin.size());
  std::uint64_t dropped = 0;
  for (std::size_t c = 0; c < clusters.size(); ++c) {
    const auto members = clusters[c];
    const std::uint32_t best = members.front();
    const bool forgeable_only =
        static_cast<EventKind>(kind.get_int(best)) != EventKind::log_end && well_placed(placed[best]) &&
        std::all_of(members.begin(), members.end(), [&](std::uint32_t m) {
          const std::size_t f = file_of(m);
          return f < source.size() && source[f] == KernelSource::kForgeable && is_kernel_line(m);
        });
    const std::size_t by = forgeable_only ? covering(best) : SIZE_MAX;
    if (by == SIZE_MAX) {
      kept.add(members);
      continue;
    }
    ++dropped;
    for (const auto m : members) {
      FileDiagnostics* d = file_diagnostics[file_of(m)];
      if (!d) continue;
      const auto line_no = static_cast<std::uint64_t>(line.get_int(m));
      if (!Diagnostics::wants_sample(*d, Problem::spoofed_kernel_ident)) {
        ++d->problems[static_cast<std::size_t>(Problem::spoofed_kernel_ident)];
        continue;
      }
      Diagnostics::record(
          *d, Problem::spoofed_kernel_ident, line_no, 0, text.get_string(m).substr(0, text.get_string(m).find('\n')),
          fmt::format("{} line in the kernel's name that no kernel source has: {} covers {} and holds {} events, "
                      "but not this one; a line any user can send (`logger -t kernel`), not counted",
                      event_kind_name(static_cast<EventKind>(kind.get_int(m))), files[by].path,
                      format_rfc3339(placed[m].ts, 0), event_kind_name(static_cast<EventKind>(kind.get_int(m)))));
    }
  }
  if (dropped) clusters = std::move(kept);
  return dropped;
}

}  // namespace gpucost::align_detail
