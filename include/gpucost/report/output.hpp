#pragma once
/// \file output.hpp
/// Where data goes: stdout, or `-o FILE` written to a temporary file beside it and renamed, so
/// that a failed run never leaves a half-written report. A closed pipe (`| head`) ends quietly.
/// A symbolic link is written through (the temporary file goes beside its target, which the
/// rename replaces); devices, FIFOs and descriptor paths (`/dev/stdout`, `/dev/fd/N`) are written
/// in place; SIGINT or SIGTERM during the write removes the temporary file.

#ifndef GPUCOST_LAYER_REPORT
#error "gpucost_report header: include it only in gpucost_report or a layer above it (docs/architecture.md, Layers)"
#endif

#include <string>
#include <string_view>

namespace gpucost {

/// Result of writing output.
enum class WriteStatus { kOk, kClosedPipe, kError };

/// A sink for the data a command prints.
class Output {
 public:
  /// path empty or "-" = stdout.
  explicit Output(std::string path);
  ~Output();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  /// Appends bytes (buffered, flushed in large blocks; a piece of 64 KiB or more, with nothing
  /// buffered before it, is written at once).
  WriteStatus write(std::string_view data);
  /// Flushes and, for a file, renames the temporary file into place.
  WriteStatus finish();
  /// What went wrong (after kError).
  const std::string& error() const noexcept { return error_; }
  bool to_stdout() const noexcept { return fd_ == 1; }

 private:
  WriteStatus flush();
  WriteStatus write_out(std::string_view data);  // all of data to fd_
  std::string path_, target_, tmp_path_, buffer_, error_;  // target_: path_ with its links followed
  int fd_ = -1;
  bool failed_ = false, closed_pipe_ = false, finished_ = false;
};

}  // namespace gpucost
