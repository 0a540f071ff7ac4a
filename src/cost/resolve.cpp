#include "gpucost/cost/resolve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cost/json_read.hpp"
#include "gpucost/report/json_writer.hpp"
#include "gpucost/small_file.hpp"

namespace gpucost::cost {

namespace {

void parse_side(json::object o, Side side, std::string_view origin, CostOverrides& out) {
  for (auto field : o) {
    const std::string key = fmt::format("{}.{}", side_name(side), std::string_view(field.key));
    const auto id = find_input(side, field.key);
    if (!id) {
      std::string known;
      for (const auto& s : input_specs())
        if (s.side == side) known += (known.empty() ? "" : ", ") + std::string(s.key);
      json::fail(origin, key, fmt::format("unknown input (the {} inputs are: {})", side_name(side), known));
    }
    out.values[static_cast<std::size_t>(*id)] = json::as_number(field.value, origin, key);
  }
}

}  // namespace

CostOverrides parse_cost_config(std::string_view text, std::string_view origin) {
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(text);
  const auto root = json::as_object(json::parse(parser, padded, origin), origin, "(document)");
  CostOverrides o;
  for (auto field : root) {
    const std::string_view k = field.key;
    if (k == "currency") o.currency = json::as_string(field.value, origin, k);
    else if (k == "local") parse_side(json::as_object(field.value, origin, k), Side::local, origin, o);
    else if (k == "cloud") parse_side(json::as_object(field.value, origin, k), Side::cloud, origin, o);
    else if (k == "job_hours") o.job_hours = json::as_number(field.value, origin, k);
    else if (k == "target_premium") o.target_premium = json::as_number(field.value, origin, k);
    else if (k == "preset") o.preset = json::as_string(field.value, origin, k);
    else if (k == "local_preset") o.local = json::as_string(field.value, origin, k);
    else if (k == "cloud_preset") o.cloud = json::as_string(field.value, origin, k);
    else if (k == "comment" || k == "_comment" || k == "notes") continue;
    else
      json::fail(origin, k,
                 "unknown key (known: currency, local, cloud, job_hours, target_premium, preset, local_preset, "
                 "cloud_preset, comment)");
  }
  return o;
}

CostOverrides load_cost_config(const std::string& path) {
  return parse_cost_config(read_small_file(path, kMaxConfigFileBytes, "config file"), path);
}

std::vector<MeasuredInput> measured_inputs(const FeatureLookup& lookup) {
  std::vector<MeasuredInput> out;
  // One input from one feature of the same meaning.
  auto direct = [&](InputId input, std::string_view feature, std::string_view what) {
    MeasuredInput m{input, std::nullopt, {}, {}, {}, {}};
    const auto f = lookup(feature);
    if (!f) {
      m.note = fmt::format("not measured: this build's feature catalog has no {}", feature);
    } else if (!f->value) {
      m.note = fmt::format("not measured: {} ({}) is null: {}", feature, f->id, f->reason);
    } else if (!std::isfinite(*f->value) || *f->value < 0) {
      m.note = fmt::format("not measured: {} ({}) = {} is not a usable value", feature, f->id, format_number(*f->value));
    } else {
      m.value = *f->value;
      m.origin = "measured:" + f->id;
      m.note = fmt::format("{} from the logs ({} = {})", what, feature, format_number(*f->value));
    }
    out.push_back(std::move(m));
  };
  direct(InputId::power_w, "gpu_power_mean_w", "mean GPU power");

  // Effective utilization: the catalog's own feature when it has one (its definition is the
  // contract); else the same formula from the parts that exist, saying which are missing.
  if (lookup("effective_utilization")) {
    direct(InputId::effective_utilization, "effective_utilization", "effective utilization");
    auto& m = out.back();
    if (m.value && *m.value > 1) {
      m.value.reset();
      m.origin.clear();
      m.note = "not measured: effective_utilization is above 1";
    }
  } else {
    MeasuredInput m{InputId::effective_utilization, std::nullopt, {}, {}, {}, {}};
    const auto idle = lookup("gpu_idle_fraction");
    if (!idle) {
      m.note = "not measured: this build's feature catalog has neither effective_utilization nor gpu_idle_fraction";
    } else if (!idle->value) {
      m.note = fmt::format("not measured: gpu_idle_fraction ({}) is null: {}", idle->id, idle->reason);
    } else {
      double u = 1 - *idle->value;
      std::string parts = fmt::format("1 - gpu_idle_fraction {}", format_number(*idle->value));
      std::string missing;
      for (std::string_view part : {"launch_queue_fraction", "power_event_loss_fraction"}) {
        const auto f = lookup(part);
        if (f && f->value) {
          u -= *f->value;
          parts += fmt::format(" - {} {}", part, format_number(*f->value));
        } else {
          missing += fmt::format("{}{} ({})", missing.empty() ? "" : ", ", part,
                                 f ? "null: " + f->reason : std::string("not in this build's catalog"));
        }
      }
      u = std::clamp(u, 0.0, 1.0);
      m.value = u;
      m.origin = "measured:" + idle->id;
      m.note = fmt::format("effective utilization from the logs: {} = {} (the catalog has no effective_utilization "
                           "feature){}",
                           parts, format_number(u), missing.empty() ? "" : "; counted as 0: " + missing);
    }
    out.push_back(std::move(m));
  }
  direct(InputId::incidents_per_hour, "incidents_per_hour", "maintenance incidents per hour of GPU use");
  // The count and the hours behind the rate (F007's own basis: host gpu_sampled_s, else the
  // log uptime), so a rate from a short log can be weighed against the prior.
  if (auto& m = out.back(); m.value) {
    const auto n = lookup("maintenance_incidents");
    const auto sampled = lookup("gpu_sampled_s");
    const auto uptime = lookup("log_uptime_s");
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

}  // namespace

CostInputs resolve_inputs(const PresetCatalog& catalog, const ResolveRequest& rq, CostQuery* query) {
  CostInputs in;
  // Selection: command line over config file.
  PresetSelection sel = rq.selection;
  if (sel.preset.empty() && rq.config.preset) sel.preset = *rq.config.preset;
  if (sel.local.empty() && rq.config.local) sel.local = *rq.config.local;
  if (sel.cloud.empty() && rq.config.cloud) sel.cloud = *rq.config.cloud;

  const Scenario* scenario = nullptr;
  if (!sel.preset.empty() && !(scenario = catalog.find_scenario(sel.preset)))
    unknown_preset(catalog, "scenario", "--preset", sel.preset);
  const bool explicit_local = !sel.local.empty(), explicit_cloud = !sel.cloud.empty();
  // The GPU the logs name picks the local preset (and, when the generic cloud offer is priced in
  // another currency, the first offer priced in the GPU's currency: no conversion is ever done).
  if (!scenario && sel.local.empty()) {
    for (const auto& product : rq.detected_gpus) {
      const LocalGpu* m = catalog.match_local(product);
      if (!m) continue;
      sel.local = m->name;
      in.selection_note = fmt::format("local GPU {} chosen because the logs name '{}'", m->name, product);
      const CloudOffer* generic = catalog.find_cloud(sel.cloud.empty() ? catalog.default_cloud : sel.cloud);
      if (sel.cloud.empty() && generic && !m->currency.empty() && generic->currency != m->currency) {
        if (const CloudOffer* same = catalog.first_cloud_in(m->currency)) {
          sel.cloud = same->name;
          in.selection_note += fmt::format("; cloud offer {} chosen as the first priced in {} (the generic {} is in {})",
                                           same->name, m->currency, generic->name, generic->currency);
        }
      }
      break;
    }
    if (sel.local.empty() && !rq.detected_gpus.empty())
      in.selection_note = fmt::format("no local preset matches the GPU the logs name ('{}'): the generic pair is used",
                                      rq.detected_gpus.front());
  }
  if (!scenario && rq.use_generic_pair) {
    if (sel.local.empty()) sel.local = catalog.default_local;
    if (sel.cloud.empty()) sel.cloud = catalog.default_cloud;
  }
  const LocalGpu* gpu = nullptr;
  const CloudOffer* offer = nullptr;
  if (!sel.local.empty() && !(gpu = catalog.find_local(sel.local))) unknown_preset(catalog, "local GPU", "--local", sel.local);
  if (!sel.cloud.empty() && !(offer = catalog.find_cloud(sel.cloud))) unknown_preset(catalog, "cloud offer", "--cloud", sel.cloud);

  // Currency: explicit, else the scenario's, else the cloud offer's, else the GPU's.
  if (rq.cli.currency) {
    in.currency = *rq.cli.currency;
    in.currency_origin = "cli";
  } else if (rq.config.currency) {
    in.currency = *rq.config.currency;
    in.currency_origin = "config";
  } else if (scenario && !scenario->currency.empty()) {
    in.currency = scenario->currency;
    in.currency_origin = preset_origin(scenario->name);
  } else if (offer && !offer->currency.empty()) {
    in.currency = offer->currency;
    in.currency_origin = preset_origin(offer->name);
  } else if (gpu && !gpu->currency.empty()) {
    in.currency = gpu->currency;
    in.currency_origin = preset_origin(gpu->name);
  }

  // 1. Defaults.
  for (const auto& s : input_specs())
    if (!std::isnan(s.fallback)) in.set(s.id, s.fallback, "default", std::string(s.fallback_why));
  if (const auto* d = catalog.find_currency(in.currency))
    for (const auto& [id, v] : d->values)
      in.set(id, v, "default", d->notes.count(id) ? d->notes.at(id) : "default for " + in.currency);

  // 2. The scenario.
  if (scenario) {
    in.scenario = scenario->name;
    for (const auto& [id, v] : scenario->values) {
      in.set(id, v, preset_origin(scenario->name));
      if (auto it = scenario->notes.find(id); it != scenario->notes.end()) in[id].note = it->second;
      if (spec(id).money) in[id].currency = scenario->currency;
    }
  }

  // 3. The local GPU and the cloud offer.
  const LocalGpu* local_ref = gpu ? gpu : scenario ? catalog.find_local(scenario->local_gpu) : nullptr;
  const CloudOffer* cloud_ref = offer ? offer : scenario ? catalog.find_cloud(scenario->cloud_offer) : nullptr;
  if (local_ref) {
    in.local_gpu = local_ref->name;
    in.local_label = local_ref->label;
  }
  if (cloud_ref) {
    in.cloud_offer = cloud_ref->name;
    in.cloud_label = cloud_ref->label;
  }
  if (gpu) {
    const std::string o = preset_origin(gpu->name);
    if (gpu->purchase_price) {
      in.set(InputId::purchase_price, *gpu->purchase_price, o, gpu->price_source);
      in[InputId::purchase_price].currency = gpu->currency;
    } else {
      // Never keep a price that belongs to another GPU.
      in[InputId::purchase_price] = InputValue{std::nullopt, o, "this preset has no purchase price", {}};
    }
    if (gpu->power_w) in.set(InputId::power_w, *gpu->power_w, o, gpu->power_source);
  }
  if (offer) {
    const std::string o = preset_origin(offer->name);
    if (offer->hourly_rate) {
      in.set(InputId::hourly_rate, *offer->hourly_rate, o,
             fmt::format("{}; seen {}", offer->source.empty() ? "no source given" : offer->source, offer->seen));
      in[InputId::hourly_rate].currency = offer->currency;
    }
    if (offer->cold_start_s) in.set(InputId::cold_start_s, *offer->cold_start_s, o, offer->cold_start_source);
    if (offer->utilization) in.set(InputId::utilization, *offer->utilization, o);
  }
  // The speed ratio follows the two entries' throughput figures when either entry was picked
  // explicitly or both come from the generic pair; a scenario's own figure stands otherwise.
  if ((explicit_local || explicit_cloud || !scenario) && local_ref && cloud_ref && local_ref->throughput &&
      cloud_ref->throughput && *local_ref->throughput > 0) {
    in.set(InputId::relative_speed, *cloud_ref->throughput / *local_ref->throughput,
           preset_origin(cloud_ref->name + "/" + local_ref->name),
           fmt::format("{} / {} {} ({} / {})", format_number(*cloud_ref->throughput),
                       format_number(*local_ref->throughput), catalog.throughput_unit, cloud_ref->gpu.empty() ? cloud_ref->name : cloud_ref->gpu,
                       local_ref->label.empty() ? local_ref->name : local_ref->label));
  }

  // 4. Measured.
  for (const auto& m : rq.measured) {
    const auto& prior = in[m.input];
    if (m.value && m.events && m.exposure_h && rq.incident_prior_hours > 0 && prior.value) {
      // A rate from a few hours of logs is mostly noise: combine the count with the prior rate,
      // weighted as incident_prior_hours of observation (Gamma-Poisson posterior mean).
      const double h0 = rq.incident_prior_hours, r0 = *prior.value;
      const double v = (*m.events + r0 * h0) / (*m.exposure_h + h0);
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
      v.note = v.note.empty() ? m.note : m.note + "; using " + (v.origin.empty() ? "no value" : v.origin) + ": " + v.note;
    }
  }

  // 5. Config, 6. command line.
  for (const auto* layer : {&rq.config, &rq.cli}) {
    const std::string o = layer == &rq.cli ? "cli" : "config";
    for (std::size_t i = 0; i < kInputCount; ++i)
      if (const auto& v = layer->values[i]) {
        const auto id = static_cast<InputId>(i);
        const auto& prev = in[id];
        std::string note;
        if (prev.origin.rfind("measured:", 0) == 0) note = fmt::format("replaces the measured {}", format_number(*prev.value));
        in.set(id, *v, o, std::move(note));
      }
  }
  if (query) {
    for (const auto* layer : {&rq.config, &rq.cli}) {
      const std::string o = layer == &rq.cli ? "cli" : "config";
      if (layer->job_hours) {
        query->job_hours = *layer->job_hours;
        query->job_hours_origin = o;
      }
      if (layer->target_premium) {
        query->target_premium = *layer->target_premium;
        query->target_premium_origin = o;
      }
    }
  }
  return in;
}

}  // namespace gpucost::cost
