#pragma once
// Helpers for the structured-format tests: run one format over a buffer or a test-data file
// and look at what the sink got.

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "gpucost/ingest/detect.hpp"
#include "gpucost/ingest/format.hpp"
#include "gpucost/ingest/recognizer.hpp"

namespace gpucost::testing {

/// Parse options that keep a row per line: the parser tests read what each line became; repeats
/// joined into runs are tested in repeat_runs_test.cpp.
inline ParseOptions row_per_line() {
  ParseOptions o;
  o.aggregate_repeats = false;
  return o;
}

/// One parse: the options and recognizer live as long as the sink that refers to them.
struct ParseRun {
  ParseOptions options = row_per_line();
  EventRecognizer recognizer;
  std::unique_ptr<FileSink> sink;
  Detection detection;

  FileDiagnostics& diag() { return sink->diagnostics(); }
  std::uint64_t problems(Problem p) { return diag().problems[static_cast<std::size_t>(p)]; }
  Table& events() { return sink->events(); }
  Table& processes() { return sink->processes(); }
};

/// Reads a file under tests/data.
inline std::string read_test_file(const std::string& relative) {
  std::ifstream in(std::string(GPUCOST_TEST_DATA) + "/" + relative, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing test data " << relative;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Detects `data`'s format, then parses it with `format` (as ingest does: detect, rewind, parse).
/// `setup` may add recognizer patterns before the parse.
template <typename Setup>
std::unique_ptr<ParseRun> run_format(FormatId format, std::string_view data, Setup setup,
                                     TimeNs mtime = kNoTime) {
  auto run = std::make_unique<ParseRun>();
  setup(*run);
  auto src = make_buffer_source(data, run->options.max_line_length);
  run->detection = detect_format(*src);
  EXPECT_TRUE(src->rewind());
  run->sink = std::make_unique<FileSink>(0, "test", mtime, run->options, run->recognizer);
  run->sink->set_format(format);
  const LogFormat* f = find_format(format);
  EXPECT_NE(f, nullptr);
  if (f) f->parse(*src, *run->sink);
  return run;
}

inline std::unique_ptr<ParseRun> run_format(FormatId format, std::string_view data, TimeNs mtime = kNoTime) {
  return run_format(format, data, [](ParseRun&) {}, mtime);
}

/// The reasons of the kept samples of one problem kind, joined with " | ".
inline std::string sample_reasons(const FileDiagnostics& d, Problem p) {
  std::string out;
  for (const auto& s : d.samples)
    if (s.problem == p) {
      if (!out.empty()) out += " | ";
      out += s.reason;
    }
  return out;
}

/// Adds a user pattern that turns every message holding `needle` into an event, so tests can
/// see what a parser passed to sink.message() for lines that are no built-in event.
inline void catch_all(ParseRun& run, std::string needle, std::string ident = {}) {
  EventPattern p;
  p.kind = EventKind::user;
  p.ident = std::move(ident);
  p.needles.push_back(std::move(needle));
  p.label = "test";
  run.recognizer.add(std::move(p));
}

}  // namespace gpucost::testing
