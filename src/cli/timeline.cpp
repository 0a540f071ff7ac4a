// `gpucost timeline DIR`: the aligned events, one per line.
#include <fmt/format.h>

#include <memory>

#include "cli/common.hpp"
#include "gpucost/report/timeline_writer.hpp"

namespace gpucost::cli {

namespace {
struct TimelineOptions {
  InputOptions input;
  std::string format = "jsonl";
  std::string output;
};

int run_timeline(const TimelineOptions& o) {
  if (int rc = check_input(o.input)) return rc;
  PipelineOptions popts;
  auto result = std::make_unique<PipelineResult>();
  try {
    popts = make_pipeline_options(o.input, FeatureOptions{});
    run_pipeline(o.input.input, popts, *result, PipelineStage::kAlign);
  } catch (const CLI::ValidationError& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const std::invalid_argument& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const std::runtime_error& e) {
    print_error(e.what());
    return kExitUsage;
  }
  summarize_problems(result->diagnostics);
  if (result->diagnostics.usable_files() == 0) {
    print_error(fmt::format("{}: no usable input", o.input.input));
    return kExitNoInput;
  }
  Output out(o.output);
  const WriteStatus s = write_timeline(result->timeline, o.format == "csv" ? TimelineFormat::kCsv : TimelineFormat::kJsonl, out);
  if (s == WriteStatus::kError) {
    print_error(out.error());
    return kExitOutput;
  }
  if (result->diagnostics.error_rate() > o.input.max_error_rate) return kExitInputProblems;
  return kExitOk;
}
}  // namespace

void add_timeline(CLI::App& root, RunState& state) {
  auto opts = std::make_shared<TimelineOptions>();
  CLI::App* app = root.add_subcommand("timeline", "Print each distinct event once, in UTC time order (JSON Lines or CSV)");
  add_input_options(*app, opts->input);
  app->add_option("-f,--format", opts->format, "jsonl (default) or csv")->check(CLI::IsMember({"jsonl", "csv"}));
  app->add_option("-o,--output", opts->output, "Write to FILE (atomically) instead of stdout");
  app->footer(
      "\nEach line: ts (RFC 3339 UTC), ts_ns, source, format, file, line, kind, code, gpu, pid, process,\n"
      "ident, text, approximate, seen_in (every file:line where the same message was read), repeat (how many\n"
      "times the message was printed within that second: a run of repeats is one line; --keep-repeats prints\n"
      "one line per printed line).\n"
      "Examples:\n"
      "  gpucost timeline examples/laptop-training | jq -r 'select(.kind==\"xid\") | \"\\(.ts) \\(.code)\"'\n"
      "  gpucost timeline ~/gpulogs --since 2026-11-29 --format csv -o events.csv\n");
  app->callback([opts, &state] { state.exit_code = run_timeline(*opts); });
}

}  // namespace gpucost::cli
