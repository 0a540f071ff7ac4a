// `ipmitool dcmi power reading`: the BMC's reading of the whole system's draw at the power
// supply's input (AC, the GPUs included), as ipmitool prints it (lib/ipmi_dcmi.c):
//
//       Instantaneous power reading:                   220 Watts
//       Minimum during sampling period:                 16 Watts
//       Maximum during sampling period:                528 Watts
//       Average power reading over sample period:      218 Watts
//       IPMI timestamp:                           Thu Feb 15 08:36:01 2024
//       Sampling period:                          00000001 Seconds.
//       Power reading state is:                   activated
//
// collect-logs.sh runs it every --ipmi-interval seconds, each output after a marker line with the
// host's time, `### gpucost-ipmi <RFC 3339>`. One block is one sample: the instantaneous reading
// (the average is over the BMC's statistics period, which can be days), stamped by its marker, else
// by the IPMI timestamp when it is a ctime(3) local time after 2000 (newer ipmitool prints
// `%x %X %Z`, which only a marker dates). A block whose state is `deactivated` measured nothing
// and gives no sample.
#include <fmt/format.h>

#include <optional>
#include <utility>

#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"
#include "ingest/formats/rfc3339_stamp.hpp"
#include "ingest/formats/stamps.hpp"

namespace gpucost::formats {
namespace {

constexpr std::string_view kMarker = "### gpucost-ipmi";

enum class Key : std::uint8_t { kNone, kInstant, kMinimum, kMaximum, kAverage, kTimestamp, kPeriod, kState };

constexpr std::pair<std::string_view, Key> kKeys[] = {
    {"Instantaneous power reading", Key::kInstant},
    {"Minimum during sampling period", Key::kMinimum},
    {"Maximum during sampling period", Key::kMaximum},
    {"Average power reading over sample period", Key::kAverage},
    {"IPMI timestamp", Key::kTimestamp},
    {"Sampling period", Key::kPeriod},
    {"Power reading state is", Key::kState},
};

// `Key:   value` (ipmitool), also `Key   : value`: the key and the value after the colon.
Key key_of(std::string_view line, std::string_view& value) noexcept {
  const std::string_view t = text::trim(line);
  const auto colon = t.find(':');
  if (colon == std::string_view::npos) return Key::kNone;
  const std::string_view k = text::rtrim(t.substr(0, colon));
  for (const auto& [name, key] : kKeys)
    if (k == name) {
      value = text::trim(t.substr(colon + 1));
      return key;
    }
  return Key::kNone;
}

// `220 Watts`.
std::optional<double> watts_of(std::string_view v) noexcept {
  const std::string_view n = text::next_token(v);
  const std::string_view unit = text::next_token(v);
  if (unit != "Watts" || !text::trim(v).empty()) return std::nullopt;
  const auto w = text::to_int<std::int64_t>(n);
  if (!w || *w < 0) return std::nullopt;
  return static_cast<double>(*w);
}

// Real output of the format, with what the parser makes of it (tests/unit/format_samples_test.cpp).
constexpr FormatSample kSamples[] = {
    {"ipmi-dcmi-power.txt", "tests/data/host_power/ipmitool-dcmi-power-reading-ceems.txt",
     R"smp(
    Instantaneous power reading:                    50 Watts
    Minimum during sampling period:                  6 Watts
    Maximum during sampling period:                304 Watts
    Average power reading over sample period:       49 Watts
    IPMI timestamp:                           Thu Feb 15 08:36:01 2024
    Sampling period:                          00000001 Seconds.
    Power reading state is:                   activated

)smp",
     1},
    {"power-reading.txt", "tests/data/host_power/ipmitool-dcmi-power-reading-openbmc-deactivated.txt",
     R"smp(    Instantaneous power reading:                   235 Watts
    Minimum during sampling period:                235 Watts
    Maximum during sampling period:                235 Watts
    Average power reading over sample period:      235 Watts
    IPMI timestamp:                                Thu Jan  1 00:00:00 1970
    Sampling period:                               00000000 Seconds.
    Power reading state is:                        deactivated
)smp",
     0},
};

class Parser {
 public:
  explicit Parser(FileSink& sink) : sink_(sink) {}

