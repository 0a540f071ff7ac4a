#pragma once
// Internal: what one GPU's sensors read second by second, from the world's plan (job phases,
// heat, battery) and a little noise. Integers, as nvidia-smi dmon prints them.

#ifndef GPUCOST_LAYER_SIM
#error "gpucost_sim header: include it only in gpucost_sim or a layer above it (docs/architecture.md, Layers)"
#endif

#include "gpucost/sim/rng.hpp"
#include "gpucost/sim/world.hpp"

namespace gpucost::sim {

/// One `nvidia-smi dmon -s pucvmet` row of one GPU; -1 prints `-` (not supported).
struct GpuSample {
  int pwr = 0, gtemp = 0, mtemp = -1, sm = 0, mem = 0, enc = 0, dec = 0, jpg = 0, ofa = 0;
  int mclk = 0, pclk = 0, pviol = 0, tviol = 0, fb = 0, bar1 = 0, ccpm = 0;
  int sbecc = -1, dbecc = -1, pci = 0, rxpci = 0, txpci = 0;
  bool stalled = false;  ///< the job's own stall (GpuMode::kStall): truth, not printed
};

class GpuModel {
 public:
  GpuModel(const World& w, int gpu);
  /// The reading at whole second t; calls must come with increasing t (a gap lets the GPU cool,
  /// as it does while the laptop sleeps).
  GpuSample sample(TimeNs t);

 private:
  double power_demand(double sm) const;
  const World& w_;
  const GpuSpec& g_;
  int gpu_;
  Rng rng_;
  TimeNs last_ = kNoTime;
  std::size_t hint_ = 0;
  GpuMode prev_ = GpuMode::kIdle;
  double temp_ = 38, fb_ = 0, decay_ = 1, load_sm_ = 10;
  TimeNs next_dip_ = 0;
  int dip_left_ = 0;
  double dip_sm_ = 40;
  TimeNs dbe_at_ = kNoTime;  ///< an Xid 48 on this GPU: dmon's dbecc counts it from then on
};

}  // namespace gpucost::sim
