#pragma once
/// \file machine_class.hpp
/// The defaults that depend on what kind of machine holds the local GPU: the rest of the machine's
/// price and draw, the power supply's efficiency, the room's PUE, the lifetime and hours of use, and
/// the share of the price a used machine of that age resells for. Every value names its source
/// (data/machine-classes.md, docs/cost-model.md "The whole machine").

#ifndef GPUCOST_LAYER_COST
#error "gpucost_cost header: include it only in gpucost_cost or a layer above it (docs/architecture.md, Layers)"
#endif

#include <span>
#include <string_view>

#include "gpucost/cost/inputs.hpp"

namespace gpucost::cost {

/// One point of a resale curve: the share of the new price a used part fetches at that age.
struct ResalePoint {
  double age_months;
  double fraction;
};

/// The defaults of one machine class. Money is in USD (other currencies get no host-price default).
struct MachineClass {
  std::string_view name;  ///< the presets' kind: laptop, consumer, workstation, datacenter
  std::string_view label;  ///< `desktop`, `server (data centre)`
  double host_price_usd;
  std::string_view host_price_source;
  double host_power_w;
  std::string_view host_power_source;
  double psu_efficiency;
  std::string_view psu_source;
  double pue;
  std::string_view pue_source;
  double amortization_months;
  double hours_per_day;  ///< hours of use a day over those months (24 for data-centre parts)
  std::string_view lifetime_source;
  std::span<const ResalePoint> resale_curve;
  std::string_view resale_source;
  /// What the host draws per GPU beyond its CPU packages and their DRAM (board, chipset, drives,
  /// fans, NICs): added to a RAPL measurement, which sees only the CPUs (an assumption).
  double host_rest_w = 0;
  std::string_view host_rest_source;
};

/// The classes, laptop first.
std::span<const MachineClass> machine_classes() noexcept;
/// A class by its name; nullptr when there is none (an empty name included).
const MachineClass* find_machine_class(std::string_view name) noexcept;
/// The curve's share at `age_months`, linear between its points and flat past its last one.
/// resale_fraction_at(consumer, 36) = 0.574.
double resale_fraction_at(const MachineClass& c, double age_months) noexcept;
/// Sets the class defaults for every one of the inputs above whose origin is still `default`
/// (a scenario, a preset's own figure, a measurement or an option wins), and records the class.
/// The resale share is read from the curve at the amortization months in force.
void apply_machine_class(const MachineClass& c, CostInputs& in);

}  // namespace gpucost::cost
