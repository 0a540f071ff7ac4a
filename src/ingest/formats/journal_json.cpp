// journalctl -o json (and -o json-seq): one journal entry per line, as a flat JSON object.
//
// Each line is parsed on its own with ondemand::parser::iterate(), not in blocks with
// iterate_many(): every line needs its own verdict, line number and excerpt, and iterate_many()
// indexes a whole batch at once, so one line with an unclosed string fails the batch and a line
// that lost its closing brace swallows the next line into one document; getting the good lines
// back would need this per-line path anyway. A journal line is 0.5-2 KiB, on which iterate()'s
// setup is small next to the parse itself (measured on 690-byte lines: ~790 MB/s per line,
// ~780 MB/s with iterate_many(); docs/formats/journal.md), and one parser and one padded
// buffer serve the whole file, so nothing is allocated per line.
#include <fmt/format.h>
#include <simdjson.h>

#include <spdlog/spdlog.h>

#include <deque>

#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"
#include "ingest/formats/journal_fields.hpp"
#include "ingest/formats/journal_json_reader.hpp"
#include "ingest/formats/journal_plain.hpp"
#include "ingest/formats/json_support.hpp"

namespace gpucost::formats {
namespace {

namespace od = simdjson::ondemand;

// Entries are flat: object > array of values (a field set twice) > array of bytes.
constexpr std::size_t kMaxDepth = 8;
constexpr char kRecordSeparator = '\x1e';  // json-seq (RFC 7464) prefix

bool is_stamp_field(std::optional<std::string_view> JournalEntry::*slot) {
  return slot == &JournalEntry::realtime || slot == &JournalEntry::monotonic ||
         slot == &JournalEntry::source_monotonic;
}

}  // namespace

// The general reader: simdjson's On Demand API over one padded line. The views stay valid
// until the next line.
class JournalJsonReader::General {
 public:
  General() {
    // 64 KiB covers a default-length line; the parser grows for longer ones.
    if (parser_.allocate(64 * 1024, kMaxDepth) != simdjson::SUCCESS) spdlog::debug("simdjson: cannot preallocate");
  }

  /// False with `why` set when the line is not a usable journal object.
  bool read(std::string_view text, JournalEntry& e, std::string& why) {
    e = JournalEntry{};
    used_ = 0;
    od::document doc;
    if (auto err = parser_.iterate(pad_json(text, padded_)).get(doc)) return fail(err, why);
    od::object obj;
    if (auto err = doc.get_object().get(obj)) {
      if (err != simdjson::INCORRECT_TYPE) return fail(err, why);
      why = "the line is JSON but not an object";
      return false;
    }
    for (auto field : obj) {
      std::string_view key;
      if (auto err = field.unescaped_key().get(key)) return fail(err, why);
      od::value v;
      if (auto err = field.value().get(v)) return fail(err, why);
      const auto slot = journal_field_slot(key);
      if (!slot) {
        if (!check_flat(v, key, why)) return false;
        continue;
      }
      if (!read_value(v, key, is_stamp_field(slot), e.*slot, e, slot, why)) return false;
    }
    // Past the closing brace nothing may follow: current_location() is out of bounds at the end.
    const char* rest = nullptr;
    if (doc.current_location().get(rest) == simdjson::SUCCESS) {
      why = std::string(json_error_text(simdjson::TRAILING_CONTENT));
      return false;
    }
    return true;
  }

 private:
  static bool fail(simdjson::error_code err, std::string& why) {
    why = std::string(json_error_text(err));
    return false;
  }

  // Journal fields are strings, nulls, byte arrays, or lists of those (a field set twice); the
  // fields gpucost does not read are only checked for that shape, which also bounds nesting
  // (simdjson's On-Demand API skips values without a depth limit).
  bool check_flat(od::value v, std::string_view key, std::string& why) {
    od::json_type t;
    if (auto err = v.type().get(t)) return fail(err, why);
    if (t == od::json_type::object) {
      why = fmt::format("field {} is an object; journal fields are strings or lists", key);
      return false;
    }
    if (t != od::json_type::array) return true;
    od::array outer;
    if (auto err = v.get_array().get(outer)) return fail(err, why);
    for (auto element : outer) {
      od::value item;
      if (auto err = element.get(item)) return fail(err, why);
      if (auto err = item.type().get(t)) return fail(err, why);
      if (t == od::json_type::object) {
        why = fmt::format("field {} holds an object; journal fields are strings or lists", key);
        return false;
      }
      if (t != od::json_type::array) continue;
      od::array inner;
      if (auto err = item.get_array().get(inner)) return fail(err, why);
      for (auto byte : inner) {
        if (auto err = byte.type().get(t)) return fail(err, why);
        if (t == od::json_type::array || t == od::json_type::object) {
          why = fmt::format("field {} is nested too deeply; journal fields are at most lists of byte arrays", key);
          return false;
        }
      }
    }
    return true;
  }

