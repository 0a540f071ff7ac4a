#pragma once
/// \file shell_prompt.hpp
/// Pasted terminals: the shell prompt lines people copy along with a command's output
/// (`user@host:~$ dmesg -T | grep NVRM`, `[root@gpu1 ~]# nvidia-smi dmon -d 15`,
/// `$ journalctl -o json`). Such a line is neither data nor a rejected line: it is counted as a
/// prompt, and what the command line says (its options) is a hint for reading the output below.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "gpucost/records/formats.hpp"
#include "gpucost/time.hpp"

namespace gpucost {

/// What a prompt line's command says about the output that follows it.
struct ShellHints {
  std::string command;                    ///< the command line as typed (after the prompt)
  std::uint64_t line = 0;                 ///< the prompt's line number
  FormatId format = FormatId::unknown;    ///< the format the command writes, when it says
  TimeNs interval_ns = kNoTime;           ///< nvidia-smi dmon/pmon `-d N`, `--query-gpu` `-l N` / `-lms N`
  std::string query_fields;               ///< `--query-gpu=a,b,c`: the fields, in order
  bool csv_noheader = false;              ///< `--format=csv,noheader`
  bool dmesg_ctime = false;               ///< dmesg `-T` / `--ctime`
  std::string journal_output;             ///< journalctl `-o MODE` / `--output=MODE`

  /// The hints in words, for the report's notes (`dmon every 15 s`).
  std::string describe() const;
};

/// True when `line` is a shell prompt followed by a command (or by nothing): `user@host:path$ cmd`,
/// `user@host path % cmd`, `[user@host path]# cmd`, an optional `(venv) ` in front; or a bare
/// `$ cmd` / `# cmd` whose command is one that prints logs (`dmesg`, `journalctl`,
/// `nvidia-smi`, `ps`, `cat`, `sudo` ...), so that a dmon header `# gpu pwr ...` is no prompt;
/// and the `^C` a terminal echoes when a looping command is stopped.
/// Cheap for the lines of a log (most are rejected by their first few bytes). When `hints` is
/// given, it receives what the command says. Allocates only when hints are asked for.
bool parse_shell_prompt(std::string_view line, ShellHints* hints = nullptr);

namespace detail {
/// The bytes of a prompt's user and host names: letters, digits, `_`, `-`, `.`.
inline constexpr auto kPromptNameBytes = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[static_cast<std::size_t>(c)] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                                     c == '_' || c == '-' || c == '.';
  return t;
}();
}  // namespace detail

/// False only where parse_shell_prompt(line) is false, decided from the first bytes: a line that
/// starts with none of `(`, `$`, `#`, `^` and has no `user@` (at its start, or after a `[`) is no
/// prompt. Inline, for the loop that tests every line of a file (PromptFilter).
inline bool may_be_shell_prompt(std::string_view line) noexcept {
  if (line.empty()) return false;
  const char c = line[0];
  if (c == '(' || c == '$' || c == '#' || c == '^') return true;
  // A prompt of any other kind starts with `user@` (after `[` in Fedora's): at most 64 name
  // bytes, then `@`, as parse_shell_prompt reads them.
  const std::size_t user = c == '[' ? 1 : 0;
  const std::size_t cap = std::min(line.size(), user + 64);
  std::size_t i = user;
  while (i < cap && detail::kPromptNameBytes[static_cast<unsigned char>(line[i])]) ++i;
  return i > user && i < line.size() && line[i] == '@';
}

}  // namespace gpucost
