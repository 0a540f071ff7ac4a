// The rule table of the findings stage and the rules themselves. Each rule reads features (by id),
// timeline events and the cost result; none recomputes a feature.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <functional>

#include "gpucost/features/xid_catalog.hpp"
#include "gpucost/findings/findings.hpp"
#include "gpucost/text.hpp"
#include "gpucost/text/number.hpp"

namespace gpucost::findings {

namespace {

// What every rule reads.
struct Context {
  const Timeline& tl;
  const FeatureSet& fs;
  const cost::CostResult* cost;
  const FindingOptions& o;

  std::optional<double> f(FeatureId id) const { return fs.get(id); }
  double f_or(FeatureId id, double fallback) const { return f(id).value_or(fallback); }
  std::string reason(FeatureId id) const {
    const FeatureValue* v = fs.find(id);
    return v ? v->reason : std::string();
  }
  FeatureEvidence ev(FeatureId id) const {
    FeatureEvidence e;
    const FeatureDef& d = feature_def(id);
    e.id = std::string(d.id);
    e.name = std::string(d.name);
    e.unit = std::string(d.unit);
    e.value = f(id);
    return e;
  }
  // The first `max` events (time order) that `keep` accepts, and how many it accepts in all.
  std::vector<EventEvidence> events(const std::function<bool(EventKind, std::optional<std::int64_t>)>& keep,
                                    std::uint64_t& total, std::size_t max = 3) const {
    std::vector<EventEvidence> out;
    total = 0;
    const Table& ev = tl.events;
    const Column& kind = ev.column(event_col::kind);
    const Column& code = ev.column(event_col::code);
    for (std::size_t i = 0; i < ev.rows(); ++i) {
      const auto k = static_cast<EventKind>(kind.get_int(i));
      std::optional<std::int64_t> c;
      if (code.is_valid(i)) c = code.get_int(i);
      if (!keep(k, c)) continue;
      total += event_repeat(ev, i);  // a run of repeats: its count
      if (out.size() >= max) continue;
      out.push_back(evidence_of(i));
    }
    return out;
  }
  // One event row as evidence.
  EventEvidence evidence_of(std::size_t i) const {
    const Table& ev = tl.events;
    EventEvidence e;
    e.kind = std::string(event_kind_name(static_cast<EventKind>(ev.column(event_col::kind).get_int(i))));
    if (ev.column(event_col::ts_ns).is_valid(i)) e.ts = ev.column(event_col::ts_ns).get_int(i);
    const auto file = static_cast<std::size_t>(ev.column(event_col::file).get_int(i));
    if (file < tl.files.size()) e.file = tl.files[file].path;
    e.line = static_cast<std::uint64_t>(ev.column(event_col::line).get_int(i));
    std::string_view t = ev.column(event_col::text).get_string(i);
    if (auto nl = t.find('\n'); nl != std::string_view::npos) t = t.substr(0, nl);
    e.text = std::string(t.substr(0, 200));
    return e;
  }
  // The power limits of each GPU over its reports (a device record per -q report and per
  // query-gpu file): the lowest limit in force, the board's default and maximum.
  struct GpuPower {
    std::string key;  // PCI bus, else `#index`
    std::optional<int> index;
    std::optional<double> limit, default_w, max_w;
    std::string label() const { return index ? fmt::format("GPU {}", *index) : fmt::format("GPU {}", key); }
    std::string select() const { return index ? std::to_string(*index) : key; }  // nvidia-smi -i
  };
  std::vector<GpuPower> power_limits() const {
    std::vector<GpuPower> out;
    auto low = [](std::optional<double>& a, const std::optional<double>& b) { if (b && (!a || *b < *a)) a = b; };
    auto high = [](std::optional<double>& a, const std::optional<double>& b) { if (b && (!a || *b > *a)) a = b; };
    for (const GpuDevice& d : tl.devices) {
      const std::string key = !d.pci_bus.empty() ? d.pci_bus : d.index ? "#" + std::to_string(*d.index) : "";
      if (key.empty()) continue;
      auto it = std::find_if(out.begin(), out.end(), [&](const GpuPower& g) { return g.key == key; });
      if (it == out.end()) it = out.insert(out.end(), GpuPower{key, {}, {}, {}, {}});
      if (!it->index) it->index = d.index;
      low(it->limit, d.power_limit_w);
      high(it->default_w, d.power_default_limit_w);
      high(it->max_w, d.power_max_limit_w);
    }
    return out;
  }
  std::vector<EventEvidence> events_of(std::initializer_list<EventKind> kinds, std::uint64_t& total,
                                       std::size_t max = 3) const {
    std::vector<EventKind> ks(kinds);
    return events([&](EventKind k, std::optional<std::int64_t>) { return std::find(ks.begin(), ks.end(), k) != ks.end(); },
                  total, max);
  }
  // GPU-hours lost, priced at the local cost per wall hour (the hour of ownership that did no
  // work), over the span and scaled to a month at the measured usage.
  Money lost_hours(double hours, std::string_view what) const {
    Money m;
    if (!cost) {
      m.basis = "no cost section";
      return m;
    }
    m.currency = cost->inputs.currency;
    const double rate = cost->local.cost_per_wall_hour;
    m.over_span = hours * rate;
    const auto busy_s = f(FeatureId::gpu_busy_s);
    const auto& usage = cost->break_even.hours_per_month;
    if (!usage) {
      m.basis = fmt::format("{} = {} h x {} {}/h (local cost per wall hour); per month null: the usage is unknown",
                            what, format_number(hours), format_number(rate), m.currency);
    } else if (busy_s && *busy_s > 0) {
      const double per_month_h = *usage;
      m.per_month = hours / (*busy_s / 3600.0) * per_month_h * rate;
      m.basis = fmt::format("{} = {} h x {} {}/h (local cost per wall hour); per month scaled by the usage {} h/month "
                            "over the {} busy GPU-hours of the logs",
                            what, format_number(hours), format_number(rate), m.currency, format_number(per_month_h),
                            format_number(*busy_s / 3600.0));
    } else {
      m.basis = fmt::format("{} = {} h x {} {}/h (local cost per wall hour); per month null: no busy GPU time sampled",
                            what, format_number(hours), format_number(rate), m.currency);
    }
    return m;
  }
  Money no_money(std::string why) const {
    Money m;
    if (cost) m.currency = cost->inputs.currency;
    m.basis = std::move(why);
    return m;
  }
};

using Rule = void (*)(const Context&, std::vector<Finding>&);

Finding make(std::string_view id, std::string_view name, Severity s, std::string title) {
  Finding f;
  f.id = std::string(id);
  f.rule = std::string(name);
  f.severity = s;
  f.title = std::move(title);
  return f;
}

std::string pct(double ratio) { return fmt::format("{:.0f} %", 100 * ratio); }

// R01: the GPU waits while the CPU is busy with other work: the input pipeline is the bottleneck.
// Without ps snapshots the cause of the idle time is not in the logs (a lone dmon paste): the
// finding is information that says what to collect, and gives no remedy.
void input_pipeline_bound(const Context& c, std::vector<Finding>& out) {
  const auto idle = c.f(FeatureId::gpu_idle_fraction);
  if (!idle || *idle < c.o.idle_fraction) return;
  const auto competing = c.f(FeatureId::cpu_competing_pct_mean);
  const double idle_s = c.f_or(FeatureId::gpu_idle_s, 0);
  if (competing && *competing < c.o.cpu_competing_pct) return;  // idle, but the CPU had room: not this rule
  Finding f = make("R01", "input_pipeline_bound", competing ? Severity::kWarning : Severity::kInfo,
                   competing ? fmt::format("GPU idle {} of the sampled time while other processes used {:.0f} % CPU: "
                                           "the input pipeline or competing work starves it",
                                           pct(*idle), *competing)
                             : fmt::format("GPU idle {} of the sampled time; what held it back is not in the logs",
                                           pct(*idle)));
  f.features = {c.ev(FeatureId::gpu_idle_fraction), c.ev(FeatureId::gpu_idle_s), c.ev(FeatureId::gpu_longest_idle_s), c.ev(FeatureId::cpu_load_pct_mean), c.ev(FeatureId::cpu_competing_pct_mean), c.ev(FeatureId::ps_busy_processes_mean)};
  f.money = c.lost_hours(idle_s / 3600.0, "idle GPU time (F018)");
  if (competing) {
    f.next_step =
        "Profile the data loader: raise DataLoader num_workers, pin_memory and prefetch, cache decoded data on local "
        "SSD, and stop CPU-heavy background work while training";
  } else {
    f.next_step = "No remedy yet: idle time between jobs, a data loader that starves the GPU and a job waiting on "
                  "I/O look the same in GPU samples alone; collect what tells them apart first";
    f.to_confirm = "collect `ps aux` snapshots during the job (" + c.reason(FeatureId::cpu_competing_pct_mean) +
                   "), and a PyTorch profiler trace for the launch queue (F003)";
  }
  out.push_back(std::move(f));
}

// R02: clocks held down by heat. Power capping is R13, hardware slowdown and power brake R14:
// fans and paste are the remedy only where temperature is the cause.
void thermal_or_power_throttling(const Context& c, std::vector<Finding>& out) {
  const auto tviol = c.f(FeatureId::gpu_thermal_violation_fraction);                     // share of dmon rows with a thermal violation
  const auto sw_thermal = c.f(FeatureId::clock_event_sw_thermal_s), hw_thermal = c.f(FeatureId::clock_event_hw_thermal_s);  // clock-event seconds
  const auto drop = c.f(FeatureId::gpu_pclk_heat_drop_pct);                      // hot busy clocks below cool ones, %
  const double busy_s = c.f_or(FeatureId::gpu_busy_s, 0);
  const double sampled_s = busy_s + c.f_or(FeatureId::gpu_idle_s, 0);
  const double hot_events = c.f_or(FeatureId::thermal_events, 0);
  // The share of the GPU's time held down by heat: dmon's tviol rows, the driver's thermal
  // clock-event seconds over the busy time, or the hot rows when hot clocks ran lower.
  std::optional<double> share;
  auto take = [&share](double v) { share = std::max(share.value_or(0.0), std::min(1.0, v)); };
  if (tviol) take(*tviol);
  const double thermal_s = sw_thermal.value_or(0) + hw_thermal.value_or(0);
  if (thermal_s > 0 && busy_s > 0) take(thermal_s / busy_s);
  if (drop && *drop >= 5 && sampled_s > 0) take(c.f_or(FeatureId::gpu_time_above_temp_s, 0) / sampled_s);
  const bool gpu_evidence = tviol || sw_thermal || hw_thermal || drop;
  const bool laptop = c.f_or(FeatureId::laptop_signals, 0) > 0;
  if (!share || *share < c.o.throttled_fraction) {
    if (gpu_evidence || hot_events == 0) return;
    // Kernel thermal lines only: often the CPU's, and nothing says the GPU slowed down.
    Finding f = make("R02", "thermal_or_power_throttling", Severity::kInfo,
                     fmt::format("{:.0f} thermal events in the kernel log; whether they slowed the GPU is not in the "
                                 "logs (they are often the CPU's)",
                                 hot_events));
    f.features = {c.ev(FeatureId::thermal_events), c.ev(FeatureId::gpu_temp_max_c), c.ev(FeatureId::gpu_thermal_margin_c)};
    f.events = c.events_of({EventKind::thermal}, f.events_total);
    f.money = c.no_money("not priced: no GPU throttle reasons in the logs");
    f.next_step = "No remedy yet: read which part ran hot first";
    f.to_confirm = "collect `nvidia-smi dmon -s pucvmet` (tviol) or `nvidia-smi -q -d PERFORMANCE` to see the GPU's "
                   "own throttle reasons";
    out.push_back(std::move(f));
    return;
  }
  std::string title = fmt::format("Throttled by heat in {} of the time", pct(*share));
  if (drop && *drop > 0) title += fmt::format("; hot clocks {:.0f} % below cool ones", *drop);
  if (hw_thermal && *hw_thermal > 0) title += fmt::format("; HW thermal slowdown {:.0f} s", *hw_thermal);
  Finding f = make("R02", "thermal_or_power_throttling", Severity::kWarning, std::move(title));
  // The throttle seconds by cause (F044 SW thermal, F132 HW thermal) and the margin to the GPU's
  // own slowdown temperature (F058) say how close to its limit the cooling runs.
  f.features = {c.ev(FeatureId::gpu_thermal_violation_fraction), c.ev(FeatureId::clock_event_sw_thermal_s), c.ev(FeatureId::clock_event_hw_thermal_s), c.ev(FeatureId::gpu_pclk_heat_drop_pct), c.ev(FeatureId::gpu_temp_max_c), c.ev(FeatureId::gpu_time_above_temp_s),
                c.ev(FeatureId::gpu_thermal_episodes), c.ev(FeatureId::gpu_thermal_margin_c), c.ev(FeatureId::gpu_throttled_fraction)};
  f.events = c.events_of({EventKind::thermal}, f.events_total);
  if (drop && *drop > 0)
    f.money = c.lost_hours(busy_s / 3600.0 * *share * *drop / 100.0,
                           "throughput lost = busy time (F017) x share held down by heat x hot clock drop (F043)");
  else
    f.money = c.no_money("no clock drop measured (F043 null): " + c.reason(FeatureId::gpu_pclk_heat_drop_pct));
  const auto margin = c.f(FeatureId::gpu_thermal_margin_c);
  const std::string near = margin ? fmt::format(" (the hottest sample was {:.0f} °C below the GPU's slowdown "
                                                "temperature, F058)", *margin)
                                  : std::string();
  f.next_step = laptop ? "Put the laptop on a stand or cooling pad, clean the fans and vents, check the power mode "
                         "(nvidia-powerd, platform profile) and keep it on AC; on an old machine renew the thermal paste"
                       : "Check the fans (`nvidia-smi -q -d TEMPERATURE,PERFORMANCE`), airflow and inlet temperature, "
                         "blanking panels and the server's fan profile; renew the thermal paste on old boards";
  f.next_step += near;
  if (hw_thermal && *hw_thermal > 0)
    f.next_step += "; HW thermal slowdown (F132) cuts the clocks by half or more: the cooler is failing (a stopped "
                   "fan, an unseated heatsink, a blocked intake): service it before the next job";
  out.push_back(std::move(f));
}

// R13: clocks held down by the power limit. At the board's default (or maximum) limit this is
// how dense tensor work runs (information); a limit set below the default is a warning.
void power_capped(const Context& c, std::vector<Finding>& out) {
  const auto pviol = c.f(FeatureId::gpu_power_violation_mean_pct);  // mean % of each interval at the power limit (dmon)
  const auto cap_s = c.f(FeatureId::clock_event_sw_power_cap_s);  // SW power cap seconds (query-gpu reasons)
  const double sampled_s = c.f_or(FeatureId::gpu_busy_s, 0) + c.f_or(FeatureId::gpu_idle_s, 0);
  std::optional<double> share;
  if (pviol) share = *pviol / 100.0;
  else if (cap_s && sampled_s > 0) share = std::min(1.0, *cap_s / sampled_s);
  const bool capped = share && *share >= c.o.throttled_fraction;
  const auto gpus = c.power_limits();
  std::vector<const Context::GpuPower*> lowered;
  bool default_known = false;
  for (const auto& g : gpus) {
    default_known = default_known || g.default_w;
    if (g.limit && g.default_w && *g.limit < *g.default_w - 1.0) lowered.push_back(&g);
  }
  if (!capped && lowered.empty()) return;
  const auto clock = c.f(FeatureId::gpu_busy_clock_ratio);
  const std::string clock_note =
      clock ? fmt::format("; the clock ran at {:.0f} % of its maximum while busy (F022)", 100 * *clock) : std::string();
  const std::string time_note = share ? fmt::format(" {} of the time", pct(*share)) : std::string();
  Finding f = make("R13", "power_capped", Severity::kInfo, "");
  f.features = {c.ev(FeatureId::gpu_power_violation_mean_pct), c.ev(FeatureId::clock_event_sw_power_cap_s), c.ev(FeatureId::gpu_power_limit_w), c.ev(FeatureId::gpu_power_limit_share), c.ev(FeatureId::gpu_busy_power_mean_w), c.ev(FeatureId::gpu_busy_clock_ratio), c.ev(FeatureId::gpu_throttled_fraction)};
  if (!lowered.empty()) {
    // A warning unless the samples show the lower limit never held the work back.
    if (capped || !share) f.severity = Severity::kWarning;
    std::string what, restore;
    for (const auto* g : lowered) {
      if (!what.empty()) what += "; ";
      what += fmt::format("{} power limit {} W, below its {} W default", g->label(), format_number(*g->limit),
                          format_number(*g->default_w));
      if (!restore.empty()) restore += " and ";
      restore += fmt::format("`sudo nvidia-smi -i {} -pl {}`", g->select(), format_number(*g->default_w));
    }
    f.title = what + (capped ? fmt::format(": power-capped{}{}", time_note, clock_note)
                      : share ? std::string(": it did not cap the work in these logs")
                              : std::string(": whether it held the work back is not in the logs"));
    if (!share) f.to_confirm = "collect `nvidia-smi dmon -s p` (pviol) during the job to see how often the limit caps it";
    f.money = c.no_money("not priced: what the lower limit costs depends on how power-bound the work is; restore the "
                         "default and compare the busy clock (F022)");
    f.next_step = "Restore the default limit with " + restore +
                  " (root; the setting does not survive a reboot or a driver reload, so also find what lowers it: a "
                  "power-saving script, a scheduler prolog, a DCGM power policy or a systemd unit); `nvidia-smi -q -d "
                  "POWER` then shows Current Power Limit back at Default Power Limit";
  } else if (default_known) {
    // At the default or above it (a laptop's Dynamic Boost, a raised limit): the board's design.
    // One phrase per GPU; the same for every GPU is said once.
    std::vector<std::string> each;
    std::vector<const Context::GpuPower*> of;
    for (const auto& g : gpus) {
      if (!g.limit || !g.default_w) continue;
      const bool at_max = g.max_w && *g.limit >= *g.max_w - 1.0 && *g.max_w > *g.default_w + 1.0;
      each.push_back(at_max ? fmt::format("{} W maximum limit (default {} W)", format_number(*g.limit),
                                          format_number(*g.default_w))
                            : fmt::format("{} W default limit", format_number(*g.limit)));
      of.push_back(&g);
    }
    std::string at = "default power limit";  // a default with no limit beside it: said plainly
    const bool same = std::all_of(each.begin(), each.end(), [&](const std::string& e) { return e == each.front(); });
    if (!each.empty() && same) {
      at = each.front();
      if (each.size() > 1) at += fmt::format(" (all {} GPUs)", each.size());
    } else if (!each.empty()) {
      at.clear();
      for (std::size_t i = 0; i < each.size(); ++i) at += (i ? ", " : "") + each[i] + " on " + of[i]->label();
    }
    f.title = fmt::format("Power-bound at its {}{}: normal for dense tensor work{}", at, time_note, clock_note);
    f.money = c.no_money("costs nothing: the board runs at the power it was designed for");
    f.next_step = "Nothing to fix: a GPU held at its default power limit by dense matrix work runs as designed. Only "
                  "a higher limit up to Max Power Limit (`nvidia-smi -q -d POWER`, `nvidia-smi -pl`) buys clock, and "
                  "little for the power; compare the cost per effective hour instead";
  } else {
    f.title = fmt::format("Power-capped{} at a {} limit; whether that is the board's default is not in the logs{}",
                          time_note, c.f(FeatureId::gpu_power_limit_w) ? format_number(*c.f(FeatureId::gpu_power_limit_w)) + " W" : std::string("its power"),
                          clock_note);
    f.money = c.no_money("not priced: without the default limit the logs cannot tell design from a lowered limit");
    f.next_step = "No remedy yet: at the default limit this is normal for dense work; below it, `nvidia-smi -pl` "
                  "restores it";
    f.to_confirm = "collect `nvidia-smi -q -d POWER` to compare Current Power Limit with Default Power Limit";
  }
  out.push_back(std::move(f));
}

// R14: hardware slowdown that is not heat: the power brake (an external signal) or HW slowdown
// with neither cause.
void hw_slowdown(const Context& c, std::vector<Finding>& out) {
  const auto hw = c.f(FeatureId::clock_event_hw_slowdown_s), brake = c.f(FeatureId::clock_event_hw_power_brake_s), thermal = c.f(FeatureId::clock_event_hw_thermal_s);
  const double brake_s = brake.value_or(0);
  const double other_s = std::max(0.0, hw.value_or(0) - thermal.value_or(0) - brake_s);
  if (brake_s < 1 && other_s < 1) return;
  Finding f = make("R14", "hw_slowdown", Severity::kWarning,
                   brake_s >= 1 ? fmt::format("HW power brake held the clocks down for {}", cost::human_duration(brake_s / 3600.0))
                                : fmt::format("HW slowdown (neither thermal nor power brake) for {}",
                                              cost::human_duration(other_s / 3600.0)));
  f.features = {c.ev(FeatureId::clock_event_hw_slowdown_s), c.ev(FeatureId::clock_event_hw_power_brake_s), c.ev(FeatureId::clock_event_hw_thermal_s), c.ev(FeatureId::gpu_power_mean_w), c.ev(FeatureId::gpu_power_limit_w)};
  f.money = c.no_money("not priced: -q counters count since the driver loaded, not within the logs");
  f.next_step = brake_s >= 1
                    ? "The power brake is asserted from outside the GPU (the system's power supply or baseboard on "
                      "overload or a PSU fault): check the PSU's capacity for the GPUs' transients, its cables and "
                      "connectors, and the BMC's event log (`ipmitool sel list`)"
                    : "Check that the auxiliary power connectors (8-pin, 12VHPWR) are fully seated, the PSU and the "
                      "BMC's event log; update the VBIOS if it persists";
  out.push_back(std::move(f));
}

// R03: the PCIe link trains below its capability.
void pcie_link_degraded(const Context& c, std::vector<Finding>& out) {
  const auto ratio = c.f(FeatureId::pcie_link_width_ratio);
  const double msgs = c.f_or(FeatureId::pcie_link_degraded_events, 0);
  if ((!ratio || *ratio >= 1) && msgs == 0) return;
  Finding f = make("R03", "pcie_link_degraded", Severity::kWarning,
                   ratio && *ratio < 1
                       ? fmt::format("PCIe link at {:.0f} of {:.0f} lanes", c.f_or(FeatureId::pcie_link_width, 0), c.f_or(FeatureId::pcie_link_width_max, 0))
                       : fmt::format("The kernel reports the GPU's PCIe link below its capability ({:.0f} messages)", msgs));
  f.features = {c.ev(FeatureId::pcie_link_width), c.ev(FeatureId::pcie_link_width_max), c.ev(FeatureId::pcie_link_width_ratio), c.ev(FeatureId::pcie_link_gen), c.ev(FeatureId::pcie_link_gen_max), c.ev(FeatureId::pcie_link_degraded_events), c.ev(FeatureId::gpu_pcie_rx_mean_mbs)};
  f.events = c.events_of({EventKind::pcie_link_degraded}, f.events_total);
  f.money = c.no_money("not priced: the loss depends on how much the job moves between host and GPU (F056, F057)");
  f.next_step = "Reseat the card, try another x16 slot without a riser or with a certified one, and set the slot to its "
                "full generation in the BIOS; a lower generation at idle is power saving, check it under load";
  if (!ratio) f.to_confirm = "collect `nvidia-smi -q` under load to read the current and maximum link width and generation";
  out.push_back(std::move(f));
}

// R04: a laptop training on battery or through suspends.
void laptop_power_interruptions(const Context& c, std::vector<Finding>& out) {
  const double battery = c.f_or(FeatureId::battery_s, 0);
  const double suspends = c.f_or(FeatureId::suspends, 0);
  if (battery < c.o.battery_s && suspends == 0) return;
  const auto loss = c.f(FeatureId::power_event_loss_s);
  Finding f = make("R04", "laptop_power_interruptions", Severity::kWarning,
                   fmt::format("Training through {:.0f} suspend(s) and {} on battery{}", suspends,
                               cost::human_duration(battery / 3600.0),
                               loss ? fmt::format(": {} of GPU time lost", cost::human_duration(*loss / 3600.0)) : ""));
  f.features = {c.ev(FeatureId::battery_s), c.ev(FeatureId::ac_switches), c.ev(FeatureId::suspends), c.ev(FeatureId::suspended_s), c.ev(FeatureId::lid_closes), c.ev(FeatureId::power_event_loss_s), c.ev(FeatureId::battery_busy_clock_ratio)};
  f.events = c.events_of({EventKind::ac_offline, EventKind::suspend, EventKind::lid_close}, f.events_total, 5);
  f.money = loss ? c.lost_hours(*loss / 3600.0, "time lost to power events (F134)")
                 : c.no_money("power_event_loss_s (F134) is null: " + c.reason(FeatureId::power_event_loss_s));
  f.next_step = "Keep the laptop on AC during jobs and disable sleep while training (`systemd-inhibit --what=sleep:"
                "handle-lid-switch <job>`, or HandleLidSwitch=ignore); save checkpoints so a suspend costs minutes";
  if (!loss) f.to_confirm = "collect `nvidia-smi dmon` during the job to measure the GPU time lost";
  out.push_back(std::move(f));
}

bool xid_in_class(std::optional<std::int64_t> code, std::string_view cls) {
  const XidInfo* x = code ? xid_info(*code) : nullptr;
  return x && x->xid_class == cls;
}

// The catalog's actions of the codes seen, once each.
std::string catalog_actions(const Context& c, std::string_view cls) {
  std::vector<std::int64_t> codes;
  const Table& ev = c.tl.events;
  for (std::size_t i = 0; i < ev.rows(); ++i)
    if (static_cast<EventKind>(ev.column(event_col::kind).get_int(i)) == EventKind::xid &&
        ev.column(event_col::code).is_valid(i)) {
      const auto code = ev.column(event_col::code).get_int(i);
      if (xid_in_class(code, cls) && std::find(codes.begin(), codes.end(), code) == codes.end()) codes.push_back(code);
    }
  std::sort(codes.begin(), codes.end());
  std::string s;
  for (auto code : codes) {
    const XidInfo* x = xid_info(code);
    if (!s.empty()) s += "; ";
    s += fmt::format("Xid {} ({}): {}", code, x->name, x->action);
    // NVIDIA's own resolution buckets, so the step can be checked against the catalog.
    if (!x->immediate.empty())
      s += fmt::format(" [NVIDIA: {}{}]", x->immediate, x->investigatory.empty() ? "" : ", then " + x->investigatory);
  }
  return s;
}

// The driver's recovery actions (`nvmlGpuRecoveryAction_t`, the value Xid 154 names after `to`).
struct RecoveryAction {
  int value;
  std::string_view name;
  Severity severity;
  std::string_view step;
};
constexpr RecoveryAction kRecoveryActions[] = {
    {0, "none", Severity::kInfo, "nothing: the GPU can run new work"},
    {1, "GPU reset", Severity::kWarning,
     "reset the GPU: drain it in the scheduler, stop its processes, then `nvidia-smi -r -i {gpu}`; new work can start "
     "after the reset"},
    {2, "node reboot", Severity::kCritical,
     "reboot the node: drain it in the scheduler and reboot it; the fault may have left the OS inconsistent, a GPU "
     "reset is not enough"},
    {3, "drain P2P", Severity::kWarning,
     "drain peer-to-peer traffic: stop the processes that use P2P or NVLink on the GPU and disable UVM persistence "
     "mode, then read the recovery action again (`nvidia-smi -q | grep 'GPU Recovery Action'`): it changes to the "
     "action to take"},
    {4, "drain P2P and reset", Severity::kWarning,
     "drain peer-to-peer traffic (stop the processes that use P2P or NVLink, disable UVM persistence mode), then reset "
     "the GPU (`nvidia-smi -r -i {gpu}`)"},
    {5, "recover IMEX domain", Severity::kWarning,
     "recover the IMEX domain: restart the nvidia-imex service on the domain's nodes"},
    {6, "PCIe bus reset", Severity::kWarning,
     "reset the GPU's PCIe bus (drain the node; a secondary bus reset, or a reboot where the platform cannot)"},
    {7, "system reboot", Severity::kCritical, "reboot the system (a full power cycle): drain the node first"},
};
const RecoveryAction* recovery_action(int v) {
  for (const auto& a : kRecoveryActions)
    if (a.value == v) return &a;
  return nullptr;
}
// The action Xid 154 names: the hex value after "to 0x"; -1 when the text does not say.
int xid154_action(std::string_view t) {
  const auto p = t.find("to 0x");
  if (p == std::string_view::npos) return -1;
  int v = 0, digits = 0;
  for (std::size_t i = p + 5; i < t.size() && text::is_hex(t[i]) && digits < 8; ++i, ++digits)
    v = v * 16 + (text::is_digit(t[i]) ? t[i] - '0' : (t[i] | 0x20) - 'a' + 10);
  return digits ? v : -1;
}
// `-q`'s `GPU Recovery Action` and query-gpu's `gpu_recovery_action` as the same value.
int named_action(std::string_view v) {
  std::string low;
  for (char ch : v) low += static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
  if (low.empty()) return -1;
  if (low == "none") return 0;
  if (low.find("drain") != std::string::npos) return low.find("reset") != std::string::npos ? 4 : 3;
  if (low.find("imex") != std::string::npos) return 5;
  if (low.find("bus") != std::string::npos) return 6;
  if (low.find("system") != std::string::npos) return 7;
  if (low.find("reboot") != std::string::npos) return 2;
  if (low.find("reset") != std::string::npos) return 1;
  return -1;
}
bool hardware_xid(std::int64_t code) {
  const XidInfo* x = xid_info(code);
  return x && (x->xid_class == "memory_ecc" || x->xid_class == "bus");
}

// The Xid history of one GPU (by the `gpu` text of its kernel lines), in time order.
struct XidHistory {
  std::string gpu;
  std::size_t last_154 = SIZE_MAX;  // event row of the latest Xid 154
  int action = -1;                  // what it asks for
  std::size_t tied = SIZE_MAX;      // the Xid before it that it answers
  std::size_t recoveries = 0;       // resets, driver loads and boots seen after its first hardware Xid
  std::int64_t recurred_code = -1;  // a hardware Xid seen again after a recovery
  std::size_t recurred_after = 0;   // how many recoveries it came back after
  std::size_t recurred_row = SIZE_MAX;
};
std::vector<XidHistory> xid_histories(const Context& c) {
  const Table& ev = c.tl.events;
  const Column& kind = ev.column(event_col::kind);
  const Column& code = ev.column(event_col::code);
  const Column& gpu = ev.column(event_col::gpu);
  const Column& ts = ev.column(event_col::ts_ns);
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < ev.rows(); ++i) {
    const auto k = static_cast<EventKind>(kind.get_int(i));
    if (k == EventKind::xid || k == EventKind::gpu_reset || k == EventKind::driver_load || k == EventKind::boot)
      rows.push_back(i);
  }
  // Unplaced rows keep their file order, after the placed ones.
  std::stable_sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
    const bool pa = ts.is_valid(a), pb = ts.is_valid(b);
    if (pa != pb) return pa;
    return pa && ts.get_int(a) < ts.get_int(b);
  });
  std::vector<XidHistory> out;
  struct Seen {
    std::int64_t code;
    std::size_t recoveries_then;  // the GPU's recoveries when it was last seen
  };
  std::vector<std::vector<Seen>> seen;
  std::vector<std::size_t> last_xid;  // per history: the latest Xid other than 154
  std::vector<bool> dirty;            // per history: an Xid since its last recovery
  auto history = [&](std::string_view g) -> std::size_t {
    for (std::size_t h = 0; h < out.size(); ++h)
      if (out[h].gpu == g) return h;
    out.push_back(XidHistory{std::string(g)});
    seen.emplace_back();
    last_xid.push_back(SIZE_MAX);
    dirty.push_back(false);
    return out.size() - 1;
  };
  for (const std::size_t r : rows) {
    const auto k = static_cast<EventKind>(kind.get_int(r));
    const std::string_view g = gpu.is_valid(r) ? gpu.get_string(r) : std::string_view();
    if (k != EventKind::xid) {
      // A reset names its GPU; a driver load or a boot recovers every GPU. A boot and the driver
      // load that follows it are one recovery: only one after an Xid counts.
      for (std::size_t h = 0; h < out.size(); ++h)
        if (dirty[h] && (k != EventKind::gpu_reset || g.empty() || out[h].gpu == g)) {
          ++out[h].recoveries;
          dirty[h] = false;
        }
      continue;
    }
    if (!code.is_valid(r)) continue;
    const std::int64_t x = code.get_int(r);
    const std::size_t h = history(g);
    XidHistory& hs = out[h];
    if (x == 154) {
      hs.last_154 = r;
      hs.action = xid154_action(ev.column(event_col::text).get_string(r));
      hs.tied = last_xid[h];
      continue;
    }
    last_xid[h] = r;
    dirty[h] = true;
    if (!hardware_xid(x)) continue;
    auto it = std::find_if(seen[h].begin(), seen[h].end(), [x](const Seen& s) { return s.code == x; });
    if (it == seen[h].end()) {
      seen[h].push_back({x, hs.recoveries});
    } else {
      const std::size_t after = hs.recoveries - it->recoveries_then;
      if (after > 0) {
        const std::size_t total = hs.recurred_code == x ? hs.recurred_after + 1 : 1;
        if (total >= hs.recurred_after) {
          hs.recurred_code = x;
          hs.recurred_after = total;
          hs.recurred_row = r;
        }
      }
      it->recoveries_then = hs.recoveries;
    }
  }
  return out;
}

