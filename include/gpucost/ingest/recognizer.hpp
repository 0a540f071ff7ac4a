#pragma once
/// \file recognizer.hpp
/// Turns a log message into an event kind: one table of patterns (literal needles, no regex)
/// that users can extend with --patterns FILE. A cheap first test rejects messages no pattern
/// can match before any pattern is tried, because most of a syslog is noise.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/records/events.hpp"

namespace gpucost {

/// What the recognizer found in one message.
struct Recognition {
  EventKind kind = EventKind::user;
  std::int64_t code = INT64_MIN;   ///< kind-specific number; INT64_MIN when none
  std::string_view gpu;            ///< PCI address as it appears in the text, empty when none
  std::int64_t pid = INT64_MIN;    ///< INT64_MIN when none
  std::string_view process;        ///< process name, empty when none
};

/// One pattern: every needle must occur in the message, and the ident must match when given.
struct EventPattern {
  EventKind kind = EventKind::user;
  std::string ident;                 ///< syslog ident/unit prefix to require; empty = any
  std::vector<std::string> needles;  ///< all must occur (case-sensitive)
  std::string label;                 ///< name shown for user patterns
};

/// Classifies messages. Thread-safe for concurrent classify() once built; classify() allocates
/// nothing. The built-in tables are chosen by ident: kernel messages (ident `kernel` or none),
/// a few daemons (systemd-logind, systemd-sleep, systemd, dockerd, containerd, podman,
/// nvidia-persistenced, nvidia-powerd, cron, upowerd), and any other ident.
class EventRecognizer {
 public:
  /// The built-in patterns.
  EventRecognizer();
  /// Adds user patterns from a file: one per line, `kind<TAB>ident<TAB>needle[<TAB>needle...]`,
  /// `#` comments; kind is a timeline kind or `user`. Returns an error message or empty.
  std::string load_file(const std::string& path);
  /// Adds one pattern (tried after the built-ins).
  void add(EventPattern p);

  /// The event a message denotes, or nullopt. `ident` is the syslog identifier (`kernel` for
  /// kernel lines, empty when the source has none), `text` the message after the prefix.
  std::optional<Recognition> classify(std::string_view ident, std::string_view text) const;

  /// The user patterns, for the report.
  const std::vector<EventPattern>& user_patterns() const noexcept { return user_; }

 private:
  std::vector<EventPattern> user_;
};

/// What the `code` column means for events of a kind; empty when the kind has no code.
std::string_view event_code_meaning(EventKind k) noexcept;

/// docs/events.md: every event kind, its code, and the built-in messages that produce it,
/// generated from the pattern tables.
std::string event_catalog_markdown();

}  // namespace gpucost
