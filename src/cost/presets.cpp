#include <cctype>
#include "gpucost/cost/presets.hpp"

#include <fmt/format.h>


#include "cost/json_read.hpp"
#include "gpucost/cost/catalog.hpp"
#include "gpucost/small_file.hpp"
#include "gpucost/text/number.hpp"

namespace gpucost::cost {

namespace {

using json::element;
using json::object;

// Replaces the entry with the same name, or appends.
template <typename T>
void upsert(std::vector<T>& v, T item) {
  for (auto& x : v)
    if (x.name == item.name) {
      x = std::move(item);
      return;
    }
  v.push_back(std::move(item));
}

template <typename T>
const T* find_named(const std::vector<T>& v, std::string_view name) {
  for (const auto& x : v)
    if (x.name == name) return &x;
  return nullptr;
}

std::optional<double> opt_number(element e, std::string_view origin, std::string_view key) {
  if (e.is_null()) return std::nullopt;
  return json::as_number(e, origin, key);
}

// Keys with text values document an entry (sources, dates, notes) and are kept or ignored; a
// number under an unknown key is most likely a misspelt input, so it is an error.
void unknown_key(element value, std::string_view origin, std::string_view key) {
  if (value.is_string() || value.is_null()) return;
  json::fail(origin, key, "unknown key (numbers are only read under the documented names)");
}

std::string require_name(object o, std::string_view origin, std::string_view what) {
  element e;
  if (o["name"].get(e)) json::fail(origin, what, "an entry has no \"name\"");
  std::string name = json::as_string(e, origin, std::string(what) + ".name");
  if (name.empty()) json::fail(origin, what, "an entry has an empty \"name\"");
  return name;
}

LocalGpu parse_local(object o, std::string_view origin) {
  LocalGpu g;
  g.name = require_name(o, origin, "local");
  const std::string at = "local[" + g.name + "]";
  for (auto field : o) {
    const std::string_view k = field.key;
    const std::string key = at + "." + std::string(k);
    if (k == "name") continue;
    if (k == "label") g.label = json::as_string(field.value, origin, key);
    else if (k == "currency") g.currency = currency_code(json::as_string(field.value, origin, key));
    else if (k == "accelerator") g.accelerator = json::as_string(field.value, origin, key);
    else if (k == "kind") g.kind = json::as_string(field.value, origin, key);
    else if (k == "price_observed_on") g.price_observed_on = json::as_string(field.value, origin, key);
    else if (k == "price_source_kind") g.price_source_kind = json::as_string(field.value, origin, key);
    else if (k == "purchase_price") g.purchase_price = opt_number(field.value, origin, key);
    else if (k == "power_w") g.power_w = opt_number(field.value, origin, key);
    else if (k == "throughput") g.throughput = opt_number(field.value, origin, key);
    else if (k == "price_source") g.price_source = json::as_string(field.value, origin, key);
    else if (k == "power_source") g.power_source = json::as_string(field.value, origin, key);
    else if (k == "throughput_source") g.throughput_source = json::as_string(field.value, origin, key);
    else if (k == "memory_bandwidth_gbs") g.memory_bandwidth_gbs = opt_number(field.value, origin, key);
    else if (k == "memory_bandwidth_source") g.memory_bandwidth_source = json::as_string(field.value, origin, key);
    else if (k == "note") g.note = json::as_string(field.value, origin, key);
    else unknown_key(field.value, origin, key);
  }
  if (g.purchase_price && g.currency.empty()) json::fail(origin, at, "a purchase_price needs a \"currency\"");
  return g;
}

CloudOffer parse_cloud(object o, std::string_view origin) {
  CloudOffer c;
  c.name = require_name(o, origin, "cloud");
  const std::string at = "cloud[" + c.name + "]";
  for (auto field : o) {
    const std::string_view k = field.key;
    const std::string key = at + "." + std::string(k);
    if (k == "name") continue;
    if (k == "label") c.label = json::as_string(field.value, origin, key);
    else if (k == "provider") c.provider = json::as_string(field.value, origin, key);
    else if (k == "gpu") c.gpu = json::as_string(field.value, origin, key);
    else if (k == "currency") c.currency = currency_code(json::as_string(field.value, origin, key));
    else if (k == "hourly_rate") c.hourly_rate = opt_number(field.value, origin, key);
    else if (k == "spot_rate") c.spot_rate = opt_number(field.value, origin, key);
    else if (k == "committed_rate") c.committed_rate = opt_number(field.value, origin, key);
    else if (k == "billing_increment_s") c.billing_increment_s = opt_number(field.value, origin, key);
    else if (k == "minimum_billing_s") c.minimum_billing_s = opt_number(field.value, origin, key);
    else if (k == "region") c.region = json::as_string(field.value, origin, key);
    else if (k == "accelerator") c.accelerator = json::as_string(field.value, origin, key);
    else if (k == "cold_start_s") c.cold_start_s = opt_number(field.value, origin, key);
    else if (k == "utilization") c.utilization = opt_number(field.value, origin, key);
    else if (k == "throughput") c.throughput = opt_number(field.value, origin, key);
    else if (k == "source") c.source = json::as_string(field.value, origin, key);
    else if (k == "seen") c.seen = json::as_string(field.value, origin, key);
    else if (k == "source_kind") c.source_kind = json::as_string(field.value, origin, key);
    else if (k == "cold_start_source") c.cold_start_source = json::as_string(field.value, origin, key);
    else if (k == "throughput_source") c.throughput_source = json::as_string(field.value, origin, key);
    else if (k == "memory_bandwidth_gbs") c.memory_bandwidth_gbs = opt_number(field.value, origin, key);
    else if (k == "memory_bandwidth_source") c.memory_bandwidth_source = json::as_string(field.value, origin, key);
    else if (k == "note") c.note = json::as_string(field.value, origin, key);
    else unknown_key(field.value, origin, key);
  }
  if (c.hourly_rate && c.currency.empty()) json::fail(origin, at, "an hourly_rate needs a \"currency\"");
  return c;
}

// {"power_w": 115, ...} under "local" or "cloud" of a scenario.
void parse_side_values(object o, Side side, std::string_view origin, const std::string& at,
                       std::map<InputId, double>& out) {
  for (auto field : o) {
    const std::string key = at + "." + std::string(field.key);
    const auto id = find_input(side, field.key);
    if (!id) json::fail(origin, key, fmt::format("not an input of the {} side", side_name(side)));
    out[*id] = json::as_number(field.value, origin, key);
  }
}

Scenario parse_scenario(object o, std::string_view origin) {
  Scenario s;
  s.name = require_name(o, origin, "scenarios");
  const std::string at = "scenarios[" + s.name + "]";
  for (auto field : o) {
    const std::string_view k = field.key;
    const std::string key = at + "." + std::string(k);
    if (k == "name") continue;
    if (k == "description") s.description = json::as_string(field.value, origin, key);
    else if (k == "currency") s.currency = currency_code(json::as_string(field.value, origin, key));
    else if (k == "local_gpu") s.local_gpu = json::as_string(field.value, origin, key);
    else if (k == "cloud_offer") s.cloud_offer = json::as_string(field.value, origin, key);
    else if (k == "local") parse_side_values(json::as_object(field.value, origin, key), Side::kLocal, origin, key, s.values);
    else if (k == "cloud") parse_side_values(json::as_object(field.value, origin, key), Side::kCloud, origin, key, s.values);
    else if (k == "notes") {
      for (auto note : json::as_object(field.value, origin, key)) {
        const std::string nkey = key + "." + std::string(note.key);
        const std::string_view name = note.key;
        const auto dot = name.find('.');
        const std::optional<InputId> id =
            dot == std::string_view::npos ? std::nullopt
            : name.substr(0, dot) == "local" ? find_input(Side::kLocal, name.substr(dot + 1))
            : name.substr(0, dot) == "cloud" ? find_input(Side::kCloud, name.substr(dot + 1))
                                             : std::nullopt;
        if (!id) json::fail(origin, nkey, "expected a key like \"local.power_w\"");
        s.notes[*id] = json::as_string(note.value, origin, nkey);
      }
    } else {
      unknown_key(field.value, origin, key);
    }
  }
  bool money = false;
  for (const auto& [id, v] : s.values) money = money || spec(id).money;
  if (money && s.currency.empty()) json::fail(origin, at, "money values need a \"currency\"");
  return s;
}

CurrencyDefaults parse_currency_defaults(object o, std::string_view origin) {
  CurrencyDefaults d;
  element e;
  if (o["currency"].get(e)) json::fail(origin, "currency_defaults", "an entry has no \"currency\"");
  d.currency = currency_code(json::as_string(e, origin, "currency_defaults.currency"));
  const std::string at = "currency_defaults[" + d.currency + "]";
  for (auto field : o) {
    const std::string_view k = field.key;
    const std::string key = at + "." + std::string(k);
    if (k == "currency") continue;
    const auto id = find_input(Side::kLocal, k);
    if (!id || !spec(*id).money) {
      unknown_key(field.value, origin, key);
      continue;
    }
    // A number, or {"value": number, "note": "where it comes from"}.
    if (json::is_number(field.value)) {
      d.values[*id] = json::as_number(field.value, origin, key);
      continue;
    }
    for (auto part : json::as_object(field.value, origin, key)) {
      if (part.key == "value") d.values[*id] = json::as_number(part.value, origin, key + ".value");
      else if (part.key == "note") d.notes[*id] = json::as_string(part.value, origin, key + ".note");
      else unknown_key(part.value, origin, key + "." + std::string(part.key));
    }
    if (!d.values.count(*id)) json::fail(origin, key, "has no \"value\"");
  }
  return d;
}

AcceleratorSpec parse_accelerator(object o, std::string_view origin) {
  AcceleratorSpec a;
  a.name = require_name(o, origin, "accelerators");
  const std::string at = "accelerators[" + a.name + "]";
  for (auto field : o) {
    const std::string_view k = field.key;
    const std::string key = at + "." + std::string(k);
    if (k == "name") continue;
    if (k == "label") a.label = json::as_string(field.value, origin, key);
    else if (k == "throughput") a.throughput = opt_number(field.value, origin, key);
    else if (k == "memory_bandwidth_gbs") a.memory_bandwidth_gbs = opt_number(field.value, origin, key);
    else if (k == "power_w") a.power_w = opt_number(field.value, origin, key);
    else if (k == "throughput_source") a.throughput_source = json::as_string(field.value, origin, key);
    else if (k == "memory_bandwidth_source") a.memory_bandwidth_source = json::as_string(field.value, origin, key);
    else if (k == "power_source") a.power_source = json::as_string(field.value, origin, key);
    else unknown_key(field.value, origin, key);
  }
  return a;
}

template <typename F>
void each_object(element arr, std::string_view origin, std::string_view key, F&& f) {
  simdjson::dom::array a;
  if (arr.get(a)) json::fail(origin, key, "expected an array");
  for (element e : a) f(json::as_object(e, origin, key));
}

}  // namespace

void PresetCatalog::load_json(std::string_view text, std::string_view origin) {
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(text);
  const object root = json::as_object(json::parse(parser, padded, origin), origin, "(document)");
  for (auto field : root) {
    const std::string_view k = field.key;
    if (k == "local") each_object(field.value, origin, k, [&](object o) { upsert(local, parse_local(o, origin)); });
    else if (k == "cloud") each_object(field.value, origin, k, [&](object o) { upsert(cloud, parse_cloud(o, origin)); });
    else if (k == "accelerators")
      each_object(field.value, origin, k, [&](object o) { upsert(accelerators, parse_accelerator(o, origin)); });
    else if (k == "scenarios")
      each_object(field.value, origin, k, [&](object o) { upsert(scenarios, parse_scenario(o, origin)); });
    else if (k == "currency_defaults")
      each_object(field.value, origin, k, [&](object o) {
        CurrencyDefaults d = parse_currency_defaults(o, origin);
        for (auto& x : currency_defaults)
          if (x.currency == d.currency) {
            for (const auto& [id, v] : d.values) {
              x.values[id] = v;
              x.notes[id] = d.notes.count(id) ? d.notes.at(id) : std::string();
            }
            return;
          }
        currency_defaults.push_back(std::move(d));
      });
    else if (k == "throughput_unit") throughput_unit = json::as_string(field.value, origin, k);
    else if (k == "memory_bandwidth_unit") memory_bandwidth_unit = json::as_string(field.value, origin, k);
    else if (k == "generic_pair") {
      for (auto p : json::as_object(field.value, origin, k)) {
        if (p.key == "local") default_local = json::as_string(p.value, origin, "generic_pair.local");
        else if (p.key == "cloud") default_cloud = json::as_string(p.value, origin, "generic_pair.cloud");
        else unknown_key(p.value, origin, "generic_pair." + std::string(p.key));
      }
    } else if (k == "schema" || k == "about" || k == "sources" || k == "notes") {
      continue;  // documentation
    } else {
      unknown_key(field.value, origin, k);
    }
  }
}

const LocalGpu* PresetCatalog::find_local(std::string_view name) const noexcept { return find_named(local, name); }
void PresetCatalog::upsert_local(LocalGpu g) { upsert(local, std::move(g)); }
void PresetCatalog::upsert_cloud(CloudOffer o) { upsert(cloud, std::move(o)); }
namespace {
// `NVIDIA GeForce RTX 4060 Laptop GPU` -> `rtx4060laptop`.
std::string product_key(std::string_view s) {
  std::string k;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c))) k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view w : {"nvidia", "geforce", "gpu"})
    for (auto p = k.find(w); p != std::string::npos; p = k.find(w)) k.erase(p, w.size());
  return k;
}