// R15: the recovery action the driver asks for (Xid 154, `GPU Recovery Action` of -q and
// query-gpu): the finding's next step is that action; a hardware Xid that came back after a reset
// or reboot escalates to inspect / RMA.
void gpu_recovery_action(const Context& c, std::vector<Finding>& out) {
  struct Ask {
    std::string gpu;
    const RecoveryAction* action;
    std::size_t row;   // the Xid 154, SIZE_MAX for a device report
    std::size_t tied;  // the Xid it answers
    bool escalated;
    std::int64_t recurred_code;
    std::size_t recurred_after;
  };
  std::vector<Ask> asks;
  for (const auto& h : xid_histories(c)) {
    if (h.last_154 == SIZE_MAX) continue;
    const RecoveryAction* a = recovery_action(h.action);
    if (!a) continue;
    const bool escalated = h.recurred_code >= 0 && h.recurred_after >= static_cast<std::size_t>(std::max(1, c.o.xid_escalation_recoveries));
    asks.push_back({h.gpu, a, h.last_154, h.tied, escalated, h.recurred_code, h.recurred_after});
  }
  // A device report that asks for an action no kernel line announced.
  for (const GpuDevice& d : c.tl.devices) {
    const RecoveryAction* a = recovery_action(named_action(d.recovery_action));
    if (!a || a->value == 0) continue;
    const std::string g = !d.pci_bus.empty() ? d.pci_bus : d.index ? std::to_string(*d.index) : "?";
    if (std::any_of(asks.begin(), asks.end(), [&](const Ask& k) { return k.action == a; })) continue;
    asks.push_back({g, a, SIZE_MAX, SIZE_MAX, false, -1, 0});
  }
  if (asks.empty()) return;
  Severity sev = Severity::kInfo;
  std::string title, step;
  Finding f = make("R15", "gpu_recovery_action", Severity::kInfo, "");
  for (const Ask& k : asks) {
    const Severity s = k.escalated ? Severity::kCritical : k.action->severity;
    sev = std::max(sev, s);
    std::string cause;
    if (k.tied != SIZE_MAX) {
      const auto x = c.tl.events.column(event_col::code).get_int(k.tied);
      const XidInfo* xi = xid_info(x);
      cause = fmt::format(" after Xid {}{}", x, xi ? fmt::format(" ({})", xi->name) : "");
    }
    if (!title.empty()) title += "; ";
    if (k.action->value == 0)
      title += fmt::format("GPU {}: the driver's recovery action is back to none{}", k.gpu, cause);
    else
      title += fmt::format("GPU {}: the driver asks for a {}{}{}", k.gpu, k.action->name, cause,
                           k.row == SIZE_MAX ? " (GPU Recovery Action of nvidia-smi)" : " (Xid 154)");
    if (!step.empty()) step += "; ";
    std::string act = fmt::format(fmt::runtime(k.action->step), fmt::arg("gpu", k.gpu));
    act[0] = static_cast<char>(act[0] >= 'a' && act[0] <= 'z' ? act[0] - 32 : act[0]);
    if (k.escalated) {
      step += fmt::format("GPU {}: Xid {} came back after {} reset(s) or reboot(s): the driver's recovery will not hold; "
                          "take the GPU out of service, run `dcgmi diag -r 3` (or the field diagnostics) and open an "
                          "RMA with the serial number of `nvidia-smi -q` if it fails (now: {})",
                          k.gpu, k.recurred_code, k.recurred_after, act);
    } else {
      step += fmt::format("GPU {}: {}", k.gpu, act);
    }
    if (k.row != SIZE_MAX) {
      if (k.tied != SIZE_MAX) f.events.push_back(c.evidence_of(k.tied));
      f.events.push_back(c.evidence_of(k.row));
    }
  }
  f.severity = sev;
  f.title = std::move(title);
  f.events_total = f.events.size();
  std::sort(f.events.begin(), f.events.end(), [](const EventEvidence& a, const EventEvidence& b) { return a.ts < b.ts; });
  f.features = {c.ev(FeatureId::xid_recovery_action_events), c.ev(FeatureId::xid_memory_ecc_events), c.ev(FeatureId::xid_bus_events), c.ev(FeatureId::xid_driver_firmware_events), c.ev(FeatureId::gpu_reset_incidents)};
  f.money = c.no_money("not priced: the recovery's downtime is counted in incidents (F007) and the cost model");
  f.next_step = std::move(step);
  out.push_back(std::move(f));
}

