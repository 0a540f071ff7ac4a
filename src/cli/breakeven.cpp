// Placeholder: `gpucost breakeven` lands with its issue.
#include "cli/common.hpp"

namespace gpucost::cli {
void add_breakeven(CLI::App& root, RunState& state) {
  CLI::App* app = root.add_subcommand("breakeven", "(not available in this build)");
  app->callback([&state] {
    print_error("breakeven is not available in this build");
    state.exit_code = kExitUsage;
  });
}
}  // namespace gpucost::cli
