#pragma once
// What the journal's fields mean, shared by `journalctl -o json` and `-o export`: both carry the
// same entries, only the serialization differs. A parser collects the fields of one entry into
// a JournalEntry (views valid for one call) and hands it to JournalEntrySink, which checks the
// stamps, counts boots, records the anchor and passes the message to the recognizer.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
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
  std::optional<std::string_view> uid;               ///< _UID
  std::optional<std::string_view> systemd_unit;      ///< _SYSTEMD_UNIT
  std::optional<std::string_view> syslog_pid;        ///< SYSLOG_PID
  std::optional<std::string_view> message;           ///< MESSAGE (decoded bytes)
  bool message_omitted = false;  ///< MESSAGE present but null: journalctl left out a large field
};

/// Which field of JournalEntry a journal field name fills, or nullptr.
std::optional<std::string_view> JournalEntry::*journal_field_slot(std::string_view name) noexcept;

/// The boots of a journal file met so far: what one chunk of the file hands to the next.
struct JournalBoots : ChunkState {
  std::vector<std::string> ids;  ///< boot ids in order of first appearance; index = boot_seq
  std::unordered_map<std::string, std::int32_t> seq_of;  ///< boot id -> its index in ids
  std::int32_t last_seq = 0;     ///< the boot of the last entry (entries without a boot id stay in it)
  /// An entry without a boot id came before any entry with one: it took the boot that the
  /// entries before this chunk ended in (0 from a fresh state).
  bool took_boot_before = false;
};

/// Turns entries into anchors and messages for one file; keeps the file's boot ordinals.
class JournalEntrySink {
 public:
  explicit JournalEntrySink(FileSink& sink) : sink_(sink) {}
  /// Continues from the boots met before (a chunk of the file).
  JournalEntrySink(FileSink& sink, JournalBoots boots) : sink_(sink), boots_(std::move(boots)) {}
  /// The boots met so far.
  JournalBoots& boots() noexcept { return boots_; }

  /// Emits one entry that starts at `at` (problems are reported against that line). Calls
  /// sink.accept() once when the entry is usable; otherwise reports one problem (missing or
  /// malformed __REALTIME_TIMESTAMP) and returns it, so callers can account for the entry's
  /// other lines.
  std::optional<Problem> emit(const JournalEntry& e, const Line& at);

 private:
  std::int32_t boot_seq(std::string_view boot_id);

  FileSink& sink_;
  JournalBoots boots_;
};

/// The chunk hand-over of the journal formats (format.hpp's LogFormat::continue_chunk): the
/// chunk's boot ordinals, numbered from 0 by its own parse, become the file's (a boot met before
/// keeps its ordinal, a new one takes the next). False when an entry without a boot id came
/// before the chunk named one while boots were already known (it must be parsed again).
bool continue_journal_chunk(JournalBoots& before, JournalBoots& chunk, FileSink& chunk_sink);

/// Parses a decimal count of microseconds into nanoseconds; nullopt when it is not one or
/// overflows (µs beyond year 2262).
std::optional<TimeNs> journal_usec_to_ns(std::string_view digits) noexcept;

}  // namespace gpucost::formats
