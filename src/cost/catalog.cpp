#include "gpucost/cost/catalog.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "gpucost/cost/presets.hpp"
#include "gpucost/text/number.hpp"
#include "gpucost/time.hpp"

namespace gpucost::cost {

std::vector<std::vector<std::string>> parse_csv(std::string_view text, std::string_view origin) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  std::size_t line = 1, quote_line = 0;
  auto end_row = [&] {
    if (any || !field.empty() || !row.empty()) {
      row.push_back(std::move(field));
      rows.push_back(std::move(row));
    }
    row.clear();
    field.clear();
    any = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
      any = true;
      quote_line = line;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
      any = true;
    } else if (c == '\n') {
      end_row();
      ++line;
    } else if (c != '\r') {
      field += c;
      any = true;
    }
  }
  if (quoted) throw std::invalid_argument(fmt::format("{}: line {}: a quoted field is not closed", origin, quote_line));
  end_row();
  return rows;
}

std::string currency_code(std::string_view code) {
  std::string s;
  for (char c : code)
    if (!std::isspace(static_cast<unsigned char>(c))) s += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

namespace {

// YYYY-MM-DD -> days since 1970-01-01 (proleptic Gregorian); nullopt when not such a date.
std::optional<long> day_number(std::string_view d) {
  if (d.size() != 10 || d[4] != '-' || d[7] != '-') return std::nullopt;
  int y = 0, m = 0, dd = 0;
  auto num = [](std::string_view s, int& out) {
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
  };
  if (!num(d.substr(0, 4), y) || !num(d.substr(5, 2), m) || !num(d.substr(8, 2), dd)) return std::nullopt;
  if (m < 1 || m > 12 || dd < 1 || dd > 31) return std::nullopt;
  return days_from_civil(y, static_cast<unsigned>(m), static_cast<unsigned>(dd));
}

// One CSV with a header: fields by column name.
struct Table {
  std::map<std::string, std::size_t> col;
  std::vector<std::vector<std::string>> rows;
  std::string origin;

  bool has(std::string_view name) const { return col.count(std::string(name)) > 0; }
  std::string get(std::size_t r, std::string_view name) const {
    const auto it = col.find(std::string(name));
    if (it == col.end() || it->second >= rows[r].size()) return {};
    std::string s = rows[r][it->second];
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(0, 1);
    return s;
  }
  [[noreturn]] void fail(std::size_t r, std::string_view name, std::string_view why) const {
    throw std::invalid_argument(fmt::format("{}: line {}: {}: {}", origin, r + 2, name, why));
  }
  std::optional<double> number(std::size_t r, std::string_view name) const {
    const std::string s = get(r, name);
    if (s.empty()) return std::nullopt;
    double v = 0;
    const auto res = std::from_chars(s.data(), s.data() + s.size(), v);
    if (res.ec != std::errc() || res.ptr != s.data() + s.size() || !std::isfinite(v) || v < 0)
      fail(r, name, fmt::format("'{}' is not a non-negative number", s));
    return v;
  }
  std::string date(std::size_t r, std::string_view name) const {
    std::string s = get(r, name);
    if (!s.empty() && !day_number(s)) fail(r, name, fmt::format("'{}' is not a date (YYYY-MM-DD)", s));
    return s;
  }
};

Table read_table(std::string_view text, std::string_view origin, std::initializer_list<std::string_view> required) {
  Table t;
  t.origin = std::string(origin);
  auto rows = parse_csv(text, origin);
  if (rows.empty()) throw std::invalid_argument(fmt::format("{}: an empty catalog (no header)", origin));
  for (std::size_t i = 0; i < rows[0].size(); ++i) t.col[rows[0][i]] = i;
  for (auto name : required)
    if (!t.has(name)) throw std::invalid_argument(fmt::format("{}: the header has no column {}", origin, name));
  t.rows.assign(std::make_move_iterator(rows.begin() + 1), std::make_move_iterator(rows.end()));
  return t;
}

std::string lower_name(std::string_view s) {
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '.' || c == '-') out += static_cast<char>(std::tolower(u));
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

// Where each entry of a catalog's list sits, by name, so that loading a catalog of n rows
// takes O(n) lookups instead of O(n) scans per row (a SkyPilot vms.csv has 40 000 rows).
template <typename T>
class NameIndex {
 public:
  explicit NameIndex(std::vector<T>& items) : items_(items) {
    at_.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) at_.emplace(items[i].name, i);
  }
  T* find(const std::string& name) {
    const auto it = at_.find(name);
    return it == at_.end() ? nullptr : &items_[it->second];
  }
  // Adds the item or replaces the one of the same name (PresetCatalog::upsert_*, in O(1)).
  void upsert(T item) {
    if (T* old = find(item.name)) {
      *old = std::move(item);
      return;
    }
    at_.emplace(item.name, items_.size());
    items_.push_back(std::move(item));
  }

 private:
  std::vector<T>& items_;
  std::unordered_map<std::string, std::size_t> at_;
};

// find_accelerator once per distinct accelerator name of a catalog, not once per row.
class AcceleratorCache {
 public:
  explicit AcceleratorCache(const PresetCatalog& c) : catalog_(c) {}
  const AcceleratorSpec* find(const std::string& name) {
    const auto it = memo_.find(name);
    if (it != memo_.end()) return it->second;
    return memo_.emplace(name, catalog_.find_accelerator(name)).first->second;
  }

 private:
  const PresetCatalog& catalog_;
  std::unordered_map<std::string, const AcceleratorSpec*> memo_;
};

std::string source_kind(const Table& t, std::size_t r) {
  std::string kind = t.get(r, "SourceKind");
  for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (kind.empty()) return kind;
  for (const char* k : kSourceKinds)
    if (kind == k) return kind;
  t.fail(r, "SourceKind", fmt::format("'{}' is not one of provider, third_party, estimate, unverified", kind));
}

// SkyPilot's published catalogs (github.com/skypilot-org/skypilot-catalog, catalogs/v*/CLOUD/
// vms.csv) carry no provider, currency, source or date: the cloud is the folder the file sits in,
// prices are USD (SkyPilot's own convention), the source is the file itself, and the date is not
// known (the file's commit date in that repository is the observation date; it is not in the file).
struct SkyPilotDefaults {
  bool active = false;
  std::string provider, source;
};

SkyPilotDefaults skypilot_defaults(const Table& t) {
  SkyPilotDefaults d;
  if (t.has("Source") || t.has("Currency")) return d;
  d.active = true;
  const std::string_view origin = t.origin;
  const auto slash = origin.find_last_of('/');
  if (slash != std::string_view::npos && slash > 0) {
    const std::string_view dir = origin.substr(0, slash);
    d.provider = std::string(dir.substr(dir.find_last_of('/') == std::string_view::npos ? 0 : dir.find_last_of('/') + 1));
  }
  if (d.provider.empty() || d.provider == ".") d.provider = "SkyPilot catalog";
  // SkyPilot's folder names for the clouds the built-in catalog also has, spelt as it spells them.
  for (auto [dir, name] : {std::pair{"aws", "AWS"}, {"gcp", "GCP"}, {"azure", "Azure"}, {"lambda", "Lambda"},
                           {"runpod", "RunPod"}, {"vast", "Vast.ai"}})
    if (d.provider == dir) d.provider = name;
  d.source = fmt::format(
      "SkyPilot catalog {} (github.com/skypilot-org/skypilot-catalog; USD as SkyPilot publishes; the file "
      "records no observation date: its commit date is one)",
      t.origin);
  return d;
}

void load_cloud_rows(PresetCatalog& catalog, const Table& t) {
  NameIndex<CloudOffer> offers(catalog.cloud);
  AcceleratorCache accelerators(catalog);
  const SkyPilotDefaults sky = skypilot_defaults(t);
  // Rows of this file by name: SkyPilot lists an instance once per availability zone, with the
  // zone's spot price; the region's offer keeps the lowest one, as SkyPilot itself quotes.
  std::unordered_set<std::string> seen_here;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    std::string provider = t.get(r, "Provider");
    const std::string type = t.get(r, "InstanceType");
    const std::string accel = t.get(r, "AcceleratorName");
    std::string name = t.get(r, "Name");
    if (sky.active) {
      if (accel.empty()) continue;  // a CPU-only instance: no GPU to compare
      if (provider.empty()) provider = sky.provider;
      if (name.empty()) name = lower_name(provider + "-" + type + "-" + t.get(r, "Region"));
    }
    if (name.empty()) name = lower_name(provider + "-" + type);
    if (name.empty()) t.fail(r, "Name", "a row names no offer (Name, or Provider and InstanceType)");
    const double count = t.number(r, "AcceleratorCount").value_or(1);
    if (!(count > 0)) t.fail(r, "AcceleratorCount", "an instance has at least one GPU");
    CloudOffer o;
    const CloudOffer* old = offers.find(name);
    if (old) o = *old;  // keep its label, specs and notes
    const bool again = sky.active && old && seen_here.count(name);
    o.name = name;
    o.provider = provider.empty() ? o.provider : provider;
    o.currency = sky.active ? std::string("USD") : currency_code(t.get(r, "Currency"));
    o.hourly_rate = t.number(r, "Price");
    const std::optional<double> spot = t.number(r, "SpotPrice");
    o.spot_rate = again && old->spot_rate && (!spot || *old->spot_rate < *spot) ? old->spot_rate : spot;
    o.committed_rate = t.number(r, "CommittedPrice");
    if (!o.hourly_rate && !o.spot_rate && !o.committed_rate) t.fail(r, "Price", "a row has no price at all");
    if (o.currency.empty()) t.fail(r, "Currency", "a price needs a currency code");
    if (auto v = t.number(r, "ColdStartS")) {
      o.cold_start_s = v;
      o.cold_start_source = fmt::format("catalog {}", t.origin);
    }
    o.billing_increment_s = t.number(r, "BillingIncrementS");
    o.minimum_billing_s = t.number(r, "MinimumBillingS");
    o.source = sky.active ? sky.source : t.get(r, "Source");
    if (o.source.empty()) t.fail(r, "Source", "every price needs its source");
    o.source_kind = sky.active ? std::string("third_party") : source_kind(t, r);
    o.seen = t.date(r, "ObservedOn");
    o.region = t.get(r, "Region");
    o.accelerator = accel;
    o.accelerator_count = count;
    if (const AcceleratorSpec* a = accelerators.find(accel)) {
      if (o.gpu.empty()) o.gpu = a->label.empty() ? accel : a->label;
      if (!o.throughput && a->throughput) {
        o.throughput = *a->throughput * count;
        o.throughput_source = a->throughput_source + (count != 1 ? fmt::format(" x {} GPUs", format_number(count)) : "");
      }
      // The instance's GPUs together, as for the throughput: a job spread over them all.
      if (!o.memory_bandwidth_gbs && a->memory_bandwidth_gbs) {
        o.memory_bandwidth_gbs = *a->memory_bandwidth_gbs * count;
        o.memory_bandwidth_source =
            a->memory_bandwidth_source + (count != 1 ? fmt::format(" x {} GPUs", format_number(count)) : "");
      }
    } else if (o.gpu.empty()) {
      o.gpu = accel;
    }
    if (o.label.empty())
      o.label = fmt::format("{} {} ({}x {}){}", provider, type, format_number(count), accel.empty() ? "?" : accel,
                            o.region.empty() ? "" : ", " + o.region);
    if (sky.active) seen_here.insert(name);
    offers.upsert(std::move(o));
  }
}

