// rsyslog's classic kern.log (RSYSLOG_TraditionalFileFormat, as Ubuntu 22.04 writes it): local
// time without year, day padded with a space, and the kernel's own `[ mono]` stamp in the message.
// The syslog stamp is when rsyslog read the message from the kernel: messages printed before
// rsyslog started share its start time, and those printed while user space was frozen for a
// suspend carry the time of the thaw. The `[ mono]` stamp is always the printk time.
#include <algorithm>

#include "sim/emit.hpp"
#include "sim/writers.hpp"

namespace gpucost::sim {

void KernLogWriter::add(const LogRecord& r) {
  const Boot& boot = w_.boots[static_cast<std::size_t>(boot_)];
  // rsyslog reads /proc/kmsg in order: read times never go back.
  last_read_ = std::max(last_read_, w_.read_by(r.ts, boot_, boot.rsyslog_start));
  std::string& b = out_.buf();
  const TimeNs local = last_read_ + w_.offset_at(last_read_);
  append_syslog_stamp(b, local - ((local % kNsPerSec) + kNsPerSec) % kNsPerSec);
  b += ' ';
  b += w_.hostname;
  b += " kernel: ";
  append_dmesg_stamp(b, r.mono);
  b += ' ';
  b += r.message;
  b += '\n';
  out_.maybe_flush();
}

}  // namespace gpucost::sim
