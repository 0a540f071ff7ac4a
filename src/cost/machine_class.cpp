#include "gpucost/cost/machine_class.hpp"

#include <fmt/format.h>

#include "gpucost/text/number.hpp"

namespace gpucost::cost {

namespace {

// Consumer and workstation cards: 20-30 % lost in the first year, 10-15 % a year after
// (calcbee.com, "Used GPU value"); the middle of both: 0.75, then x 0.875 a year.
constexpr ResalePoint kDesktopCurve[] = {{0, 1.0}, {12, 0.75}, {24, 0.656}, {36, 0.574}, {48, 0.502}, {60, 0.439}};
// Laptops: 25-40 % a year (limecalculator.com) and 20-30 % (laptopunder.net); 30 % a year.
constexpr ResalePoint kLaptopCurve[] = {{0, 1.0}, {12, 0.70}, {24, 0.49}, {36, 0.343}, {48, 0.24}, {60, 0.168}};
// Data-centre parts: SpotWire's vintage curve for the H100 80GB PCIe from eBay sold comparables
// (as of 2026-06-04); Silicon Data's ~45 % for an H100 system in its third year agrees.
constexpr ResalePoint kDatacenterCurve[] = {{0, 1.0}, {12, 0.78}, {24, 0.60}, {36, 0.46}, {48, 0.35}};

constexpr std::string_view kDesktopResale =
    "used consumer GPUs lose 20-30 % in the first year and 10-15 % a year after (calcbee.com used-GPU value, "
    "observed 2026-12-06): 0.75 x 0.875^(years - 1), read at the amortization months";
constexpr std::string_view kPlatinumGold =
    "80 PLUS Gold at 50 % load, 115 V internal: 90 % (CLEAResult 80 PLUS programme)";

constexpr MachineClass kClasses[] = {
    {"laptop", "laptop", 0, "0: the laptop's price is the whole machine's", 35,
     "assumed: a 45 W-class mobile CPU, display and RAM under load; no measurement in these logs", 0.88,
     "US DOE Level VI minimum for external power supplies above 49 W: 88 % average efficiency", 1.0,
     "1.0: a home or office has no facility overhead", 24, 8, "the seed article's 24 months at 8 h a day", kLaptopCurve,
     "laptops lose 25-40 % a year (limecalculator.com) or 20-30 % (laptopunder.net), observed 2026-12-06: 30 % a "
     "year, read at the amortization months",
     10, "assumed: a laptop's display, SSD, Wi-Fi and chipset under load, beside its CPU package and DRAM"},
    {"consumer", "desktop", 1000, "assumed: the audit's 1 000 USD host (CPU, board, RAM, PSU, chassis; issue 34)", 150,
     "the audit's desktop: 667 W at the wall with the GPU at 450 W through a 90 % supply leaves 150 W", 0.90,
     kPlatinumGold, 1.0, "1.0: a home or office has no facility overhead", 36, 8,
     "assumed: 3 years at 8 h a day (desktops are kept 3-5 years)", kDesktopCurve, kDesktopResale, 40,
     "assumed: a desktop's board, chipset, drives and fans, beside its CPU package and DRAM"},
    {"workstation", "workstation", 2500,
     "assumed: a workstation host (Xeon W or Threadripper, ECC RAM, 1 kW+ PSU) of about 2 500 USD per GPU", 200,
     "assumed: a workstation CPU and RAM under load", 0.92,
     "80 PLUS Platinum at 50 % load, 115 V internal: 92 % (CLEAResult 80 PLUS programme)", 1.0,
     "1.0: an office has no facility overhead counted", 36, 8, "assumed: 3 years at 8 h a day", kDesktopCurve,
     kDesktopResale, 60,
     "assumed: a workstation's board, chipset, drives, fans and NICs, beside its CPU packages and DRAM"},
    {"datacenter", "server (data centre)", 6250,
     "assumed: a 50 000 USD 8-GPU server host (CPUs, 2 TB RAM, NICs, chassis) shared by its 8 GPUs", 575,
     "NVIDIA DGX H100/H200 datasheet: 10.2 kW maximum for the system, less 8 x 700 W of GPUs, over 8 GPUs "
     "(a maximum)",
     0.94, "80 PLUS Platinum at 50 % load, 230 V internal redundant: 94 % (CLEAResult 80 PLUS programme)", 1.58,
     "Uptime Institute Global Data Center Survey 2023: industry average PUE 1.58 (intelligence.uptimeinstitute.com, "
     "2023-11-23)",
     48, 24, "data-centre GPUs run around the clock for 4-5 years (the audit, issue 34): 48 months at 24 h a day",
     kDatacenterCurve,
     "SpotWire vintage curve for the H100 80GB PCIe from eBay sold comparables (spotwire.ai valuator data, as of "
     "2026-06-04): 0.78, 0.60, 0.46, 0.35 after 1-4 years, read at the amortization months",
     487.5,
     "NVIDIA DGX H100/H200 datasheet: 10.2 kW maximum less 8 x 700 W of GPUs and 2 x 350 W of CPUs (Xeon "
     "Platinum 8480C TDP), over 8 GPUs: NVSwitches, NICs, drives, fans and RAM (a maximum; RAPL's DRAM reading "
     "overlaps its RAM share)"},
};

}  // namespace

std::span<const MachineClass> machine_classes() noexcept { return kClasses; }

const MachineClass* find_machine_class(std::string_view name) noexcept {
  for (const auto& c : kClasses)
    if (c.name == name) return &c;
  return nullptr;
}

double resale_fraction_at(const MachineClass& c, double age_months) noexcept {
  const auto& k = c.resale_curve;
  if (k.empty()) return 0;
  if (age_months <= k.front().age_months) return k.front().fraction;
  for (std::size_t i = 1; i < k.size(); ++i)
    if (age_months <= k[i].age_months) {
      const double t = (age_months - k[i - 1].age_months) / (k[i].age_months - k[i - 1].age_months);
      return k[i - 1].fraction + t * (k[i].fraction - k[i - 1].fraction);
    }
  return k.back().fraction;
}

void apply_machine_class(const MachineClass& c, CostInputs& in) {
  in.machine_class = std::string(c.name);
  auto put = [&](InputId id, double v, std::string_view why) {
    if (in[id].origin != "default") return;
    in.set(id, v, "default", fmt::format("{} class: {}", c.label, why));
  };
  if (in.currency == "USD" || c.host_price_usd == 0) {
    put(InputId::kHostPrice, c.host_price_usd, c.host_price_source);
  } else if (in[InputId::kHostPrice].origin == "default") {
    in[InputId::kHostPrice].note = fmt::format(
        "{} class: its default ({} USD) is in USD, not {}: none counted; give "
        "--local-host-price",
        c.label, format_number(c.host_price_usd), in.currency);
  }
  put(InputId::kHostPowerW, c.host_power_w, c.host_power_source);
  put(InputId::kPsuEfficiency, c.psu_efficiency, c.psu_source);
  put(InputId::kPue, c.pue, c.pue_source);
  put(InputId::kAmortizationMonths, c.amortization_months, c.lifetime_source);
  const double months = in.get(InputId::kAmortizationMonths);
  put(InputId::kAmortizationHours, months * c.hours_per_day * (c.hours_per_day >= 24 ? kMeanMonthHours / 24 : 30),
      fmt::format("{} months x {} x {} h a day", format_number(months),
                  c.hours_per_day >= 24 ? "30.4375 days" : "30 days", format_number(c.hours_per_day)));
  put(InputId::kResaleFraction, resale_fraction_at(c, months),
      fmt::format("{} (at {} months)", c.resale_source, format_number(months)));
}

}  // namespace gpucost::cost