// R05: the GPU fell off the bus (Xid 79) or the NVLink/bus failed.
void gpu_fell_off_bus(const Context& c, std::vector<Finding>& out) {
  const double bus = c.f_or(FeatureId::xid_bus_events, 0), fallen = c.f_or(FeatureId::fallen_off_bus_events, 0);
  if (bus == 0 && fallen == 0) return;
  const auto lost = c.f(FeatureId::gpu_lost_s);
  Finding f = make("R05", "gpu_fell_off_bus", Severity::kCritical,
                   fmt::format("The GPU fell off the bus ({:.0f} bus Xid, {:.0f} fallen-off-the-bus messages){}", bus,
                               fallen, lost ? fmt::format("; lost for {}", cost::human_duration(*lost / 3600.0)) : ""));
  f.features = {c.ev(FeatureId::xid_bus_events), c.ev(FeatureId::fallen_off_bus_events), c.ev(FeatureId::gpu_lost_s), c.ev(FeatureId::gpu_temp_max_c), c.ev(FeatureId::gpu_power_mean_w)};
  f.events = c.events(
      [](EventKind k, std::optional<std::int64_t> code) {
        return k == EventKind::fallen_off_bus || (k == EventKind::xid && xid_in_class(code, "bus"));
      },
      f.events_total);
  f.money = lost ? c.lost_hours(*lost / 3600.0, "GPU time lost (F093)")
                 : c.no_money("gpu_lost_s (F093) is null: " + c.reason(FeatureId::gpu_lost_s));
  f.next_step = "Check the power supply and its cables (transient load), the GPU's temperature before the loss, and any "
                "riser or slot; reboot to recover. " + catalog_actions(c, "bus");
  if (!lost) f.to_confirm = "collect the kernel log around the loss and `nvidia-smi -q` after it";
  out.push_back(std::move(f));
}

