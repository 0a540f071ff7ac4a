#include "gpucost/cost/resolve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "cost/json_read.hpp"
#include "gpucost/cost/machine_class.hpp"
#include "gpucost/features/feature_ids.hpp"
#include "gpucost/small_file.hpp"
#include "gpucost/text/number.hpp"

namespace gpucost::cost {

namespace {

using json::element;

// 365.25 / 12: the mean calendar month.

void parse_side(json::object o, Side side, std::string_view origin, CostOverrides& out) {
  for (auto field : o) {
    const std::string key = fmt::format("{}.{}", side_name(side), std::string_view(field.key));
    const auto id = find_input(side, field.key);
    if (!id && side == Side::kCloud && std::string_view(field.key) == "data_cost_per_job")
      json::fail(origin, key,
                 "replaced by two separate costs: storage (storage_price_gb_month x storage_gb_months) and egress "
                 "(egress_price_gb x egress_gb); give those four instead");
    if (!id) {
      std::string known;
      for (const auto& s : input_specs())
        if (s.side == side) known += (known.empty() ? "" : ", ") + std::string(s.key);
      json::fail(origin, key, fmt::format("unknown input (the {} inputs are: {})", side_name(side), known));
    }
    // A number, or analyze's `inputs` form {"value": number or null, "unit", "origin", "note"}.
    if (field.value.is_object()) {
      element v;
      if (json::as_object(field.value, origin, key)["value"].get(v)) json::fail(origin, key, "an object without \"value\"");
      if (v.is_null()) continue;  // unset there: leave it to the layers below
      out.values[static_cast<std::size_t>(*id)] = json::as_number(v, origin, key + ".value");
    } else {
      out.values[static_cast<std::size_t>(*id)] = json::as_number(field.value, origin, key);
    }
  }
}

// A number, or {"value": number, ...} (analyze's `inputs.query` form).
double number_or_value(element e, std::string_view origin, std::string_view key) {
  if (e.is_object()) {
    element v;
    if (json::as_object(e, origin, key)["value"].get(v)) json::fail(origin, key, "an object without \"value\"");
    return json::as_number(v, origin, std::string(key) + ".value");
  }
  return json::as_number(e, origin, key);
}

// A string, or {"value": string, ...}; null or an empty string: not given.
std::optional<std::string> string_or_value(element e, std::string_view origin, std::string_view key) {
  if (e.is_object()) {
    element v;
    if (json::as_object(e, origin, key)["value"].get(v)) json::fail(origin, key, "an object without \"value\"");
    e = v;
  }
  if (e.is_null()) return std::nullopt;
  std::string s = json::as_string(e, origin, key);
  if (s.empty()) return std::nullopt;
  return s;
}

}  // namespace

CostOverrides parse_cost_config(std::string_view text, std::string_view origin) {
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(text);
  const auto root = json::as_object(json::parse(parser, padded, origin), origin, "(document)");
  CostOverrides o;
  for (auto field : root) {
    const std::string_view k = field.key;
    if (k == "currency") o.currency = string_or_value(field.value, origin, k);
    else if (k == "local") parse_side(json::as_object(field.value, origin, k), Side::kLocal, origin, o);
    else if (k == "cloud") parse_side(json::as_object(field.value, origin, k), Side::kCloud, origin, o);
    else if (k == "job_hours") o.job_hours = number_or_value(field.value, origin, k);
    else if (k == "target_premium") o.target_premium = number_or_value(field.value, origin, k);
    else if (k == "query") {
      // analyze's `inputs.query`: {"job_hours": {"value": 1, ...}, "target_premium": {...}}
      for (auto q : json::as_object(field.value, origin, k)) {
        const std::string key = "query." + std::string(q.key);
        if (q.key == "job_hours") o.job_hours = number_or_value(q.value, origin, key);
        else if (q.key == "target_premium") o.target_premium = number_or_value(q.value, origin, key);
        else json::fail(origin, key, "unknown key (known: job_hours, target_premium)");
      }
    } else if (k == "ranges") {
      for (auto r : json::as_object(field.value, origin, k)) {
        const std::string key = "ranges." + std::string(r.key);
        if (r.value.is_object()) {
          // {"gamma": [shape, rate]}: the incident rate's posterior as analyze wrote it.
          simdjson::dom::array g;
          if (json::as_object(r.value, origin, key)["gamma"].get(g) || g.size() != 2)
            json::fail(origin, key, "expected [low, high] or {\"gamma\": [shape, rate]}");
          const double shape = json::as_number(g.at(0).value(), origin, key), rate = json::as_number(g.at(1).value(), origin, key);
          if (!(shape > 0) || !(rate > 0)) json::fail(origin, key, "a gamma's shape and rate must be positive");
          const auto id = find_named_input(r.key);
          if (!id) json::fail(origin, key, "no such input");
          o.gamma_ranges[static_cast<std::size_t>(*id)] = std::pair{shape, rate};
          continue;
        }
        simdjson::dom::array a;
        if (r.value.get(a) || a.size() != 2) json::fail(origin, key, "expected [low, high]");
        const double lo = json::as_number(a.at(0).value(), origin, key), hi = json::as_number(a.at(1).value(), origin, key);
        parse_range(fmt::format("{}={}:{}", std::string_view(r.key), format_number(lo), format_number(hi)), origin, o);
      }
    } else if (k == "pricing") o.pricing = string_or_value(field.value, origin, k);
    else if (k == "checkpoint_minutes") o.checkpoint_minutes = json::as_number(field.value, origin, k);
    else if (k == "interruptions_per_hour") o.interruptions_per_hour = json::as_number(field.value, origin, k);
    else if (k == "seed") o.seed = json::as_number(field.value, origin, k);
    else if (k == "draws") o.draws = json::as_number(field.value, origin, k);
    else if (k == "local_throughput") o.local_throughput = json::as_number(field.value, origin, k);
    else if (k == "cloud_throughput") o.cloud_throughput = json::as_number(field.value, origin, k);
    else if (k == "preset") o.preset = string_or_value(field.value, origin, k);
    else if (k == "local_preset") o.local = string_or_value(field.value, origin, k);
    else if (k == "cloud_preset") o.cloud = string_or_value(field.value, origin, k);
    else if (k == "ignore_findings") {
      // One rule or a list of them; which names are rules is the findings module's to say.
      simdjson::dom::array a;
      if (field.value.get(a)) {
        o.ignore_findings.push_back(json::as_string(field.value, origin, k));
      } else {
        for (auto e : a) o.ignore_findings.push_back(json::as_string(e, origin, k));
      }
    } else if (k == "comment" || k == "_comment" || k == "notes") continue;
    else
      json::fail(origin, k,
                 "unknown key (known: currency, local, cloud, query, job_hours, target_premium, local_throughput, "
                 "cloud_throughput, ranges, seed, draws, pricing, checkpoint_minutes, interruptions_per_hour, preset, "
                 "local_preset, cloud_preset, ignore_findings, comment)");
  }
  return o;
}

std::optional<InputId> find_named_input(std::string_view name) {
  const auto dot = name.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const std::string_view side = name.substr(0, dot);
  if (side == "local") return find_input(Side::kLocal, name.substr(dot + 1));
  if (side == "cloud") return find_input(Side::kCloud, name.substr(dot + 1));
  return std::nullopt;
}

void parse_range(std::string_view text, std::string_view origin, CostOverrides& into) {
  auto bad = [&](std::string_view why) {
    throw std::invalid_argument(fmt::format("{}: range '{}': {} (expected e.g. local.hours_per_month=20:60)", origin,
                                            text, why));
  };
  const auto eq = text.find('='), colon = text.rfind(':');
  if (eq == std::string_view::npos || colon == std::string_view::npos || colon < eq) bad("no NAME=LOW:HIGH");
  const std::optional<InputId> id = find_named_input(text.substr(0, eq));
  if (!id) bad("no such input (names as in the report: local.hours_per_month, cloud.hourly_rate ...)");
  auto num = [&](std::string_view t) {
    double v = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size() || !std::isfinite(v)) bad("not a number");
    return v;
  };
  const double lo = num(text.substr(eq + 1, colon - eq - 1)), hi = num(text.substr(colon + 1));
  if (lo > hi) bad("low is above high");
  const auto& sp = spec(*id);
  if (lo < 0 || (sp.domain == Domain::kPositive && lo <= 0) || (sp.domain == Domain::kRatio && hi > 1))
    bad(fmt::format("outside what {} admits", input_name(*id)));
  if (*id == InputId::kHoursPerMonth && hi > kMaxHoursPerMonth)
    bad(fmt::format("a month has at most {} hours", format_number(kMaxHoursPerMonth)));
  into.ranges[static_cast<std::size_t>(*id)] = std::pair{lo, hi};
}

