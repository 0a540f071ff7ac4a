// `nvidia-smi -q` as the collection script takes it at its start (driver 5xx layout, after a
// real capture of driver 550.90.12, see docs/simulate.md): product name, driver version, PCIe
// generation and link width (current and max), power limits, clocks, and the processes that
// already hold GPU memory (the desktop and a Jupyter kernel, on the laptop).
#include "sim/emit.hpp"
#include "sim/plan.hpp"
#include "sim/writers.hpp"

namespace gpucost::sim {

namespace {

constexpr int kKeyWidth = 42;

struct Q {
  std::string& b;
  void line(int indent, std::string_view key, std::string_view value) {
    b.append(static_cast<std::size_t>(indent), ' ');
    b += key;
    if (static_cast<int>(key.size()) + indent < kKeyWidth) b.append(static_cast<std::size_t>(kKeyWidth - indent) - key.size(), ' ');
    b += ": ";
    b += value;
    b += '\n';
  }
  void section(int indent, std::string_view key) {
    b.append(static_cast<std::size_t>(indent), ' ');
    b += key;
    b += '\n';
  }
};

std::string watts(double w) {
  std::string s;
  const auto c = static_cast<std::int64_t>(w * 100 + 0.5);
  append_int(s, c / 100);
  s += '.';
  append_zero_padded(s, c % 100, 2);
  return s + " W";
}

std::string num(std::int64_t v, const char* unit) {
  std::string s;
  append_int(s, v);
  return s + unit;
}

}  // namespace

void write_smi_q(const World& w, OutFile& out) {
  std::string& b = out.buf();
  Q q{b};
  const TimeNs t = w.collect_begin;
  const CivilTime c = ns_to_civil(t + w.offset_at(t));
  const std::int64_t days = days_from_civil(c.year, c.month, c.day);
  std::string stamp = kWeekdayAbbrev[weekday(days)];
  stamp += ' ';
  stamp += kMonthAbbrev[c.month - 1];
  stamp += ' ';
  append_int(stamp, c.day, 2);
  stamp += ' ';
  append_zero_padded(stamp, c.hour, 2);
  stamp += ':';
  append_zero_padded(stamp, c.minute, 2);
  stamp += ':';
  append_zero_padded(stamp, c.second, 2);
  stamp += ' ';
  append_int(stamp, c.year);

  b += "\n==============NVSMI LOG==============\n\n";
  q.line(0, "Timestamp", stamp);
  q.line(0, "Driver Version", w.driver_version);
  q.line(0, "CUDA Version", w.cuda_version);
  b += '\n';
  q.line(0, "Attached GPUs", std::to_string(w.gpus.size()));
  Rng rng(w.options.seed, 80);
  for (const auto& g : w.gpus) {
    const bool gf = g.brand == "GeForce";
    b += "GPU " + g.bus_id + "\n";
    q.line(4, "Product Name", g.name);
    q.line(4, "Product Brand", g.brand);
    q.line(4, "Product Architecture", g.architecture);
    q.line(4, "Display Mode", "Disabled");
    q.line(4, "Display Active", "Disabled");
    q.line(4, "Persistence Mode", "Enabled");
    q.line(4, "Addressing Mode", "None");
    q.section(4, "MIG Mode");
    q.line(8, "Current", gf ? "N/A" : "Disabled");
    q.line(8, "Pending", gf ? "N/A" : "Disabled");
    q.line(4, "Accounting Mode", "Disabled");
    q.line(4, "Accounting Mode Buffer Size", "4000");
    q.section(4, "Driver Model");
    q.line(8, "Current", "N/A");
    q.line(8, "Pending", "N/A");
    q.line(4, "Serial Number", g.serial);
    q.line(4, "GPU UUID", g.uuid);
    q.line(4, "Minor Number", std::to_string(g.minor));
    q.line(4, "VBIOS Version", g.vbios);
    q.line(4, "MultiGPU Board", "No");
    q.line(4, "Board ID", gf ? "0x100" : "0x" + g.pci.substr(5, 2) + "00");
    q.line(4, "Board Part Number", g.board_part);
    q.line(4, "GPU Part Number", gf ? "28E0-775-A1" : "20B2-895-A1");
    q.line(4, "FRU Part Number", "N/A");
    q.line(4, "Module ID", gf ? "1" : std::to_string(g.index + 1));
    q.section(4, "Inforom Version");
    q.line(8, "Image Version", gf ? "G002.0000.00.03" : "G506.0212.00.04");
    q.line(8, "OEM Object", gf ? "2.0" : "2.1");
    q.line(8, "ECC Object", gf ? "N/A" : "6.16");
    q.line(8, "Power Management Object", "N/A");
    q.section(4, "GPU Operation Mode");
    q.line(8, "Current", "N/A");
    q.line(8, "Pending", "N/A");
    q.line(4, "GSP Firmware Version", gf ? w.driver_version : "N/A");
    q.section(4, "GPU Virtualization Mode");
    q.line(8, "Virtualization Mode", "None");
    q.line(8, "Host VGPU Mode", "N/A");
    q.section(4, "GPU Reset Status");
    q.line(8, "Reset Required", "No");
    q.line(8, "Drain and Reset Recommended", "No");
    q.section(4, "IBMNPU");
    q.line(8, "Relaxed Ordering Mode", "N/A");
    q.section(4, "PCI");
    q.line(8, "Bus", "0x" + g.bus_id.substr(9, 2));
    q.line(8, "Device", "0x00");
    q.line(8, "Domain", "0x0000");
    q.line(8, "Base Classcode", "0x3");
    q.line(8, "Sub Classcode", gf ? "0x0" : "0x2");
    q.line(8, "Device Id", g.device_id);
    q.line(8, "Bus Id", g.bus_id);
    q.line(8, "Sub System Id", g.subsystem_id);
    q.section(8, "GPU Link Info");
    q.section(12, "PCIe Generation");
    // Idle at the start of the collection: a GeForce link trains down to Gen1 until the job
    // starts (truth.json repeats these values).
    q.line(16, "Max", std::to_string(g.pcie_gen_max));
    q.line(16, "Current", gf ? "1" : std::to_string(g.pcie_gen_max));
    q.line(16, "Device Current", gf ? "1" : std::to_string(g.pcie_gen_max));
    q.line(16, "Device Max", std::to_string(g.pcie_gen_max));
    q.line(16, "Host Max", std::to_string(g.pcie_gen_max));
    q.section(12, "Link Width");
    q.line(16, "Max", std::to_string(g.pcie_width_max) + "x");
    q.line(16, "Current", std::to_string(g.pcie_width_cur) + "x");
    q.section(8, "Bridge Chip");
    q.line(12, "Type", "N/A");
    q.line(12, "Firmware", "N/A");
    q.line(8, "Replays Since Reset", "0");
    q.line(8, "Replay Number Rollovers", "0");
    q.line(8, "Tx Throughput", num(rng.range(0, 900), " KB/s"));
    q.line(8, "Rx Throughput", num(rng.range(0, 900), " KB/s"));
    q.line(8, "Atomic Caps Inbound", "N/A");
    q.line(8, "Atomic Caps Outbound", "N/A");
    q.line(4, "Fan Speed", "N/A");
    q.line(4, "Performance State", gf ? "P8" : "P0");
    q.section(4, "Clocks Event Reasons");
    q.line(8, "Idle", "Active");
    q.line(8, "Applications Clocks Setting", "Not Active");
    q.line(8, "SW Power Cap", "Not Active");
    q.line(8, "HW Slowdown", "Not Active");
    q.line(12, "HW Thermal Slowdown", "Not Active");
    q.line(12, "HW Power Brake Slowdown", "Not Active");
    q.line(8, "Sync Boost", "Not Active");
    q.line(8, "SW Thermal Slowdown", "Not Active");
    q.line(8, "Display Clock Setting", "Not Active");
    q.line(4, "Sparse Operation Mode", "N/A");
    const int used = gf ? 318 : 4;
    q.section(4, "FB Memory Usage");
    q.line(8, "Total", num(g.mem_total_mib, " MiB"));
    q.line(8, "Reserved", num(g.mem_reserved_mib, " MiB"));
    q.line(8, "Used", num(used, " MiB"));
    q.line(8, "Free", num(g.mem_total_mib - g.mem_reserved_mib - used, " MiB"));
    q.section(4, "BAR1 Memory Usage");
    q.line(8, "Total", num(g.bar1_total_mib, " MiB"));
    q.line(8, "Used", num(gf ? 7 : 4, " MiB"));
    q.line(8, "Free", num(g.bar1_total_mib - (gf ? 7 : 4), " MiB"));
    q.section(4, "Conf Compute Protected Memory Usage");
    q.line(8, "Total", "0 MiB");
    q.line(8, "Used", "0 MiB");
    q.line(8, "Free", "0 MiB");
    q.line(4, "Compute Mode", "Default");
    q.section(4, "Utilization");
    q.line(8, "Gpu", "0 %");
    q.line(8, "Memory", "0 %");
    q.line(8, "Encoder", "0 %");
    q.line(8, "Decoder", "0 %");
    q.line(8, "JPEG", "0 %");
    q.line(8, "OFA", "0 %");
    q.section(4, "Encoder Stats");
    q.line(8, "Active Sessions", "0");
    q.line(8, "Average FPS", "0");
    q.line(8, "Average Latency", "0");
    q.section(4, "FBC Stats");
    q.line(8, "Active Sessions", "0");
    q.line(8, "Average FPS", "0");
    q.line(8, "Average Latency", "0");
    q.section(4, "ECC Mode");
    q.line(8, "Current", gf ? "N/A" : "Enabled");
    q.line(8, "Pending", gf ? "N/A" : "Enabled");
    q.section(4, "ECC Errors");
    q.section(8, "Volatile");
    for (const char* k : {"SRAM Correctable", "SRAM Uncorrectable", "DRAM Correctable", "DRAM Uncorrectable"})
      q.line(12, k, gf ? "N/A" : "0");
    q.section(8, "Aggregate");
    for (const char* k : {"SRAM Correctable", "SRAM Uncorrectable", "DRAM Correctable", "DRAM Uncorrectable"})
      q.line(12, k, gf ? "N/A" : "0");
    q.section(4, "Retired Pages");
    q.line(8, "Single Bit ECC", "N/A");
    q.line(8, "Double Bit ECC", "N/A");
    q.line(8, "Pending Page Blacklist", "N/A");
    q.section(4, "Remapped Rows");
    q.line(8, "Correctable Error", gf ? "N/A" : "0");
    q.line(8, "Uncorrectable Error", gf ? "N/A" : "0");
    q.line(8, "Pending", gf ? "N/A" : "No");
    q.line(8, "Remapping Failure Occurred", gf ? "N/A" : "No");
    q.section(4, "Temperature");
    q.line(8, "GPU Current Temp", num(gf ? rng.range(39, 44) : rng.range(31, 35), " C"));
    q.line(8, "GPU T.Limit Temp", gf ? "N/A" : num(rng.range(50, 55), " C"));
    q.line(8, "GPU Shutdown Temp", num(g.shutdown_temp, " C"));
    q.line(8, "GPU Slowdown Temp", num(g.slowdown_temp, " C"));
    q.line(8, "GPU Max Operating Temp", num(g.max_operating_temp, " C"));
    q.line(8, "GPU Target Temperature", gf ? "87 C" : "N/A");
    q.line(8, "Memory Current Temp", g.has_mtemp ? num(rng.range(36, 40), " C") : "N/A");
    q.line(8, "Memory Max Operating Temp", g.has_mtemp ? "95 C" : "N/A");
    q.section(4, "GPU Power Readings");
    q.line(8, "Power Draw", watts(g.idle_power_w + rng.uniform(-1, 1)));
    q.line(8, "Current Power Limit", watts(g.power_limit_w));
    q.line(8, "Requested Power Limit", watts(g.power_limit_w));
    q.line(8, "Default Power Limit", watts(g.power_default_w));
    q.line(8, "Min Power Limit", watts(g.power_min_w));
    q.line(8, "Max Power Limit", watts(g.power_max_w));
    q.section(4, "Clocks");
    q.line(8, "Graphics", num(gf ? 210 : 210, " MHz"));
    q.line(8, "SM", num(210, " MHz"));
    q.line(8, "Memory", num(g.idle_mclk, " MHz"));
    q.line(8, "Video", num(gf ? 555 : 585, " MHz"));
    q.section(4, "Applications Clocks");
    q.line(8, "Graphics", gf ? "N/A" : num(g.max_pclk, " MHz"));
    q.line(8, "Memory", gf ? "N/A" : num(g.max_mclk, " MHz"));
    q.section(4, "Default Applications Clocks");
    q.line(8, "Graphics", gf ? "N/A" : num(g.max_pclk, " MHz"));
    q.line(8, "Memory", gf ? "N/A" : num(g.max_mclk, " MHz"));
    q.section(4, "Deferred Clocks");
    q.line(8, "Memory", "N/A");
    q.section(4, "Max Clocks");
    q.line(8, "Graphics", num(g.max_pclk, " MHz"));
    q.line(8, "SM", num(g.max_sm_clk, " MHz"));
    q.line(8, "Memory", num(g.max_mclk, " MHz"));
    q.line(8, "Video", num(g.max_video_clk, " MHz"));
    q.section(4, "Max Customer Boost Clocks");
    q.line(8, "Graphics", gf ? "N/A" : num(g.max_pclk, " MHz"));
    q.section(4, "Clock Policy");
    q.line(8, "Auto Boost", "N/A");
    q.line(8, "Auto Boost Default", "N/A");
    q.section(4, "Voltage");
    q.line(8, "Graphics", gf ? "620.000 mV" : "725.000 mV");
    if (gf) {
      // The desktop and a Jupyter kernel already hold GPU memory: competition for the job.
      q.section(4, "Processes");
      struct P {
        std::int32_t pid;
        const char* type;
        const char* name;
        int mib;
      };
      const P procs[] = {{session_pid(w, kXorgSessionIndex), "G", "/usr/lib/xorg/Xorg", 4},
                         {w.daemon("gnome-shell")->pid, "G", "/usr/bin/gnome-shell", 2},
                         {session_pid(w, kJupyterKernelSessionIndex), "C", "/usr/bin/python3", 312}};
      for (const auto& p : procs) {
        q.line(8, "GPU instance ID", "N/A");
        q.line(8, "Compute instance ID", "N/A");
        q.line(8, "Process ID", std::to_string(p.pid));
        q.line(12, "Type", p.type);
        q.line(12, "Name", p.name);
        q.line(12, "Used GPU Memory", num(p.mib, " MiB"));
      }
    } else {
      q.line(4, "Processes", "None");
    }
  }
  b += '\n';
  out.maybe_flush();
}

}  // namespace gpucost::sim
