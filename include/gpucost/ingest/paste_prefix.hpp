#pragma once
/// \file paste_prefix.hpp
/// What people and tools put in front of a log line when they paste it: quote marks (`> `),
/// `grep -H` file names (`/var/log/kern.log:`), `grep -n` line numbers (`123:`) and the host
/// column of pdsh or clush (`node017: `). The line is read after it, so that every format sees
/// the layout it knows (issue 36: find the message, whatever stands before it).

#include <cstddef>
#include <string_view>

namespace gpucost {

/// How many leading bytes of `line` are such a prefix (0: none). A prefix counts only where a
/// log line follows it: a stamp (`[ 12.345678]`, `[Tue Mar  5 ...`, `Mar  5 10:12:01`,
/// `2024-03-05`), or for quotes and file names also a kernel message without one (`NVRM: ...`),
/// so that a message's own `word: ` (`nvidia-uvm: Loaded ...`, `ACPI: ...`) is never taken off.
std::size_t paste_prefix_length(std::string_view line) noexcept;

}  // namespace gpucost