// R06: memory Xids (48/63/64/95): ECC errors and row remapping.
void gpu_memory_errors(const Context& c, std::vector<Finding>& out) {
  const double mem = c.f_or(FeatureId::xid_memory_ecc_events, 0);
  if (mem == 0) return;
  Finding f = make("R06", "gpu_memory_errors", Severity::kCritical,
                   fmt::format("{:.0f} GPU memory error Xid(s) (ECC, row remapping)", mem));
  // With -q: rows pending or failed remapping (F049), uncorrected ECC totals (F050, F052), retired
  // pages (F059) say whether a reset is enough.
  f.features = {c.ev(FeatureId::xid_memory_ecc_events), c.ev(FeatureId::gpu_sbecc_errors), c.ev(FeatureId::gpu_dbecc_errors), c.ev(FeatureId::row_remap_attention), c.ev(FeatureId::gpu_ecc_volatile_uncorrected), c.ev(FeatureId::gpu_ecc_aggregate_uncorrected), c.ev(FeatureId::retired_pages)};
  f.events = c.events([](EventKind k, std::optional<std::int64_t> code) {
    return k == EventKind::xid && xid_in_class(code, "memory_ecc");
  }, f.events_total);
  f.money = c.no_money("not priced: the jobs the errors killed are counted in incidents (F007) and the cost model");
  f.next_step = "Reset the GPU when no job runs (`nvidia-smi -r`) so pending row remaps take effect, then check "
                "`nvidia-smi -q -d ROW_REMAPPER,ECC`; a remapping failure or repeated uncorrectable errors mean RMA. " +
                catalog_actions(c, "memory_ecc");
  if (!c.f(FeatureId::gpu_dbecc_errors) && !c.f(FeatureId::row_remap_attention)) f.to_confirm = "collect `nvidia-smi -q -d ECC,ROW_REMAPPER` to see pending remaps and ECC counters";
  out.push_back(std::move(f));
}

