#include "gpucost/cost/offers.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>
#include <stdexcept>
#include <tuple>

#include "gpucost/cost/inputs.hpp"
#include "gpucost/text/csv.hpp"
#include "gpucost/text/json.hpp"
#include "gpucost/text/number.hpp"

namespace gpucost::cost {

namespace {

// `NVIDIA GeForce RTX 4090` -> `rtx4090`.
std::string gpu_key(std::string_view s) {
  std::string k;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c))) k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view w : {"nvidia", "geforce"})
    if (k.rfind(w, 0) == 0) k.erase(0, w.size());
  return k;
}

// `A100-80GB-PCIe` -> `a100`: the model without its memory or form variant.
std::string base_key(std::string_view accelerator) { return gpu_key(accelerator.substr(0, accelerator.find('-'))); }

std::string number_or_dash(const std::optional<double>& v) { return v ? format_number(*v) : std::string("-"); }

double cold_start_of(const CloudOffer& o) { return o.cold_start_s.value_or(spec(InputId::kColdStartS).fallback); }

std::string cold_start_source_of(const CloudOffer& o) {
  if (o.cold_start_s) return o.cold_start_source.empty() ? std::string("the catalog (no source given)") : o.cold_start_source;
  return fmt::format("default cloud.cold_start_s: {}", spec(InputId::kColdStartS).fallback_why);
}

std::string billing_of(const CloudOffer& o) {
  if (!o.billing_increment_s && !o.minimum_billing_s) return "-";
  std::string s = o.billing_increment_s ? fmt::format("per {} s", format_number(*o.billing_increment_s)) : "";
  if (o.minimum_billing_s)
    s += fmt::format("{}min {} s", s.empty() ? "" : ", ", format_number(*o.minimum_billing_s));
  return s;
}

// The price an offer sorts by: on-demand first, then offers with only a spot or committed price.
std::tuple<int, double> price_key(const CloudOffer& o) {
  if (o.hourly_rate) return {0, *o.hourly_rate};
  if (o.spot_rate) return {1, *o.spot_rate};
  return {2, o.committed_rate.value_or(0)};
}

std::string gpu_label(const CloudOffer& o) { return o.accelerator.empty() ? o.gpu : o.accelerator; }

std::string render_table(const std::vector<const CloudOffer*>& offers, const OfferQuery& q) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"GPU", "QTY", "OFFER (--cloud)", "PROVIDER", "REGION", "ON-DEMAND/H", "SPOT/H", "CURRENCY", "BILLING",
                  "COLD START", "SOURCE KIND", "OBSERVED", "SOURCE"});
  std::vector<std::string> sources;  // numbered once each, in order of first use
  for (const CloudOffer* o : offers) {
    auto it = std::find(sources.begin(), sources.end(), o->source);
    if (it == sources.end()) it = sources.insert(sources.end(), o->source);
    const double cs = cold_start_of(*o);
    std::string cold = fmt::format("{} s", format_number(cs));
    if (!o->cold_start_s) cold += " (default)";
    else if (o->cold_start_source.rfind("assumed", 0) == 0) cold += " (assumed)";
    rows.push_back({gpu_label(*o), format_number(o->accelerator_count), o->name, o->provider,
                    o->region.empty() ? "-" : o->region, number_or_dash(o->hourly_rate), number_or_dash(o->spot_rate),
                    o->currency, billing_of(*o), cold, o->source_kind.empty() ? "-" : o->source_kind,
                    o->seen.empty() ? "undated" : o->seen, fmt::format("[{}]", it - sources.begin() + 1)});
  }
  std::vector<std::size_t> width(rows[0].size(), 0);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  std::string out = fmt::format(
      "{} offer{} {}{}: price per instance-hour, cheapest first for each GPU count\n\n", offers.size(),
      offers.size() == 1 ? "" : "s", q.gpu.empty() ? "in the catalogs" : "for " + q.gpu,
      q.count ? fmt::format(" with {} GPU{}", format_number(*q.count), *q.count == 1 ? "" : "s") : "");
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line.append(width[i] - r[i].size() + 2, ' ');
    }
    out += line + "\n";
  }
  out += "\nSources:\n";
  for (std::size_t i = 0; i < sources.size(); ++i)
    out += fmt::format("  [{}] {}\n", i + 1, sources[i].empty() ? "(none given)" : sources[i]);
  out +=
      "\nSource kinds: provider = the provider's own price list (or a dated transcription of it); third_party = "
      "someone else's report of it;\nestimate = a market estimate; unverified = not checked, kept to reproduce a "
      "published calculation. Prices move: refresh them with\n--catalog FILE (docs/offers.md). Compare one offer "
      "with your GPU: gpucost breakeven --cloud OFFER --local GPU\n";
  return out;
}

