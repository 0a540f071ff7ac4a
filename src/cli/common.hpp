#pragma once
// Options and helpers shared by the subcommands.

#ifndef GPUCOST_LAYER_CLI
#error "gpucost_cli header: include it only in gpucost_cli or a layer above it (docs/architecture.md, Layers)"
#endif

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "gpucost/cli/app.hpp"
#include "gpucost/pipeline/pipeline.hpp"

namespace gpucost::cli {

/// Exit code of the subcommand that ran (set by its callback).
struct RunState {
  int exit_code = kExitOk;
};

/// Options of the commands that read logs (analyze, timeline).
struct InputOptions {
  std::string input;
  std::string tz;
  int year = 0;
  std::string since, until;
  unsigned threads = 0;
  std::size_t max_line_length = 64 * 1024;
  std::size_t max_events_per_kind = 1'000'000;
  bool keep_repeats = false;
  std::string patterns;
  double dmon_interval_s = 1.0;
  double max_error_rate = 0.05;
  std::uint64_t chunk_bytes = 0;  ///< hidden --chunk-size: chunked parsing of files this large, in chunks this large
};

/// Adds the DIR argument and the ingest/align options to a subcommand.
void add_input_options(CLI::App& app, InputOptions& o);
/// Adds --idle-threshold and --temp-threshold.
void add_feature_options(CLI::App& app, FeatureOptions& o);
/// Turns the options into pipeline options; throws CLI::ValidationError for bad values.
PipelineOptions make_pipeline_options(const InputOptions& in, const FeatureOptions& f);
/// Checks that the input exists; prints one line and returns kExitUsage when not, else kExitOk.
int check_input(const InputOptions& o);
/// Parses `2026-11-29T19:50:45Z`, `2026-11-29T19:50:45+08:00`, `2026-11-29 19:50` (UTC) or
/// `2026-11-29`; throws CLI::ValidationError.
TimeNs parse_time_option(const std::string& s, const char* what);

/// Writes data to stdout or -o FILE; returns kExitOk, or kExitOutput after printing one line.
int emit(const std::string& path, const std::string& data);

/// Prints one line `gpucost: error: ...` on stderr.
void print_error(const std::string& message);
/// Prints `gpucost: error: ` and the first line, then each further line as it is, on stderr: each
/// line is escaped on its own (a newline in a file name cannot forge a line).
void print_error_lines(const std::vector<std::string>& lines);

/// Summarizes input problems on stderr, once per kind.
void summarize_problems(const Diagnostics& d);

void add_analyze(CLI::App& root, RunState& state);
void add_timeline(CLI::App& root, RunState& state);
void add_features(CLI::App& root, RunState& state);
void add_findings(CLI::App& root, RunState& state);
void add_breakeven(CLI::App& root, RunState& state);
void add_simulate(CLI::App& root, RunState& state);
void add_fleet(CLI::App& root, RunState& state);
void add_offers(CLI::App& root, RunState& state);

}  // namespace gpucost::cli
