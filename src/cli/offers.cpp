// `gpucost offers [GPU[:COUNT]]`: the catalogs' cloud offers for one GPU, cheapest first.
#include <memory>

#include "cli/common.hpp"
#include "gpucost/cost/offers.hpp"
#include "gpucost/cost/presets.hpp"

namespace gpucost::cli {

namespace {
struct OffersOptions {
  std::string gpu;
  std::string format = "table";
  std::string output;
  std::vector<std::string> preset_files, catalog_files;
};

int run_offers(const OffersOptions& o) {
  std::string out;
  try {
    const cost::OfferQuery q = cost::parse_offer_query(o.gpu);
    const cost::PresetCatalog catalog = cost::load_presets(o.preset_files, o.catalog_files);
    out = cost::render_offers(cost::find_offers(catalog, q), q, o.format);
  } catch (const std::invalid_argument& e) {
    print_error(e.what());
    return kExitUsage;
  }
  return emit(o.output, out);
}
}  // namespace

void add_offers(CLI::App& root, RunState& state) {
  auto opts = std::make_shared<OffersOptions>();
  CLI::App* app = root.add_subcommand(
      "offers", "Every cloud offer for a GPU, cheapest first: provider, region, on-demand and spot price, billing,\n"
                "cold start, and where and when each price was read");
  app->add_option("GPU", opts->gpu,
                  "GPU model, optionally with the GPUs per instance: h200, a100, a100-80gb, rtx-4090, H100:8\n"
                  "(a bare model takes its variants: a100 lists A100, A100-80GB and A100-80GB-PCIe). Omit it\n"
                  "to list every offer");
  app->add_option("-f,--format", opts->format,
                  "table (default, for people), csv or json (for scripts; observed_on is the date a price was read)")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  app->add_option("-o,--output", opts->output, "Write to FILE (atomically) instead of stdout");
  app->add_option("--presets", opts->preset_files, "JSON file of extra presets (data/presets.json format; repeatable)")
      ->check(CLI::ExistingFile);
  app->add_option("--catalog", opts->catalog_files,
                  "Price catalog CSV to add (repeatable; same names replace built-in rows): gpucost's layout\n"
                  "(data/cloud-offers.csv) or a SkyPilot catalog as published (catalogs/v7/CLOUD/vms.csv)")
      ->check(CLI::ExistingFile);
  app->footer(
      "\nEach price carries its source and the date it was observed (OBSERVED; 'undated' when the source\n"
      "gives none) and what the source is (SOURCE KIND): provider (the provider's own price list),\n"
      "third_party (someone else's report of it), estimate, or unverified. Prices are per instance-hour:\n"
      "an 8-GPU instance's price is for all eight, so offers are grouped by GPU count (QTY). COLD START is\n"
      "the billed start-up time; '(default)' means the catalog has no figure for that offer and the cost\n"
      "model's default is used. Pass an offer's name to --cloud of breakeven or analyze.\n"
      "\nExamples:\n"
      "  gpucost offers h200\n"
      "  gpucost offers H100:8 --format csv\n"
      "  gpucost offers rtx-4090 --format json | jq '.offers[] | {name, on_demand, observed_on}'\n"
      "  gpucost offers a100 --catalog skypilot-catalog/catalogs/v7/lambda/vms.csv\n"
      "  gpucost breakeven --local rtx-4090 --cloud runpod-rtx-4090\n"
      "\nExit codes: 0 ok, 2 usage (a GPU no offer is of: the message lists the known ones; a bad catalog),\n"
      "5 output error.");
  app->callback([opts, &state] { state.exit_code = run_offers(*opts); });
}

}  // namespace gpucost::cli
