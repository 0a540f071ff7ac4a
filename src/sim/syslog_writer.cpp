// rsyslog's classic /var/log/syslog for user-space programs: `Nov 20 09:17:01 host CRON[3412]: ...`
// (local time, no year, day padded with a space, the second the message was logged).
#include "sim/emit.hpp"
#include "sim/writers.hpp"

namespace gpucost::sim {

void SyslogWriter::add(const LogRecord& r) {
  std::string& b = out_.buf();
  const TimeNs local = r.ts + w_.offset_at(r.ts);
  append_syslog_stamp(b, local - ((local % kNsPerSec) + kNsPerSec) % kNsPerSec);
  b += ' ';
  b += w_.hostname;
  b += ' ';
  b += r.daemon->ident;
  b += '[';
  append_int(b, r.pid ? r.pid : r.daemon->pid);
  b += "]: ";
  b += r.message;
  b += '\n';
  out_.maybe_flush();
}

}  // namespace gpucost::sim
