// `gpucost fleet DIR`: the per-job rows of a cluster summed per job, user, node and GPU model;
// `--sacct` adds the job summaries kept in Slurm's AdminComment, `--format summary` makes them.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/common.hpp"
#include "gpucost/fleet/fleet.hpp"
#include "gpucost/fleet/job_summary.hpp"

namespace gpucost::cli {

namespace {
struct FleetOptions {
  std::string input;
  std::string sacct;
  std::string format = "table";
  std::string output;
  std::size_t top = 20;
};

// The AdminComment segments of the rows in one file (the epilog's JOBID.ndjson), one per line.
int run_summary(const FleetOptions& o) {
  std::ifstream in(o.input, std::ios::binary);
  if (!in) {
    print_error(fmt::format("{}: cannot be read", o.input));
    return kExitUsage;
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::string out;
  for (const auto& s : fleet::summaries_of_rows(text.str())) out += fleet::render_summary(s) + '\n';
  if (out.empty()) {
    print_error(fmt::format("{}: no node row to summarize", o.input));
    return kExitNoInput;
  }
  return emit(o.output, out);
}

int run_fleet(const FleetOptions& o) {
  if (o.input.empty() && o.sacct.empty()) {
    print_error("give a DIR of rows, --sacct FILE (or -), or both");
    return kExitUsage;
  }
  if (o.format == "summary") {
    if (o.input.empty()) {
      print_error("--format summary reads one file of rows (DIR)");
      return kExitUsage;
    }
    return run_summary(o);
  }
  const auto started = std::chrono::steady_clock::now();
  fleet::FleetSummary summary;
  try {
    fleet::FleetReader reader(summary);
    if (!o.input.empty()) reader.read_tree(o.input);
    if (o.sacct == "-") {
      reader.read_sacct(std::cin, "-");
    } else if (!o.sacct.empty()) {
      std::ifstream in(o.sacct, std::ios::binary);
      if (!in) throw std::invalid_argument(o.sacct + ": cannot be read");
      reader.read_sacct(in, o.sacct);
    }
    reader.finish();
  } catch (const std::invalid_argument& e) {
    print_error(e.what());
    return kExitUsage;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  spdlog::info("fleet: {} rows from {} files ({:.1f} MB) in {:.3f} s; peak RSS {:.0f} MiB", summary.rows, summary.files,
               summary.bytes / 1e6, secs, peak_rss_bytes() / 1048576.0);
  // Paths and reasons come from the input: escaped, so that no byte of it reaches the terminal raw.
  if (summary.malformed)
    spdlog::warn("{} malformed row(s) skipped; first: {}:{}: {}", summary.malformed,
                 fleet::escape_control(summary.problems.front().file), summary.problems.front().line,
                 fleet::escape_control(summary.problems.front().reason));
  if (summary.duplicates)
    spdlog::warn("{} duplicate row(s) dropped (a row key seen again); first: {}:{}, a copy of {}:{}",
                 summary.duplicates, fleet::escape_control(summary.duplicate_rows.front().file),
                 summary.duplicate_rows.front().line, fleet::escape_control(summary.duplicate_rows.front().kept_file),
                 summary.duplicate_rows.front().kept_line);
  for (const auto& u : summary.unreadable) spdlog::warn("unreadable: {}", fleet::escape_control(u));
  if (summary.rows == 0) {
    print_error(fmt::format("{}: no per-job rows ({} files, {} malformed lines)",
                            fleet::escape_control(o.input.empty() ? o.sacct : o.input), summary.files,
                            summary.malformed));
    return kExitNoInput;
  }
  const auto format = o.format == "json"   ? fleet::FleetFormat::kJson
                      : o.format == "csv"  ? fleet::FleetFormat::kCsv
                      : o.format == "html" ? fleet::FleetFormat::kHtml
                                           : fleet::FleetFormat::kTable;
  return emit(o.output, fleet::render_fleet(summary, format, o.top));
}
}  // namespace

void add_fleet(CLI::App& root, RunState& state) {
  auto opts = std::make_shared<FleetOptions>();
  CLI::App* app = root.add_subcommand(
      "fleet", "Sum the per-job rows (analyze --format ndjson) of a cluster per job, user, node and GPU model");
  app->add_option("DIR", opts->input, "Directory of *.ndjson rows (searched recursively), or one file");
  app->add_option("--sacct", opts->sacct,
                  "Also read the job summaries the epilog keeps in AdminComment from the output of\n"
                  "`sacct -P -o JobID,User,Partition,AdminComment` in FILE (- = stdin)");
  app->add_option("-f,--format", opts->format,
                  "table (default, for people), csv or json (for scripts), html (one self-contained page);\n"
                  "summary: the AdminComment job summary of each node row in the file DIR (the epilog's)")
      ->check(CLI::IsMember({"table", "csv", "json", "html", "summary"}));
  app->add_option("-o,--output", opts->output, "Write to FILE (atomically) instead of stdout");
  app->add_option("--top", opts->top, "Keys shown per group in the table, most idle cost first (0 = all)");
  app->footer(
      "\nHours, energy and costs come from the GPU rows, incidents from the node rows. One row is kept\n"
      "per row key (cluster, job, step, node, GPU, window): copies are dropped and listed. Malformed and\n"
      "implausible lines are counted and listed with file:line, never fatal. See docs/fleet.md.\n"
      "Examples:\n"
      "  gpucost fleet /shared/gpucost\n"
      "  gpucost fleet /shared/gpucost/2026-11-29 --format csv -o fleet.csv\n"
      "  gpucost fleet /shared/gpucost --format html -o fleet.html\n"
      "  sacct -a -P -S 2026-11-01 -o JobID,User,Partition,AdminComment | gpucost fleet --sacct -\n"
      "\nExit codes: 0 ok, 2 usage, 3 no rows, 5 output error.");
  app->callback([opts, &state] { state.exit_code = run_fleet(*opts); });
}

}  // namespace gpucost::cli