// R07: driver or firmware (GSP) Xids.
void driver_firmware_errors(const Context& c, std::vector<Finding>& out) {
  const double drv = c.f_or(FeatureId::xid_driver_firmware_events, 0);
  if (drv == 0) return;
  Finding f = make("R07", "driver_firmware_errors", Severity::kWarning,
                   fmt::format("{:.0f} driver or firmware Xid(s) across {:.0f} driver version(s)", drv, c.f_or(FeatureId::driver_versions, 0)));
  // The GSP firmware that ran (F036) says which driver fixes apply.
  f.features = {c.ev(FeatureId::xid_driver_firmware_events), c.ev(FeatureId::gsp_error_events), c.ev(FeatureId::driver_versions), c.ev(FeatureId::gsp_firmware_versions), c.ev(FeatureId::gpu_reset_incidents)};
  f.events = c.events([](EventKind k, std::optional<std::int64_t> code) {
    return (k == EventKind::xid && xid_in_class(code, "driver_firmware")) || k == EventKind::gsp_error;
  }, f.events_total);
  f.money = c.no_money("not priced: the resets they cause are counted in incidents (F007) and the cost model");
  f.next_step = "Update to the current production driver branch; if GSP errors continue, try the driver without GSP "
                "firmware (NVreg_EnableGpuFirmware=0, closed module) and report with nvidia-bug-report.sh. " +
                catalog_actions(c, "driver_firmware");
  out.push_back(std::move(f));
}

