#include "ingest/formats/journal_fields.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gpucost/ingest/sender_trust.hpp"
#include "gpucost/text.hpp"

namespace gpucost::formats {

std::optional<std::string_view> JournalEntry::*journal_field_slot(std::string_view name) noexcept {
  using Slot = std::optional<std::string_view> JournalEntry::*;
  // Most fields of an entry are none of these: the length and one byte reject them.
  const auto is = [&](std::string_view want, Slot slot) { return name == want ? slot : nullptr; };
  switch (name.size()) {
    case 4: return name[1] == 'P' ? is("_PID", &JournalEntry::pid) : is("_UID", &JournalEntry::uid);
    case 5: return is("_COMM", &JournalEntry::comm);
    case 7: return is("MESSAGE", &JournalEntry::message);
    case 8: return is("_BOOT_ID", &JournalEntry::boot_id);
    case 10:
      return name[0] == '_' ? is("_TRANSPORT", &JournalEntry::transport) : is("SYSLOG_PID", &JournalEntry::syslog_pid);
    case 13: return is("_SYSTEMD_UNIT", &JournalEntry::systemd_unit);
    case 17: return is("SYSLOG_IDENTIFIER", &JournalEntry::syslog_identifier);
    case 20: return is("__REALTIME_TIMESTAMP", &JournalEntry::realtime);
    case 21: return is("__MONOTONIC_TIMESTAMP", &JournalEntry::monotonic);
    case 27: return is("_SOURCE_MONOTONIC_TIMESTAMP", &JournalEntry::source_monotonic);
    default: return nullptr;
  }
}

std::optional<TimeNs> journal_usec_to_ns(std::string_view digits) noexcept {
  // Up to 19 digits fit in 64 unsigned bits; three stamps per entry, so no from_chars here.
  if (digits.empty() || digits.size() > 19) return std::nullopt;
  std::uint64_t us = 0;
  for (const char c : digits) {
    if (!text::is_digit(c)) return std::nullopt;
    us = us * 10 + static_cast<std::uint64_t>(c - '0');
  }
  // Beyond 2200 is damage (and a monotonic stamp that large could not be added to a boot time).
  if (us >= static_cast<std::uint64_t>(kEndOfStampYearsNs / kNsPerUs)) return std::nullopt;
  return static_cast<TimeNs>(us) * kNsPerUs;
}

std::int32_t JournalEntrySink::boot_seq(std::string_view boot_id) {
  std::vector<std::string>& ids = boots_.ids;
  std::int32_t& last = boots_.last_seq;
  if (!ids.empty() && ids[static_cast<std::size_t>(last)] == boot_id) return last;
  // Indexed: a forged journal can name a new boot on every entry.
  const auto [at, fresh] = boots_.seq_of.try_emplace(std::string(boot_id), static_cast<std::int32_t>(ids.size()));
  if (fresh) ids.emplace_back(boot_id);
  return last = at->second;
}

bool continue_journal_chunk(JournalBoots& before, JournalBoots& chunk, FileSink& chunk_sink) {
  if (chunk.took_boot_before && !before.ids.empty()) return false;
  std::vector<std::int32_t> to_file(chunk.ids.size());
  bool same = true;
  for (std::size_t i = 0; i < chunk.ids.size(); ++i) {
    const auto [at, fresh] = before.seq_of.try_emplace(chunk.ids[i], static_cast<std::int32_t>(before.ids.size()));
    to_file[i] = at->second;
    if (fresh) before.ids.push_back(std::move(chunk.ids[i]));
    same = same && to_file[i] == static_cast<std::int32_t>(i);
  }
  if (!same) chunk_sink.renumber_boots(to_file);
  if (!chunk.ids.empty()) before.last_seq = to_file[static_cast<std::size_t>(chunk.last_seq)];
  return true;
}

std::optional<Problem> JournalEntrySink::emit(const JournalEntry& e, const Line& at) {
  if (!e.realtime) {
    sink_.problem(at, Problem::missing_field, "journal entry has no __REALTIME_TIMESTAMP");
    return Problem::missing_field;
  }
  const auto wall = journal_usec_to_ns(*e.realtime);
  if (!wall) {
    sink_.problem(at, Problem::bad_timestamp,
                  fmt::format("__REALTIME_TIMESTAMP \"{}\" is not a count of microseconds since the epoch",
                              text::excerpt(*e.realtime, 40)));
    return Problem::bad_timestamp;
  }
  sink_.accept();

  // Only the kernel sends with _TRANSPORT=kernel; any local user can write SYSLOG_IDENTIFIER=kernel
  // (`logger -t kernel`), and such an entry must not count as a kernel Xid or incident.
  // The recognizer reads an ident `kernel` (or none) as the kernel's, so an entry from anything
  // else that would pass as one is counted under its own name instead.
  const JournalSender sender{e.transport, e.uid, e.comm, e.pid, e.systemd_unit};
  const bool from_kernel = journal_sender_is_kernel(sender);
  const std::string_view ident = from_kernel             ? std::string_view("kernel")
                                 : e.syslog_identifier ? *e.syslog_identifier
                                 : e.comm              ? *e.comm
                                                       : std::string_view();
  if (!from_kernel && (ident == "kernel" || (ident.empty() && e.transport))) {
    sink_.problem(at, Problem::spoofed_kernel_ident,
                  fmt::format("{} with _TRANSPORT={}: written by a process, not the kernel; not read as a kernel message",
                              ident.empty() ? std::string("no identifier") : "identifier kernel",
                              e.transport ? text::excerpt(*e.transport, 20) : std::string("(none)")));
    return std::nullopt;
  }
  // `logger -t acpid` or `-t systemd-sleep` by a user would read as an AC switch or a resume.
  // Counted with the kernel's forgeries: the same attack, a process sending in a name not its own.
  if (!from_kernel && is_power_daemon_ident(ident) && !journal_sender_may_be_daemon(sender)) {
    sink_.problem(at, Problem::spoofed_kernel_ident,
                  fmt::format("identifier {} sent by _UID={} (_COMM={}, _SYSTEMD_UNIT={}): a user's process, not "
                              "the daemon; not read as its event",
                              text::excerpt(ident, 20), text::excerpt(*e.uid, 12),
                              e.comm ? text::excerpt(*e.comm, 20) : std::string("(none)"),
                              e.systemd_unit ? text::excerpt(*e.systemd_unit, 40) : std::string("(none)")));
    return std::nullopt;
  }

  const TimeNs mono = e.monotonic ? journal_usec_to_ns(*e.monotonic).value_or(kNoTime) : kNoTime;
  const bool mono_ok = mono != kNoTime && mono <= kMaxMonotonicNs;
  const bool plausible = *wall >= kPlausibleWallFloorNs;
  if (!plausible)
    sink_.problem(at, Problem::implausible_time,
                  fmt::format("__REALTIME_TIMESTAMP {} is before 2000: a clock never set; the entry is placed by its "
                              "boot's monotonic time when it can be, and anchors nothing",
                              format_rfc3339(*wall, 6)));

  MessageRecord m;
  m.line = at.number;
  if (plausible) {
    m.wall_kind = WallKind::kUtc;
    m.wall_raw_ns = *wall;
  }
  // Entries without a boot id stay in the boot of the entries around them.
  if (e.boot_id && !e.boot_id->empty()) {
    m.boot_id = *e.boot_id;
    m.boot_seq = boot_seq(*e.boot_id);
  } else {
    if (boots_.ids.empty()) boots_.took_boot_before = true;
    m.boot_seq = boots_.last_seq;
  }

  // journald takes both stamps when it receives the entry, so together they say when this boot
  // started, to the microsecond.
  if (mono_ok && plausible) {
    BootAnchor a;
    if (e.boot_id) a.boot_id = std::string(*e.boot_id);
    a.boot_seq = m.boot_seq;
    a.line = at.number;
    a.mono_ns = mono;
    a.wall_raw_ns = *wall;
    a.wall_kind = WallKind::kUtc;
    a.precision_ns = kNsPerUs;
    sink_.anchor(a);
  }

  m.ident = ident;
  // The printk stamp, not journald's receipt time: the key that matches dmesg and kern.log.
  if (from_kernel && e.source_monotonic)
    if (const auto src = journal_usec_to_ns(*e.source_monotonic); src && *src <= kMaxMonotonicNs) m.mono_ns = *src;
  // Without a usable wall stamp, journald's receipt time on the boot's clock places the entry.
  if (!plausible && m.mono_ns == kNoTime && mono_ok) m.mono_ns = mono;
  const auto pid_text = e.pid ? e.pid : e.syslog_pid;
  if (pid_text)
    if (const auto pid = text::to_int<std::int64_t>(text::trim(*pid_text)); pid && *pid >= 0) m.ident_pid = *pid;
  if (e.message) m.text = *e.message;
  if (e.message_omitted) m.flags |= kFlagTruncated;
  sink_.message(m);
  return std::nullopt;
}

}  // namespace gpucost::formats
