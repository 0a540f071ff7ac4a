// `gpucost findings`: the rule table of the findings stage.
#include <memory>

#include "cli/common.hpp"
#include "gpucost/findings/findings.hpp"

namespace gpucost::cli {

namespace {
struct FindingsOptions {
  std::string format = "table";
  std::string output;
};
}  // namespace

void add_findings(CLI::App& root, RunState& state) {
  auto opts = std::make_shared<FindingsOptions>();
  CLI::App* app = root.add_subcommand("findings", "Print the findings rules (id, name, when each fires)");
  app->add_option("-f,--format", opts->format, "table (default) or md (all of docs/findings.md)")
      ->check(CLI::IsMember({"table", "md"}));
  app->add_option("-o,--output", opts->output, "Write to FILE instead of stdout");
  app->footer("\nExamples:\n  gpucost findings\n  gpucost findings --format md -o docs/findings.md\n");
  app->callback([opts, &state] { state.exit_code = emit(opts->output, findings::render_finding_rules(opts->format)); });
}

}  // namespace gpucost::cli
