// `gpucost simulate`: writes a realistic log directory with its ground truth (truth.json).
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "cli/common.hpp"
#include "gpucost/sim/simulate.hpp"

namespace gpucost::cli {

namespace {
namespace fs = std::filesystem;

struct SimulateOptions {
  std::string scenario = "laptop";
  std::uint64_t seed = 1;
  std::string out;
  double hours = 0;
  std::string size;
  double noise = 1;
  bool force = false;
};

int run_simulate(const SimulateOptions& o) {
  // The files it writes have common names (syslog, kern.log, dmesg.txt): in a directory that
  // holds anything, they would overwrite someone's logs.
  std::error_code ec;
  if (!o.force && fs::is_directory(o.out, ec) && !fs::is_empty(o.out, ec)) {
    print_error(fmt::format("--out {}: the directory is not empty; simulate would overwrite files there. Use an "
                            "empty or new directory, or --force",
                            o.out));
    return kExitUsage;
  }
  sim::SimOptions so;
  so.scenario = *sim::scenario_from_name(o.scenario);
  so.seed = o.seed;
  so.out_dir = o.out;
  so.hours = o.hours;
  so.noise = o.noise;
  try {
    if (!o.size.empty()) so.size_bytes = sim::parse_size(o.size);
  } catch (const std::invalid_argument& e) {
    print_error(e.what());
    return kExitUsage;
  }
  sim::SimResult r;
  try {
    r = sim::simulate(so);
  } catch (const std::invalid_argument& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const std::runtime_error& e) {
    print_error(e.what());
    return kExitOutput;
  }
  const std::string noise = r.noise != 1 ? fmt::format(", noise x{:.2f}", r.noise) : std::string();
  std::string out = fmt::format("{}: {} scenario, seed {}, {:.2f} h simulated{}, {} files, {} bytes\n", o.out,
                                o.scenario, o.seed, r.hours, noise, r.files.size(), r.total_bytes);
  for (const auto& [name, bytes] : r.files) out += fmt::format("  {:<18} {:>12}\n", name, bytes);
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}
}  // namespace

void add_simulate(CLI::App& root, RunState& state) {
  auto o = std::make_shared<SimulateOptions>();
  CLI::App* app = root.add_subcommand(
      "simulate",
      "Write a realistic log directory of a machine training a model (dmon, dmesg, kern.log, syslog, journal JSON,\n"
      "ps, nvidia-smi -q, in the formats the real tools print) and truth.json, the ground truth: every injected\n"
      "event with its true UTC instant and the true values of the contract features. Same options, same bytes.");
  app->add_option("--scenario", o->scenario,
                  "laptop: RTX 4060 Laptop GPU in Asia/Shanghai, 4-6 h job, lid close + suspend, AC switches, Xids;\n"
                  "server: 4x A100 in America/Chicago, 6 h, no suspend/lid/AC, more noise;\n"
                  "no-dmon: the laptop without dmon and -q files;\n"
                  "datacenter: the server, healthy: busy at its 400 W default power limit, no fault (default laptop)")
      ->check(CLI::IsMember({"laptop", "server", "no-dmon", "datacenter"}));
  app->add_option("--seed", o->seed, "Seed of every random choice (default 1). Example: --seed 42");
  app->add_option("--out", o->out,
                  "Directory to write (created when missing; one that holds anything is refused without --force).\n"
                  "Example: --out /tmp/sim")
      ->required();
  app->add_flag("--force", o->force, "Write into a directory that is not empty, replacing files of the same names");
  app->add_option("--hours", o->hours, "Simulated span after boot (default: laptop 4-6 h by seed, server 6 h)")
      ->check(CLI::Range(0.25, 24.0 * 366));
  app->add_option("--size", o->size,
                  "Aim for about this many bytes in all (k/M/G = powers of 1024): sets the span, or with --hours\n"
                  "the noise. Example: --size 1G (a benchmark corpus); --hours 48 --size 1G (two days of a job\n"
                  "in a gigabyte of mostly noise, as scripts/bench.sh makes)");
  app->add_option("--noise", o->noise,
                  "Background chatter (cron, network, desktop, firewall, audit lines) as a multiple of the\n"
                  "scenario's rate (default 1). Example: --noise 50")
      ->check(CLI::Range(1.0, 1e6));
  app->footer("\nExample:\n  gpucost simulate --scenario laptop --seed 42 --hours 2 --out examples/laptop-training\n");
  app->callback([o, &state] { state.exit_code = run_simulate(*o); });
}

}  // namespace gpucost::cli
