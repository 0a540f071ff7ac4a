// Who else uses the machine: ps snapshots (CPU, memory, desktop GPU clients) and nvidia-smi
// pmon (processes sharing each GPU).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <unordered_map>
#include <vector>

#include "features/compute.hpp"
#include "gpucost/text.hpp"

namespace gpucost::features {

bool is_desktop_gpu_client(std::string_view command) noexcept {
  static constexpr std::array<std::string_view, 31> kClients = {
      "Xorg",        "X",       "Xwayland",    "gnome-shell", "kwin_x11",      "kwin_wayland", "plasmashell",
      "sway",        "Hyprland", "weston",     "mutter",      "cinnamon",      "chrome",       "chromium",
      "chromium-browser", "google-chrome", "firefox", "firefox-esr", "firefox-bin", "msedge",  "brave",
      "opera",       "code",    "code-oss",    "electron",    "steam",         "obs",          "vlc",
      "mpv",         "blender", "zed"};
  std::string_view rest = command;
  std::string_view prog = text::next_token(rest);
  if (auto slash = prog.rfind('/'); slash != std::string_view::npos) prog.remove_prefix(slash + 1);
  return std::find(kClients.begin(), kClients.end(), prog) != kClients.end();
}

namespace {

const Column& pcol(const FeatureContext& c, std::size_t col) { return c.timeline.processes.column(col); }

// Per-snapshot figures of the ps snapshots, summed or maximized over snapshots.
struct SnapshotFigures {
  std::size_t snapshots = 0;
  double sum = 0, max = 0;
};

template <class PerSnapshot>
SnapshotFigures over_snapshots(const FeatureContext& c, PerSnapshot f) {
  SnapshotFigures out;
  for (const auto& g : c.ps_groups) {
    const double v = f(g);
    out.sum += v;
    out.max = out.snapshots == 0 ? v : std::max(out.max, v);
    ++out.snapshots;
  }
  return out;
}

std::string ps_evidence(const FeatureContext& c) {
  if (c.ps_groups.empty()) return "0 ps snapshots";
  return fmt::format("{} ps snapshots; first {}", c.ps_groups.size(), c.process_where(c.process_order[c.ps_groups[0].begin]));
}

std::optional<FeatureValue> need_ps(const FeatureContext& c) {
  if (c.ps_groups.empty()) return null_because(c.has(LogSource::kPs) ? "no ps rows read" : std::string(missing_reason(LogSource::kPs)));
  return std::nullopt;
}

FeatureValue snapshot_mean(const FeatureContext& c, double (*f)(const FeatureContext&, const ProcessGroup&)) {
  if (auto n = need_ps(c)) return *n;
  const auto s = over_snapshots(c, [&](const ProcessGroup& g) { return f(c, g); });
  return value(s.sum / static_cast<double>(s.snapshots), ps_evidence(c));
}

double cpu_sum(const FeatureContext& c, const ProcessGroup& g) {
  const ColumnReader cpu(pcol(c, process_col::cpu_pct));
  double s = 0;
  for (auto i = g.begin; i < g.end; ++i)
    if (cpu.is_valid(c.process_order[i])) s += cpu.get_float(c.process_order[i]);
  return s;
}

double cpu_competing(const FeatureContext& c, const ProcessGroup& g) {
  const ColumnReader cpu(pcol(c, process_col::cpu_pct));
  double s = 0, top = 0;
  for (auto i = g.begin; i < g.end; ++i)
    if (cpu.is_valid(c.process_order[i])) {
      const double v = cpu.get_float(c.process_order[i]);
      s += v;
      top = std::max(top, v);
    }
  return s - top;
}

double busy_processes(const FeatureContext& c, const ProcessGroup& g) {
  const ColumnReader cpu(pcol(c, process_col::cpu_pct));
  double n = 0;
  for (auto i = g.begin; i < g.end; ++i)
    if (cpu.is_valid(c.process_order[i]) && cpu.get_float(c.process_order[i]) >= kBusyProcessCpuPct) ++n;
  return n;
}

double mem_sum(const FeatureContext& c, const ProcessGroup& g) {
  const ColumnReader mem(pcol(c, process_col::mem_pct));
  double s = 0;
  for (auto i = g.begin; i < g.end; ++i)
    if (mem.is_valid(c.process_order[i])) s += mem.get_float(c.process_order[i]);
  return s;
}

// Rows of a snapshot whose dictionary string passes a test; the test runs once per distinct
// string (commands and states repeat in every snapshot), not once per row.
template <class Test>
SnapshotFigures count_per_snapshot(const FeatureContext& c, std::size_t col, Test test) {
  const Column& column = pcol(c, col);
  const StringDictionary& dict = column.dictionary();
  std::vector<bool> pass(dict.size());
  for (std::uint32_t code = 0; code < dict.size(); ++code) pass[code] = test(dict.at(code));
  return over_snapshots(c, [&](const ProcessGroup& g) {
    double n = 0;
    for (auto i = g.begin; i < g.end; ++i) {
      const auto r = c.process_order[i];
      if (column.is_valid(r) && pass[column.get_code(r)]) ++n;
    }
    return n;
  });
}

FeatureValue snapshot_count_max(const FeatureContext& c, std::size_t col, bool (*test)(std::string_view)) {
  if (auto n = need_ps(c)) return *n;
  return value(count_per_snapshot(c, col, test).max, ps_evidence(c));
}

bool is_uninterruptible(std::string_view state) { return !state.empty() && state.front() == 'D'; }

}  // namespace

FeatureValue ps_snapshots(const FeatureContext& c, int) {
  if (!c.has(LogSource::kPs)) return null_because(std::string(missing_reason(LogSource::kPs)));
  return value(static_cast<double>(c.ps_groups.size()), ps_evidence(c));
}
FeatureValue cpu_load_pct_mean(const FeatureContext& c, int) { return snapshot_mean(c, cpu_sum); }
FeatureValue cpu_competing_pct_mean(const FeatureContext& c, int) { return snapshot_mean(c, cpu_competing); }
FeatureValue ps_busy_processes_mean(const FeatureContext& c, int) { return snapshot_mean(c, busy_processes); }
FeatureValue mem_used_pct_mean(const FeatureContext& c, int) { return snapshot_mean(c, mem_sum); }
FeatureValue desktop_gpu_clients_max(const FeatureContext& c, int) {
  return snapshot_count_max(c, process_col::command, is_desktop_gpu_client);
}
FeatureValue ps_uninterruptible_max(const FeatureContext& c, int) {
  return snapshot_count_max(c, process_col::stat, is_uninterruptible);
}

FeatureValue wsl2_host(const FeatureContext& c, int) {
  const bool kernel = c.has(LogSource::kKernel), ps = !c.ps_groups.empty();
  if (!kernel && !ps) return null_because("no kernel log and no ps snapshots");
  for (auto r : c.events_by_kind[static_cast<std::size_t>(EventKind::boot)]) {
    const auto t = c.event_text(r);
    if (text::ifind(t, "microsoft-standard") != std::string_view::npos || text::contains(t, "WSL2"))
      return value(1, "boot message at " + c.event_where(r));
  }
  const Column& pid = pcol(c, process_col::pid);
  const Column& cmd = pcol(c, process_col::command);
  for (const auto& g : c.ps_groups)
    for (auto i = g.begin; i < g.end; ++i) {
      const auto r = c.process_order[i];
      if (!pid.is_valid(r) || pid.get_int(r) != 1 || !cmd.is_valid(r)) continue;
      std::string_view rest = cmd.get_string(r);
      if (text::next_token(rest) == "/init") return value(1, "pid 1 is /init at " + c.process_where(r));
    }
  return value(0, fmt::format("{} boot events, {} ps snapshots without WSL2 signs",
                              c.events_by_kind[static_cast<std::size_t>(EventKind::boot)].size(), c.ps_groups.size()));
}

// ---- pmon ----

namespace {

struct PmonFigures {
  std::size_t groups = 0;
  double procs_sum = 0, procs_max = 0, competing_sum = 0, top_sm = 0, all_sm = 0;
  std::uint32_t first_row = 0;
};

PmonFigures pmon_figures(const FeatureContext& c, int gpu) {
  const Column& pid = pcol(c, process_col::pid);
  const ColumnReader sm(pcol(c, process_col::gpu_sm_pct));
  PmonFigures f;
  // The distinct pids of an interval, sorted: an interval of many processes (a fork bomb, a
  // crash loop) costs n log n, not n^2 (50 000 processes took 25 s).
  std::vector<std::int64_t> pids;
  for (const auto& g : c.pmon_groups) {
    if (gpu >= 0 && g.gpu != gpu) continue;
    if (f.groups++ == 0) f.first_row = c.process_order[g.begin];
    double top = 0;
    pids.clear();
    for (auto i = g.begin; i < g.end; ++i) {
      const auto r = c.process_order[i];
      if (pid.is_valid(r)) pids.push_back(pid.get_int(r));
      if (sm.is_valid(r)) {
        f.all_sm += sm.get_float(r);
        top = std::max(top, sm.get_float(r));
      }
    }
    std::sort(pids.begin(), pids.end());
    const auto n = static_cast<double>(std::unique(pids.begin(), pids.end()) - pids.begin());
    f.top_sm += top;
    f.procs_sum += n;
    f.procs_max = std::max(f.procs_max, n);
    f.competing_sum += n > 1 ? n - 1 : 0;
  }
  return f;
}

std::optional<FeatureValue> need_pmon(const FeatureContext& c, int gpu, const PmonFigures& f) {
  if (!c.has(LogSource::kPmon)) return null_because(std::string(missing_reason(LogSource::kPmon)));
  if (f.groups == 0) return null_because(fmt::format("no pmon rows for {}", FeatureContext::scope_label(gpu)));
  return std::nullopt;
}

std::string pmon_evidence(const FeatureContext& c, const PmonFigures& f) {
  return fmt::format("{} pmon intervals; first {}", f.groups, c.process_where(f.first_row));
}

}  // namespace

FeatureValue gpu_processes_mean(const FeatureContext& c, int gpu) {
  const auto f = pmon_figures(c, gpu);
  if (auto n = need_pmon(c, gpu, f)) return *n;
  return value(f.procs_sum / static_cast<double>(f.groups), pmon_evidence(c, f));
}

FeatureValue gpu_processes_max(const FeatureContext& c, int gpu) {
  const auto f = pmon_figures(c, gpu);
  if (auto n = need_pmon(c, gpu, f)) return *n;
  return value(f.procs_max, pmon_evidence(c, f));
}

FeatureValue gpu_competing_processes_mean(const FeatureContext& c, int gpu) {
  const auto f = pmon_figures(c, gpu);
  if (auto n = need_pmon(c, gpu, f)) return *n;
  return value(f.competing_sum / static_cast<double>(f.groups), pmon_evidence(c, f));
}

FeatureValue gpu_top_process_sm_share(const FeatureContext& c, int gpu) {
  const auto f = pmon_figures(c, gpu);
  if (auto n = need_pmon(c, gpu, f)) return *n;
  if (f.all_sm <= 0) return null_because("no process used SM in the pmon rows");
  return value(f.top_sm / f.all_sm, pmon_evidence(c, f) + fmt::format("; top {:.6g} of {:.6g} SM %", f.top_sm, f.all_sm));
}

std::vector<GpuProcessShares> process_shares(const FeatureContext& c,
                                             const std::vector<std::optional<double>>& busy_s) {
  std::vector<GpuProcessShares> out;
  if (c.pmon_groups.empty()) return out;
  const Column& pid = pcol(c, process_col::pid);
  const Column& cmd = pcol(c, process_col::command);
  const ColumnReader sm(pcol(c, process_col::gpu_sm_pct));
  for (std::size_t k = 0; k < c.gpus.size(); ++k) {
    const int gpu = c.gpus[k];
    std::unordered_map<std::int64_t, std::size_t> at;
    std::vector<ProcessShare> all;
    double total = 0;
    for (const auto& g : c.pmon_groups) {
      if (g.gpu != gpu) continue;
      for (auto i = g.begin; i < g.end; ++i) {
        const auto r = c.process_order[i];
        if (!pid.is_valid(r) || !sm.is_valid(r) || sm.get_float(r) <= 0) continue;
        const auto [it, fresh] = at.try_emplace(pid.get_int(r), all.size());
        if (fresh) {
          ProcessShare p;
          p.pid = pid.get_int(r);
          if (cmd.is_valid(r)) p.command = std::string(cmd.get_string(r));
          all.push_back(std::move(p));
        }
        all[it->second].sm_share += sm.get_float(r);
        ++all[it->second].intervals;
        total += sm.get_float(r);
      }
    }
    if (all.size() < 2 || total <= 0) continue;  // one process has the GPU to itself: nothing to split
    for (auto& p : all) {
      p.sm_share /= total;
      if (k < busy_s.size() && busy_s[k]) p.busy_s = p.sm_share * *busy_s[k];
    }
    std::sort(all.begin(), all.end(), [](const ProcessShare& a, const ProcessShare& b) {
      return a.sm_share != b.sm_share ? a.sm_share > b.sm_share : a.pid < b.pid;
    });
    GpuProcessShares s;
    s.gpu = gpu;
    s.processes = all.size();
    for (std::size_t i = kMaxProcessShares; i < all.size(); ++i) s.others_share += all[i].sm_share;
    if (all.size() > kMaxProcessShares) all.resize(kMaxProcessShares);
    s.top = std::move(all);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace gpucost::features
