// `gpucost features`: the feature catalog.
#include <fmt/format.h>

#include <memory>

#include "cli/common.hpp"
#include "gpucost/report/csv_writer.hpp"
#include "gpucost/report/json_writer.hpp"

namespace gpucost::cli {

namespace {
struct FeaturesOptions {
  std::string format = "table";
  std::string output;
};

std::string scope_name(FeatureScope s) { return s == FeatureScope::per_gpu ? "per_gpu" : "host"; }

std::string render(const std::string& format) {
  const auto cat = feature_catalog();
  std::string out;
  if (format == "json") {
    JsonWriter w(out);
    w.begin_array();
    for (const auto& d : cat) {
      w.begin_object().kv("id", d.id).kv("name", d.name).kv("unit", d.unit).kv("layer", layer_name(d.layer));
      w.kv("scope", scope_name(d.scope)).kv("sources", d.sources).kv("definition", d.definition).end_object();
    }
    w.end_array();
    out += '\n';
  } else if (format == "csv") {
    CsvWriter c(out);
    c.field("id").field("name").field("unit").field("layer").field("scope").field("sources").field("definition").end_row();
    for (const auto& d : cat)
      c.field(d.id).field(d.name).field(d.unit).field(layer_name(d.layer)).field(scope_name(d.scope))
          .field(d.sources).field(d.definition).end_row();
  } else if (format == "md") {
    out += "| id | name | unit | layer | scope | sources | definition |\n|---|---|---|---|---|---|---|\n";
    for (const auto& d : cat) {
      std::string def(d.definition), src(d.sources);
      for (auto* s : {&def, &src}) {
        std::string esc;
        for (char ch : *s) {
          if (ch == '|') esc += "\\|";
          else if (ch == '\n') esc += ' ';
          else esc += ch;
        }
        *s = esc;
      }
      out += fmt::format("| {} | `{}` | {} | {} | {} | {} | {} |\n", d.id, d.name, d.unit, layer_name(d.layer),
                         scope_name(d.scope), src, def);
    }
  } else {
    for (const auto& d : cat)
      out += fmt::format("{:<5} {:<40} {:<8} {:<12} {:<8} {}\n", d.id, d.name, d.unit, layer_name(d.layer),
                         scope_name(d.scope), d.sources);
  }
  return out;
}
}  // namespace

void add_features(CLI::App& root, RunState& state) {
  auto opts = std::make_shared<FeaturesOptions>();
  CLI::App* app = root.add_subcommand("features", "Print the feature catalog (id, name, unit, layer, sources, definition)");
  app->add_option("-f,--format", opts->format, "table (default), csv, json, or md (the docs/features.md table)")
      ->check(CLI::IsMember({"table", "csv", "json", "md"}));
  app->add_option("-o,--output", opts->output, "Write to FILE instead of stdout");
  app->footer("\nExamples:\n  gpucost features\n  gpucost features --format json | jq '.[] | select(.layer==\"driver\") | .name'\n");
  app->callback([opts, &state] { state.exit_code = emit(opts->output, render(opts->format)); });
}

}  // namespace gpucost::cli