// R08: application Xids (13/31/43/45/94): the job's own bugs, or a contained error that stopped only it.
void application_errors(const Context& c, std::vector<Finding>& out) {
  const double app = c.f_or(FeatureId::xid_application_events, 0);
  if (app == 0) return;
  Finding f = make("R08", "application_gpu_faults", Severity::kInfo,
                   fmt::format("{:.0f} application Xid(s): the program faulted on the GPU, not the hardware", app));
  f.features = {c.ev(FeatureId::xid_application_events), c.ev(FeatureId::xid_processes), c.ev(FeatureId::application_xid_incidents)};
  f.events = c.events([](EventKind k, std::optional<std::int64_t> code) {
    return k == EventKind::xid && xid_in_class(code, "application");
  }, f.events_total);
  f.money = c.no_money("not priced: a crashed job's lost work depends on its checkpoints");
  f.next_step = "Debug the named process (compute-sanitizer, CUDA_LAUNCH_BLOCKING=1); no hardware action. " +
                catalog_actions(c, "application");
  out.push_back(std::move(f));
}

// R09: repeated hardware Xids on one machine: a candidate for return.
void rma_candidate(const Context& c, std::vector<Finding>& out) {
  const double hw = c.f_or(FeatureId::xid_memory_ecc_events, 0) + c.f_or(FeatureId::xid_bus_events, 0);
  // The same hardware Xid seen again after a reset, a driver reload or a reboot of its GPU: the
  // recovery did not hold.
  std::string recurred;
  for (const auto& h : xid_histories(c))
    if (h.recurred_code >= 0 && h.recurred_after >= static_cast<std::size_t>(std::max(1, c.o.xid_escalation_recoveries)))
      recurred += fmt::format("{}Xid {} came back on GPU {} after {} reset(s) or reboot(s)", recurred.empty() ? "" : "; ",
                              h.recurred_code, h.gpu, h.recurred_after);
  if (hw < c.o.rma_hardware_xids && recurred.empty()) return;
  Finding f = make("R09", "rma_candidate", Severity::kCritical,
                   recurred.empty() ? fmt::format("{:.0f} hardware Xids (memory, bus): a candidate for RMA", hw)
                                    : fmt::format("{}: a candidate for RMA", recurred));
  f.features = {c.ev(FeatureId::xid_memory_ecc_events), c.ev(FeatureId::xid_bus_events), c.ev(FeatureId::hw_error_events), c.ev(FeatureId::incidents_per_hour)};
  f.events = c.events([](EventKind k, std::optional<std::int64_t> code) {
    return k == EventKind::xid && (xid_in_class(code, "memory_ecc") || xid_in_class(code, "bus"));
  }, f.events_total);
  f.money = c.no_money("not priced: the incidents are in the cost model's maintenance (F007)");
  f.next_step = "Run the vendor diagnostics (`dcgmi diag -r 3` or field diag) and open an RMA with the serial number "
                "from `nvidia-smi -q` if they fail";
  out.push_back(std::move(f));
}

