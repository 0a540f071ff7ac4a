// Fuzz target: one journal JSON line read by the plain-layout walk and by simdjson. Whenever the
// walk takes the line, simdjson must take it too and read the same fields (journal_plain.hpp).
#include <string>

#include "fuzz_common.hpp"
#include "ingest/formats/journal_json_reader.hpp"
#include "ingest/formats/journal_plain.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpucost::formats;
  static JournalJsonReader general;
  const std::string_view line = gpucost::fuzz::as_text(data, size);
  JournalEntry plain, full;
  if (!read_plain_journal_line(line, plain)) return 0;
  std::string why;
  FUZZ_CHECK(general.read_general(line, full, why));
  for (auto field : {&JournalEntry::realtime, &JournalEntry::monotonic, &JournalEntry::source_monotonic,
                     &JournalEntry::boot_id, &JournalEntry::transport, &JournalEntry::syslog_identifier,
                     &JournalEntry::comm, &JournalEntry::pid, &JournalEntry::syslog_pid, &JournalEntry::message})
    FUZZ_CHECK(plain.*field == full.*field);
  FUZZ_CHECK(plain.message_omitted == full.message_omitted);
  return 0;
}
