#pragma once
// The journal JSON line in the layout journalctl itself prints, read without a general JSON
// parser: `{"KEY":"value","KEY":"value",...}` (older systemd versions put spaces around `:` and
// after `,`: `{ "KEY" : "value", ... }`), no escapes, every value a string. That is most lines
// of a real journal (and of the benchmark's): a line in any other shape (an escaped quote in a
// message, a byte array, a null, a number, a tab) goes to the general simdjson reader, which
// also gives every verdict on a damaged line. The promise, checked
// by tests/unit/journal_plain_test.cpp and the fuzz target fuzz_journal_plain: whenever this
// reader accepts a line, the general reader accepts it too and reads the same fields.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <string_view>

#include "ingest/formats/journal_fields.hpp"

namespace gpucost::formats {

/// Fills `e` from a line in journalctl's plain layout and returns true; returns false (with `e`
/// unspecified) for any other line, which is then for the general reader to judge. The views
/// point into `line`.
bool read_plain_journal_line(std::string_view line, JournalEntry& e) noexcept;

}  // namespace gpucost::formats