CostOverrides load_cost_config(const std::string& path) {
  return parse_cost_config(read_small_file(path, kMaxConfigFileBytes, "config file"), path);
}

std::vector<MeasuredInput> measured_inputs(const FeatureLookup& lookup) {
  std::vector<MeasuredInput> out;
  // One input from one feature of the same meaning.
  auto direct = [&](InputId input, FeatureId feature, std::string_view what) {
    MeasuredInput m{input, std::nullopt, {}, {}, {}, {}};
    const std::string_view name = feature_name(feature);
    const auto f = lookup(feature);
    if (!f) {
      m.note = fmt::format("not measured: {} was not computed in this run", name);
    } else if (!f->value) {
      m.note = fmt::format("not measured: {} ({}) is null: {}", name, f->id, f->reason);
    } else if (!std::isfinite(*f->value) || *f->value < 0) {
      m.note = fmt::format("not measured: {} ({}) = {} is not a usable value", name, f->id, format_number(*f->value));
    } else {
      m.value = *f->value;
      m.origin = "measured:" + f->id;
      m.note = fmt::format("{} from the logs ({} = {})", what, name, format_number(*f->value));
    }
    out.push_back(std::move(m));
  };
  direct(InputId::kPowerW, FeatureId::gpu_power_mean_w, "mean GPU power");
  direct(InputId::kEffectiveUtilization, FeatureId::effective_utilization, "effective utilization");
  if (auto& m = out.back(); m.value && *m.value > 1) {
    m.value.reset();
    m.origin.clear();
    m.note = "not measured: effective_utilization is above 1";
  }
  direct(InputId::kJobStallFraction, FeatureId::launch_queue_fraction,
         "the job's own stalls, which move to the cloud with it: kernel-launch queueing");
  direct(InputId::kIncidentsPerHour, FeatureId::incidents_per_hour, "maintenance incidents per hour of GPU use");
  // The count and the hours behind the rate (F007's own basis: host gpu_sampled_s, else the
  // log uptime), so a rate from a short log can be weighed against the prior.
  if (auto& m = out.back(); m.value) {
    const auto n = lookup(FeatureId::maintenance_incidents);
    const auto sampled = lookup(FeatureId::gpu_sampled_s);
    const auto uptime = lookup(FeatureId::log_uptime_s);
    double hours = 0;
    if (sampled && sampled->value && *sampled->value > 0) hours = *sampled->value / 3600;
    else if (uptime && uptime->value && *uptime->value > 0) hours = *uptime->value / 3600;
    if (n && n->value && hours > 0) {
      m.events = *n->value;
      m.exposure_h = hours;
    }
  }
  return out;
}