  std::string& scratch() {
    if (used_ == scratch_.size()) scratch_.emplace_back();  // deque: earlier views stay valid
    std::string& s = scratch_[used_++];
    s.clear();
    return s;
  }

  // A byte array: `[ 116, 104, 105, 115 ]` -> "this".
  bool read_bytes(od::array arr, std::string_view key, std::string_view& out, std::string& why) {
    std::string& bytes = scratch();
    for (auto element : arr) {
      std::int64_t b = 0;
      if (auto err = element.get_int64().get(b)) {
        why = fmt::format("field {}: a byte array holds {}", key,
                          err == simdjson::INCORRECT_TYPE ? "a value that is not a number" : json_error_text(err));
        return false;
      }
      if (b < 0 || b > 255) {
        why = fmt::format("field {}: a byte array holds {}, not a byte", key, b);
        return false;
      }
      bytes.push_back(static_cast<char>(b));
    }
    out = bytes;
    return true;
  }

  bool read_value(od::value v, std::string_view key, bool stamp, std::optional<std::string_view>& out,
                  JournalEntry& e, std::optional<std::string_view> JournalEntry::*slot, std::string& why) {
    od::json_type type;
    if (auto err = v.type().get(type)) return fail(err, why);
    switch (type) {
      case od::json_type::string: {
        std::string_view s;
        if (auto err = v.get_string().get(s)) return fail(err, why);
        out = s;
        return true;
      }
      case od::json_type::null:
        // journalctl prints null for a field larger than its size limit (without --all).
        if (slot == &JournalEntry::message) e.message_omitted = true;
        out.reset();
        return true;
      case od::json_type::number: {
        const std::string_view raw = text::rtrim(v.raw_json_token());
        const bool whole = !raw.empty() && raw.find_first_not_of("0123456789") == std::string_view::npos;
        if (stamp && !whole) {
          why = fmt::format("field {} is the number {}, not a whole count of microseconds", key,
                            text::excerpt(raw, 40));
          return false;
        }
        if (whole && raw.size() > 19) {
          why = fmt::format("field {}: {}", key, json_error_text(simdjson::NUMBER_OUT_OF_RANGE));
          return false;
        }
        out = raw;
        return true;
      }
      case od::json_type::array: {
        od::array arr;
        if (auto err = v.get_array().get(arr)) return fail(err, why);
        // Either the bytes of one value, or several values of a field set more than once
        // (strings, nulls or byte arrays): the first value stands for the field.
        bool first = true, bytes = false, have = false;
        std::string& joined = scratch();
        for (auto element : arr) {
          od::value item;
          if (auto err = element.get(item)) return fail(err, why);
          od::json_type t;
          if (auto err = item.type().get(t)) return fail(err, why);
          if (first) bytes = t == od::json_type::number;
          first = false;
          if (bytes) {
            std::int64_t b = 0;
            if (t != od::json_type::number) {
              why = fmt::format("field {}: a byte array holds {}", key, json_type_text(t));
              return false;
            }
            if (auto err = item.get_int64().get(b)) {
              why = fmt::format("field {}: a byte array holds {}", key, json_error_text(err));
              return false;
            }
            if (b < 0 || b > 255) {
              why = fmt::format("field {}: a byte array holds {}, not a byte", key, b);
              return false;
            }
            joined.push_back(static_cast<char>(b));
            continue;
          }
          if (have || t == od::json_type::null) continue;
          if (t == od::json_type::string) {
            std::string_view s;
            if (auto err = item.get_string().get(s)) return fail(err, why);
            out = s;
            have = true;
          } else if (t == od::json_type::array) {
            od::array inner;
            std::string_view s;
            if (auto err = item.get_array().get(inner)) return fail(err, why);
            if (!read_bytes(inner, key, s, why)) return false;
            out = s;
            have = true;
          } else {
            why = fmt::format("field {}: a list of values holds {}", key, json_type_text(t));
            return false;
          }
        }
        if (bytes) out = std::string_view(joined);
        else if (!have) out.reset();
        if (stamp && out && (out->empty() || out->find_first_not_of("0123456789") != std::string_view::npos)) {
          why = fmt::format("field {} is an array, not a count of microseconds", key);
          return false;
        }
        return true;
      }
      case od::json_type::object:
      case od::json_type::boolean:
        why = fmt::format("field {} is {}, expected a string", key, json_type_text(type));
        return false;
    }
    return true;
  }

