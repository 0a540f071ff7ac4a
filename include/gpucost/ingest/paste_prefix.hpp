#pragma once
/// \file paste_prefix.hpp
/// What people and tools put in front of a log line when they paste it: quote marks (`> `),
/// `grep -H` file names (`/var/log/kern.log:`), `grep -n` line numbers (`123:`) and the host
/// column of pdsh or clush (`node017: `). The line is read after it, so that every format sees
/// the layout it knows (issue 36: find the message, whatever stands before it).

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>
#include <string_view>

namespace gpucost {

/// How many leading bytes of `line` are such a prefix (0: none). A prefix counts only where a
/// log line follows it: a stamp (`[ 12.345678]`, `[Tue Mar  5 ...`, `Mar  5 10:12:01`,
/// `2024-03-05`), or for quotes and file names also a kernel message without one (`NVRM: ...`),
/// so that a message's own `word: ` (`nvidia-uvm: Loaded ...`, `ACPI: ...`) is never taken off.
/// Also docker compose's `service-1  | ` column.
std::size_t paste_prefix_length(std::string_view line) noexcept;

/// For a file that no format reads as it stands (detection's message-first retry): where the
/// line's log part starts when something other than a paste prefix stands before it, such as a
/// syslog header cut at the left margin by a pager (`:02:11 gpu01 kernel: [ 5123.4] NVRM: ...`):
/// after `kernel: `, at a monotonic stamp, or at `NVRM: `, within the first 160 bytes. 0 where
/// the line starts like a log line, or no such start is found.
std::size_t message_start(std::string_view line) noexcept;

}  // namespace gpucost