namespace {

std::string preset_origin(std::string_view name) { return "preset:" + std::string(name); }

// The message for a name that is not a preset of the expected kind.
[[noreturn]] void unknown_preset(const PresetCatalog& c, std::string_view kind, std::string_view flag,
                                 std::string_view name) {
  std::string hint;
  if (c.find_local(name)) hint = fmt::format(" ({} is a local GPU: use --local {})", name, name);
  else if (c.find_cloud(name)) hint = fmt::format(" ({} is a cloud offer: use --cloud {})", name, name);
  else if (c.find_scenario(name)) hint = fmt::format(" ({} is a scenario: use --preset {})", name, name);
  throw std::invalid_argument(
      fmt::format("{} {}: no such {}{}; `gpucost breakeven --list-presets` lists them", flag, name, kind, hint));
}

// The presets a run uses, and the GPU the logs describe when no preset does (`gpu` may point at
// `from_logs`, so a Picked is never copied).
struct Picked {
  PresetSelection sel;
  std::string pricing;
  const Scenario* scenario = nullptr;
  const LocalGpu* gpu = nullptr;
  const CloudOffer* offer = nullptr;
  LocalGpu from_logs;
  bool explicit_local = false, explicit_cloud = false;
  // The entries the speed figures and labels come from: the picked ones, else the scenario's.
  const LocalGpu* local_ref = nullptr;
  const CloudOffer* cloud_ref = nullptr;
  Picked() = default;
  Picked(const Picked&) = delete;
  Picked& operator=(const Picked&) = delete;
};

// The cheapest on-demand rental of one GPU (one accelerator: the local GPU is one) in `currency`
// (any currency when empty); null when the catalog has none.
const CloudOffer* cheapest_single_gpu_rental(const PresetCatalog& catalog, const AcceleratorSpec& a,
                                             std::string_view currency) {
  const CloudOffer* best = nullptr;
  for (const auto& o : catalog.cloud)
    if (o.hourly_rate && o.accelerator_count == 1 && catalog.find_accelerator(o.accelerator) == &a &&
        (currency.empty() || o.currency == currency) && (!best || *o.hourly_rate < *best->hourly_rate))
      best = &o;
  return best;
}

// Step 1: the selection (command line over config file) and the pricing.
void select_presets(const PresetCatalog& catalog, const ResolveRequest& rq, Picked& p) {
  p.sel = rq.selection;
  if (p.sel.preset.empty() && rq.config.preset) p.sel.preset = *rq.config.preset;
  if (p.sel.local.empty() && rq.config.local) p.sel.local = *rq.config.local;
  if (p.sel.cloud.empty() && rq.config.cloud) p.sel.cloud = *rq.config.cloud;
  p.pricing = rq.cli.pricing ? *rq.cli.pricing : rq.config.pricing ? *rq.config.pricing : "on-demand";
  if (p.pricing != "on-demand" && p.pricing != "spot" && p.pricing != "committed")
    throw std::invalid_argument(fmt::format("--pricing {}: expected on-demand, spot or committed", p.pricing));
  if (!p.sel.preset.empty() && !(p.scenario = catalog.find_scenario(p.sel.preset)))
    unknown_preset(catalog, "scenario", "--preset", p.sel.preset);
  p.explicit_local = !p.sel.local.empty();
  p.explicit_cloud = !p.sel.cloud.empty();
}

// Without a scenario or --cloud, the cloud side rents the same GPU as the local one (the cheapest
// on-demand rental of one), or else the first offer in its currency: no conversion is ever done.
// The same whether the local GPU was named by the logs or by --local, so restating it changes nothing.
void pick_cloud_for(const PresetCatalog& catalog, const LocalGpu& m, Picked& p, CostInputs& in) {
  if (p.scenario || !p.sel.cloud.empty()) return;
  auto note = [&](std::string text) { in.selection_note += (in.selection_note.empty() ? "" : "; ") + text; };
  const AcceleratorSpec* a = catalog.find_accelerator(m.accelerator);
  if (const CloudOffer* same_gpu = a ? cheapest_single_gpu_rental(catalog, *a, m.currency) : nullptr) {
    p.sel.cloud = same_gpu->name;
    // The next two, so that the reader sees what else was there (`gpucost offers` lists them all).
    std::vector<const CloudOffer*> others;
    for (const auto& o : catalog.cloud)
      if (&o != same_gpu && o.hourly_rate && o.accelerator_count == 1 && catalog.find_accelerator(o.accelerator) == a &&
          o.currency == same_gpu->currency)
        others.push_back(&o);
    std::stable_sort(others.begin(), others.end(),
                     [](const CloudOffer* x, const CloudOffer* y) { return *x->hourly_rate < *y->hourly_rate; });
    std::string next;
    for (std::size_t i = 0; i < others.size() && i < 2; ++i)
      next += fmt::format("{}{} {} {}/h", i ? ", " : "", others[i]->name, format_number(*others[i]->hourly_rate),
                          others[i]->currency);
    note(fmt::format("cloud offer {} chosen as the cheapest on-demand rental of the same GPU ({} {}/h){}",
                     same_gpu->name, format_number(*same_gpu->hourly_rate), same_gpu->currency,
                     next.empty() ? std::string() : "; next: " + next));
    return;
  }
  const CloudOffer* generic = catalog.find_cloud(catalog.default_cloud);
  if (generic && !m.currency.empty() && generic->currency != m.currency) {
    if (const CloudOffer* same = catalog.first_cloud_in(m.currency)) {
      p.sel.cloud = same->name;
      note(fmt::format("cloud offer {} chosen as the first priced in {} (the generic {} is in {})", same->name,
                       m.currency, generic->name, generic->currency));
    }
  }
}

// Step 2: without a scenario or --local, the GPU the logs name picks the local preset (and the
// cloud side, pick_cloud_for); a GPU no preset describes, or logs that name no GPU model, are the
// local side as the logs know it: no other GPU's price or speed is borrowed.
void select_from_logs(const PresetCatalog& catalog, const ResolveRequest& rq, Picked& p, CostInputs& in) {
  if (p.scenario) return;
  if (!p.sel.local.empty()) {
    if (const LocalGpu* m = catalog.find_local(p.sel.local)) pick_cloud_for(catalog, *m, p, in);
    return;
  }
  for (const auto& product : rq.detected_gpus) {
    const LocalGpu* m = catalog.match_local(product);
    if (!m) continue;
    p.sel.local = m->name;
    in.selection_note = fmt::format("local GPU {} chosen because the logs name '{}'", m->name, product);
    pick_cloud_for(catalog, *m, p, in);
    return;
  }
  if (rq.detected_gpus.empty() && !rq.logs_read) return;
  if (rq.detected_gpus.empty()) {
    p.from_logs.name = "from-logs";
    p.from_logs.label = "the GPU of these logs (no source names its model)";
    p.from_logs.price_source = "the logs name no GPU model";
    p.sel.local = p.from_logs.name;
    in.selection_note =
        "no source in the logs names the GPU model (nvidia-smi -q, --query-gpu or the collector's manifest would): "
        "the local side is the GPU as the logs measure it, with no price and no spec-sheet speed; give --local "
        "(e.g. --local rtx-4090) or --local-purchase-price and --relative-speed";
    return;
  }
  // Never answer for another GPU: the one the logs name, with what the logs know of it.
  const std::string& product = rq.detected_gpus.front();
  p.from_logs.name = "from-logs";
  p.from_logs.label = product;
  for (const auto& [name, w] : rq.detected_power_limits_w)
    if (name == product) {
      p.from_logs.power_w = w;
      p.from_logs.power_source = "the power limit nvidia-smi -q reports for this GPU";
    }
  p.from_logs.price_source = "no preset or catalog row describes this GPU";
  p.sel.local = p.from_logs.name;
  in.selection_note = fmt::format(
      "no local preset matches the GPU the logs name ('{}'): the local side is that GPU as the logs describe "
      "it (no price, no spec-sheet speed); give --local-purchase-price and --relative-speed, or a catalog row "
      "(--catalog)",
      product);
}

// Step 3: the generic pair where nothing else picked a side; the entries by name.
void find_entries(const PresetCatalog& catalog, const ResolveRequest& rq, Picked& p, CostInputs& in) {
  if (!p.scenario && rq.use_generic_pair) {
    if (p.sel.local.empty()) p.sel.local = catalog.default_local;
    if (p.sel.cloud.empty()) p.sel.cloud = catalog.default_cloud;
  }
  if (p.sel.local == p.from_logs.name && !p.from_logs.label.empty()) p.gpu = &p.from_logs;
  else if (!p.sel.local.empty() && !(p.gpu = catalog.find_local(p.sel.local)))
    unknown_preset(catalog, "local GPU", "--local", p.sel.local);
  if (!p.sel.cloud.empty() && !(p.offer = catalog.find_cloud(p.sel.cloud)))
    unknown_preset(catalog, "cloud offer", "--cloud", p.sel.cloud);
  p.local_ref = p.gpu ? p.gpu : p.scenario ? catalog.find_local(p.scenario->local_gpu) : nullptr;
  p.cloud_ref = p.offer ? p.offer : p.scenario ? catalog.find_cloud(p.scenario->cloud_offer) : nullptr;
  in.pricing = p.pricing;
  in.local_gpu_from_logs = p.gpu == &p.from_logs;
  if (p.local_ref) {
    in.local_gpu = p.local_ref->name;
    in.local_label = p.local_ref->label;
  }
  if (p.cloud_ref) {
    in.cloud_offer = p.cloud_ref->name;
    in.cloud_label = p.cloud_ref->label;
  }
}

// Step 4: the currency: explicit, else the scenario's, else the cloud offer's, else the GPU's.
void choose_currency(const ResolveRequest& rq, const Picked& p, CostInputs& in) {
  if (rq.cli.currency) {
    in.currency = currency_code(*rq.cli.currency);
    in.currency_origin = "cli";
  } else if (rq.config.currency) {
    in.currency = currency_code(*rq.config.currency);
    in.currency_origin = "config";
  } else if (p.scenario && !p.scenario->currency.empty()) {
    in.currency = p.scenario->currency;
    in.currency_origin = preset_origin(p.scenario->name);
  } else if (p.offer && !p.offer->currency.empty()) {
    in.currency = p.offer->currency;
    in.currency_origin = preset_origin(p.offer->name);
  } else if (p.gpu && !p.gpu->currency.empty()) {
    in.currency = p.gpu->currency;
    in.currency_origin = preset_origin(p.gpu->name);
  }
}

// Step 5: the defaults, then the currency's defaults, then the scenario.
void apply_defaults_and_scenario(const PresetCatalog& catalog, const Scenario* scenario, CostInputs& in) {
  for (const auto& s : input_specs())
    if (!std::isnan(s.fallback)) in.set(s.id, s.fallback, "default", std::string(s.fallback_why));
  if (const auto* d = catalog.find_currency(in.currency))
    for (const auto& [id, v] : d->values)
      in.set(id, v, "default", d->notes.count(id) ? d->notes.at(id) : "default for " + in.currency);
  if (!scenario) return;
  in.scenario = scenario->name;
  for (const auto& [id, v] : scenario->values) {
    in.set(id, v, preset_origin(scenario->name));
    if (auto it = scenario->notes.find(id); it != scenario->notes.end()) in[id].note = it->second;
    if (spec(id).money) in[id].currency = scenario->currency;
  }
}

// Step 6: the local GPU's price and power.
void apply_local_gpu(const LocalGpu& gpu, const std::optional<MigSlice>& slice, CostInputs& in) {
  const std::string o = preset_origin(gpu.name);
  in.local_price_observed_on = gpu.price_observed_on;
  if (gpu.purchase_price) {
    in.set(InputId::kPurchasePrice, *gpu.purchase_price, o,
           fmt::format("{}; observed {}", gpu.price_source.empty() ? "no source given" : gpu.price_source,
                       gpu.price_observed_on.empty() ? "on an unknown date" : gpu.price_observed_on));
    in[InputId::kPurchasePrice].currency = gpu.currency;
    if (slice) {  // a MIG slice costs its share of the GPU (issue 38)
      auto& price = in[InputId::kPurchasePrice];
      price.value = *price.value * slice->share;
      price.note +=
          "; " + slice->note + ": " + format_number(*gpu.purchase_price) + " x " + format_number(slice->share);
    }
  } else {
    // Never keep a price that belongs to another GPU.
    in[InputId::kPurchasePrice] = InputValue{std::nullopt, o, "this preset has no purchase price", {}};
  }
  if (gpu.power_w) in.set(InputId::kPowerW, *gpu.power_w, o, gpu.power_source);
}

// The spot model: lost work since the last checkpoint plus a restart, per interruption.
void apply_spot_loss(const ResolveRequest& rq, const std::string& origin, CostInputs& in) {
  const double ckpt = rq.cli.checkpoint_minutes      ? *rq.cli.checkpoint_minutes
                      : rq.config.checkpoint_minutes ? *rq.config.checkpoint_minutes
                                                     : kDefaultCheckpointMinutes;
  const double lambda = rq.cli.interruptions_per_hour      ? *rq.cli.interruptions_per_hour
                        : rq.config.interruptions_per_hour ? *rq.config.interruptions_per_hour
                                                           : kDefaultInterruptionsPerHour;
  const double restart_s = in[InputId::kColdStartS].value.value_or(0);
  const double loss = lambda * (ckpt / 2 / 60 + restart_s / 3600);
  in.set(InputId::kInterruptionLoss, loss, origin,
         fmt::format("spot: {} interruptions per hour x (half of a {} min checkpoint interval + a {} s restart) = "
                     "{}{}",
                     format_number(lambda), format_number(ckpt), format_number(restart_s), format_number(loss),
                     rq.cli.interruptions_per_hour || rq.config.interruptions_per_hour
                         ? std::string()
                         : "; 0.01 per hour is an assumption: give --spot-interruptions-per-hour"));
}

// Step 7: the cloud offer's cold start, utilization, price (as --pricing picks), billing, spot loss.
void apply_cloud_offer(const CloudOffer& offer, const ResolveRequest& rq, const std::string& pricing, CostInputs& in) {
  const std::string o = preset_origin(offer.name);
  if (offer.cold_start_s) {
    in.set(InputId::kColdStartS, *offer.cold_start_s, o, offer.cold_start_source);
  } else if (in[InputId::kColdStartS].origin == "default") {
    auto& cs = in[InputId::kColdStartS];
    cs.note = fmt::format("{} has no measured cold start in the catalog (ColdStartS is empty): {}", offer.name,
                          cs.note);
  }
  if (offer.utilization) in.set(InputId::kUtilization, *offer.utilization, o);
  const std::optional<double>& rate = pricing == "spot"        ? offer.spot_rate
                                      : pricing == "committed" ? offer.committed_rate
                                                               : offer.hourly_rate;
  in.cloud_price_observed_on = offer.seen;
  if (rate) {
    in.set(InputId::kHourlyRate, *rate, o,
           fmt::format("{} price; {}; observed {}", pricing, offer.source.empty() ? "no source given" : offer.source,
                       offer.seen.empty() ? "on an unknown date" : offer.seen));
    in[InputId::kHourlyRate].currency = offer.currency;
  } else {
    in[InputId::kHourlyRate] = InputValue{
        std::nullopt, o,
        fmt::format("{} has no {} price in the catalog: pick another offer or --pricing", offer.name, pricing), {}};
  }
  if (offer.minimum_billing_s)
    in.set(InputId::kMinimumBillingS, *offer.minimum_billing_s, o, "the offer's minimum billed time");
  if (offer.billing_increment_s)
    in.set(InputId::kBillingIncrementS, *offer.billing_increment_s, o,
           fmt::format("billed per {} s{}", format_number(*offer.billing_increment_s),
                       offer.minimum_billing_s ? fmt::format(", at least {} s", format_number(*offer.minimum_billing_s))
                                               : std::string()));
  if (pricing == "spot") apply_spot_loss(rq, o, in);
}

// Step 8: the speed ratio and its bracket from the two entries' spec-sheet figures. The ratio
// follows them when either entry was picked explicitly or both come from the generic pair; a
// scenario's own figure stands otherwise.
void apply_spec_speed(const PresetCatalog& catalog, const Picked& p, const ResolveRequest& rq, CostInputs& in) {
  const LocalGpu* l = p.local_ref;
  const CloudOffer* c = p.cloud_ref;
  if (!l || !c) {
    in.speed.compute_note = in.speed.bandwidth_note = "no ratio: no local GPU or cloud offer preset";
    return;
  }
  const std::string cloud_name = c->gpu.empty() ? c->name : c->gpu;
  const std::string local_name = l->label.empty() ? l->name : l->label;
  if ((p.explicit_local || p.explicit_cloud || !p.scenario) && l->throughput && c->throughput && *l->throughput > 0)
    in.set(InputId::kRelativeSpeed, *c->throughput / *l->throughput, preset_origin(c->name + "/" + l->name),
           fmt::format("{} / {} {} ({} / {})", format_number(*c->throughput), format_number(*l->throughput),
                       catalog.throughput_unit, cloud_name, local_name));
  auto ratio = [&](const std::optional<double>& cv, const std::optional<double>& lv, std::string_view unit,
                   std::optional<double>& out, std::string& note) {
    if (cv && lv && *lv > 0 && *cv > 0) {
      out = *cv / *lv;
      note = fmt::format("{} / {} {} ({} / {})", format_number(*cv), format_number(*lv), unit, cloud_name, local_name);
    } else {
      note = fmt::format("no ratio: {} has no figure in {}", !cv || *cv <= 0 ? c->name : l->name, unit);
    }
  };
  ratio(c->throughput, l->throughput, catalog.throughput_unit, in.speed.compute_bound, in.speed.compute_note);
  ratio(c->memory_bandwidth_gbs, l->memory_bandwidth_gbs, catalog.memory_bandwidth_unit, in.speed.bandwidth_bound,
        in.speed.bandwidth_note);
  // A MIG slice does its share of the GPU's work: the same work on the cloud's whole GPU runs
  // 1 / share as fast (issue 38; the price was scaled alike, apply_local_gpu).
  if (rq.mig_slice && rq.mig_slice->share > 0 && rq.mig_slice->share < 1) {
    const double s = rq.mig_slice->share;
    const std::string why = fmt::format(", / {} for the local MIG slice", format_number(s));
    for (auto* b : {&in.speed.compute_bound, &in.speed.bandwidth_bound})
      if (*b) **b /= s;
    if (in.speed.compute_bound) in.speed.compute_note += why;
    if (in.speed.bandwidth_bound) in.speed.bandwidth_note += why;
    auto& v = in[InputId::kRelativeSpeed];
    if (v.origin == preset_origin(c->name + "/" + l->name) && v.value) {
      v.value = *v.value / s;
      v.note += why;
    }
  }
  // Neither end of the bracket is the job's without a measurement: a compute-bound job runs at
  // the throughput ratio, a bandwidth-bound one at the bandwidth ratio. The value is the middle
  // (the Monte Carlo draws the bracket around it, set_ranges), not the end that favours one side.
  auto& rs = in[InputId::kRelativeSpeed];
  const bool bracket = rs.origin == preset_origin(c->name + "/" + l->name) && in.speed.compute_bound &&
                       in.speed.bandwidth_bound && *in.speed.compute_bound != *in.speed.bandwidth_bound;
  // The logs may say which end is the job's: memory activity against SM activity while busy.
  if (bracket && rq.activity) {
    const auto& a = *rq.activity;
    const double r = a.mem_busy_pct / a.sm_busy_pct;
    const std::string seen = fmt::format("memory activity {} % at SM activity {} % while busy (ratio {})",
                                         format_number(a.mem_busy_pct), format_number(a.sm_busy_pct), format_number(r));
    if (r <= kComputeBoundMemSm) {
      in.set(InputId::kRelativeSpeed, *in.speed.compute_bound, a.origin,
             fmt::format("compute-bound from the logs, {} <= {}: the throughput ratio {}", seen,
                         format_number(kComputeBoundMemSm), in.speed.compute_note));
      return;
    }
    if (r >= kBandwidthBoundMemSm) {
      in.set(InputId::kRelativeSpeed, *in.speed.bandwidth_bound, a.origin,
             fmt::format("bandwidth-bound from the logs, {} >= {}: the bandwidth ratio {}", seen,
                         format_number(kBandwidthBoundMemSm), in.speed.bandwidth_note));
      return;
    }
    in.speed.bound_note = fmt::format("the logs do not tell: {}, between {} and {}", seen,
                                      format_number(kComputeBoundMemSm), format_number(kBandwidthBoundMemSm));
  }
  if (bracket) {
    const double c = *in.speed.compute_bound, b = *in.speed.bandwidth_bound;
    const bool bandwidth_low = b < c;
    in.set(InputId::kRelativeSpeed, (c + b) / 2, rs.origin,
           fmt::format("the middle of the spec-sheet bracket, {} ({}: {}) to {} ({}: {}): {}; --local-throughput and "
                       "--cloud-throughput give your own",
                       format_number(std::min(c, b)), bandwidth_low ? "bandwidth-bound" : "compute-bound",
                       bandwidth_low ? in.speed.bandwidth_note : in.speed.compute_note, format_number(std::max(c, b)),
                       bandwidth_low ? "compute-bound" : "bandwidth-bound",
                       bandwidth_low ? in.speed.compute_note : in.speed.bandwidth_note,
                       in.speed.bound_note.empty() ? "the logs do not say which the job is" : in.speed.bound_note));
  }
}

// Step 9: what the logs measured; a measured incident count is weighed against the prior rate.
// Returns the incident rate's Gamma posterior when one was formed.
std::optional<InputRange> apply_measured(const ResolveRequest& rq, CostInputs& in) {
  std::optional<InputRange> incident_posterior;
  if (rq.usage) {
    in.usage = *rq.usage;
    if (in.usage.basis == UsageBasis::kMeasured) {
      double sum = 0;
      std::size_t n = 0;
      for (const auto& g : in.usage.gpus)
        if (g.hours_per_month) {
          sum += *g.hours_per_month;
          ++n;
        }
      if (n > 0) {
        in.measured_hours_per_month = sum / static_cast<double>(n);
        in.measured_usage_note = in.usage.reason;
        in.set(InputId::kHoursPerMonth, *in.measured_hours_per_month, "measured:" + std::string(feature_code(FeatureId::gpu_busy_s)), in.usage.reason);
      }
    } else {
      in.measured_usage_note = in.usage.reason;
    }
  }
  if (rq.gpu_count > 0) {
    in.gpu_count = rq.gpu_count;
    in.gpu_count_note = rq.gpu_count_note;
  }
  for (const auto& m : rq.measured) {
    if (m.input == InputId::kHoursPerMonth) {
      in.measured_hours_per_month = m.value;
      in.measured_usage_note = m.note;
    }
    const auto& prior = in[m.input];
    if (m.value && m.events && m.exposure_h && rq.incident_prior_hours > 0 && prior.value) {
      // A rate from a few hours of logs is mostly noise: combine the count with the prior rate,
      // weighted as incident_prior_hours of observation (Gamma-Poisson posterior mean).
      const double h0 = rq.incident_prior_hours, r0 = *prior.value;
      const double v = (*m.events + r0 * h0) / (*m.exposure_h + h0);
      incident_posterior = InputRange{InputRange::Kind::kGamma, *m.events + r0 * h0, *m.exposure_h + h0, m.origin};
      in.set(m.input, v, m.origin,
             fmt::format("{}; {} incidents in {} h observed, weighed against the prior {} /h ({}) counted as {} h: "
                         "({} + {} x {}) / ({} + {}) = {}",
                         m.note, format_number(*m.events), format_number(*m.exposure_h), format_number(r0), prior.origin,
                         format_number(h0), format_number(*m.events), format_number(r0), format_number(h0),
                         format_number(*m.exposure_h), format_number(h0), format_number(v)));
    } else if (m.value) {
      in.set(m.input, *m.value, m.origin, m.note);
    } else {
      auto& v = in[m.input];
      v.note = v.note.empty() || !v.value ? m.note
                                          : m.note + "; using " + (v.origin.empty() ? "no value" : v.origin) + ": " + v.note;
    }
  }
  return incident_posterior;
}

// Measurements that contradict the preset chosen: a mean power above its board power says the
// logs are of another GPU (or the preset is wrong).
void warn_on_contradictions(const Picked& p, CostInputs& in) {
  const auto& pw = in[InputId::kPowerW];
  if (!p.gpu || p.gpu == &p.from_logs || !p.gpu->power_w || !pw.value || pw.origin.rfind("measured:", 0) != 0) return;
  if (*pw.value > *p.gpu->power_w * 1.05)
    in.warnings.push_back(fmt::format(
        "the logs measure a mean GPU power of {} W, above the {} W board power of the preset {} ({}): the logs may be "
        "of another GPU; give --local with the GPU they come from",
        format_number(std::round(*pw.value)), format_number(*p.gpu->power_w), p.gpu->name,
        p.gpu->label.empty() ? p.gpu->name : p.gpu->label));
}

// After the class defaults (resolve_inputs): the host power the logs measured, per GPU, where nothing
// else gave host_power_w (docs/cost-model.md §2.1, "Measured host power"). IPMI DCMI reads the
// whole system at the supply's input: per GPU, host_power_w = wall / gpus x psu_efficiency -
// power_w, so that (power_w + host_power_w) / psu_efficiency is the measured wall share (PUE
// then adds the facility, which the BMC does not see). RAPL reads the CPU packages and DRAM only:
// their share per GPU plus the class's assumed rest of the machine.
void apply_measured_host_power(const MeasuredHostPower& m, const MachineClass* mc, CostInputs& in) {
  auto& hp = in[InputId::kHostPowerW];
  if (hp.origin != "default") {
    hp.note = fmt::format("{}{}the logs measured {} ({}), not used: the value given wins", hp.note,
                          hp.note.empty() ? "" : "; ", m.note, m.origin);
    return;
  }
  const double gpus = static_cast<double>(std::max<std::size_t>(in.gpu_count, 1));
  if (m.system_wall) {
    const auto& pw = in[InputId::kPowerW];
    const auto& eff = in[InputId::kPsuEfficiency];
    if (!pw.value || !eff.value) {
      hp.note = fmt::format(
          "{}; the logs measured {}, but without a GPU board power the host's share cannot be "
          "told from it",
          hp.note, m.note);
      return;
    }
    const double share = m.mean_w / gpus;
    double host = share * *eff.value - *pw.value;
    std::string note = fmt::format(
        "measured system: {}; per GPU {} W / {} = {} W at the wall, x psu_efficiency {} = {} W DC, less the GPU "
        "board's {} W ({}) = {} W, so that (power_w + host_power_w) / psu_efficiency is the measured {} W per GPU "
        "(pue then adds the facility, which the BMC does not see)",
        m.note, format_number(m.mean_w), format_number(gpus), format_number(share), format_number(*eff.value),
        format_number(share * *eff.value), format_number(*pw.value), pw.origin, format_number(host),
        format_number(share));
    if (host < 0) {
      note += "; below 0 (a supply more efficient than assumed, or a board power from another window): 0 used";
      host = 0;
    }
    in.set(InputId::kHostPowerW, host, m.origin, std::move(note));
    return;
  }
  const double cpu = m.mean_w / gpus;
  const double rest = mc ? mc->host_rest_w : 0;
  const std::string why = mc ? fmt::format("{} class: {}", mc->label, mc->host_rest_source)
                             : std::string("no machine class: nothing assumed beyond the CPUs");
  in.set(InputId::kHostPowerW, cpu + rest, m.origin,
         fmt::format("part measured, part assumed: {}; per GPU {} W / {} = {} W measured, plus {} W for the rest of "
                     "the machine ({}) = {} W",
                     m.note, format_number(m.mean_w), format_number(gpus), format_number(cpu), format_number(rest), why,
                     format_number(cpu + rest)));
}

// Step 10: the config file, then the command line (the user's own throughputs first, so that a
// relative_speed given in the same layer still wins).
void apply_overrides(const ResolveRequest& rq, CostInputs& in) {
  for (const auto* layer : {&rq.config, &rq.cli}) {
    const std::string o = layer == &rq.cli ? "cli" : "config";
    if (layer->local_throughput || layer->cloud_throughput) {
      if (!layer->local_throughput || !layer->cloud_throughput)
        throw std::invalid_argument(fmt::format(
            "{}: a throughput of your job is given for the {} GPU only; give both --local-throughput and "
            "--cloud-throughput (the same unit, e.g. samples/s), or --relative-speed",
            o, layer->local_throughput ? "local" : "cloud"));
      const double l = *layer->local_throughput, c = *layer->cloud_throughput;
      if (!(l > 0) || !(c > 0) || !std::isfinite(l) || !std::isfinite(c))
        throw std::invalid_argument(fmt::format(
            "{}: the throughputs of your job must be positive numbers (local {}, cloud {})", o, format_number(l),
            format_number(c)));
      in.set(InputId::kRelativeSpeed, c / l, o,
             fmt::format("your job's throughput, cloud / local: {} / {}", format_number(c), format_number(l)));
    }
    for (std::size_t i = 0; i < kInputCount; ++i)
      if (const auto& v = layer->values[i]) {
        const auto id = static_cast<InputId>(i);
        const auto& prev = in[id];
        std::string note;
        if (prev.origin.rfind("measured:", 0) == 0) note = fmt::format("replaces the measured {}", format_number(*prev.value));
        in.set(id, *v, o, std::move(note));
      }
  }
}

// Step 11: money from a preset priced in another currency, converted only with an explicit,
// dated rate.
void convert_currencies(const std::vector<FxRate>& fx, CostInputs& in) {
  for (const auto& sp : input_specs()) {
    auto& v = in[sp.id];
    if (!sp.money || v.currency.empty() || !v.value || v.currency == in.currency) continue;
    for (const auto& f : fx)
      if (f.from == v.currency && f.to == in.currency) {
        const double was = *v.value;
        v.value = was * f.rate;
        v.note = fmt::format("{}; converted from {} {} at 1 {} = {} {} ({}, observed {})", v.note, format_number(was),
                             f.from, f.from, format_number(f.rate), f.to, f.source, f.observed_on);
        v.currency.clear();
        break;
      }
  }
}

// The buyer's unknowns where their value is assumed (a preset, a class default): what the value
// may be in fact, centred on it, so that the Monte Carlo's P(buy) and its percentiles are about
// the same answer as the point values (docs/cost-model.md §3.8).
struct AssumedSpread {
  InputId id;
  double relative;  // ± this share of the value
  double absolute;  // or ± this much (ratios), clamped to [0, 1]
  std::string_view why;
};
constexpr AssumedSpread kAssumedSpreads[] = {
    {InputId::kPurchasePrice, 0.15, 0,
     "assumed spread: one model's street price differs by about ±15 % between sellers and months"},
    {InputId::kHostPrice, 0.25, 0, "assumed spread: a host of the class costs ±25 % with its parts"},
    {InputId::kResaleFraction, 0, 0.10,
     "assumed spread: used prices of one class at one age differ by about ±10 points"},
    {InputId::kPowerW, 0.15, 0, "assumed spread: board power while busy depends on the job, ±15 %"},
};

// Step 12: the ranges of the Monte Carlo, each centred on the value used: the speed bracket when
// the ratio comes from the spec sheets and its value is the bracket's middle; the assumed spreads
// above; the incident rate's Gamma posterior when it is the measured one (its mean is the value);
// then the user's ranges. The spread between the catalog's offers is no range: the offer picked
// has a dated price (gpucost offers lists the others).
void set_ranges(const std::optional<InputRange>& incident_posterior, const ResolveRequest& rq, CostInputs& in) {
  const auto& rs = in[InputId::kRelativeSpeed];
  // The spec-sheet ratio of the two presets (`preset:CLOUD/LOCAL`) or the default; a scenario's
  // own figure (the seed article's 1) or a measured one stays a point value.
  const bool from_specs =
      rs.origin == "default" || (rs.origin.rfind("preset:", 0) == 0 && rs.origin.find('/') != std::string::npos);
  if (from_specs && in.speed.compute_bound && in.speed.bandwidth_bound &&
      *in.speed.compute_bound != *in.speed.bandwidth_bound) {
    const double lo = std::min(*in.speed.compute_bound, *in.speed.bandwidth_bound);
    const double hi = std::max(*in.speed.compute_bound, *in.speed.bandwidth_bound);
    if (rs.value && std::abs(*rs.value - (lo + hi) / 2) <= 1e-9 * hi)
      in.ranges[static_cast<std::size_t>(InputId::kRelativeSpeed)] =
          InputRange{InputRange::Kind::kUniform, lo, hi, "speed bracket: bandwidth-bound to compute-bound ratio"};
  }
  for (const auto& a : kAssumedSpreads) {
    const auto& v = in[a.id];
    if (!v.value || *v.value <= 0 || input_basis(v) != "assumed") continue;
    double lo = *v.value * (1 - a.relative) - a.absolute, hi = *v.value * (1 + a.relative) + a.absolute;
    if (a.absolute > 0) {  // a ratio: clamped, and still centred on the value
      const double d = std::min({*v.value - std::max(lo, 0.0), std::min(hi, 1.0) - *v.value});
      lo = *v.value - d;
      hi = *v.value + d;
    }
    if (hi > lo)
      in.ranges[static_cast<std::size_t>(a.id)] = InputRange{InputRange::Kind::kUniform, lo, hi, std::string(a.why)};
  }
  if (incident_posterior && in[InputId::kIncidentsPerHour].origin == incident_posterior->origin)
    in.ranges[static_cast<std::size_t>(InputId::kIncidentsPerHour)] = *incident_posterior;
  for (const auto* layer : {&rq.config, &rq.cli})
    for (std::size_t i = 0; i < kInputCount; ++i)
      if (const auto& r = layer->ranges[i])
        in.ranges[i] = InputRange{InputRange::Kind::kUniform, r->first, r->second, layer == &rq.cli ? "cli" : "config"};
      else if (const auto& g = layer->gamma_ranges[i])
        in.ranges[i] = InputRange{InputRange::Kind::kGamma, g->first, g->second, layer == &rq.cli ? "cli" : "config"};
}

// The usage's basis: given (command line, config, a scenario, a range), measured (a week of
// samples), or unknown: then no value, and the answer is the threshold. The purchase is spread over
// the hours of use that the usage implies, not over an assumed 8 h a day, once the usage is known.
void settle_usage(CostInputs& in) {
  auto& h = in[InputId::kHoursPerMonth];
  const auto& range = in.ranges[static_cast<std::size_t>(InputId::kHoursPerMonth)];
  const bool measured = h.value && h.origin.rfind("measured:", 0) == 0;
  if (!h.value && range) {
    h.value = (range->a + range->b) / 2;
    h.origin = range->origin;
    h.note = fmt::format("the middle of the range {} .. {} h/month you gave; the Monte Carlo draws from it",
                         format_number(range->a), format_number(range->b));
  }
  if (h.value && !measured) {
    in.usage.basis = UsageBasis::kGiven;
    in.usage.reason = h.origin == "cli" || h.origin == "config"
                          ? fmt::format("given: {} h a month per GPU ({})", format_number(*h.value), h.origin)
                          : fmt::format("given by {}: {} h a month per GPU", h.origin, format_number(*h.value));
    if (range)
      in.usage.reason += fmt::format(", drawn from {} .. {} in the Monte Carlo", format_number(range->a),
                                     format_number(range->b));
  } else if (!h.value) {
    in.usage.basis = UsageBasis::kUnknown;
    if (in.usage.reason.empty())
      in.usage.reason = "no logs were read: give --hours-per-month (busy GPU-hours a month) or a range with "
                        "--range local.hours_per_month=LOW:HIGH";
    h.note = in.usage.reason;
    h.origin = "unknown";
  }
  auto& am = in[InputId::kAmortizationHours];
  const auto& u = in[InputId::kEffectiveUtilization];
  const auto& months = in[InputId::kAmortizationMonths];
  if (h.value && *h.value > 0 && am.origin == "default" && u.value && *u.value > 0 && months.value) {
    const double hours = *h.value / *u.value * *months.value;
    am.value = hours;
    am.note = fmt::format("the hours of use the usage implies: hours_per_month / effective_utilization x "
                          "amortization_months = {} / {} x {} = {}",
                          format_number(*h.value), format_number(*u.value), format_number(*months.value),
                          format_number(hours));
  } else if (!h.value && am.origin == "default") {
    am.note = "assumed, since the usage is unknown: " + am.note + "; only the job-length detail uses it";
  }
}

// Step 13: what nobody gave, measured or priced, stated rather than borrowed: a GPU known only from
// the logs without a power figure (electricity counted as 0), no purchase price (the verdict
// becomes the price below which buying pays), no usage (the usage the amortization assumes).
void fill_unknowns(CostInputs& in) {
  if (in.local_gpu_from_logs && !in[InputId::kPowerW].value) {
    const std::string why = in[InputId::kPowerW].note;
    in.set(InputId::kPowerW, 0, "unknown",
           fmt::format("{}{}no power figure for {} in the logs or the presets: electricity is counted as 0; give "
                       "--local-power-w",
                       why, why.empty() ? "" : "; ", in.local_label));
  }
  if (!in[InputId::kPurchasePrice].value) {
    const std::string why = in[InputId::kPurchasePrice].note;
    in.set(InputId::kPurchasePrice, 0, "unknown",
           fmt::format("{}{}no purchase price is known for {}: the verdict is the price below which buying pays "
                       "(break_even.max_purchase_price); give --local-purchase-price",
                       why, why.empty() ? "" : "; ", in.local_label.empty() ? "the local GPU" : in.local_label));
    in.price_unknown = true;
  }
  settle_usage(in);
}

// Step 14: the question asked (job length, target premium, Monte Carlo seed and draws).
void apply_query(const ResolveRequest& rq, CostQuery& query) {
  for (const auto* layer : {&rq.config, &rq.cli}) {
    const std::string o = layer == &rq.cli ? "cli" : "config";
    if (layer->job_hours) {
      query.job_hours = *layer->job_hours;
      query.job_hours_origin = o;
    }
    if (layer->target_premium) {
      query.target_premium = *layer->target_premium;
      query.target_premium_origin = o;
    }
    if (layer->seed) query.seed = static_cast<std::uint64_t>(*layer->seed);
    if (layer->draws) query.draws = static_cast<std::size_t>(*layer->draws);
  }
}

}  // namespace