// A product name taken apart: the model (`a100`, `rtx4060`, `rtx6000ada`), its memory (`80gb`),
// form factor (`sxm`, `pcie`, `nvl`) and whether it is a laptop part. nvidia-smi writes the same
// GPU as `NVIDIA A100-SXM4-80GB`, a catalog as `NVIDIA A100 80GB SXM`; an SXM5 H100 is
// `NVIDIA H100 80GB HBM3` (the PCIe and NVL cards name their form instead).
struct ProductParts {
  std::string model, memory, form;
  bool laptop = false;
};

ProductParts product_parts(std::string_view s) {
  ProductParts p;
  std::string token;
  auto take = [&] {
    if (token.empty()) return;
    const bool gb = token.size() > 2 && token.compare(token.size() - 2, 2, "gb") == 0 &&
                    std::isdigit(static_cast<unsigned char>(token[0]));
    if (token == "nvidia" || token == "geforce" || token == "gpu" || token == "generation" || token == "tesla") {
    } else if (token == "laptop" || token == "mobile" || token == "max" || token == "q") {
      p.laptop = p.laptop || token == "laptop" || token == "mobile";
    } else if (gb) {
      p.memory = token;
    } else if (token.rfind("sxm", 0) == 0 || token == "hbm3" || token == "hbm3e") {
      p.form = "sxm";
    } else if (token == "pcie" || token == "nvl") {
      p.form = token;
    } else {
      p.model += token;
    }
    token.clear();
  };
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) token += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else take();
  }
  take();
  return p;
}

