#pragma once
// Internal: the plan of a world (what happens when), shared by the planner (scenario.cpp) and
// the builders of the planned messages (boot_messages.cpp, event_messages.cpp).

#ifndef GPUCOST_LAYER_SIM
#error "gpucost_sim header: include it only in gpucost_sim or a layer above it (docs/architecture.md, Layers)"
#endif

#include <vector>

#include "gpucost/sim/rng.hpp"
#include "gpucost/sim/world.hpp"

namespace gpucost::sim {

/// An injected Xid: `crash` ends the running container (a restart follows unless `lost`).
struct XidPlan {
  TimeNs t = 0;
  int code = 0;
  int gpu = 0;
  bool crash = true;
  bool lost = false;  ///< the GPU fell off the bus: no more rows, no restart on it
};
struct HotPlan {
  TimeNs begin = 0, end = 0;
  int gpu = 0;
};
struct AcPlan {
  TimeNs t = 0;
  bool online = false;
};
struct AerPlan {
  TimeNs t = 0;
  int gpu = 0;
};

struct Plan {
  std::vector<XidPlan> xids;  ///< sorted by t
  std::vector<HotPlan> hot;
  std::vector<AcPlan> ac;     ///< switches after boot, sorted
  std::vector<AerPlan> aer;
  TimeNs login = 0;           ///< the user's session starts
};

/// Kernel and user-space messages of a boot (boot 0: everything; previous boots: the kernel's
/// kern.log lines, with a little kernel noise up to the boot's end).
void schedule_boot(World& w, int boot, Rng& rng);
/// The messages of the planned events: containers, Xids, suspends, AC changes, hot phases.
void schedule_events(World& w, const Plan& plan, Rng& rng);

/// A process id for a process created at t. Linux hands out ids in increasing order; the
/// simulator derives them from time plus a slot per kind of process (0..9), so ids grow with
/// time, never collide, and no source has to know the others' counters.
std::int32_t pid_at(const World& w, TimeNs t, int slot);

/// When the user's session started (systemd-logind `New session`).
TimeNs login_time(const World& w);
/// Pid of the k-th process started for the user's session (one slot every 2 s from the login).
std::int32_t session_pid(const World& w, int k);
/// Indices of session processes that other files name (nvidia-smi -q lists them on the GPU).
inline constexpr int kXorgSessionIndex = 6;
inline constexpr int kJupyterKernelSessionIndex = 18;

}  // namespace gpucost::sim