CostInputs resolve_inputs(const PresetCatalog& catalog, const ResolveRequest& rq, CostQuery* query) {
  CostInputs in;
  Picked p;
  select_presets(catalog, rq, p);
  select_from_logs(catalog, rq, p, in);
  find_entries(catalog, rq, p, in);
  choose_currency(rq, p, in);
  apply_defaults_and_scenario(catalog, p.scenario, in);
  if (p.gpu) apply_local_gpu(*p.gpu, rq.mig_slice, in);
  if (p.offer) apply_cloud_offer(*p.offer, rq, p.pricing, in);
  apply_spec_speed(catalog, p, rq, in);
  const std::optional<InputRange> incident_posterior = apply_measured(rq, in);
  warn_on_contradictions(p, in);
  apply_overrides(rq, in);
  convert_currencies(rq.fx, in);
  // After the options, so that a lifetime given by the user reads the resale curve at that age.
  const MachineClass* mc = p.local_ref ? find_machine_class(p.local_ref->kind) : nullptr;
  if (mc) apply_machine_class(*mc, in);
  if (rq.host_power) apply_measured_host_power(*rq.host_power, mc, in);
  set_ranges(incident_posterior, rq, in);
  fill_unknowns(in);
  if (query) apply_query(rq, *query);
  return in;
}

}  // namespace gpucost::cost
