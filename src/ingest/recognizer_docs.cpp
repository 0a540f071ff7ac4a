// docs/events.md and the meaning of each kind's code, written from the pattern tables.
#include <fmt/format.h>

#include <span>
#include <string>

#include "gpucost/ingest/recognizer.hpp"
#include "ingest/recognizer_patterns.hpp"

namespace gpucost {

using namespace recognizer_detail;

std::string_view event_code_meaning(EventKind k) noexcept {
  switch (k) {
    case K::xid: return "the Xid number (13, 31, 79, 119 ...)";
    case K::pcie_aer: return "severity: 0 corrected, 1 uncorrected non-fatal, 2 uncorrected fatal";
    case K::thermal: return "1 above threshold (clock throttled), 0 back to normal, 2 critical (shutdown)";
    default: return "";
  }
}

namespace {

std::string_view kind_fields(EventKind k) noexcept {
  switch (k) {
    case K::xid:
      return "gpu = PCI address in `Xid (...)` (a MIG `GPU-I:NN` after it stays in the text); pid and process from `pid=`/`name=` (null when `<unknown>` or absent)";
    case K::fallen_off_bus:
      return "gpu = first PCI address in the message. An `Xid (...): 79` line is an `xid` event; this kind is "
             "the lines without an Xid (`GPU 0000:3b:00.0: GPU has fallen off the bus.`, the 570 driver's "
             "multi-line message, joined)";
    case K::rm_init_failed:
      return "gpu = first PCI address in the message. One event per failed attempt: the `rm_init_adapter "
             "failed` line that closes it, not the `RmInitAdapter failed!` line before it";
    case K::pcie_link_degraded: return "gpu = first PCI address in the message";
    case K::pcie_aer: return "gpu = the reporting device (`pcieport 0000:00:1d.0`)";
    case K::i915_hang: return "gpu = i915 PCI address (new form); pid/process = the hung client (`in Xorg [1220]`)";
    case K::gpu_reset: return "gpu = PCI address when the message names one";
    case K::oom_kill: return "pid/process = the killed process";
    case K::segfault: return "pid/process = the crashed process";
    case K::service_failed: return "process = the unit (`docker.service`)";
    case K::container_create:
    case K::container_start:
    case K::container_stop: return "process = container name, else its id (12 hex digits)";
    case K::service_restart:
    case K::cron: return "pid = the ident's pid";
    case K::user: return "the pattern's kind replaces `user` when it names one";
    default: return "";
  }
}

void append_table(std::string& out, std::string_view source, std::span<const Builtin> table, EventKind k) {
  for (const Builtin& b : table) {
    const bool acpid_ac = b.extract == X::kAcpidAc || b.extract == X::kUpowerAc;
    if (b.kind != k && !(acpid_ac && k == K::ac_offline)) continue;
    out += fmt::format("| {} | `{}`{}{}{} |\n", source, b.needle, b.at_start ? " (at the start)" : "",
                       b.also.empty() ? "" : fmt::format(" and `{}`", b.also),
                       acpid_ac ? " (the state field decides on/off)" : "");
  }
}

}  // namespace

std::string event_catalog_markdown() {
  std::string out =
      "# Event kinds\n\n"
      "Generated from the code (`event_catalog_markdown()` in src/ingest/recognizer_docs.cpp); a unit test\n"
      "fails when this file differs from it. Regenerate with\n"
      "`GPUCOST_REGENERATE_DOCS=1 ./build/tests/gpucost_tests --gtest_filter='Recognizer.EventsDocIsCurrent'`.\n\n"
      "Every message a log parser reads goes to the recognizer with its syslog ident (`kernel` for\n"
      "kernel lines). A pattern matches when its text occurs in the message (case-sensitive); the first\n"
      "matching pattern of the ident's table wins. Every message first passes a one-pass prefilter that\n"
      "looks for four distinctive bytes of each pattern of its table, so noise lines are rejected\n"
      "without trying any pattern. User patterns (`--patterns FILE`, lines of\n"
      "`kind<TAB>ident<TAB>needle[<TAB>needle...]`) are tried after the built-ins.\n\n"
      "The same incident can appear at several layers (a suspend is logged by systemd-logind,\n"
      "systemd-sleep and the kernel; a failed start of the NVIDIA driver by `RmInitAdapter failed!` and\n"
      "`rm_init_adapter failed`): where two lines always come together only one of them is a pattern,\n"
      "and where layers differ the `ident` column tells them apart.\n";
  for (std::size_t i = 0; i < kEventKindCount; ++i) {
    const auto k = static_cast<EventKind>(i);
    out += fmt::format("\n## `{}`\n\n{}.\n\n", event_kind_name(k), event_kind_description(k));
    const std::string_view code = event_code_meaning(k);
    out += fmt::format("- code: {}\n", code.empty() ? "null" : code);
    if (const std::string_view f = kind_fields(k); !f.empty()) out += fmt::format("- {}\n", f);
    std::string rows;
    append_table(rows, "kernel", kKernel, k);
    append_table(rows, "any other ident", kAnyIdent, k);
    for (const Family& f : kFamilies) append_table(rows, f.label, f.patterns, k);
    if (k == K::boot) rows += "| journal | `-- Boot <id> --` or `-- Reboot --` marker (placed at the next entry) |\n";
    if (k == K::user) rows += "| --patterns FILE | every needle of a user pattern |\n";
    if (!rows.empty()) out += "\n| source | message contains |\n|---|---|\n" + rows;
  }
  return out;
}

}  // namespace gpucost