// How well a preset's label fits a product: 0 when they are different GPUs (model, laptop part,
// or a form factor or memory size both state and that differ), else 1 plus each agreeing detail.
int product_fit(const ProductParts& want, const ProductParts& have) {
  if (want.model.empty() || want.model != have.model || want.laptop != have.laptop) return 0;
  int fit = 1;
  for (auto [a, b] : {std::pair{&want.form, &have.form}, std::pair{&want.memory, &have.memory}}) {
    if (a->empty() || b->empty()) continue;
    if (*a != *b) return 0;
    ++fit;
  }
  return fit;
}
}  // namespace

const LocalGpu* PresetCatalog::match_local(std::string_view product) const {
  // First by parts: model, memory, form factor, laptop.
  const ProductParts want = product_parts(product);
  const LocalGpu* best = nullptr;
  int best_fit = 0;
  for (const auto& g : local) {
    const int fit = product_fit(want, product_parts(g.label.empty() ? g.name : g.label));
    if (fit > best_fit) {
      best = &g;
      best_fit = fit;
    }
  }
  if (best) return best;
  // Then by containment, for products with a suffix the parts do not know (`RTX 4090 D`).
  const std::string want_key = product_key(product);
  if (want_key.empty()) return nullptr;
  std::size_t best_len = 0;
  for (const auto& g : local) {
    const std::string k = product_key(g.label.empty() ? g.name : g.label);
    if (k.empty() || want_key.find(k) == std::string::npos) continue;
    // `rtx4060laptop` must not match a plain `rtx4060` product, nor `rtx4090` an `rtx4090laptop`,
    // nor `l4` an `l40`: what follows the label in the product may only be a variant letter.
    const std::string tail = want_key.substr(want_key.find(k) + k.size());
    if (tail.find("laptop") != std::string::npos || tail.find("mobile") != std::string::npos) continue;
    if (!tail.empty() && std::isdigit(static_cast<unsigned char>(tail[0]))) continue;
    if (k.size() > best_len) {
      best = &g;
      best_len = k.size();
    }
  }
  return best;
}

