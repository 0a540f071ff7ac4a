#pragma once
// Internal: the background chatter of a machine (cron, network, desktop and daemon messages,
// firewall and audit lines), generated window by window so that a corpus of any size never
// sits in memory.

#ifndef GPUCOST_LAYER_SIM
#error "gpucost_sim header: include it only in gpucost_sim or a layer above it (docs/architecture.md, Layers)"
#endif

#include <vector>

#include "gpucost/sim/rng.hpp"
#include "gpucost/sim/world.hpp"

namespace gpucost::sim {

class Noise {
 public:
  explicit Noise(const World& w);
  /// Appends the noise messages with ts in [from, to) (windows must come in order).
  void generate(TimeNs from, TimeNs to, std::vector<LogRecord>& out);

 private:
  enum class Kind : std::uint8_t;
  struct Source {
    Kind kind;
    TimeNs next;
    double mean_s;    ///< mean gap between messages
    bool periodic;    ///< exactly every mean_s (else a random gap around the mean)
  };
  void emit(Kind k, TimeNs t, std::vector<LogRecord>& out);

  const World& w_;
  Rng rng_;
  std::vector<Source> sources_;
  std::vector<LogRecord> pending_;  ///< messages already decided for later windows
  int session_ = 3;
};

}  // namespace gpucost::sim
