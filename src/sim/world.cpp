#include "gpucost/sim/world.hpp"

#include <algorithm>

namespace gpucost::sim {

std::string_view scenario_name(ScenarioKind k) noexcept {
  switch (k) {
    case ScenarioKind::kLaptop: return "laptop";
    case ScenarioKind::kServer: return "server";
    case ScenarioKind::kNoDmon: return "no-dmon";
    case ScenarioKind::kDatacenter: return "datacenter";
  }
  return "?";
}

std::optional<ScenarioKind> scenario_from_name(std::string_view name) noexcept {
  if (name == "laptop") return ScenarioKind::kLaptop;
  if (name == "server") return ScenarioKind::kServer;
  if (name == "no-dmon" || name == "no_dmon") return ScenarioKind::kNoDmon;
  if (name == "datacenter") return ScenarioKind::kDatacenter;
  return std::nullopt;
}

TimeNs World::suspended_before(TimeNs ts) const noexcept {
  TimeNs total = 0;
  for (const auto& s : suspends)
    if (s.sleep_end <= ts) total += s.duration();
  return total;
}

TimeNs World::mono_at(TimeNs ts, int boot) const noexcept {
  const Boot& b = boots[static_cast<std::size_t>(boot)];
  return ts - b.wall - (boot == 0 ? suspended_before(ts) : 0);
}

TimeNs World::wall_of_mono(TimeNs mono) const noexcept {
  TimeNs t = boots.front().wall + mono;
  for (const auto& s : suspends)
    if (t > s.sleep_begin) t += s.duration();
  return t;
}

bool World::frozen(TimeNs ts) const noexcept {
  for (const auto& s : suspends)
    if (ts >= s.freeze && ts < s.thaw) return true;
  return false;
}

TimeNs World::read_by(TimeNs ts, int boot, TimeNs reader_start) const noexcept {
  const Boot& b = boots[static_cast<std::size_t>(boot)];
  TimeNs t = std::max(ts, b.wall + reader_start);
  if (boot == 0)
    for (const auto& s : suspends)
      if (t >= s.freeze && t < s.thaw) t = s.thaw + 3 * kNsPerMs;
  return t;
}

const Daemon* World::daemon(std::string_view ident) const noexcept {
  for (const auto& d : daemons)
    if (d->ident == ident) return d.get();
  return nullptr;
}

GpuMode World::mode_at(int gpu, TimeNs t, std::size_t& hint) const noexcept {
  const auto& segs = segments[static_cast<std::size_t>(gpu)];
  if (hint > segs.size() || (hint > 0 && hint <= segs.size() && segs[hint - 1].begin > t)) hint = 0;
  while (hint < segs.size() && segs[hint].end <= t) ++hint;
  if (hint < segs.size() && segs[hint].begin <= t) return segs[hint].mode;
  return base_mode[static_cast<std::size_t>(gpu)];
}

bool World::on_battery(TimeNs t) const noexcept {
  for (const auto& [b, e] : battery)
    if (t >= b && t < e) return true;
  return false;
}

}  // namespace gpucost::sim
