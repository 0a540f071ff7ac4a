#pragma once
/// \file message_memo.hpp
/// The last few distinct events' messages of one file and what was made of each: the
/// recognizer's verdict, the normalized GPU address, and the parts of its repeat key that cost
/// the most. A message printed again and again (a flood: the same driver error every few
/// milliseconds) is classified and hashed once, then found by comparing bytes; any other line
/// costs a few length compares more than before.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "gpucost/ingest/recognizer.hpp"

namespace gpucost {

class MessageMemo {
 public:
  /// One message the recognizer took for an event, and what was made of it.
  struct Entry {
    std::string ident, text;
    /// The recognizer's verdict; its views point into this entry's `text` and `ident` (or into
    /// static storage), never into the line it was made from.
    Recognition recognition;
    std::string gpu;                  ///< the recognition's GPU address, normalized (normalize_pci_bus)
    bool key_parts_known = false;     ///< strings_hash and bucket_ns are set
    std::uint64_t strings_hash = 0;   ///< RepeatRuns::strings_hash of the event it makes
    TimeNs bucket_ns = 0;             ///< repeat_bucket_ns of the event it makes
    /// Not 0, and new each time the entry is filled: events made from the entry while it has
    /// this serial have the same strings (RepeatRuns::Key::origin).
    std::uint64_t serial = 0;
  };

  /// The entry of (ident, text) when the recognizer takes it for an event: remembered, or made
  /// now by classifying with `recognizer` (and then remembered in place of the one used least
  /// recently); nullptr for a message that is no event (which is not remembered). Valid until
  /// the next call.
  Entry* lookup(const EventRecognizer& recognizer, std::string_view ident, std::string_view text);

 private:
  static constexpr std::size_t kEntries = 4;
  std::array<Entry, kEntries> entries_;
  std::array<std::uint8_t, kEntries> order_{0, 1, 2, 3};  // most recently used first
  std::size_t filled_ = 0;
  std::uint64_t serials_ = 0;  // the last serial given
  void to_front(std::size_t i) noexcept;  // order_[i] becomes the most recently used
};

}  // namespace gpucost
