// `gpucost breakeven`: the cost model without logs (presets, config file, options).
#include <memory>

#include "cli/common.hpp"
#include "cli/cost_options.hpp"
#include "gpucost/cost/presets.hpp"
#include "gpucost/report/cost_section.hpp"
#include "gpucost/text/csv.hpp"
#include "gpucost/text/json.hpp"

namespace gpucost::cli {

namespace {
struct BreakevenOptions {
  CostCliOptions cost;
  std::string format = "table";
  std::string output;
  bool list_presets = false;
};

int run_breakeven(const BreakevenOptions& o) {
  std::string out;
  try {
    if (o.list_presets) {
      out = cost::list_presets(cost::load_presets(o.cost.preset_files, o.cost.catalog_files));
    } else {
      const auto result = compute_cost(o.cost, nullptr);
      if (o.format == "json") {
        JsonWriter w(out);
        cost::write_cost_json(w, *result);
        out += '\n';
      } else if (o.format == "csv") {
        out = std::string(kFeatureCsvHeader) + "\n";
        CsvWriter c(out);
        cost::write_cost_csv_rows(c, *result);
      } else {
        cost::write_cost_table(out, *result);
      }
    }
  } catch (const std::invalid_argument& e) {
    print_error(e.what());
    return kExitUsage;
  }
  return emit(o.output, out);
}
}  // namespace

void add_breakeven(CLI::App& root, RunState& state) {
  auto opts = std::make_shared<BreakevenOptions>();
  CLI::App* app = root.add_subcommand(
      "breakeven", "Local GPU vs cloud GPU: cost per effective hour, job break-even, premium, buy vs rent");
  add_cost_options(*app, opts->cost, false);
  app->add_option("-f,--format", opts->format, "table (default, for people), csv or json (for scripts)")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  app->add_option("-o,--output", opts->output, "Write to FILE (atomically) instead of stdout");
  app->add_flag("--list-presets", opts->list_presets, "List the scenarios, local GPUs and cloud offers, then exit");
  app->footer(
      "\nPrecedence, highest first: command-line option > --config file > preset (--local/--cloud over\n"
      "--preset) > default. `gpucost analyze` adds the values measured from the logs between the config\n"
      "file and the presets (turn off with --no-measured). Formulas: docs/cost-model.md.\n"
      "\nExamples:\n"
      "  gpucost breakeven --preset seed-article\n"
      "  gpucost breakeven --preset seed-article --format json | jq .break_even\n"
      "  gpucost breakeven --local rtx-4090 --cloud lambda-1x-a10 --local-electricity-price 0.30\n"
      "  gpucost breakeven --config mysetup.json --job-hours 4 --target-premium 0.12\n"
      "  gpucost breakeven --list-presets\n"
      "\nExit codes: 0 ok, 2 usage (unknown preset, impossible input), 5 output error.");
  app->callback([opts, &state] { state.exit_code = run_breakeven(*opts); });
}

}  // namespace gpucost::cli