  od::parser parser_;
  std::string padded_;
  std::deque<std::string> scratch_;
  std::size_t used_ = 0;
};

JournalJsonReader::JournalJsonReader() : general_(std::make_unique<General>()) {}
JournalJsonReader::~JournalJsonReader() = default;

bool JournalJsonReader::read(std::string_view text, JournalEntry& e, std::string& why) {
  return read_plain_journal_line(text, e) || general_->read(text, e, why);
}

bool JournalJsonReader::read_general(std::string_view text, JournalEntry& e, std::string& why) {
  return general_->read(text, e, why);
}

namespace {

// Real lines of the format, with what the parser makes of them (tests/unit/format_samples_test.cpp).
constexpr FormatSample kSamples[] = {
    {"journal.json", "tests/data/real/journal/json-kernel-transport-ext4-oneline.txt",
     R"smp({ "__CURSOR" : "s=2c2f7f3d64d844aa9bc1844a48026313;i=1f345;b=c4b33c96f240457abc130dcb73da2b24;m=192b58ccf5;t=5aec659160d52;x=eb931437dac873e3", "__REALTIME_TIMESTAMP" : "1599541804928338", "__MONOTONIC_TIMESTAMP" : "108101422325", "_BOOT_ID" : "c4b33c96f240457abc130dcb73da2b24", "_MACHINE_ID" : "6641fb6ac4e235aef340bea75f556792", "_HOSTNAME" : "vla2-6758.search.yandex.net", "_TRANSPORT" : "kernel", "SYSLOG_FACILITY" : "0", "SYSLOG_IDENTIFIER" : "kernel", "_SOURCE_MONOTONIC_TIMESTAMP" : "108101136410", "PRIORITY" : "2", "MESSAGE" : "EXT4-fs error (device sdc2): ext4_wait_block_bitmap:519: comm Trash:store1: Cannot read block bitmap - block_group = 2571, block_bitmap = 83886091" }
{ "__CURSOR" : "s=2c2f7f3d64d844aa9bc1844a48026313;i=1f346;b=c4b33c96f240457abc130dcb73da2b24;m=192b594fbf;t=5aec65916901c;x=3ed7ff8758066553", "__REALTIME_TIMESTAMP" : "1599541804961820", "__MONOTONIC_TIMESTAMP" : "108101455807", "_BOOT_ID" : "c4b33c96f240457abc130dcb73da2b24", "_MACHINE_ID" : "6641fb6ac4e235aef340bea75f556792", "_HOSTNAME" : "vla2-6758.search.yandex.net", "_TRANSPORT" : "kernel", "SYSLOG_FACILITY" : "0", "SYSLOG_IDENTIFIER" : "kernel", "PRIORITY" : "2", "_SOURCE_MONOTONIC_TIMESTAMP" : "108101169896", "MESSAGE" : "EXT4-fs error (device sdc2) in ext4_free_blocks:4969: IO failure" }
)smp",
     0},
};

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::journal_json; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }

  int score(std::string_view line) const noexcept override {
    std::string_view t = text::ltrim(line);
    if (!t.empty() && t.front() == kRecordSeparator) t = text::ltrim(t.substr(1));
    if (t.empty() || t.front() != '{') return 0;
    if (text::contains(t, "\"__REALTIME_TIMESTAMP\"") || text::contains(t, "\"__CURSOR\"") ||
        text::contains(t, "\"MESSAGE\""))
      return 100;
    return 0;
  }

  void parse(LineSource& src, FileSink& sink) const override {
    JournalBoots start;
    parse_chunk(src, sink, start);
  }

  // One entry per line, and nothing carried from line to line but the boots met: a chunk hands
  // over its boots (continue_journal_chunk).
  bool chunkable() const noexcept override { return true; }
  std::unique_ptr<ChunkState> start_state() const override { return std::make_unique<JournalBoots>(); }
  bool continue_chunk(ChunkState& before, ChunkState& chunk_state, FileSink&, FileSink& chunk_sink) const override {
    return continue_journal_chunk(static_cast<JournalBoots&>(before), static_cast<JournalBoots&>(chunk_state),
                                  chunk_sink);
  }

  void parse_chunk(LineSource& src, FileSink& sink, ChunkState& state) const override {
    auto& boots = static_cast<JournalBoots&>(state);
    JournalJsonReader reader;
    JournalEntrySink out(sink, std::move(boots));
    JournalEntry entry;
    std::string why;
    Line line;
    while (src.next(line)) {
      sink.line_read(line);
      // A cut line was already reported as truncated_line; its JSON cannot be whole.
      if (line.truncated || text::is_blank(line.text)) continue;
      std::string_view t = line.text;
      if (t.front() == kRecordSeparator) t.remove_prefix(1);
      if (!reader.read(t, entry, why)) {
        sink.problem(line, Problem::bad_json, why);
        continue;
      }
      out.emit(entry, line);
    }
    boots = std::move(out.boots());
  }
};

}  // namespace

const LogFormat& journal_json_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
