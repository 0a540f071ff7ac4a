#pragma once
/// \file app.hpp
/// The command line: `gpucost analyze|timeline|features|breakeven|simulate`.

#ifndef GPUCOST_LAYER_CLI
#error "gpucost_cli header: include it only in gpucost_cli or a layer above it (docs/architecture.md, Layers)"
#endif

namespace gpucost::cli {

/// Exit codes (stable; documented in README and --help).
enum ExitCode : int {
  kExitOk = 0,             ///< success
  kExitInternal = 1,       ///< unexpected internal error
  kExitUsage = 2,          ///< bad command line (unknown option, bad value, input path does not exist)
  kExitNoInput = 3,        ///< nothing usable in the input (empty directory, no known format)
  kExitInputProblems = 4,  ///< report written, but rejected lines exceeded --max-error-rate
  kExitOutput = 5,         ///< the output could not be written (disk full, permission)
  kExitOutOfMemory = 6,    ///< the system refused memory the run needed (no report)
};

/// Runs the command line; returns the process exit code.
int run(int argc, char** argv);

}  // namespace gpucost::cli
