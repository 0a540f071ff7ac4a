// Placeholder: `gpucost simulate` lands with its issue.
#include "cli/common.hpp"

namespace gpucost::cli {
void add_simulate(CLI::App& root, RunState& state) {
  CLI::App* app = root.add_subcommand("simulate", "(not available in this build)");
  app->callback([&state] {
    print_error("simulate is not available in this build");
    state.exit_code = kExitUsage;
  });
}
}  // namespace gpucost::cli