  void line(const Line& line) {
    const std::string_view t = text::trim(line.text);
    if (text::is_blank(t)) return;
    if (t.substr(0, kMarker.size()) == kMarker) {
      flush();
      marker(line, text::trim(t.substr(kMarker.size())));
      return;
    }
    std::string_view value;
    const Key key = key_of(t, value);
    if (key == Key::kNone) {
      sink_.problem(line, Problem::unparsable_line, "not a line of `ipmitool dcmi power reading`");
      return;
    }
    if (key == Key::kInstant) {
      if (block_.open) flush();  // a block without its state line ended
      block_.open = true;
      block_.line = line.number;
      block_.watts = watts_of(value);
      if (!block_.watts) {
        sink_.problem(line, Problem::bad_number, "the instantaneous reading is not `<N> Watts`");
        return;
      }
    } else if (key == Key::kTimestamp) {
      ParsedStamp st;
      if (parse_ctime(value, st)) {
        const TimeNs raw = civil_to_ns(st.civil);
        // 1970: the BMC keeps no time.
        if (raw >= kPlausibleWallFloorNs) block_.ipmi_raw = raw;
      }
    } else if (key == Key::kState) {
      block_.deactivated = value != "activated";
      sink_.accept();
      flush();
      return;
    }
    sink_.accept();
  }

  void finish() {
    flush();
    if (deactivated_)
      sink_.diagnostics().notes.push_back(
          fmt::format("{} reading(s) with `Power reading state is: deactivated` (the BMC measured nothing): left out",
                      deactivated_));
  }

 private:
  struct Block {
    bool open = false;
    std::uint64_t line = 0;
    std::optional<double> watts;
    TimeNs ipmi_raw = kNoTime;
    bool deactivated = false;
  };

  void marker(const Line& line, std::string_view stamp_text) {
    Rfc3339Stamp st;
    if (!parse_rfc3339(stamp_text, st)) {
      marker_kind_ = WallKind::kNone;
      marker_raw_ = kNoTime;
      sink_.problem(line, Problem::bad_timestamp, "the marker's time is not RFC 3339");
      return;
    }
    if (st.has_offset) {
      marker_kind_ = WallKind::kUtc;
      marker_raw_ = st.utc_ns();
      if (!st.zulu) sink_.observe_utc_offset(st.offset_ns);
    } else {
      marker_kind_ = WallKind::kLocal;
      marker_raw_ = st.local_ns;
    }
    sink_.accept();
  }

  void flush() {
    Block b = block_;
    block_ = Block{};
    const WallKind kind = marker_kind_;
    const TimeNs raw = marker_raw_;
    marker_kind_ = WallKind::kNone;
    marker_raw_ = kNoTime;
    if (!b.open || !b.watts) return;
    if (b.deactivated) {
      ++deactivated_;
      return;
    }
    HostPowerSample s;
    s.file = sink_.file_index();
    s.line = b.line;
    s.watts = *b.watts;
    s.source = HostPowerSource::kSystemWall;
    s.domain = "dcmi";
    if (kind != WallKind::kNone) {
      s.wall_kind = kind;
      s.wall_raw_ns = raw;
    } else if (b.ipmi_raw != kNoTime) {
      s.wall_kind = WallKind::kLocal;  // ipmitool prints the BMC's seconds in the host's zone
      s.wall_raw_ns = b.ipmi_raw;
    } else {
      Line at;
      at.number = b.line;
      sink_.problem(at, Problem::untimed_line,
                    "a reading with neither a `### gpucost-ipmi` marker nor a dated IPMI timestamp: left out");
      return;
    }
    sink_.output().host_power.push_back(std::move(s));
    sink_.record();
  }

  FileSink& sink_;
  Block block_;
  WallKind marker_kind_ = WallKind::kNone;
  TimeNs marker_raw_ = kNoTime;
  std::uint64_t deactivated_ = 0;
};

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::ipmi_dcmi_power; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }

  int score(std::string_view line) const noexcept override {
    const std::string_view t = text::trim(line);
    if (t.substr(0, kMarker.size()) == kMarker) return kSignatureScore;
    std::string_view value;
    return key_of(t, value) != Key::kNone ? 100 : 0;
  }

  void parse(LineSource& src, FileSink& sink) const override {
    Parser p(sink);
    feed_lines(src, sink, p);
  }
};

}  // namespace

const LogFormat& ipmi_dcmi_power_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
