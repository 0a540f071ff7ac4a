// Raw `dmesg`: the kernel ring buffer of the simulated boot, stamped with the monotonic clock
// (which does not advance while the machine sleeps).
#include "sim/emit.hpp"
#include "sim/writers.hpp"

namespace gpucost::sim {

void DmesgWriter::add(const LogRecord& r) {
  std::string& b = out_.buf();
  append_dmesg_stamp(b, r.mono);
  b += ' ';
  b += r.message;
  b += '\n';
  out_.maybe_flush();
}

}  // namespace gpucost::sim
