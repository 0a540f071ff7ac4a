#pragma once
// Internal: the output files and one writer per log format. Writers append to a large buffer
// that goes to disk in big blocks; a file opened without a path only counts its bytes (the
// --size calibration runs the generator that way).

#ifndef GPUCOST_LAYER_SIM
#error "gpucost_sim header: include it only in gpucost_sim or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdio>
#include <memory>
#include <string>

#include "gpucost/sim/rng.hpp"
#include "gpucost/sim/truth.hpp"
#include "gpucost/sim/world.hpp"

namespace gpucost::sim {

/// A file written in large blocks, optionally gzip-compressed.
class OutFile {
 public:
  /// path empty: count bytes only.
  explicit OutFile(std::string path, bool gzip = false);
  ~OutFile();
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;

  /// Append here, then call maybe_flush().
  std::string& buf() noexcept { return buf_; }
  void maybe_flush() {
    if (buf_.size() >= kFlushAt) flush();
  }
  /// Flushes and closes; throws std::runtime_error when the disk refuses.
  void close();
  /// Bytes the file holds (compressed bytes for gzip), after close().
  std::uint64_t bytes() const noexcept { return bytes_; }
  const std::string& path() const noexcept { return path_; }

 private:
  static constexpr std::size_t kFlushAt = 4u << 20;
  void flush();
  void write_raw(const char* p, std::size_t n);
  std::string path_;
  std::string buf_;
  std::FILE* f_ = nullptr;
  struct Gz;
  std::unique_ptr<Gz> gz_;
  std::uint64_t bytes_ = 0;
  bool closed_ = false;
};

/// `dmesg` (raw): `[ 1234.567890] message`.
class DmesgWriter {
 public:
  explicit DmesgWriter(OutFile& out) : out_(out) {}
  void add(const LogRecord& r);

 private:
  OutFile& out_;
};

/// rsyslog's classic kern.log: `Nov 20 09:00:07 host kernel: [    3.537941] message`, stamped
/// when rsyslog read the message (not before it started, not while user space was frozen).
class KernLogWriter {
 public:
  KernLogWriter(const World& w, OutFile& out, int boot) : w_(w), out_(out), boot_(boot) {}
  void add(const LogRecord& r);

 private:
  const World& w_;
  OutFile& out_;
  int boot_;
  TimeNs last_read_ = 0;
};

/// rsyslog's classic syslog file, user-space messages: `Nov 20 09:17:01 host CRON[3412]: ...`.
class SyslogWriter {
 public:
  SyslogWriter(const World& w, OutFile& out) : w_(w), out_(out) {}
  void add(const LogRecord& r);

 private:
  const World& w_;
  OutFile& out_;
};

/// `journalctl -b -o json`: one object per line.
class JournalJsonWriter {
 public:
  JournalJsonWriter(const World& w, OutFile& out);
  void add(const LogRecord& r);

 private:
  struct Field {
    std::uint64_t order;
    std::string_view name;
    std::string value;
    bool escape;
  };
  void put(std::string_view name, std::string value, bool escape = false);
  const World& w_;
  OutFile& out_;
  std::string seqnum_id_;
  std::uint64_t seqnum_ = 0;
  std::uint64_t hash_key_ = 0;
  TimeNs last_kernel_read_ = 0;
  Rng rng_;
  std::vector<Field> fields_;
};

/// `nvidia-smi dmon -s pucvmet -o DT` of the whole collection; adds every row to the truth.
void write_dmon(const World& w, OutFile& out, Truth& truth);
/// `ps aux` every 60 s, each snapshot after a `### gpucost-ps <RFC 3339>` marker.
void write_ps(const World& w, OutFile& out);
/// `nvidia-smi -q` taken when the collection starts.
void write_smi_q(const World& w, OutFile& out);

}  // namespace gpucost::sim
