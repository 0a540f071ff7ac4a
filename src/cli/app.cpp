#include "gpucost/cli/app.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdio>
#include <new>

#include "cli/common.hpp"

namespace gpucost::cli {

namespace {
constexpr const char* kExitCodes =
    "Exit codes:\n"
    "  0  success\n"
    "  1  internal error\n"
    "  2  usage error (bad option or value, input path does not exist)\n"
    "  3  no usable input (empty directory, no file in a known format)\n"
    "  4  report written, but rejected lines exceeded --max-error-rate\n"
    "  5  output could not be written (-o FILE, disk full)\n"
    "  6  out of memory: the system refused memory the run needed (no report)\n";

void setup_logging(int verbosity, bool quiet) {
  auto logger = spdlog::stderr_logger_st("gpucost");
  logger->set_pattern("gpucost: %l: %v");
  spdlog::set_default_logger(logger);
  if (quiet) spdlog::set_level(spdlog::level::err);
  else if (verbosity >= 2) spdlog::set_level(spdlog::level::debug);
  else if (verbosity == 1) spdlog::set_level(spdlog::level::info);
  else spdlog::set_level(spdlog::level::warn);
}
}  // namespace

int run(int argc, char** argv) {
  // A closed pipe is reported as EPIPE by write() and handled there (quiet exit), not by a signal.
  std::signal(SIGPIPE, SIG_IGN);

  CLI::App app{
      "gpucost reads the logs of a machine that trains models on its own GPU (dmesg, kern.log,\n"
      "syslog, journalctl, nvidia-smi dmon/--query-gpu/-q, ps) and answers whether that GPU costs\n"
      "less than renting a cloud GPU: effective utilization, incidents, suspends and AC switches\n"
      "measured from the logs, then a documented break-even model.",
      "gpucost"};
  app.set_version_flag("--version", std::string("gpucost ") + GPUCOST_VERSION);
  int verbosity = 0;
  bool quiet = false;
  app.add_flag("-v,--verbose", verbosity, "More on stderr: -v progress and stage timings, -vv debug");
  app.add_flag("-q,--quiet", quiet, "Only errors on stderr");
  app.require_subcommand(1);
  app.fallthrough();
  app.footer(std::string("\nExamples:\n"
                         "  gpucost analyze examples/laptop-training\n"
                         "  gpucost analyze /var/tmp/gpulogs --tz Asia/Shanghai --format json -o report.json\n"
                         "  gpucost timeline examples/laptop-training | jq 'select(.kind==\"xid\")'\n"
                         "  gpucost features --format md\n"
                         "  gpucost breakeven --preset seed-article\n"
                         "  gpucost offers h200\n"
                         "  gpucost fleet /shared/gpucost\n\n") +
             kExitCodes);

  RunState state;
  add_analyze(app, state);
  add_timeline(app, state);
  add_features(app, state);
  add_findings(app, state);
  add_breakeven(app, state);
  add_simulate(app, state);
  add_fleet(app, state);
  add_offers(app, state);
  app.parse_complete_callback([&] { setup_logging(verbosity, quiet); });

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints its own message; keep it to one line plus a hint.
    std::fprintf(stderr, "gpucost: error: %s\nRun with --help for usage.\n", e.what());
    return kExitUsage;
  } catch (const std::invalid_argument& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    print_error("out of memory: the system refused memory the run needed (a memory limit, or input larger than "
                "this machine can hold); no report was written");
    return kExitOutOfMemory;
  } catch (const std::exception& e) {
    print_error(std::string("internal error: ") + e.what());
    return kExitInternal;
  }
  return state.exit_code;
}

}  // namespace gpucost::cli
