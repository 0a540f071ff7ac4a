#include "sim/gpu_model.hpp"

#include "sim/emit.hpp"

#include <algorithm>

namespace gpucost::sim {

namespace {
int clampi(double v, int lo, int hi) {
  const double r = v < 0 ? v - 0.5 : v + 0.5;
  return std::clamp(static_cast<int>(r), lo, hi);
}
}  // namespace

GpuModel::GpuModel(const World& w, int gpu)
    : w_(w), g_(w.gpus[static_cast<std::size_t>(gpu)]), gpu_(gpu), rng_(w.options.seed, 50 + static_cast<std::uint64_t>(gpu)) {
  temp_ = w.laptop ? 41 : 34;
  fb_ = w.laptop ? 300 : 4;
  for (const auto& r : w.scheduled)
    if (r.kind == static_cast<std::int8_t>(EventKind::xid) && r.code == 48 && r.gpu == gpu) dbe_at_ = r.ts;
}

double GpuModel::power_demand(double sm) const {
  // The data-centre job is dense tensor work: it would draw more than the board's default
  // limit, so the board holds the limit and lowers its clock (pviol), as designed.
  if (w_.kind == ScenarioKind::kDatacenter) return 95 + 3.6 * sm;
  return w_.laptop ? 22 + 0.95 * sm : 95 + 2.9 * sm;
}

GpuSample GpuModel::sample(TimeNs t) {
  const bool laptop = w_.laptop;
  const double ambient = laptop ? 36 : 30;
  const double heat_per_w = laptop ? 0.33 : 0.1;
  if (last_ != kNoTime && t - last_ > kNsPerSec) {
    // Not sampled (asleep): powered down, the GPU cools towards the room.
    const TimeNs n = std::min<TimeNs>((t - last_) / kNsPerSec - 1, 3600);
    for (TimeNs i = 0; i < n; ++i) temp_ += (ambient - 4 - temp_) / 60.0;
  }
  last_ = t;
  const GpuMode mode = w_.mode_at(gpu_, t, hint_);
  if (mode != prev_) {
    if (mode == GpuMode::kHot) decay_ = 1;
    if (mode == GpuMode::kTrain) next_dip_ = t + seconds(rng_.uniform(50, 120));
    if (mode == GpuMode::kLoad) load_sm_ = rng_.uniform(6, 14);
    prev_ = mode;
  }
  const bool battery = laptop && w_.on_battery(t);
  const double limit = battery ? g_.battery_power_limit_w : g_.power_limit_w;

  GpuSample s;
  double sm = 0, power = 0, fb_target = laptop ? 310 : 4;
  double pclk = laptop ? rng_.uniform(210, 405) : 210;
  int mclk = g_.idle_mclk;
  double hot_offset = 0;
  switch (mode) {
    case GpuMode::kIdle:
    case GpuMode::kStall: {
      const double u = rng_.uniform();
      sm = u < 0.8 ? 0 : u < 0.95 ? static_cast<double>(rng_.range(1, 3)) : static_cast<double>(rng_.range(4, 5));
      power = g_.idle_power_w + rng_.normal(0, 1.0);
      if (mode == GpuMode::kStall) {  // the process keeps its memory and a few watts of clocks
        fb_target = g_.train_fb_mib;
        power += 4;
        s.stalled = true;
      }
      break;
    }
    case GpuMode::kLoad:
      load_sm_ = std::min(45.0, load_sm_ + rng_.uniform(-1.5, 2.2));
      sm = std::max(6.0, load_sm_ + rng_.normal(0, 4));
      fb_target = g_.train_fb_mib * 0.8;
      power = power_demand(sm) * 0.8 + rng_.normal(0, 2);
      pclk = g_.busy_pclk * rng_.uniform(0.8, 1.0);
      mclk = g_.busy_mclk;
      break;
    case GpuMode::kTrain:
    case GpuMode::kHot: {
      if (t >= next_dip_) {  // the data loader falls behind now and then
        dip_left_ = static_cast<int>(rng_.range(2, 4));
        dip_sm_ = rng_.uniform(20, 55);
        next_dip_ = t + seconds(rng_.uniform(50, 120));
      }
      sm = std::clamp(rng_.normal(laptop ? 94 : 97.5, laptop ? 2.5 : 1.2), 85.0, 100.0);
      if (dip_left_ > 0) {
        --dip_left_;
        sm = dip_sm_ + rng_.normal(0, 5);
      }
      if (mode == GpuMode::kHot) {
        // Too hot: clocks throttle and the step rate sinks (the seed article: 92 % -> 54 %).
        decay_ *= 0.9955;
        sm = 54 + (sm - 54) * decay_;
        hot_offset = laptop ? 26 : 22;
      }
      fb_target = g_.train_fb_mib;
      const double demand = power_demand(sm) + rng_.normal(0, laptop ? 2.5 : 8);
      power = std::min(demand, limit - rng_.uniform(0, 1.5));
      pclk = g_.busy_pclk * rng_.uniform(0.97, 1.0);
      if (demand > limit) {  // power-capped (on battery): lower clocks, a little less SM, pviol
        pclk *= 0.45 + 0.55 * limit / demand;
        sm *= 0.94;
        s.pviol = clampi(rng_.uniform(60, 100), 0, 100);
      }
      if (mode == GpuMode::kHot) pclk *= 0.6 + 0.4 * decay_;
      mclk = g_.busy_mclk;
      s.rxpci = clampi(laptop ? rng_.uniform(250, 900) : rng_.uniform(800, 2500), 0, 100000);
      s.txpci = clampi(laptop ? rng_.uniform(20, 80) : rng_.uniform(100, 600), 0, 100000);
      break;
    }
  }
  // Above its limit the GPU throttles harder: the temperature settles a degree over it.
  const double target = std::min(ambient + heat_per_w * power + hot_offset, g_.max_operating_temp + 1.0);
  temp_ += (target - temp_) / 45.0 + rng_.normal(0, 0.15);
  fb_ += (fb_target - fb_) / 6.0;

  s.sm = clampi(sm, 0, 100);
  s.mem = mode == GpuMode::kIdle || mode == GpuMode::kStall ? clampi(rng_.uniform(0, 1.4), 0, 100)
                                                            : clampi(s.sm * 0.55 + rng_.normal(0, 4), 0, 100);
  s.pwr = clampi(power, 1, static_cast<int>(g_.power_max_w));
  s.gtemp = clampi(temp_, 20, 110);
  s.mtemp = g_.has_mtemp ? clampi(temp_ + 6 + rng_.normal(0, 0.4), 20, 110) : -1;
  s.mclk = mclk;
  s.pclk = clampi(pclk, 180, g_.max_pclk);
  s.tviol = mode == GpuMode::kHot && s.gtemp >= (laptop ? 80 : 84) ? 1 : 0;
  s.fb = clampi(fb_ + rng_.normal(0, 2), 0, g_.mem_total_mib);
  s.bar1 = laptop ? static_cast<int>(rng_.range(5, 9)) : static_cast<int>(rng_.range(4, 6));
  s.ccpm = 0;
  if (g_.has_ecc) {
    s.sbecc = 0;
    s.dbecc = dbe_at_ != kNoTime && t >= dbe_at_ ? 1 : 0;
  }
  if (mode == GpuMode::kIdle || mode == GpuMode::kStall) {
    s.rxpci = static_cast<int>(rng_.range(0, 2));
    s.txpci = static_cast<int>(rng_.range(0, 1));
  } else if (mode == GpuMode::kLoad) {
    s.rxpci = static_cast<int>(rng_.range(300, 1500));
    s.txpci = static_cast<int>(rng_.range(5, 40));
  }
  return s;
}

}  // namespace gpucost::sim
