#pragma once
/// \file sender_trust.hpp
/// Whom a log line may be believed to come from. A journal records who sent each entry (the
/// transport, the sender's uid, command and unit, set by journald itself, not by the sender), so
/// an entry that names the kernel or a power daemon is believed only where those fields agree:
/// `logger -t kernel` or `logger -t acpid` run by a user must not move the verdict.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <optional>
#include <string_view>

namespace gpucost {

/// What the journal says about the sender of one entry (absent fields are nullopt).
struct JournalSender {
  std::optional<std::string_view> transport;  ///< _TRANSPORT
  std::optional<std::string_view> uid;  ///< _UID
  std::optional<std::string_view> comm;  ///< _COMM
  std::optional<std::string_view> pid;  ///< _PID
  std::optional<std::string_view> systemd_unit;  ///< _SYSTEMD_UNIT
};

/// True when the entry is the kernel's: `_TRANSPORT=kernel` without the user credentials
/// (_UID, _COMM, _PID) that journald attaches to every entry a process sends and never to the
/// kernel's.
bool journal_sender_is_kernel(const JournalSender& s) noexcept;

/// True for the idents of the daemons whose messages are power events (AC switches, suspends
/// and resumes): acpid, systemd-sleep, systemd-logind, upowerd.
bool is_power_daemon_ident(std::string_view ident) noexcept;

/// True when the journal vouches for (or does not say) the sender of an entry in a power
/// daemon's name: uid 0, a system service unit, or no _UID at all. False for a user's process
/// (`_UID=1000`, `_COMM=logger`, no unit or a session scope).
bool journal_sender_may_be_daemon(const JournalSender& s) noexcept;

}  // namespace gpucost
