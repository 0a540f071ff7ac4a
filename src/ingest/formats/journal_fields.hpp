#pragma once
// What the journal's fields mean, shared by `journalctl -o json` and `-o export`: both carry the
// same entries, only the serialization differs. A parser collects the fields of one entry into
// a JournalEntry (views valid for one call) and hands it to JournalEntrySink, which checks the
// stamps, counts boots, records the anchor and passes the message to the recognizer.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/ingest/format.hpp"

namespace gpucost::formats {

/// The fields of one journal entry that gpucost reads. Absent fields are nullopt; the stamps are
/// the decimal microsecond counts as serialized.
struct JournalEntry {
  std::optional<std::string_view> realtime;          ///< __REALTIME_TIMESTAMP (µs since the epoch)
  std::optional<std::string_view> monotonic;         ///< __MONOTONIC_TIMESTAMP (µs since boot)
  std::optional<std::string_view> source_monotonic;  ///< _SOURCE_MONOTONIC_TIMESTAMP (printk, µs)
  std::optional<std::string_view> boot_id;           ///< _BOOT_ID
  std::optional<std::string_view> transport;         ///< _TRANSPORT
  std::optional<std::string_view> syslog_identifier; ///< SYSLOG_IDENTIFIER
  std::optional<std::string_view> comm;              ///< _COMM
  std::optional<std::string_view> pid;               ///< _PID
  std::optional<std::string_view> syslog_pid;        ///< SYSLOG_PID
  std::optional<std::string_view> message;           ///< MESSAGE (decoded bytes)
  bool message_omitted = false;  ///< MESSAGE present but null: journalctl left out a large field
};

/// Which field of JournalEntry a journal field name fills, or nullptr.
std::optional<std::string_view> JournalEntry::*journal_field_slot(std::string_view name) noexcept;

/// Turns entries into anchors and messages for one file; keeps the file's boot ordinals.
class JournalEntrySink {
 public:
  explicit JournalEntrySink(FileSink& sink) : sink_(sink) {}

  /// Emits one entry that starts at `at` (problems are reported against that line). Calls
  /// sink.accept() once when the entry is usable; otherwise reports one problem (missing or
  /// malformed __REALTIME_TIMESTAMP) and returns it, so callers can account for the entry's
  /// other lines.
  std::optional<Problem> emit(const JournalEntry& e, const Line& at);

 private:
  std::int32_t boot_seq(std::string_view boot_id);

  FileSink& sink_;
  std::vector<std::string> boots_;  // boot ids in order of first appearance; index = boot_seq
  std::int32_t last_seq_ = 0;
};

/// Parses a decimal count of microseconds into nanoseconds; nullopt when it is not one or
/// overflows (µs beyond year 2262).
std::optional<TimeNs> journal_usec_to_ns(std::string_view digits) noexcept;

}  // namespace gpucost::formats
