// `journalctl -b -o json`: one JSON object per entry, every value a string (journald's export
// convention), compact, fields in the order of journalctl's hash table (fixed for a set of
// field names, varying between kinds of entries: parsers must not rely on it).
// Kernel entries carry the printk time in _SOURCE_MONOTONIC_TIMESTAMP; their
// __REALTIME_TIMESTAMP is when journald read them (after its start, after a thaw), as on a real
// machine. __MONOTONIC_TIMESTAMP stops during suspends like the kernel's clock.
#include <algorithm>

#include "gpucost/text/json.hpp"
#include "sim/emit.hpp"
#include "sim/writers.hpp"

namespace gpucost::sim {

namespace {

std::string hex(std::uint64_t v) {
  static constexpr char kHex[] = "0123456789abcdef";
  char buf[16];
  int n = 0;
  do {
    buf[15 - n++] = kHex[v & 15];
    v >>= 4;
  } while (v);
  return std::string(buf + 16 - n, static_cast<std::size_t>(n));
}

std::string dec(std::int64_t v) {
  std::string s;
  append_int(s, v);
  return s;
}

std::uint64_t name_hash(std::string_view name, std::uint64_t key) {
  std::uint64_t h = 1469598103934665603ULL ^ key;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h ^ (h >> 29);
}

std::string_view transport_name(Transport t) {
  switch (t) {
    case Transport::kKernel: return "kernel";
    case Transport::kSyslog: return "syslog";
    case Transport::kJournal: return "journal";
    case Transport::kStdoutStream: return "stdout";
  }
  return "journal";
}

}  // namespace

JournalJsonWriter::JournalJsonWriter(const World& w, OutFile& out)
    : w_(w), out_(out), rng_(w.options.seed, 60) {
  seqnum_id_ = random_hex(rng_, 32);
  seqnum_ = static_cast<std::uint64_t>(rng_.range(0x10000, 0x4ffff));
  hash_key_ = rng_.next();
}

void JournalJsonWriter::put(std::string_view name, std::string value, bool escape) {
  fields_.push_back({name_hash(name, hash_key_), name, std::move(value), escape});
}

void JournalJsonWriter::add(const LogRecord& r) {
  fields_.clear();
  const Boot& boot = w_.boots.front();
  const bool kernel = r.daemon == nullptr;
  TimeNs realtime = r.ts;
  if (kernel) {
    last_kernel_read_ = std::max(last_kernel_read_, w_.read_by(r.ts, 0, boot.journald_start));
    realtime = last_kernel_read_ + rng_.range(8, 300) * kNsPerUs;
    last_kernel_read_ = realtime;
  }
  const TimeNs realtime_us = realtime / kNsPerUs;
  const TimeNs mono_us = w_.mono_at(realtime) / kNsPerUs;
  ++seqnum_;
  put("__CURSOR", "s=" + seqnum_id_ + ";i=" + hex(seqnum_) + ";b=" + boot.id + ";m=" + hex(static_cast<std::uint64_t>(mono_us)) +
                      ";t=" + hex(static_cast<std::uint64_t>(realtime_us)) + ";x=" + random_hex(rng_, 16));
  put("__REALTIME_TIMESTAMP", dec(realtime_us));
  put("__MONOTONIC_TIMESTAMP", dec(mono_us));
  put("_BOOT_ID", boot.id);
  put("_MACHINE_ID", w_.machine_id);
  put("_HOSTNAME", w_.hostname);
  put("PRIORITY", dec(r.priority));
  put("MESSAGE", r.message, true);
  if (kernel) {
    put("_TRANSPORT", "kernel");
    put("SYSLOG_FACILITY", "0");
    put("SYSLOG_IDENTIFIER", "kernel");
    put("_SOURCE_MONOTONIC_TIMESTAMP", dec(r.mono / kNsPerUs));
  } else {
    const Daemon& d = *r.daemon;
    const std::int32_t pid = r.pid ? r.pid : d.pid;
    put("_TRANSPORT", std::string(transport_name(d.transport)));
    put("SYSLOG_FACILITY", dec(d.facility));
    put("SYSLOG_IDENTIFIER", d.ident, true);
    put("_PID", dec(pid));
    put("_UID", dec(d.uid));
    put("_GID", dec(d.uid));
    put("_COMM", d.comm, true);
    put("_EXE", d.exe, true);
    put("_CMDLINE", d.cmdline, true);
    put("_CAP_EFFECTIVE", d.uid == 0 ? "1ffffffffff" : "0");
    const bool user_unit = d.unit.rfind("user@", 0) == 0;
    put("_SYSTEMD_UNIT", d.unit, true);
    put("_SYSTEMD_SLICE", d.unit == "init.scope" ? "-.slice" : user_unit ? "user-1000.slice" : "system.slice");
    put("_SYSTEMD_CGROUP", d.unit == "init.scope" ? "/init.scope"
                           : user_unit ? "/user.slice/user-1000.slice/user@1000.service/app.slice/org.gnome.Shell@x11.service"
                                       : "/system.slice/" + d.unit, true);
    if (!d.invocation.empty() && d.unit != "init.scope") put("_SYSTEMD_INVOCATION_ID", d.invocation);
    if (user_unit) {
      put("_SYSTEMD_USER_UNIT", "org.gnome.Shell@x11.service");
      put("_SYSTEMD_OWNER_UID", "1000");
    }
    switch (d.transport) {
      case Transport::kJournal:
        put("_SOURCE_REALTIME_TIMESTAMP", dec(realtime_us - rng_.range(20, 400)));
        break;
      case Transport::kSyslog: {
        std::string stamp;
        const TimeNs local = r.ts + w_.offset_at(r.ts);
        append_syslog_stamp(stamp, local - ((local % kNsPerSec) + kNsPerSec) % kNsPerSec);
        stamp += ' ';
        put("SYSLOG_TIMESTAMP", std::move(stamp));
        put("SYSLOG_PID", dec(pid));
        break;
      }
      case Transport::kStdoutStream:
        put("_STREAM_ID", std::string(d.invocation.rbegin(), d.invocation.rend()));
        break;
      case Transport::kKernel: break;
    }
  }
  std::sort(fields_.begin(), fields_.end(), [](const Field& a, const Field& b) { return a.order < b.order; });
  std::string& b = out_.buf();
  b += '{';
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    if (i) b += ',';
    b += '"';
    b += fields_[i].name;
    b += "\":";
    if (fields_[i].escape) {
      append_json_string(b, fields_[i].value);
    } else {
      b += '"';
      b += fields_[i].value;
      b += '"';
    }
  }
  b += "}\n";
  out_.maybe_flush();
}

}  // namespace gpucost::sim
