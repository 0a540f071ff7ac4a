// Issue 34: the rest of the machine's power, measured. A real H200 collection (one GPU, a
// data-centre class) gets the host power files collect-logs.sh writes, with known readings: the
// BMC's whole-system reading at the supply's input (IPMI DCMI) makes local.host_power_w the share
// that reproduces the measured wall power through the model's formula; the CPUs' RAPL counters
// (a wrap among them) make it their power plus the class's assumed rest. Readings outside the GPU
// samples' window do not count.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "gpucost/cost/machine_class.hpp"
#include "gpucost/cost/model.hpp"
#include "gpucost/cost/presets.hpp"
#include "gpucost/pipeline/pipeline.hpp"

namespace gpucost {
namespace {

namespace fs = std::filesystem;
using cost::InputId;

PipelineOptions with_cost(bool measured = true) {
  PipelineOptions o;
  auto setup = std::make_shared<CostSetup>();
  setup->catalog = cost::load_presets({}, {});
  setup->measured = measured;
  o.cost = setup;
  return o;
}

// A copy of the H200 collection, and the window of its GPU samples.
struct Collection {
  fs::path dir;
  TimeNs begin = kNoTime, end = kNoTime;
};

Collection h200_copy(const std::string& name) {
  Collection c;
  c.dir = fs::temp_directory_path() / ("gpucost-host-power-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(c.dir);
  fs::create_directories(c.dir);
  for (const auto& e : fs::directory_iterator(fs::path(GPUCOST_TEST_DATA) / "gpu/h200/collect"))
    fs::copy(e.path(), c.dir / e.path().filename());
  PipelineResult r;
  run_pipeline(c.dir, with_cost(), r, PipelineStage::kAlign);
  const Column& ts = r.timeline.samples.ts();
  EXPECT_GT(r.timeline.samples.rows(), 10u);
  c.begin = ts.get_int(0);
  c.end = ts.get_int(r.timeline.samples.rows() - 1);
  return c;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// IPMI: 1000 W every 10 s inside the window; 5000 W before and after it.
std::string ipmi_file(const Collection& c) {
  std::string s;
  auto reading = [&](TimeNs t, int watts) {
    s += "### gpucost-ipmi " + format_rfc3339(t, 6) + "\n\n";
    s += fmt::format("    Instantaneous power reading:              {:8} Watts\n", watts);
    s += fmt::format("    Minimum during sampling period:           {:8} Watts\n", watts / 2);
    s += fmt::format("    Maximum during sampling period:           {:8} Watts\n", watts + 300);
    s += fmt::format("    Average power reading over sample period: {:8} Watts\n", watts);
    s += "    IPMI timestamp:                           11/30/26 00:41:23 UTC\n";
    s += "    Sampling period:                          00000001 Seconds.\n";
    s += "    Power reading state is:                   activated\n\n";
  };
  reading(c.begin - 100 * kNsPerSec, 5000);
  for (TimeNs t = c.begin + 5 * kNsPerSec; t < c.end; t += 10 * kNsPerSec) reading(t, 1000);
  reading(c.end + 100 * kNsPerSec, 5000);
  return s;
}

// RAPL: package-0 at 100 W (its counter wraps 500 J into the window), its DRAM at 20 W, a reading
// every 2 s inside the window; before it, a 61 s step at about 885 W whose middle is outside.
constexpr std::uint64_t kPkgRange = 262143328850, kDramRange = 65712999613;
std::string rapl_file(const Collection& c) {
  std::string s = "# gpucost-rapl-energy 1: <stamp> <zone> <name> <energy_uj> <max_energy_range_uj>\n";
  std::uint64_t pkg = kPkgRange - 500'000'000 - 54'000'000'000ULL, dram = 5'000'000;
  auto row = [&](TimeNs t) {
    s += fmt::format("{} intel-rapl:0 package-0 {} {}\n", format_rfc3339(t, 6), pkg, kPkgRange);
    s += fmt::format("{} intel-rapl:0:0 dram {} {}\n", format_rfc3339(t, 6), dram, kDramRange);
  };
  const TimeNs first = c.begin - 60 * kNsPerSec;
  row(first);
  pkg = (pkg + 900ULL * 60 * 1'000'000) % (kPkgRange + 1);
  dram += 900ULL * 60 * 1'000'000;
  TimeNs t = c.begin + kNsPerSec;
  row(t);
  for (t += 2 * kNsPerSec; t < c.end; t += 2 * kNsPerSec) {
    pkg = (pkg + 200'000'000) % (kPkgRange + 1);  // 100 W for 2 s
    dram += 40'000'000;  // 20 W
    row(t);
  }
  return s;
}

struct Outcome {
  PipelineResult r;
  const cost::InputValue& host() const { return r.cost->inputs[InputId::kHostPowerW]; }
  double in(InputId id) const { return *r.cost->inputs[id].value; }
};

void run(const Collection& c, Outcome& o, bool measured = true) {
  run_pipeline(c.dir, with_cost(measured), o.r);
  ASSERT_TRUE(o.r.cost);
  ASSERT_EQ(o.r.cost->inputs.machine_class, "datacenter");
  ASSERT_EQ(o.r.cost->inputs.gpu_count, 1u);
}

TEST(HostPower, TheBmcsWallReadingMakesTheModelsWallPowerTheMeasuredOne) {
  const Collection c = h200_copy("ipmi");
  write(c.dir / "ipmi-dcmi-power.txt", ipmi_file(c));
  Outcome o;
  run(c, o);
  EXPECT_EQ(o.host().origin, "measured:ipmi") << o.host().note;
  // host = 1000 W / 1 GPU x 0.94 - the measured board power; the 5000 W outside the window left out.
  const double eff = o.in(InputId::kPsuEfficiency), board = o.in(InputId::kPowerW), pue = o.in(InputId::kPue);
  EXPECT_EQ(eff, 0.94);
  EXPECT_EQ(pue, 1.58);
  EXPECT_EQ(o.r.cost->inputs[InputId::kPowerW].origin.rfind("measured:", 0), 0u);
  EXPECT_NEAR(o.host().value.value(), 1000 * eff - board, 1e-9) << o.host().note;
  EXPECT_NEAR(o.r.cost->local.wall_power_w, 1000 * pue, 1e-9) << "(power_w + host_power_w) / psu_efficiency * pue";
  EXPECT_EQ(cost::power_used(o.r.cost->inputs), "measured_system");
  EXPECT_NE(o.host().note.find("measured system"), std::string::npos) << o.host().note;
  EXPECT_NE(o.host().note.find("outside it left out"), std::string::npos) << o.host().note;
  fs::remove_all(c.dir);
}

TEST(HostPower, TheCpusCountersArePartMeasuredPartAssumed) {
  const Collection c = h200_copy("rapl");
  write(c.dir / "rapl-energy.txt", rapl_file(c));
  Outcome o;
  run(c, o);
  EXPECT_EQ(o.host().origin, "measured:rapl") << o.host().note;
  const cost::MachineClass* dc = cost::find_machine_class("datacenter");
  ASSERT_TRUE(dc);
  // 100 W + 20 W measured (the wrap undone, the 900 W step outside the window left out) + the rest.
  EXPECT_NEAR(o.host().value.value(), 120 + dc->host_rest_w, 1e-6) << o.host().note;
  EXPECT_NE(o.host().note.find("part measured, part assumed"), std::string::npos) << o.host().note;
  EXPECT_EQ(cost::power_used(o.r.cost->inputs), "estimated_at_the_wall");
  for (const auto& f : o.r.diagnostics.files)
    EXPECT_EQ(f.problems[static_cast<std::size_t>(Problem::counter_reset)], 0u) << f.path;
  fs::remove_all(c.dir);
}

TEST(HostPower, TheWallReadingWinsOverTheCpusAndNoMeasuredKeepsTheDefault) {
  const Collection c = h200_copy("both");
  write(c.dir / "ipmi-dcmi-power.txt", ipmi_file(c));
  write(c.dir / "rapl-energy.txt", rapl_file(c));
  Outcome both;
  run(c, both);
  EXPECT_EQ(both.host().origin, "measured:ipmi");
  EXPECT_NE(both.host().note.find("RAPL"), std::string::npos) << both.host().note;
  Outcome not_measured;
  run(c, not_measured, false);
  EXPECT_EQ(not_measured.host().origin, "default");
  EXPECT_EQ(not_measured.host().value.value_or(-1), cost::find_machine_class("datacenter")->host_power_w);
  fs::remove_all(c.dir);
}

TEST(HostPower, WithoutHostPowerFilesTheClassDefaultStays) {
  const Collection c = h200_copy("none");
  Outcome o;
  run(c, o);
  EXPECT_EQ(o.host().origin, "default");
  EXPECT_EQ(o.host().value.value_or(-1), 575.0);
  EXPECT_EQ(cost::power_used(o.r.cost->inputs), "estimated_at_the_wall");
  fs::remove_all(c.dir);
}

}  // namespace
}  // namespace gpucost