// R10: other processes on the GPU.
void competing_gpu_processes(const Context& c, std::vector<Finding>& out) {
  const auto competing = c.f(FeatureId::gpu_competing_processes_mean);
  const double desktop = c.f_or(FeatureId::desktop_gpu_clients_max, 0);
  if ((!competing || *competing <= 0) && desktop == 0) return;
  const auto share = c.f(FeatureId::gpu_top_process_sm_share);
  Finding f = make("R10", "competing_gpu_processes", Severity::kInfo,
                   competing && *competing > 0
                       ? fmt::format("{:.1f} other processes share the GPU on average{}", *competing,
                                     share ? fmt::format("; the main one does {} of the GPU work", pct(*share)) : "")
                       : fmt::format("A desktop session holds the GPU ({:.0f} desktop GPU clients)", desktop));
  f.features = {c.ev(FeatureId::gpu_competing_processes_mean), c.ev(FeatureId::gpu_top_process_sm_share), c.ev(FeatureId::desktop_gpu_clients_max), c.ev(FeatureId::gpu_processes_max)};
  if (share && *share < 1)
    f.money = c.lost_hours(c.f_or(FeatureId::gpu_busy_s, 0) / 3600.0 * (1 - *share),
                           "GPU work of other processes = busy time (F017) x (1 - top process share F111)");
  else
    f.money = c.no_money("not priced: how much GPU the other processes take needs nvidia-smi pmon");
  f.next_step = "Run jobs with the display on the integrated GPU (PRIME offload, or a headless boot to "
                "multi-user.target) and give other users' jobs their own GPU (CUDA_VISIBLE_DEVICES, the scheduler)";
  if (!competing) f.to_confirm = "collect `nvidia-smi pmon` to see each process's share of the GPU";
  out.push_back(std::move(f));
}

// R11: known-benign driver lines, so nobody chases them.
void benign_driver_spam(const Context& c, std::vector<Finding>& out) {
  const double n = c.f_or(FeatureId::benign_driver_messages, 0);
  if (n == 0) return;
  Finding f = make("R11", "benign_driver_messages", Severity::kInfo,
                   fmt::format("{:.0f} known-harmless NVIDIA driver lines: ignore them", n));
  f.features = {c.ev(FeatureId::benign_driver_messages)};
  f.money = c.no_money("costs nothing");
  f.next_step = "Nothing to do: these messages (hybrid-graphics display queries and the like) are noise, not errors; "
                "filter them out of alerts";
  out.push_back(std::move(f));
}

// R12: the two answers of the cost section, restated once among the findings (the same words).
void buy_or_rent(const Context& c, std::vector<Finding>& out) {
  if (!c.cost) return;
  const cost::CostResult& r = *c.cost;
  const auto& b = r.break_even;
  Finding f = make("R12", "buy_or_rent", Severity::kInfo,
                   fmt::format("Own: {}; buy: {}", cost::own_decision_name(r.own.decision),
                               cost::buy_decision_name(r.buy.decision)));
  f.features = {c.ev(FeatureId::effective_utilization), c.ev(FeatureId::gpu_busy_s), c.ev(FeatureId::gpu_power_mean_w), c.ev(FeatureId::incidents_per_hour)};
  f.money.currency = r.inputs.currency;
  // What the worse choice costs a month at the usage, when the usage and the price are known.
  const double diff = b.hours_per_month && !r.inputs.price_unknown
                          ? (r.local.cost_per_effective_hour - r.cloud.cost_per_effective_hour) * *b.hours_per_month
                          : std::numeric_limits<double>::quiet_NaN();
  if (std::isfinite(diff)) {
    f.money.per_month = std::abs(diff);
    f.money.basis = fmt::format("|local {} - cloud {} {}/effective h| x {} h/month: what the worse choice costs",
                                format_number(r.local.cost_per_effective_hour),
                                format_number(r.cloud.cost_per_effective_hour), r.inputs.currency,
                                format_number(*b.hours_per_month));
  } else {
    f.money.basis = !b.hours_per_month    ? "not priced: the usage is unknown"
                    : r.inputs.price_unknown ? "not priced: no purchase price is known for the local GPU"
                                             : "one side does no useful work";
  }
  f.next_step = "The answer at the top of the report says why, what the usage is based on and what would flip it";
  out.push_back(std::move(f));
}

struct RuleEntry {
  RuleDef def;
  Rule run;
};