const AcceleratorSpec* PresetCatalog::find_accelerator(std::string_view name) const {
  const std::string want = product_key(name);
  if (want.empty()) return nullptr;
  for (const auto& a : accelerators)
    if (product_key(a.name) == want) return &a;
  return nullptr;
}

const CloudOffer* PresetCatalog::first_cloud_in(std::string_view currency) const noexcept {
  for (const auto& c : cloud)
    if (c.currency == currency) return &c;
  return nullptr;
}

const CloudOffer* PresetCatalog::find_cloud(std::string_view name) const noexcept { return find_named(cloud, name); }
const Scenario* PresetCatalog::find_scenario(std::string_view name) const noexcept {
  return find_named(scenarios, name);
}
const CurrencyDefaults* PresetCatalog::find_currency(std::string_view code) const noexcept {
  for (const auto& d : currency_defaults)
    if (d.currency == code) return &d;
  return nullptr;
}

const PresetCatalog& builtin_presets() {
  static const PresetCatalog catalog = [] {
    PresetCatalog c;
    c.load_json(embedded_presets_json(), "built-in presets (data/presets.json)");
    load_catalog_csv(c, embedded_cloud_offers_csv(), "built-in catalog (data/cloud-offers.csv)");
    load_catalog_csv(c, embedded_local_gpus_csv(), "built-in catalog (data/local-gpus.csv)");
    return c;
  }();
  return catalog;
}

