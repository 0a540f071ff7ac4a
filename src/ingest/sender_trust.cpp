#include "gpucost/ingest/sender_trust.hpp"

#include <array>

namespace gpucost {

bool journal_sender_is_kernel(const JournalSender& s) noexcept {
  if (!s.transport || *s.transport != "kernel") return false;
  // journald takes _UID, _COMM and _PID from the sending socket's credentials; the kernel's
  // entries (read from /dev/kmsg) have none. An entry with both is forged.
  return !s.uid && !s.comm && !s.pid;
}

bool is_power_daemon_ident(std::string_view ident) noexcept {
  static constexpr std::array<std::string_view, 5> kIdents = {"acpid", "systemd-sleep", "systemd-logind", "upowerd",
                                                              "upower"};
  for (std::string_view name : kIdents)
    if (ident == name) return true;
  return false;
}

bool journal_sender_may_be_daemon(const JournalSender& s) noexcept {
  if (!s.uid || *s.uid == "0") return true;
  // A daemon that drops root still runs in its own system unit; a user's logger runs in a
  // session scope or the user's manager (user@1000.service), or in none.
  if (!s.systemd_unit) return false;
  const std::string_view unit = *s.systemd_unit;
  constexpr std::string_view kService = ".service";
  const bool service = unit.size() > kService.size() && unit.substr(unit.size() - kService.size()) == kService;
  return service && unit.substr(0, 5) != "user@";
}

}  // namespace gpucost
