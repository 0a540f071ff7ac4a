#pragma once
/// \file detect.hpp
/// Format detection by content: every format scores a file's first lines (lnav-style), the best
/// total wins and is locked for the file.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>
#include <string_view>

#include "gpucost/ingest/line_source.hpp"
#include "gpucost/records/formats.hpp"

namespace gpucost {

/// Outcome of scoring a file's first lines against every format.
struct Detection {
  FormatId format = FormatId::unknown;
  int score = 0;  ///< winner's total
  FormatId runner_up = FormatId::unknown;
  int runner_up_score = 0;
  std::size_t lines_scored = 0;
  /// No format reached the mean, but this many of the lines scored hold a kernel message
  /// (kStrongKernelScore as dmesg): the file is read as dmesg, a paste with text around its log
  /// lines (a forum quote), rather than not at all. 0: an ordinary detection.
  std::size_t kernel_lines_in_text = 0;
  /// No format reads the lines as they stand, but one does from where their log part starts
  /// (message_start in paste_prefix.hpp: a header cut at the left margin): parse them so.
  bool message_first = false;
};

/// A line scored at least this as dmesg holds a kernel message (`NVRM: ...`, a stamp).
inline constexpr int kStrongKernelScore = 40;

/// How many non-blank lines detection reads.
inline constexpr std::size_t kDetectLines = 64;

/// Scores the first kDetectLines non-blank lines of src against every format and picks the best.
/// A format wins only with a mean score of at least kMinMeanScore per scored line. Content
/// decides; shell prompt lines are not scored, but the format their command writes
/// (`$ journalctl -o json`), else the file name (`name_hint`), breaks a near tie between the two
/// best formats (journalctl short output and a classic syslog file can be byte-for-byte alike).
/// Lines are scored after their paste prefix (paste_prefix.hpp). Where no format wins, the lines
/// are scored again from where their log part starts (Detection::message_first), and then a file
/// with a kernel message among prose is dmesg (Detection::kernel_lines_in_text).
Detection detect_format(LineSource& src, std::string_view name_hint = {});

/// The mean score per scored line a format needs to win detection.
inline constexpr int kMinMeanScore = 20;

}  // namespace gpucost
