// `gpucost analyze DIR`: the main job.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "cli/common.hpp"
#include "cli/cost_options.hpp"
#include "gpucost/cost/from_logs.hpp"
#include "gpucost/findings/findings.hpp"
#include "gpucost/report/ndjson_writer.hpp"
#include "gpucost/report/report.hpp"

namespace gpucost::cli {

namespace {
struct AnalyzeOptions {
  InputOptions input;
  FeatureOptions features;
  CostCliOptions cost;
  findings::FindingOptions findings;
  std::string format = "table";
  std::string output;
  bool no_timings = false;
  JobRowIdentity job;  // --job-id, --user, --host, --gpu: the rows of --format ndjson
};

int run_analyze(const AnalyzeOptions& o) {
  const auto started = std::chrono::steady_clock::now();
  if (int rc = check_input(o.input)) return rc;
  PipelineOptions popts;
  try {
    popts = make_pipeline_options(o.input, o.features);
    popts.cost = make_cost_setup(o.cost);  // unknown presets, bad config: say so before reading any log
    popts.findings = o.findings;
    // The config's ignore_findings join --ignore-finding's; R16 lists them all alike.
    for (const auto& r : popts.cost->request.config.ignore_findings) {
      if (!findings::is_rule(r))
        throw std::invalid_argument(fmt::format(
            "{}: ignore_findings: unknown finding rule '{}' (gpucost findings lists them)", o.cost.config, r));
      auto& ig = popts.findings.ignore;
      if (std::find(ig.begin(), ig.end(), r) == ig.end()) ig.push_back(r);
    }
  } catch (const CLI::ValidationError& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const std::invalid_argument& e) {
    print_error(e.what());
    return kExitUsage;
  }
  auto result = std::make_unique<PipelineResult>();
  try {
    run_pipeline(o.input.input, popts, *result);
  } catch (const std::invalid_argument& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const std::runtime_error& e) {
    print_error(e.what());
    return kExitUsage;
  }
  const Diagnostics& d = result->diagnostics;
  summarize_problems(d);
  if (d.usable_files() == 0) {
    print_error(d.files.empty() ? fmt::format("{}: no files to read", o.input.input)
                                : fmt::format("{}: no usable input ({} files, none with records in a known format)",
                                              o.input.input, d.files.size()));
    return kExitNoInput;
  }

  if (const auto machines = cost::distinct_machines(result->timeline); machines.size() > 1) {
    // The first GPUs say what is wrong; a directory of thousands need not print them all.
    constexpr std::size_t kListed = 8;
    std::vector<std::string> lines{
        fmt::format("{}: these logs describe more than one machine (GPUs at the same index or PCI address with "
                    "different UUIDs):",
                    o.input.input)};
    for (std::size_t i = 0; i < machines.size() && i < kListed; ++i) lines.push_back("  " + machines[i].description);
    if (machines.size() > kListed) lines.push_back(fmt::format("  and {} more GPUs", machines.size() - kListed));
    lines.push_back(
        "One answer per machine: put each machine's logs in a directory of its own and analyze each (a GPU "
        "replaced in one machine reads the same: analyze the logs before and after apart)");
    print_error_lines(lines);
    return kExitUsage;
  }
  const Report rep = make_report(*result, o.input.input, o.input.max_error_rate);
  auto t0 = std::chrono::steady_clock::now();
  if (o.no_timings) result->timings.clear();
  // --format was checked against report_formats() when the options were read.
  std::string text = render_report(rep, report_format_named(o.format).value_or(ReportFormat::kTable), &o.job);
  if (!o.no_timings) {
    const auto now = std::chrono::steady_clock::now();
    const double secs = std::chrono::duration<double>(now - t0).count();
    const double total = std::chrono::duration<double>(now - started).count();
    const double mb = static_cast<double>(result->ingest.bytes) / 1e6;
    spdlog::info("report: {} bytes in {:.3f} s", text.size(), secs);
    spdlog::info("total: {:.1f} MB in {:.3f} s ({:.0f} MB/s); peak RSS {:.0f} MiB", mb, total, total > 0 ? mb / total : 0.0,
                 peak_rss_bytes() / 1048576.0);
  }
  if (int rc = emit(o.output, text)) return rc;
  if (rep.error_rate_exceeded) {
    print_error(fmt::format("{:.2f} % of lines were rejected, more than --max-error-rate {:.2f} %",
                            100 * d.error_rate(), 100 * o.input.max_error_rate));
    return kExitInputProblems;
  }
  return kExitOk;
}
}  // namespace

void add_analyze(CLI::App& root, RunState& state) {
  auto opts = std::make_shared<AnalyzeOptions>();
  CLI::App* app = root.add_subcommand("analyze", "Read a directory of logs; report features, costs and the break-even");
  add_input_options(*app, opts->input);
  add_feature_options(*app, opts->features);
  add_cost_options(*app, opts->cost, true);
  app->add_option("-f,--format", opts->format, "The report's format: " + report_formats_help())
      ->check([](const std::string& f) {
        if (report_format_named(f)) return std::string();
        std::string names;
        for (const auto& r : report_formats()) names += fmt::format("{}{}", names.empty() ? "" : ", ", r.name);
        return fmt::format("{} is none of {}", f, names);
      });
  app->add_option("--finding-idle-fraction", opts->findings.idle_fraction,
                  "Share of sampled GPU time idle from which idling is a finding (default 0.10; docs/findings.md)")
      ->check(CLI::Range(0.0, 1.0));
  app->add_option("--finding-cpu-competing", opts->findings.cpu_competing_pct,
                  "Mean %CPU of all but the top process taken as a saturated CPU (default 100 = one core)")
      ->check(CLI::Range(0.0, 1e6));
  app->add_option("--finding-throttled-fraction", opts->findings.throttled_fraction,
                  "Share of samples throttled by power or heat from which throttling is a finding (default 0.05)")
      ->check(CLI::Range(0.0, 1.0));
  app->add_option("--finding-battery-s", opts->findings.battery_s,
                  "Seconds on battery from which a laptop's power is a finding (default 60)")
      ->check(CLI::Range(0.0, 1e9));
  app->add_option("--finding-rma-xids", opts->findings.rma_hardware_xids,
                  "Hardware Xids (memory and bus) from which a board is an RMA candidate (default 3)")
      ->check(CLI::Range(1, 1000000));
  app->add_option("--finding-xid-escalation", opts->findings.xid_escalation_recoveries,
                  "Resets or reboots after which the same hardware Xid escalates to inspect / RMA (default 1)")
      ->check(CLI::Range(1, 1000));
  app->add_option("--ignore-finding", opts->findings.ignore,
                  "Leave a rule's findings out, by id or name (repeatable); the report lists what was left out\n"
                  "(R16). Example: --ignore-finding R13 --ignore-finding benign_driver_messages")
      ->check([](const std::string& r) {
        return findings::is_rule(r) ? std::string()
                                    : "unknown finding rule '" + r + "' (gpucost findings lists them)";
      });
  app->add_option("--job-id", opts->job.job_id, "Scheduler job id written in the ndjson rows (SLURM_JOB_ID)");
  app->add_option("--user", opts->job.user, "Job owner written in the ndjson rows (SLURM_JOB_USER)");
  app->add_option("--host", opts->job.host, "Host name for the ndjson rows, instead of the one the logs name");
  app->add_option("--gpu", opts->job.gpus,
                  "Only this GPU in the ndjson rows: index, UUID or PCI bus id (repeat or comma-separate)")
      ->delimiter(',');
  app->add_option("-o,--output", opts->output, "Write the report to FILE (atomically) instead of stdout");
  app->add_flag("--no-timings", opts->no_timings, "Leave stage timings out of the report (byte-stable output)");
  app->footer(
      "\nExamples:\n"
      "  gpucost analyze examples/laptop-training\n"
      "  gpucost analyze ~/gpulogs --tz Europe/Berlin --idle-threshold 10 --format json -o report.json\n"
      "  gpucost analyze ~/gpulogs --format html -o report.html\n"
      "  gpucost analyze ~/gpulogs --format prom -o /var/lib/node_exporter/textfile_collector/gpucost.prom\n"
      "  gpucost analyze /var/log/gpucost --since 2026-11-29T08:00:00Z --until 2026-11-29T09:00:00Z \\\n"
      "      --job-id 4242 --user alice --gpu 00000000:17:00.0 --format ndjson\n"
      "  gpucost analyze ~/gpulogs --format csv | python3 -c 'import csv,sys; print(len(list(csv.reader(sys.stdin))))'\n"
      "  gpucost analyze ~/gpulogs --local rtx-4060-laptop --cloud aws-g5.xlarge --local-electricity-price 0.30\n"
      "\nCost inputs: command line > --config > measured from the logs (power, effective utilization,\n"
      "incident rate; off with --no-measured) > --local/--cloud presets > --preset > defaults. The local\n"
      "GPU is the one the logs name (else --local); the cloud side rents the same GPU (else --cloud).\n"
      "\nThe answer: 'Own it?' (keep or rent, if you have the GPU) and 'Buy it?' (buy, rent, never, or\n"
      "the usage or price it depends on). Usage is measured only from 7 days or more of GPU samples\n"
      "(--min-usage-span); else give --hours-per-month. See docs/cost-model.md.\n"
      "\nExit codes: 0 ok, 1 internal error, 2 usage (also: the logs describe more than one machine), 3 no\n"
      "usable input, 4 rejected lines above --max-error-rate, 5 output error, 6 out of memory (no report).");
  app->callback([opts, &state] { state.exit_code = run_analyze(*opts); });
}

}  // namespace gpucost::cli