std::string render_csv(const std::vector<const CloudOffer*>& offers) {
  std::string out;
  CsvWriter c(out);
  for (const char* h : {"name", "provider", "accelerator", "accelerator_count", "region", "currency", "on_demand", "spot",
                        "committed", "billing_increment_s", "minimum_billing_s", "cold_start_s", "cold_start_source",
                        "source_kind", "observed_on", "source"})
    c.field(h);
  c.end_row();
  auto num = [&](const std::optional<double>& v) -> CsvWriter& { return v ? c.number(*v) : c.field(""); };
  for (const CloudOffer* o : offers) {
    c.field(o->name).field(o->provider).field(gpu_label(*o)).number(o->accelerator_count).field(o->region).field(o->currency);
    num(o->hourly_rate);
    num(o->spot_rate);
    num(o->committed_rate);
    num(o->billing_increment_s);
    num(o->minimum_billing_s);
    c.number(cold_start_of(*o)).field(cold_start_source_of(*o)).field(o->source_kind).field(o->seen).field(o->source);
    c.end_row();
  }
  return out;
}

std::string render_json(const std::vector<const CloudOffer*>& offers, const OfferQuery& q) {
  std::string out;
  JsonWriter w(out);
  auto text_or_null = [&](std::string_view k, const std::string& v) {
    w.key(k);
    if (v.empty()) w.null();
    else w.value(v);
  };
  w.begin_object();
  text_or_null("gpu", q.gpu);
  w.kv("count", q.count);
  w.key("offers").begin_array();
  for (const CloudOffer* o : offers) {
    w.begin_object();
    w.kv("name", o->name).kv("provider", o->provider).kv("accelerator", gpu_label(*o));
    w.kv("accelerator_count", o->accelerator_count);
    text_or_null("region", o->region);
    w.kv("currency", o->currency).kv("on_demand", o->hourly_rate).kv("spot", o->spot_rate);
    w.kv("committed", o->committed_rate);
    w.kv("billing_increment_s", o->billing_increment_s).kv("minimum_billing_s", o->minimum_billing_s);
    w.kv("cold_start_s", cold_start_of(*o)).kv("cold_start_source", cold_start_source_of(*o));
    w.kv("cold_start_is_default", !o->cold_start_s);
    text_or_null("source_kind", o->source_kind);
    text_or_null("observed_on", o->seen);
    w.kv("source", o->source);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  out += '\n';
  return out;
}

}  // namespace

OfferQuery parse_offer_query(std::string_view text) {
  OfferQuery q;
  const auto colon = text.rfind(':');
  q.gpu = std::string(text.substr(0, colon));
  while (!q.gpu.empty() && std::isspace(static_cast<unsigned char>(q.gpu.back()))) q.gpu.pop_back();
  if (colon != std::string_view::npos) {
    const std::string_view n = text.substr(colon + 1);
    double v = 0;
    const auto r = std::from_chars(n.data(), n.data() + n.size(), v);
    if (r.ec != std::errc() || r.ptr != n.data() + n.size() || !std::isfinite(v) || v <= 0)
      throw std::invalid_argument(
          fmt::format("'{}': the GPU count after ':' must be a positive number (H100:8 is eight H100s)", text));
    q.count = v;
  }
  return q;
}

bool offer_is_gpu(const CloudOffer& o, std::string_view gpu) {
  const std::string want = gpu_key(gpu);
  if (want.empty()) return false;
  for (const std::string& k : {gpu_key(o.accelerator), base_key(o.accelerator), gpu_key(o.gpu)})
    if (!k.empty() && (k == want || k == "rtx" + want)) return true;
  return false;
}

std::vector<std::string> offer_gpu_names(const PresetCatalog& catalog) {
  std::set<std::string> names;
  for (const auto& o : catalog.cloud) names.insert(gpu_label(o));
  names.erase("");
  return {names.begin(), names.end()};
}

std::vector<const CloudOffer*> find_offers(const PresetCatalog& catalog, const OfferQuery& q) {
  std::vector<const CloudOffer*> of_gpu;
  for (const auto& o : catalog.cloud)
    if (q.gpu.empty() || offer_is_gpu(o, q.gpu)) of_gpu.push_back(&o);
  if (of_gpu.empty()) {
    const auto names = offer_gpu_names(catalog);
    throw std::invalid_argument(fmt::format("no offer in the catalogs is of GPU '{}'; the GPUs they have: {}", q.gpu,
                                            fmt::join(names, ", ")));
  }
  std::vector<const CloudOffer*> out;
  std::set<double> counts;
  for (const CloudOffer* o : of_gpu) {
    counts.insert(o->accelerator_count);
    if (!q.count || o->accelerator_count == *q.count) out.push_back(o);
  }
  if (out.empty()) {
    std::vector<std::string> c;
    for (double n : counts) c.push_back(format_number(n));
    throw std::invalid_argument(fmt::format("no {} offer has {} GPUs; the offers of that GPU have {} GPUs (GPU:COUNT)",
                                            q.gpu, format_number(*q.count), fmt::join(c, ", ")));
  }
  std::stable_sort(out.begin(), out.end(), [](const CloudOffer* a, const CloudOffer* b) {
    return std::make_tuple(gpu_label(*a), a->accelerator_count, a->currency, price_key(*a), a->name) <
           std::make_tuple(gpu_label(*b), b->accelerator_count, b->currency, price_key(*b), b->name);
  });
  return out;
}

std::string render_offers(const std::vector<const CloudOffer*>& offers, const OfferQuery& query,
                          std::string_view format) {
  if (format == "json") return render_json(offers, query);
  if (format == "csv") return render_csv(offers);
  return render_table(offers, query);
}

}  // namespace gpucost::cost
