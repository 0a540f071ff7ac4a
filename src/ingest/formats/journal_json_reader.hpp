#pragma once
// Reads one line of `journalctl -o json` into a JournalEntry: the plain layout journalctl prints
// by a quote walk of its own (journal_plain.hpp), anything else by simdjson, which also judges
// every damaged line. One reader serves a whole file: nothing is allocated per line.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <memory>
#include <string>
#include <string_view>

#include "ingest/formats/journal_fields.hpp"

namespace gpucost::formats {

class JournalJsonReader {
 public:
  JournalJsonReader();
  ~JournalJsonReader();
  JournalJsonReader(const JournalJsonReader&) = delete;
  JournalJsonReader& operator=(const JournalJsonReader&) = delete;

  /// False with `why` set when the line is not a usable journal object. The views stay valid
  /// until the next call.
  bool read(std::string_view text, JournalEntry& e, std::string& why);

  /// The same with simdjson alone, never the plain-layout walk (tests compare the two).
  bool read_general(std::string_view text, JournalEntry& e, std::string& why);

 private:
  class General;
  std::unique_ptr<General> general_;
};

}  // namespace gpucost::formats
