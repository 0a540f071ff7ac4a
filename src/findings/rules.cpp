// The rule table of the findings stage and the rules themselves. Each rule reads features (by id),
// timeline events and the cost result; none recomputes a feature.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <functional>

#include "gpucost/features/xid_catalog.hpp"
#include "gpucost/findings/findings.hpp"
#include "gpucost/text/number.hpp"

namespace gpucost::findings {

namespace {

// What every rule reads.
struct Context {
  const Timeline& tl;
  const FeatureSet& fs;
  const cost::CostResult* cost;
  const FindingOptions& o;

  std::optional<double> f(std::string_view id) const {
    const FeatureValue* v = fs.find(id);
    return v ? v->value : std::nullopt;
  }
  double f_or(std::string_view id, double fallback) const { return f(id).value_or(fallback); }
  std::string reason(std::string_view id) const {
    const FeatureValue* v = fs.find(id);
    return v ? v->reason : std::string();
  }
  FeatureEvidence ev(std::string_view id) const {
    FeatureEvidence e;
    const std::size_t i = feature_index(id);
    if (i == kNoFeature) return e;
    const FeatureDef& d = feature_catalog()[i];
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
      EventEvidence e;
      e.kind = std::string(event_kind_name(k));
      if (ev.column(event_col::ts_ns).is_valid(i)) e.ts = ev.column(event_col::ts_ns).get_int(i);
      const auto file = static_cast<std::size_t>(ev.column(event_col::file).get_int(i));
      if (file < tl.files.size()) e.file = tl.files[file].path;
      e.line = static_cast<std::uint64_t>(ev.column(event_col::line).get_int(i));
      std::string_view t = ev.column(event_col::text).get_string(i);
      if (auto nl = t.find('\n'); nl != std::string_view::npos) t = t.substr(0, nl);
      e.text = std::string(t.substr(0, 200));
      out.push_back(std::move(e));
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
    const auto busy_s = f("F017");
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
void input_pipeline_bound(const Context& c, std::vector<Finding>& out) {
  const auto idle = c.f("F002");
  if (!idle || *idle < c.o.idle_fraction) return;
  const auto competing = c.f("F102");
  const double idle_s = c.f_or("F018", 0);
  if (competing && *competing < c.o.cpu_competing_pct) return;  // idle, but the CPU had room: not this rule
  Finding f = make("R01", "input_pipeline_bound", Severity::kWarning,
                   competing ? fmt::format("GPU idle {} of the sampled time while other processes used {:.0f} % CPU: "
                                           "the input pipeline or competing work starves it",
                                           pct(*idle), *competing)
                             : fmt::format("GPU idle {} of the sampled time; what held it back is not in the logs",
                                           pct(*idle)));
  f.features = {c.ev("F002"), c.ev("F018"), c.ev("F020"), c.ev("F101"), c.ev("F102"), c.ev("F103")};
  f.money = c.lost_hours(idle_s / 3600.0, "idle GPU time (F018)");
  f.next_step =
      "Profile the data loader: raise DataLoader num_workers, pin_memory and prefetch, cache decoded data on local "
      "SSD, and stop CPU-heavy background work while training";
  if (!competing) f.to_confirm = "collect `ps aux` snapshots during the job (" + c.reason("F102") + ")";
  out.push_back(std::move(f));
}

// R02: clocks held down by heat or the power limit while the GPU is busy.
void thermal_or_power_throttling(const Context& c, std::vector<Finding>& out) {
  const auto throttled = c.f("F047");
  // Without dmon the kernel's thermal events are the only sign (they may be the CPU's: the
  // finding then asks for the GPU's own throttle reasons).
  const auto hot_events = c.f_or("F062", 0);
  if (throttled ? *throttled < c.o.throttled_fraction : hot_events == 0) return;
  const auto drop = c.f("F043");
  const double busy_s = c.f_or("F017", 0);
  const bool laptop = c.f_or("F120", 0) > 0;
  Finding f = make("R02", "thermal_or_power_throttling", Severity::kWarning,
                   throttled ? fmt::format("Throttled by power or heat in {} of the samples{}", pct(*throttled),
                                           drop ? fmt::format("; hot clocks {:.0f} % below cool ones", *drop) : "")
                             : fmt::format("{:.0f} thermal events in the kernel log", hot_events));
  // The throttle seconds by cause (F026 SW power cap, F042 any HW slowdown, of it F132 HW thermal and
  // F063 HW power brake, F044 SW thermal) and the margin to the GPU's own slowdown temperature
  // (F058) say which of the two it is, and whether the cooling or the power supply is to blame.
  f.features = {c.ev("F047"), c.ev("F045"), c.ev("F046"), c.ev("F043"), c.ev("F034"), c.ev("F035"),
                c.ev("F031"), c.ev("F026"), c.ev("F042"), c.ev("F132"), c.ev("F063"), c.ev("F044"),
                c.ev("F058")};
  f.events = c.events_of({EventKind::thermal}, f.events_total);
  if (throttled && drop && *drop > 0)
    f.money = c.lost_hours(busy_s / 3600.0 * *throttled * *drop / 100.0,
                           "throughput lost = busy time (F017) x throttled share (F047) x clock drop (F043)");
  else
    f.money = c.no_money(drop ? "no throttled share (F047 null)" : "no clock drop measured (F043 null): " + c.reason("F043"));
  f.next_step = laptop ? "Put the laptop on a stand or cooling pad, clean the fans, check the power mode (nvidia-powerd, "
                         "platform profile) and keep it on AC; on an old machine renew the thermal paste"
                       : "Check fans, airflow and inlet temperature, renew thermal paste on old boards, and compare "
                         "the power limit (`nvidia-smi -q -d POWER`) with the board's default";
  if (!throttled)
    f.to_confirm = "collect `nvidia-smi dmon -s pucvmet` or `nvidia-smi -q -d PERFORMANCE` to see the throttle reason";
  out.push_back(std::move(f));
}

// R03: the PCIe link trains below its capability.
void pcie_link_degraded(const Context& c, std::vector<Finding>& out) {
  const auto ratio = c.f("F072");
  const double msgs = c.f_or("F075", 0);
  if ((!ratio || *ratio >= 1) && msgs == 0) return;
  Finding f = make("R03", "pcie_link_degraded", Severity::kWarning,
                   ratio && *ratio < 1
                       ? fmt::format("PCIe link at {:.0f} of {:.0f} lanes", c.f_or("F070", 0), c.f_or("F071", 0))
                       : fmt::format("The kernel reports the GPU's PCIe link below its capability ({:.0f} messages)", msgs));
  f.features = {c.ev("F070"), c.ev("F071"), c.ev("F072"), c.ev("F073"), c.ev("F074"), c.ev("F075"), c.ev("F056")};
  f.events = c.events_of({EventKind::pcie_link_degraded}, f.events_total);
  f.money = c.no_money("not priced: the loss depends on how much the job moves between host and GPU (F056, F057)");
  f.next_step = "Reseat the card, try another x16 slot without a riser or with a certified one, and set the slot to its "
                "full generation in the BIOS; a lower generation at idle is power saving, check it under load";
  if (!ratio) f.to_confirm = "collect `nvidia-smi -q` under load to read the current and maximum link width and generation";
  out.push_back(std::move(f));
}

// R04: a laptop training on battery or through suspends.
void laptop_power_interruptions(const Context& c, std::vector<Finding>& out) {
  const double battery = c.f_or("F118", 0);
  const double suspends = c.f_or("F121", 0);
  if (battery < c.o.battery_s && suspends == 0) return;
  const auto loss = c.f("F134");
  Finding f = make("R04", "laptop_power_interruptions", Severity::kWarning,
                   fmt::format("Training through {:.0f} suspend(s) and {} on battery{}", suspends,
                               cost::human_duration(battery / 3600.0),
                               loss ? fmt::format(": {} of GPU time lost", cost::human_duration(*loss / 3600.0)) : ""));
  f.features = {c.ev("F118"), c.ev("F117"), c.ev("F121"), c.ev("F122"), c.ev("F119"), c.ev("F134"), c.ev("F011")};
  f.events = c.events_of({EventKind::ac_offline, EventKind::suspend, EventKind::lid_close}, f.events_total, 5);
  f.money = loss ? c.lost_hours(*loss / 3600.0, "time lost to power events (F134)")
                 : c.no_money("power_event_loss_s (F134) is null: " + c.reason("F134"));
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
  }
  return s;
}

// R05: the GPU fell off the bus (Xid 79) or the NVLink/bus failed.
void gpu_fell_off_bus(const Context& c, std::vector<Finding>& out) {
  const double bus = c.f_or("F083", 0), fallen = c.f_or("F088", 0);
  if (bus == 0 && fallen == 0) return;
  const auto lost = c.f("F093");
  Finding f = make("R05", "gpu_fell_off_bus", Severity::kCritical,
                   fmt::format("The GPU fell off the bus ({:.0f} bus Xid, {:.0f} fallen-off-the-bus messages){}", bus,
                               fallen, lost ? fmt::format("; lost for {}", cost::human_duration(*lost / 3600.0)) : ""));
  f.features = {c.ev("F083"), c.ev("F088"), c.ev("F093"), c.ev("F034"), c.ev("F024")};
  f.events = c.events(
      [](EventKind k, std::optional<std::int64_t> code) {
        return k == EventKind::fallen_off_bus || (k == EventKind::xid && xid_in_class(code, "bus"));
      },
      f.events_total);
  f.money = lost ? c.lost_hours(*lost / 3600.0, "GPU time lost (F093)")
                 : c.no_money("gpu_lost_s (F093) is null: " + c.reason("F093"));
  f.next_step = "Check the power supply and its cables (transient load), the GPU's temperature before the loss, and any "
                "riser or slot; reboot to recover. " + catalog_actions(c, "bus");
  if (!lost) f.to_confirm = "collect the kernel log around the loss and `nvidia-smi -q` after it";
  out.push_back(std::move(f));
}

// R06: memory Xids (48/63/64/94/95): ECC errors and row remapping.
void gpu_memory_errors(const Context& c, std::vector<Finding>& out) {
  const double mem = c.f_or("F082", 0);
  if (mem == 0) return;
  Finding f = make("R06", "gpu_memory_errors", Severity::kCritical,
                   fmt::format("{:.0f} GPU memory error Xid(s) (ECC, row remapping)", mem));
  // With -q: rows pending or failed remapping (F049), uncorrected ECC totals (F050, F052), retired
  // pages (F059) say whether a reset is enough.
  f.features = {c.ev("F082"), c.ev("F053"), c.ev("F054"), c.ev("F049"), c.ev("F050"), c.ev("F052"), c.ev("F059")};
  f.events = c.events([](EventKind k, std::optional<std::int64_t> code) {
    return k == EventKind::xid && xid_in_class(code, "memory_ecc");
  }, f.events_total);
  f.money = c.no_money("not priced: the jobs the errors killed are counted in incidents (F007) and the cost model");
  f.next_step = "Reset the GPU when no job runs (`nvidia-smi -r`) so pending row remaps take effect, then check "
                "`nvidia-smi -q -d ROW_REMAPPER,ECC`; a remapping failure or repeated uncorrectable errors mean RMA. " +
                catalog_actions(c, "memory_ecc");
  if (!c.f("F054") && !c.f("F049")) f.to_confirm = "collect `nvidia-smi -q -d ECC,ROW_REMAPPER` to see pending remaps and ECC counters";
  out.push_back(std::move(f));
}

// R07: driver or firmware (GSP) Xids.
void driver_firmware_errors(const Context& c, std::vector<Finding>& out) {
  const double drv = c.f_or("F081", 0);
  if (drv == 0) return;
  Finding f = make("R07", "driver_firmware_errors", Severity::kWarning,
                   fmt::format("{:.0f} driver or firmware Xid(s) across {:.0f} driver version(s)", drv, c.f_or("F015", 0)));
  // The GSP firmware that ran (F036) says which driver fixes apply.
  f.features = {c.ev("F081"), c.ev("F090"), c.ev("F015"), c.ev("F036"), c.ev("F096")};
  f.events = c.events([](EventKind k, std::optional<std::int64_t> code) {
    return (k == EventKind::xid && xid_in_class(code, "driver_firmware")) || k == EventKind::gsp_error;
  }, f.events_total);
  f.money = c.no_money("not priced: the resets they cause are counted in incidents (F007) and the cost model");
  f.next_step = "Update to the current production driver branch; if GSP errors continue, try the driver without GSP "
                "firmware (NVreg_EnableGpuFirmware=0, closed module) and report with nvidia-bug-report.sh. " +
                catalog_actions(c, "driver_firmware");
  out.push_back(std::move(f));
}

// R08: application Xids (13/31/43/45): the job's own bugs.
void application_errors(const Context& c, std::vector<Finding>& out) {
  const double app = c.f_or("F080", 0);
  if (app == 0) return;
  Finding f = make("R08", "application_gpu_faults", Severity::kInfo,
                   fmt::format("{:.0f} application Xid(s): the program faulted on the GPU, not the hardware", app));
  f.features = {c.ev("F080"), c.ev("F025"), c.ev("F097")};
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
  const double hw = c.f_or("F082", 0) + c.f_or("F083", 0);
  if (hw < c.o.rma_hardware_xids) return;
  Finding f = make("R09", "rma_candidate", Severity::kCritical,
                   fmt::format("{:.0f} hardware Xids (memory, bus): a candidate for RMA", hw));
  f.features = {c.ev("F082"), c.ev("F083"), c.ev("F061"), c.ev("F007")};
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
  const auto competing = c.f("F110");
  const double desktop = c.f_or("F105", 0);
  if ((!competing || *competing <= 0) && desktop == 0) return;
  const auto share = c.f("F111");
  Finding f = make("R10", "competing_gpu_processes", Severity::kInfo,
                   competing && *competing > 0
                       ? fmt::format("{:.1f} other processes share the GPU on average{}", *competing,
                                     share ? fmt::format("; the main one does {} of the GPU work", pct(*share)) : "")
                       : fmt::format("A desktop session holds the GPU ({:.0f} desktop GPU clients)", desktop));
  f.features = {c.ev("F110"), c.ev("F111"), c.ev("F105"), c.ev("F109")};
  if (share && *share < 1)
    f.money = c.lost_hours(c.f_or("F017", 0) / 3600.0 * (1 - *share),
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
  const double n = c.f_or("F066", 0);
  if (n == 0) return;
  Finding f = make("R11", "benign_driver_messages", Severity::kInfo,
                   fmt::format("{:.0f} known-harmless NVIDIA driver lines: ignore them", n));
  f.features = {c.ev("F066")};
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
  f.features = {c.ev("F006"), c.ev("F017"), c.ev("F024"), c.ev("F007")};
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
      "--finding-cpu-competing (100 %), or F102 null (no ps: the finding says so and what to collect)",
      "idle GPU time (F018) x local cost per wall hour",
      "A GPU that waits for data costs its full hourly price and does nothing; when other processes keep the CPU "
      "busy at the same time, the data loader (decoding, augmentation) is the bottleneck, and more workers or "
      "cached data buy back the idle time for free."},
     input_pipeline_bound},
    {{"R02", "thermal_or_power_throttling",
      "gpu_throttled_fraction (F047) >= --finding-throttled-fraction (0.05); when F047 is null (no dmon), thermal kernel events (F062) > 0",
      "busy time (F017) x throttled share (F047) x hot clock drop (F043) x local cost per wall hour",
      "Clocks held down by heat or the power limit stretch every job; laptops on a desk and dusty servers lose "
      "a tenth or more of their throughput this way, and fans, paste, a stand or the power limit fix it."},
     thermal_or_power_throttling},
    {{"R03", "pcie_link_degraded",
      "pcie_link_width_ratio (F072) < 1, or kernel messages of a degraded link (F075) > 0",
      "not priced (depends on the job's host-device traffic)",
      "A link trained at fewer lanes (a riser, a dirty slot, a BIOS setting) halves host-device bandwidth for "
      "data-heavy jobs; a lower generation at idle is normal power saving, which is why the check is under load."},
     pcie_link_degraded},
    {{"R04", "laptop_power_interruptions",
      "battery_s (F118) >= --finding-battery-s (60 s), or suspends (F121) > 0",
      "GPU time lost to power events (F134) x local cost per wall hour",
      "A laptop that trains on battery runs at a fraction of its power limit, and one that sleeps stops the job; "
      "both are fixed for free by staying on AC and inhibiting sleep while training."},
     laptop_power_interruptions},
    {{"R05", "gpu_fell_off_bus",
      "bus-class Xids (F083: 74, 79) or fallen-off-the-bus messages (F088) > 0",
      "GPU time lost (F093) x local cost per wall hour",
      "Xid 79 means the GPU vanished from PCIe: usually power (transients, cables), heat or a riser; the GPU "
      "stays lost until a reboot, so every minute of it is paid and wasted."},
     gpu_fell_off_bus},
    {{"R06", "gpu_memory_errors",
      "memory-class Xids (F082: 48, 63, 64, 94, 95) > 0",
      "not priced (incidents are in the cost model)",
      "ECC errors and row remapping are the GPU's memory wearing out or failing; a pending remap only takes "
      "effect after a GPU reset, and a failed remap means the board must go back."},
     gpu_memory_errors},
    {{"R07", "driver_firmware_errors",
      "driver- or firmware-class Xids (F081) > 0",
      "not priced (incidents are in the cost model)",
      "Driver and GSP firmware faults are fixed by driver versions, not by hardware; knowing the class saves "
      "swapping a good board."},
     driver_firmware_errors},
    {{"R08", "application_gpu_faults",
      "application-class Xids (F080: 13, 31, 43, 45, 109) > 0",
      "not priced",
      "Application Xids are the program's own bugs (out-of-range access, MMU faults); the hardware is fine and "
      "nobody should open an RMA for them."},
     application_errors},
    {{"R09", "rma_candidate",
      "memory- plus bus-class Xids (F082 + F083) >= --finding-rma-xids (3)",
      "not priced (incidents are in the cost model)",
      "Hardware Xids that repeat on one board rarely stop by themselves; diagnostics and an RMA end the "
      "incidents the cost model charges for."},
     rma_candidate},
    {{"R10", "competing_gpu_processes",
      "gpu_competing_processes_mean (F110) > 0, or desktop GPU clients (F105) > 0",
      "busy time (F017) x (1 - top process share F111) x local cost per wall hour; not priced without pmon",
      "A desktop session or another user's job on the training GPU takes memory and SM time the job pays for."},
     competing_gpu_processes},
    {{"R11", "benign_driver_messages",
      "benign_driver_messages (F066) > 0",
      "costs nothing",
      "Some driver lines look like errors and are not (hybrid-graphics laptops print thousands); naming them "
      "keeps people from chasing them and alerts from firing."},
     benign_driver_spam},
    {{"R12", "buy_or_rent",
      "always, when the cost model ran",
      "|local - cloud cost per effective hour| x usage (h/month): what the worse choice costs a month",
      "The question the tool answers: at the usage these logs show, does owning the GPU cost less than renting "
      "the same work, how sure is that (the Monte Carlo), and at which usage or speed ratio it flips."},
     buy_or_rent},
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
  for (const auto& r : kRules) r.run(c, out);
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    const double ma = a.money.per_month.value_or(-1), mb = b.money.per_month.value_or(-1);
    if (ma != mb) return ma > mb;
    return a.id < b.id;
  });
  return out;
}

}  // namespace gpucost::findings