void load_local_rows(PresetCatalog& catalog, const Table& t) {
  NameIndex<LocalGpu> gpus(catalog.local);
  AcceleratorCache accelerators(catalog);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const std::string name = t.get(r, "Name");
    if (name.empty()) t.fail(r, "Name", "a row names no GPU");
    LocalGpu g;
    if (const LocalGpu* old = gpus.find(name)) g = *old;
    g.name = name;
    g.purchase_price = t.number(r, "Price");
    g.currency = currency_code(t.get(r, "Currency"));
    if (g.purchase_price && g.currency.empty()) t.fail(r, "Currency", "a price needs a currency code");
    g.price_source = t.get(r, "Source");
    if (g.price_source.empty()) t.fail(r, "Source", "every price needs its source (or why there is none)");
    g.price_source_kind = source_kind(t, r);
    g.price_observed_on = t.date(r, "ObservedOn");
    g.kind = t.get(r, "Kind").empty() ? g.kind : t.get(r, "Kind");
    const std::string accel = t.get(r, "AcceleratorName");
    if (!accel.empty()) g.accelerator = accel;
    if (const AcceleratorSpec* a = accelerators.find(g.accelerator)) {
      if (g.label.empty()) g.label = a->label;
      if (!g.power_w && a->power_w) {
        g.power_w = a->power_w;
        g.power_source = a->power_source;
      }
      if (!g.throughput && a->throughput) {
        g.throughput = a->throughput;
        g.throughput_source = a->throughput_source;
      }
      if (!g.memory_bandwidth_gbs && a->memory_bandwidth_gbs) {
        g.memory_bandwidth_gbs = a->memory_bandwidth_gbs;
        g.memory_bandwidth_source = a->memory_bandwidth_source;
      }
    }
    if (g.label.empty()) g.label = name;
    gpus.upsert(std::move(g));
  }
}

}  // namespace

