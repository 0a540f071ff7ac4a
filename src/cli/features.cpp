// `gpucost features`: the feature catalog.
#include <memory>

#include "cli/common.hpp"

namespace gpucost::cli {

namespace {
struct FeaturesOptions {
  std::string format = "table";
  std::string output;
};

}  // namespace

void add_features(CLI::App& root, RunState& state) {
  auto opts = std::make_shared<FeaturesOptions>();
  CLI::App* app = root.add_subcommand("features", "Print the feature catalog (id, name, unit, layer, sources, definition)");
  app->add_option("-f,--format", opts->format, "table (default), csv, json, or md (all of docs/features.md)")
      ->check(CLI::IsMember({"table", "csv", "json", "md"}));
  app->add_option("-o,--output", opts->output, "Write to FILE instead of stdout");
  app->footer("\nExamples:\n  gpucost features\n  gpucost features --format json | jq '.[] | select(.layer==\"driver\") | .name'\n");
  app->callback([opts, &state] { state.exit_code = emit(opts->output, render_feature_catalog(opts->format)); });
}

}  // namespace gpucost::cli