PresetCatalog load_presets(const std::vector<std::string>& files, const std::vector<std::string>& catalogs) {
  PresetCatalog c = builtin_presets();
  for (const auto& f : files) c.load_json(read_small_file(f, kMaxPresetsFileBytes, "presets file"), f);
  for (const auto& f : catalogs) load_catalog_csv(c, read_small_file(f, kMaxCatalogFileBytes, "catalog file"), f);
  return c;
}

std::string list_presets(const PresetCatalog& c) {
  std::string out;
  auto num = [](const std::optional<double>& v) { return v ? format_number(*v) : std::string("-"); };
  out += fmt::format("Scenarios (--preset NAME):\n");
  for (const auto& s : c.scenarios) out += fmt::format("  {:<22} {} [{}]\n", s.name, s.description, s.currency);
  out += fmt::format("\nLocal GPUs (--local NAME): price, board power, throughput ({})\n", c.throughput_unit);
  for (const auto& g : c.local)
    out += fmt::format("  {:<22} {:<34} {:>8} {:<3} {:>6} W {:>7}{}\n", g.name, g.label, num(g.purchase_price),
                       g.currency, num(g.power_w), num(g.throughput), g.name == c.default_local ? "  (default)" : "");
  out += fmt::format(
      "\nCloud offers (--cloud NAME): on-demand and spot rate per hour, cold start, throughput, price observed on\n");
  for (const auto& o : c.cloud)
    out += fmt::format("  {:<22} {:<66} {:>7} {:>7} {:<3} {:>4} s {:>6}  {}{}\n", o.name, o.label, num(o.hourly_rate),
                       num(o.spot_rate), o.currency, num(o.cold_start_s), num(o.throughput),
                       o.seen.empty() ? "undated" : o.seen, o.name == c.default_cloud ? "  (default)" : "");
  return out;
}

}  // namespace gpucost::cost