std::optional<int> days_between(std::string_view observed_on, std::string_view today) {
  const auto a = day_number(observed_on), b = day_number(today);
  if (!a || !b) return std::nullopt;
  return static_cast<int>(*b - *a);
}

void load_catalog_csv(PresetCatalog& catalog, std::string_view text, std::string_view origin) {
  Table t = read_table(text, origin, {});
  if (t.has("InstanceType") && t.has("Price")) {
    // SkyPilot's own layout has none of Currency, Source and ObservedOn (skypilot_defaults);
    // a file that has one of them must have all.
    const bool skypilot = !t.has("Currency") && !t.has("Source");
    for (auto c : {"AcceleratorName", "Currency", "Source", "ObservedOn"})
      if (!t.has(c) && !(skypilot && std::string_view(c) != "AcceleratorName"))
        throw std::invalid_argument(fmt::format("{}: the header has no column {}", origin, c));
    load_cloud_rows(catalog, t);
  } else if (t.has("Name") && t.has("Price")) {
    for (auto c : {"Currency", "Source", "ObservedOn"})
      if (!t.has(c)) throw std::invalid_argument(fmt::format("{}: the header has no column {}", origin, c));
    load_local_rows(catalog, t);
  } else {
    throw std::invalid_argument(fmt::format(
        "{}: not a price catalog: a cloud catalog has the columns InstanceType, AcceleratorName, Price, Currency, "
        "Source, ObservedOn (SkyPilot's layout plus those); a local one Name, Price, Currency, Source, ObservedOn",
        origin));
  }
}

std::vector<FxRate> parse_fx_csv(std::string_view text, std::string_view origin) {
  Table t = read_table(text, origin, {"From", "To", "Rate", "Source", "ObservedOn"});
  std::vector<FxRate> out;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    FxRate f;
    f.from = currency_code(t.get(r, "From"));
    f.to = currency_code(t.get(r, "To"));
    const auto rate = t.number(r, "Rate");
    if (!rate || *rate <= 0) t.fail(r, "Rate", "an exchange rate must be a positive number");
    f.rate = *rate;
    f.source = t.get(r, "Source");
    f.observed_on = t.date(r, "ObservedOn");
    if (f.from.empty() || f.to.empty()) t.fail(r, "From", "both currency codes are needed");
    if (f.source.empty() || f.observed_on.empty())
      t.fail(r, f.source.empty() ? "Source" : "ObservedOn", "a rate needs its source and the date it was observed");
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace gpucost::cost