const RuleEntry kRules[] = {
    {{"R01", "input_pipeline_bound",
      "gpu_idle_fraction (F002) >= --finding-idle-fraction (0.10) and cpu_competing_pct_mean (F102) >= "
      "--finding-cpu-competing (100 %): a warning with the data-loader remedy; with F102 null (no ps, e.g. a lone "
      "dmon paste) information only: no remedy, what to collect instead",
      "idle GPU time (F018) x local cost per wall hour",
      "A GPU that waits for data costs its full hourly price and does nothing; when other processes keep the CPU "
      "busy at the same time, the data loader (decoding, augmentation) is the bottleneck, and more workers or "
      "cached data buy back the idle time for free. GPU samples alone cannot tell a starved GPU from the time "
      "between jobs, so without ps the rule names no cause.",
      "idle under --finding-idle-fraction of the sampled time, or idle while the rest of the CPU had room (F102 "
      "below --finding-cpu-competing): the idle time is not the input pipeline's"},
     input_pipeline_bound},
    {{"R02", "thermal_or_power_throttling",
      "the share of the time held down by heat >= --finding-throttled-fraction (0.05): the larger of dmon's thermal "
      "violation rows (F046), the driver's SW and HW thermal clock-event seconds (F044 + F132) over the busy time, and "
      "the hot rows (F035) over the sampled time when hot busy clocks ran 5 % or more below cool ones (F043); "
      "information only when kernel thermal events (F062) are all there is. Power capping is R13, HW slowdown and "
      "power brake R14",
      "busy time (F017) x share held down by heat x hot clock drop (F043) x local cost per wall hour",
      "Clocks held down by heat stretch every job; laptops on a desk and dusty servers lose a tenth or more of their "
      "throughput this way, and fans, airflow, paste or a stand fix it. The name is kept from when the rule covered "
      "the power limit too.",
      "a GPU below its slowdown temperature (F058 margin) with no thermal violation or thermal clock event; clocks "
      "held down by the power limit (R13) are not heat"},
     thermal_or_power_throttling},
    {{"R03", "pcie_link_degraded",
      "pcie_link_width_ratio (F072) < 1, or kernel messages of a degraded link (F075) > 0",
      "not priced (depends on the job's host-device traffic)",
      "A link trained at fewer lanes (a riser, a dirty slot, a BIOS setting) halves host-device bandwidth for "
      "data-heavy jobs; a lower generation at idle is normal power saving, which is why the check is under load.",
      "the link at its maximum width; a lower link generation at idle (power saving)"},
     pcie_link_degraded},
    {{"R04", "laptop_power_interruptions",
      "battery_s (F118) >= --finding-battery-s (60 s), or suspends (F121) > 0",
      "GPU time lost to power events (F134) x local cost per wall hour",
      "A laptop that trains on battery runs at a fraction of its power limit, and one that sleeps stops the job; "
      "both are fixed for free by staying on AC and inhibiting sleep while training.",
      "a machine on AC that never suspends; under a minute on battery"},
     laptop_power_interruptions},
    {{"R05", "gpu_fell_off_bus",
      "bus-class Xids (F083: 74, 79) or fallen-off-the-bus messages (F088) > 0",
      "GPU time lost (F093) x local cost per wall hour",
      "Xid 79 means the GPU vanished from PCIe: usually power (transients, cables), heat or a riser; the GPU "
      "stays lost until a reboot, so every minute of it is paid and wasted.",
      "nothing: a GPU never falls off the bus in normal operation"},
     gpu_fell_off_bus},
    {{"R06", "gpu_memory_errors",
      "memory-class Xids (F082: 48, 63, 64, 95) > 0",
      "not priced (incidents are in the cost model)",
      "ECC errors and row remapping are the GPU's memory wearing out or failing; a pending remap only takes "
      "effect after a GPU reset, and a failed remap means the board must go back.",
      "corrected ECC errors in the counters alone; Xid 94 (a contained error: the application restarts, R08)"},
     gpu_memory_errors},
    {{"R07", "driver_firmware_errors",
      "driver- or firmware-class Xids (F081) > 0",
      "not priced (incidents are in the cost model)",
      "Driver and GSP firmware faults are fixed by driver versions, not by hardware; knowing the class saves "
      "swapping a good board.",
      "nothing: driver Xids are faults, though one-off ones after a driver update are common"},
     driver_firmware_errors},
    {{"R08", "application_gpu_faults",
      "application-class Xids (F080: 13, 31, 43, 45, 94, 109) > 0",
      "not priced",
      "Application Xids are the program's own bugs (out-of-range access, MMU faults) or a contained memory error "
      "that killed only the program; the hardware is fine and nobody should open an RMA for them: on their own "
      "they never mark the GPU unhealthy.",
      "this rule is information only: application Xids never make a warning about the hardware"},
     application_errors},
    {{"R09", "rma_candidate",
      "memory- plus bus-class Xids (F082 + F083) >= --finding-rma-xids (3), or the same hardware Xid seen again on "
      "one GPU after --finding-xid-escalation (1) reset(s), driver reloads or reboots (a boot and its driver load "
      "count once)",
      "not priced (incidents are in the cost model)",
      "Hardware Xids that repeat on one board rarely stop by themselves; one that comes back after the recovery the "
      "driver asked for shows the recovery does not hold, as fleet health checks escalate it: diagnostics and an "
      "RMA end the incidents the cost model charges for.",
      "a single hardware Xid that a reset cleared; application Xids (R08) in any number"},
     rma_candidate},
    {{"R10", "competing_gpu_processes",
      "gpu_competing_processes_mean (F110) > 0, or desktop GPU clients (F105) > 0",
      "busy time (F017) x (1 - top process share F111) x local cost per wall hour; not priced without pmon",
      "A desktop session or another user's job on the training GPU takes memory and SM time the job pays for.",
      "one process on the GPU, no desktop session (information only in any case)"},
     competing_gpu_processes},
    {{"R11", "benign_driver_messages",
      "benign_driver_messages (F066) > 0",
      "costs nothing",
      "Some driver lines look like errors and are not (hybrid-graphics laptops print thousands); naming them "
      "keeps people from chasing them and alerts from firing.",
      "these lines are normal: the rule is information only"},
     benign_driver_spam},
    {{"R12", "buy_or_rent",
      "always, when the cost model ran",
      "|local - cloud cost per effective hour| x usage (h/month): what the worse choice costs a month",
      "The question the tool answers: at the usage these logs show, does owning the GPU cost less than renting "
      "the same work, how sure is that (the Monte Carlo), and at which usage or speed ratio it flips.",
      "the verdict is information, never a warning"},
     buy_or_rent},
    {{"R13", "power_capped",
      "a GPU's lowest power limit in its reports (-q Current/Enforced Power Limit, query-gpu power.limit) more than "
      "1 W below its Default Power Limit (-q; query-gpu power.default_limit): a warning when the work was power-capped "
      "(dmon pviol mean F045, else SW power cap seconds F026 over the sampled time, >= --finding-throttled-fraction), "
      "information when it was not; power-capped at the default or above it: information; capped with no default "
      "in the logs: information and what to collect",
      "not priced: at the default limit it costs nothing (the design); below it the loss depends on how power-bound "
      "the work is",
      "Dense tensor work on a data-centre board (H100, H200, A100) is power-bound by design: the board holds its "
      "default limit and lowers the clock, which is no fault and no reason to check fans. A limit set below the "
      "default (`nvidia-smi -pl`, a power-saving script, a scheduler prolog) is a choice someone made, and it costs "
      "throughput; restoring it is one command.",
      "a board capped at its default or maximum power limit (a laptop's Dynamic Boost limit above its default too): "
      "information, never a warning"},
     power_capped},
    {{"R14", "hw_slowdown",
      "HW power brake seconds (F063) >= 1, or HW slowdown seconds (F042) beyond HW thermal (F132) and power brake "
      ">= 1",
      "not priced (the -q counters count since the driver loaded, not within the logs)",
      "Hardware slowdown cuts the clocks by half or more. Its thermal part is R02; the power brake is a signal from "
      "outside the GPU (the power supply or baseboard on overload), and slowdown with neither cause points at the "
      "power connectors or the board.",
      "no HW slowdown at all: a healthy board never asserts it"},
     hw_slowdown},
    {{"R15", "gpu_recovery_action",
      "an Xid 154 (the driver's recovery action changed; the hex value after `to` decides: 0x1 GPU reset, 0x2 node "
      "reboot, 0x3 drain P2P, 0x4 drain P2P and reset, 0x5 recover IMEX domain, 0x6 PCIe bus reset, 0x7 system "
      "reboot, 0x0 none), tied to the Xid before it on the same GPU; or a `GPU Recovery Action` (-q) / "
      "`gpu_recovery_action` (query-gpu) other than None. Critical for a reboot, or when a hardware Xid came back "
      "after --finding-xid-escalation (1) recoveries (then inspect / RMA); warning for the other actions",
      "not priced (the downtime is in incidents and the cost model)",
      "The driver itself says what it needs to recover the GPU (NVML's nvmlGpuRecoveryAction_t): doing exactly "
      "that, no more (a reboot where a reset does) and no less (a reset where the OS needs a reboot), is the fastest "
      "way back to service; the line before it names the fault it answers.",
      "a recovery action of 0x0 (None), e.g. after the reset was done: information only"},
     gpu_recovery_action},
    {{"R16", "ignored_findings",
      "--ignore-finding names a rule: its findings are left out and listed here (also the rules that did not fire)",
      "costs nothing",
      "A tuned report must still say what it left out: a rule silenced for one machine should not hide a new "
      "problem from the next reader.",
      "no --ignore-finding: no finding"},
     nullptr},
};

}  // namespace

std::string_view severity_name(Severity s) noexcept {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kCritical: return "critical";
  }
  return "info";
}

bool is_rule(std::string_view id_or_name) noexcept {
  return std::any_of(std::begin(kRules), std::end(kRules),
                     [&](const RuleEntry& r) { return r.def.id == id_or_name || r.def.name == id_or_name; });
}

std::span<const RuleDef> finding_rules() {
  static const std::vector<RuleDef> defs = [] {
    std::vector<RuleDef> v;
    for (const auto& r : kRules) v.push_back(r.def);
    return v;
  }();
  return defs;
}

std::vector<Finding> find(const Timeline& timeline, const FeatureSet& features, const cost::CostResult* cost,
                          const FindingOptions& options) {
  const Context c{timeline, features, cost, options};
  std::vector<Finding> out;
  std::vector<std::string> ignored;  // `R02 thermal_or_power_throttling (1 finding: title)`
  for (const auto& r : kRules) {
    if (!r.run) continue;
    const bool ignore = std::any_of(options.ignore.begin(), options.ignore.end(),
                                    [&](const std::string& n) { return n == r.def.id || n == r.def.name; });
    if (!ignore) {
      r.run(c, out);
      continue;
    }
    std::vector<Finding> left;
    r.run(c, left);
    std::string s = fmt::format("{} {}", r.def.id, r.def.name);
    if (left.empty()) s += " (did not fire)";
    for (const auto& f : left) s += fmt::format(" ({}: {})", severity_name(f.severity), f.title);
    ignored.push_back(std::move(s));
  }
  if (!ignored.empty()) {
    Finding f =
        make("R16", "ignored_findings", Severity::kInfo,
             fmt::format("{} rule(s) ignored by --ignore-finding or the config's ignore_findings", ignored.size()));
    f.money = c.no_money("costs nothing");
    f.next_step = "Left out of this report: ";
    for (std::size_t i = 0; i < ignored.size(); ++i) f.next_step += (i ? "; " : "") + ignored[i];
    out.push_back(std::move(f));
  }
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    const double ma = a.money.per_month.value_or(-1), mb = b.money.per_month.value_or(-1);
    if (ma != mb) return ma > mb;
    return a.id < b.id;
  });
  return out;
}

}  // namespace gpucost::findings
