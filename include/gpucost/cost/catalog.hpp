#pragma once
/// \file catalog.hpp
/// Price catalogs people can refresh: CSV files with, on every row, where the price comes from
/// and the date it was observed. Cloud offers use SkyPilot's catalog columns (InstanceType,
/// AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, Region, Price, SpotPrice) plus Name,
/// Provider, CommittedPrice, Currency, BillingIncrementS, MinimumBillingS, ColdStartS, Source and
/// ObservedOn; local GPUs: Name, AcceleratorName, Price, Currency, Kind, Source, ObservedOn. The
/// built-in catalogs (data/cloud-offers.csv, data/local-gpus.csv) are compiled into the binary;
/// `--catalog FILE` adds a newer one (its header says which kind it is). Currency conversion
/// happens only with an explicit, dated rate (`--fx FILE`: From,To,Rate,Source,ObservedOn).

#ifndef GPUCOST_LAYER_COST
#error "gpucost_cost header: include it only in gpucost_cost or a layer above it (docs/architecture.md, Layers)"
#endif

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::cost {

struct PresetCatalog;

/// A CSV document as rows of fields: RFC 4180 quoting (`"a,b"`, `""` for a quote), `\r\n` or
/// `\n`, blank lines skipped. Throws std::invalid_argument naming `origin` and the line for an
/// unterminated quote.
std::vector<std::vector<std::string>> parse_csv(std::string_view text, std::string_view origin);

/// `usd` -> `USD`: currency codes compare without case.
std::string currency_code(std::string_view code);

/// Days from `observed_on` (YYYY-MM-DD) to `today` (YYYY-MM-DD); nullopt when either is not a date.
std::optional<int> days_between(std::string_view observed_on, std::string_view today);

/// Adds the rows of a catalog CSV to the presets (an existing name is replaced; a local GPU row
/// sets the price of the preset of that name, or adds a GPU known only by its price). The kind
/// (cloud offers or local GPUs) comes from the header. Throws std::invalid_argument naming
/// `origin`, the line and the column for a missing column, a malformed number or date.
void load_catalog_csv(PresetCatalog& catalog, std::string_view text, std::string_view origin);

/// One exchange rate: 1 `from` = `rate` `to`, observed on a date, from a source.
struct FxRate {
  std::string from, to;
  double rate = 0;
  std::string source, observed_on;
};
/// Parses an --fx file (From,To,Rate,Source,ObservedOn); every row needs all five.
std::vector<FxRate> parse_fx_csv(std::string_view text, std::string_view origin);

/// data/cloud-offers.csv and data/local-gpus.csv as compiled into the binary.
std::string_view embedded_cloud_offers_csv() noexcept;
std::string_view embedded_local_gpus_csv() noexcept;

/// Prices observed more than this many days before today are flagged (a warning on stderr).
inline constexpr int kStalePriceDays = 180;

}  // namespace gpucost::cost
