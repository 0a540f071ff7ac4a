// Issue 4's acceptance test: scenarios from `gpucost simulate` (idle gaps, hot phases, Xid events
// of several classes in dmesg, kern.log and the journal at once, AC switches, a lid close with a
// suspend, competing processes) go through the whole pipeline, and every contract feature and
// every feature the generator knows is compared with truth.json: counts exactly, other figures
// within 0.5 %, per GPU and host; without dmon the GPU features are null with a reason, never 0.
#include <gtest/gtest.h>

#include "unit/ground_truth.hpp"

namespace gpucost::ground_truth {
namespace {

using sim::ScenarioKind;

struct Scenario {
  ScenarioKind kind;
  std::uint64_t seed;
  double hours;  // short spans keep the suite fast; each still has the scenario's events (a
                 // 1.5 h laptop run has room for its suspend and the Xid 79 only)
};

// Seeds picked (and asserted in ScenarioHasWhatTheIssueAsks) so that each laptop run has Xids of
// at least three classes, AC switches and a suspend, and each server run Xids on several GPUs.
const Scenario kScenarios[] = {
    {ScenarioKind::kLaptop, 8, 2},   {ScenarioKind::kLaptop, 15, 2},  {ScenarioKind::kLaptop, 22, 2},
    {ScenarioKind::kServer, 1, 1.5}, {ScenarioKind::kServer, 5, 1.5}, {ScenarioKind::kNoDmon, 8, 2},
    {ScenarioKind::kNoDmon, 12, 2},
};

class GroundTruth : public ::testing::TestWithParam<Scenario> {
 protected:
  const Case& c() const { return scenario(GetParam().kind, GetParam().seed, GetParam().hours); }
};

std::string_view xid_class(std::int64_t code) {
  switch (code) {
    case 13: case 31: case 43: case 45: case 109: return "application";
    case 32: case 38: case 61: case 62: case 119: case 120: return "driver_firmware";
    case 48: case 63: case 64: case 94: case 95: return "memory_ecc";
    case 74: case 79: return "bus";
    default: return "other";
  }
}

TEST_P(GroundTruth, ScenarioHasWhatTheIssueAsks) {
  const Truth& t = c().truth;
  std::set<std::string_view> classes;
  std::set<int> xid_gpus;
  for (const auto& e : t.events)
    if (e.kind == "xid") classes.insert(xid_class(*e.code)), xid_gpus.insert(e.gpu.value_or(-1));
  EXPECT_GE(classes.size(), 3u);
  // Every Xid is in dmesg, kern.log and the journal at once.
  for (const auto& e : t.events) {
    if (e.kind != "xid") continue;
    EXPECT_EQ(e.sources, (std::vector<std::string>{"dmesg.txt", "kern.log", "journal.json"}));
  }
  EXPECT_GT(t.container_starts, 1);  // the job restarts after its Xids
  if (GetParam().kind == ScenarioKind::kServer) {
    EXPECT_EQ(t.gpus, 4u);
    EXPECT_GE(xid_gpus.size(), 2u);
    EXPECT_GE(t.count("pcie_aer"), 1u);
  } else {
    EXPECT_GE(*t.host.at("ac_switches"), 2);
    EXPECT_EQ(*t.host.at("lid_closes"), 1);
    EXPECT_EQ(t.suspends.size(), 1u);
  }
  if (GetParam().kind == ScenarioKind::kNoDmon) {
    EXPECT_FALSE(fs::exists(c().dir / "dmon.log"));
  } else {
    EXPECT_GT(*t.gpu_idle_s, 0);  // idle gaps
    EXPECT_GT(*t.gpu_hot_s, 0);   // hot phases
  }
}

TEST_P(GroundTruth, ContractFeaturesPerGpuAndHost) {
  const Case& k = c();
  const auto& fs = k.result->features;
  ASSERT_EQ(k.truth.host.size(), 14u);
  for (const auto& [name, want] : k.truth.host) expect_feature(fs.find(name), want, name, "host");
  ASSERT_EQ(fs.gpus.size(), k.truth.per_gpu.size());
  for (const auto& g : k.truth.per_gpu) {
    const int gpu = static_cast<int>(*g.at("gpu"));
    for (const auto& [name, want] : g)
      if (name != "gpu") expect_feature(fs.find_gpu(gpu, name), want, name, "GPU " + std::to_string(gpu));
  }
}

// Maintenance incidents, reboots and application failures recomputed from the true events by the
// catalog's rules (F008, F095-F097: 300 s and 60 s clustering).
struct Incidents {
  double maintenance = 0, reboot = 0, application = 0;
};
Incidents incidents(const Truth& t) {
  std::vector<const TruthEvent*> m, app;
  for (const auto& e : t.events) {
    if (e.kind == "xid") {
      const auto cls = xid_class(*e.code);
      if (cls == "application") app.push_back(&e);
      else if (cls != "other") m.push_back(&e);
    }
    if (e.kind == "fallen_off_bus" || e.kind == "rm_init_failed" || e.kind == "gsp_error") m.push_back(&e);
  }
  auto by_ts = [](const TruthEvent* a, const TruthEvent* b) { return a->ts < b->ts; };
  std::sort(m.begin(), m.end(), by_ts);
  std::sort(app.begin(), app.end(), by_ts);
  Incidents n;
  bool reboot = false;
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (i == 0 || m[i]->ts - m[i - 1]->ts > 300 * kNsPerSec) {
      n.reboot += reboot;
      reboot = false;
      ++n.maintenance;
    }
    reboot = reboot || m[i]->kind == "fallen_off_bus" || (m[i]->kind == "xid" && *m[i]->code == 79);
  }
  n.reboot += reboot;
  for (std::size_t i = 0; i < app.size(); ++i)
    if (i == 0 || app[i]->ts - app[i - 1]->ts > 60 * kNsPerSec) ++n.application;
  return n;
}

TEST_P(GroundTruth, EveryOtherFeatureTheGeneratorKnows) {
  const Case& k = c();
  const Truth& t = k.truth;
  const auto& fs = k.result->features;
  auto count = [&](std::string_view kind, auto pred) {
    double n = 0;
    for (const auto& e : t.events) n += e.kind == kind && pred(e);
    return n;
  };
  auto all = [](const TruthEvent&) { return true; };
  std::map<std::string, Number> want;
  want["gpu_count"] = static_cast<double>(t.gpus);
  // Thermal events report heat: the truth's `thermal_events` also counts the code-0 `temperature/
  // speed normal` lines, which F062 leaves out by definition.
  want["thermal_events"] = count("thermal", [](const TruthEvent& e) { return e.code != 0; });
  // Known-benign driver messages (the modeset spam) are counted on their own, never as errors.
  auto benign = [](const TruthEvent& e) { return e.message.find("Failed to query display engine channel state") != std::string::npos; };
  want["driver_error_events"] = count("driver_error", [&](const TruthEvent& e) { return !benign(e); });
  want["benign_driver_messages"] = count("driver_error", benign);
  want["fallen_off_bus_events"] = count("fallen_off_bus", all);
  want["pcie_aer_events"] = count("pcie_aer", all);
  want["pcie_aer_corrected_events"] = count("pcie_aer", [](const TruthEvent& e) { return e.code == 0; });
  want["pcie_aer_uncorrected_events"] = count("pcie_aer", [](const TruthEvent& e) { return e.code > 0; });
  want["pcie_link_degraded_events"] = count("pcie_link_degraded", all);
  // nvidia-persistenced's start seconds after the boot is no restart (issue 14).
  TimeNs boot_wall = kNoTime;
  for (const auto& e : t.events)
    if (e.kind == "boot" && e.boot == 0 && boot_wall == kNoTime) boot_wall = e.ts;
  want["gpu_service_restarts"] =
      count("service_restart", [&](const TruthEvent& e) { return boot_wall == kNoTime || e.ts - boot_wall > 300 * kNsPerSec; });
  want["boots"] = count("boot", all);
  want["laptop_signals"] = count("ac_online", all) + count("ac_offline", all) + count("lid_close", all) > 0 ? 1 : 0;
  for (const char* cls : {"application", "driver_firmware", "memory_ecc", "bus"})
    want[std::string("xid_") + cls + "_events"] = static_cast<double>(t.xid_by_class.count(cls) ? t.xid_by_class.at(cls) : 0);
  want["xid_distinct_codes"] = static_cast<double>(t.xid_by_code.size());
  const Incidents inc = incidents(t);
  want["maintenance_incidents"] = inc.maintenance;
  want["reboot_incidents"] = inc.reboot;
  want["gpu_reset_incidents"] = inc.maintenance - inc.reboot;
  want["application_xid_incidents"] = inc.application;
  want["container_starts"] = static_cast<double>(t.container_starts);
  want["container_start_latency_mean_s"] = t.container_start_latency_mean_s;
  double battery = 0;
  for (const auto& [b, e] : t.battery) battery += static_cast<double>(e - b) / 1e9;
  want["battery_s"] = battery;
  want["gpu_idle_s"] = t.gpu_idle_s;
  want["gpu_time_above_temp_s"] = t.gpu_hot_s;
  const bool samples = t.host.at("gpu_samples").has_value();
  if (samples) {
    double busy = 0;
    for (const auto& [rows, idle] : t.rows_and_idle_rows) busy += static_cast<double>(rows - idle);
    want["gpu_busy_s"] = busy;
    // Rows are 1 s apart; what the span from the first row to the end of the last does not cover.
    TimeNs first = kNoTime, last = kNoTime;
    for (const auto& [f, l] : t.first_and_last_row) {
      first = first == kNoTime ? f : std::min(first, f);
      last = last == kNoTime ? l : std::max(last, l);
    }
    want["gpu_sample_gap_s"] = static_cast<double>(last - first) / 1e9 + 1 - *t.host.at("gpu_sampled_s");
  } else {
    want["gpu_busy_s"] = std::nullopt;
  }
  // nvidia-smi -q (not written without dmon): the narrowest link, the sums of limits and memory.
  const bool smi_q = fs::exists(k.dir / "nvidia-smi-q.txt");
  auto spec = [&](const char* key, bool sum) -> Number {
    if (!smi_q) return std::nullopt;
    double v = sum ? 0 : 1e300;
    for (const auto& g : t.gpu_specs) v = sum ? v + g.at(key) : std::min(v, g.at(key));
    return v;
  };
  want["pcie_link_gen"] = spec("pcie_gen_under_load", false);  // issue 14: not the idle snapshot
  want["pcie_link_gen_max"] = spec("pcie_gen_max", false);
  want["pcie_link_width"] = spec("pcie_width_current", false);
  want["pcie_link_width_max"] = spec("pcie_width_max", false);
  want["gpu_power_limit_w"] = spec("power_limit_w", true);
  want["gpu_memory_total_mib"] = spec("memory_total_mib", true);
  // Competing processes: one ps snapshot per marker line the ps loop wrote.
  double markers = 0;
  for (const auto& l : sim::testing::read_lines(k.dir / "ps.txt")) markers += l.rfind("### gpucost-ps ", 0) == 0;
  EXPECT_GT(markers, 10);
  want["ps_snapshots"] = markers;
  for (const auto& [name, v] : want) expect_feature(fs.find(name), v, name, "host");

  // Per GPU: Xid counts by the GPU the message names, idle/busy seconds, -q values.
  for (std::size_t g = 0; g < t.gpus; ++g) {
    const int gpu = static_cast<int>(g);
    const std::string scope = "GPU " + std::to_string(gpu);
    std::map<std::string, double> xids;
    for (const auto& e : t.events)
      if (e.kind == "xid" && e.gpu == gpu) xids["xid_events"]++, xids[std::string("xid_") + std::string(xid_class(*e.code)) + "_events"]++;
    for (const char* name : {"xid_events", "xid_application_events", "xid_driver_firmware_events", "xid_memory_ecc_events",
                             "xid_bus_events"})
      expect_feature(fs.find_gpu(gpu, name), xids[name], name, scope);
    const auto [rows, idle] = t.rows_and_idle_rows.at(g);
    expect_feature(fs.find_gpu(gpu, "gpu_idle_s"), samples ? Number(static_cast<double>(idle)) : std::nullopt, "gpu_idle_s", scope);
    expect_feature(fs.find_gpu(gpu, "gpu_busy_s"), samples ? Number(static_cast<double>(rows - idle)) : std::nullopt,
                   "gpu_busy_s", scope);
    const auto [first, last] = t.first_and_last_row.at(g);
    expect_feature(fs.find_gpu(gpu, "gpu_sample_gap_s"),
                   samples ? Number(static_cast<double>(last - first) / 1e9 + 1 - static_cast<double>(rows)) : std::nullopt,
                   "gpu_sample_gap_s", scope);
    const auto& s = t.gpu_specs.at(g);
    expect_feature(fs.find_gpu(gpu, "pcie_link_gen"), smi_q ? Number(s.at("pcie_gen_under_load")) : std::nullopt, "pcie_link_gen", scope);
    expect_feature(fs.find_gpu(gpu, "pcie_link_width_ratio"),
                   smi_q ? Number(s.at("pcie_width_current") / s.at("pcie_width_max")) : std::nullopt, "pcie_link_width_ratio", scope);
    expect_feature(fs.find_gpu(gpu, "gpu_power_limit_w"), smi_q ? Number(s.at("power_limit_w")) : std::nullopt,
                   "gpu_power_limit_w", scope);
  }
}

// Every injected event is on the timeline once, at its true instant (events of the simulated
// boot within 10 ms; those of the previous boots, which only kern.log's 1 s stamps place, within
// 1 s), read from exactly the files the truth lists; and the timeline has no event the truth
// lacks (cron lines, noise the truth only counts, aside).
TEST_P(GroundTruth, EveryInjectedEventOnceAtItsTrueInstant) {
  const Case& k = c();
  const Timeline& tl = k.result->timeline;
  const Table& ev = tl.events;
  std::vector<bool> used(ev.rows(), false);
  std::size_t cron = 0;
  for (std::size_t r = 0; r < ev.rows(); ++r)
    cron += static_cast<EventKind>(ev.column(event_col::kind).get_int(r)) == EventKind::cron;
  EXPECT_EQ(cron, static_cast<std::size_t>(k.truth.cron_lines));
  // Issue 14: the reports of one physical event (the kernel's ACPI line, acpid's received and
  // completed lines, logind's "Lid closed.": same kind, within 500 ms of the first) are one event
  // whose origins list them all (a different message within 500 ms of the first). Issue 36: so
  // are logind's, systemd-sleep's and the kernel's reports of one suspend or resume (within 5 s).
  std::vector<std::vector<const TruthEvent*>> groups;
  for (const auto& e : k.truth.events) {
    const bool sleep = e.kind == "suspend" || e.kind == "resume";
    const bool physical =
        sleep || e.kind == "ac_online" || e.kind == "ac_offline" || e.kind == "lid_close" || e.kind == "lid_open";
    const TimeNs window = sleep ? 5 * kNsPerSec : 500 * kNsPerMs;
    bool joined = false;
    for (auto it = groups.rbegin(); physical && !joined && it != groups.rend(); ++it)
      if (it->front()->kind == e.kind && e.ts >= it->front()->ts && e.ts - it->front()->ts <= window &&
          std::none_of(it->begin(), it->end(),
                       [&](const TruthEvent* m) { return first_line(m->message) == first_line(e.message); })) {
        it->push_back(&e);
        joined = true;
      }
    if (!joined) groups.push_back({&e});
  }
  for (const auto& group : groups) {
    const TruthEvent& e = *group.front();
    std::size_t best = ev.rows();
    TimeNs best_dt = 0;
    for (std::size_t r = 0; r < ev.rows(); ++r) {
      if (used[r] || event_kind_name(static_cast<EventKind>(ev.column(event_col::kind).get_int(r))) != e.kind) continue;
      if (!ev.ts().is_valid(r)) continue;
      for (const TruthEvent* m : group) {
        if (first_line(ev.column(event_col::text).get_string(r)) != first_line(m->message)) continue;
        const TimeNs dt = std::llabs(ev.ts().get_int(r) - m->ts);
        if (best == ev.rows() || dt < best_dt) best = r, best_dt = dt;
      }
    }
    ASSERT_NE(best, ev.rows()) << e.kind << " at " << format_rfc3339(e.ts, 6) << " not on the timeline: " << e.message;
    used[best] = true;
    EXPECT_LE(best_dt, e.boot == 0 ? 10 * kNsPerMs : kNsPerSec)
        << e.kind << " at " << format_rfc3339(e.ts, 6) << " placed " << format_rfc3339(ev.ts().get_int(best), 6);
    EXPECT_EQ(ev.column(event_col::flags).get_int(best) & kFlagApproxTime, 0) << e.kind << " " << e.message;
    std::vector<std::string> seen, want;
    for (auto o = tl.origin_begin[best]; o < tl.origin_begin[best + 1]; ++o) seen.push_back(tl.files.at(tl.origins[o].file).path);
    for (const TruthEvent* m : group) want.insert(want.end(), m->sources.begin(), m->sources.end());
    for (auto* v : {&seen, &want}) {
      std::sort(v->begin(), v->end());
      v->erase(std::unique(v->begin(), v->end()), v->end());
    }
    EXPECT_EQ(seen, want) << e.kind << " " << e.message;
    if (group.size() > 1) {
      EXPECT_EQ(tl.origin_begin[best + 1] - tl.origin_begin[best] >= group.size(), true) << e.kind << " " << e.message;
    }
  }
  for (std::size_t r = 0; r < ev.rows(); ++r) {
    const auto kind = static_cast<EventKind>(ev.column(event_col::kind).get_int(r));
    if (!used[r] && kind != EventKind::cron)
      ADD_FAILURE() << "timeline event not in the truth: " << event_kind_name(kind) << " "
                    << ev.column(event_col::text).get_string(r);
  }
}

TEST_P(GroundTruth, SuspendCyclesAtTheirTrueInstants) {
  const Case& k = c();
  const auto& got = k.result->timeline.suspends;
  ASSERT_EQ(got.size(), k.truth.suspends.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(std::llabs(got[i].begin_ns - k.truth.suspends[i].first), 10 * kNsPerMs);
    EXPECT_LE(std::llabs(got[i].end_ns - k.truth.suspends[i].second), 10 * kNsPerMs);
  }
  // The kernel's clock stopped for the sleep: the boot has one more epoch per suspend.
  if (!got.empty()) {
    ASSERT_FALSE(k.result->timeline.boots.empty());
    EXPECT_EQ(k.result->timeline.boots.back().epochs, 1 + got.size());
  }
}

TEST_P(GroundTruth, MissingSourcesAreNullWithAReasonNeverZero) {
  const Case& k = c();
  const std::size_t checked = expect_missing_sources_null(*k.result);
  if (GetParam().kind == ScenarioKind::kNoDmon) {
    EXPECT_GE(checked, 60u);  // every dmon feature, per GPU and host
    // The GPU is known (from the NVIDIA kernel messages), its sample features are not.
    ASSERT_EQ(k.result->features.gpus, std::vector<int>{0});
    for (const char* name : {"gpu_samples", "gpu_sampled_s", "gpu_util_mean_pct", "gpu_energy_kwh", "gpu_idle_fraction"}) {
      const FeatureValue* v = k.result->features.find_gpu(0, name);
      ASSERT_NE(v, nullptr);
      EXPECT_FALSE(v->value.has_value()) << name;
      EXPECT_NE(v->reason.find("no GPU samples"), std::string::npos) << name << ": " << v->reason;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, GroundTruth, ::testing::ValuesIn(kScenarios),
                         [](const ::testing::TestParamInfo<Scenario>& i) {
                           std::string n(sim::scenario_name(i.param.kind));
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n + "_seed" + std::to_string(i.param.seed);
                         });

// Issue 4: "On the example directory, no feature is 0 where its source is missing: it is null
// with a reason". The committed example has no pmon file and no profiler trace.
TEST(GroundTruthExample, MissingSourcesAreNullWithAReason) {
  const Case& k = pipeline_on(fs::path(GPUCOST_SOURCE_DIR) / "examples" / "laptop-training");
  EXPECT_GE(expect_missing_sources_null(*k.result), 4u);
  for (const char* name : {"launch_queue_fraction", "gpu_processes_mean", "profiler_kernels_per_s"}) {
    const FeatureValue* v = k.result->features.find(name);
    ASSERT_NE(v, nullptr);
    EXPECT_FALSE(v->value.has_value()) << name;
  }
  EXPECT_EQ(k.result->features.find("launch_queue_fraction")->reason, "no PyTorch profiler trace in the directory");
}

// The example's truth through the pipeline too (the contract features).
TEST(GroundTruthExample, ContractFeaturesMatchItsTruth) {
  const Case& k = pipeline_on(fs::path(GPUCOST_SOURCE_DIR) / "examples" / "laptop-training");
  for (const auto& [name, want] : k.truth.host) expect_feature(k.result->features.find(name), want, name, "host");
}

TEST(GroundTruthSources, CatalogSourcesParse) {
  const auto g = required_sources("dmon|query_gpu_csv (+ dmesg|syslog|journal, torch_trace)");
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0], (std::vector<std::string>{"dmon", "query_gpu_csv"}));
  const auto h = required_sources("dmesg|syslog|journal + dmon|query_gpu_csv");
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[1], (std::vector<std::string>{"dmon", "query_gpu_csv"}));
  // Every token the catalog uses is a format or the journal family.
  for (const auto& d : feature_catalog())
    for (const auto& group : required_sources(d.sources))
      for (const auto& s : group) {
        bool known = s == "journal";
        for (std::size_t f = 0; f < kFormatCount; ++f) known = known || format_name(static_cast<FormatId>(f)) == s;
        EXPECT_TRUE(known) << d.name << ": " << s;
      }
}

}  // namespace
}  // namespace gpucost::ground_truth
