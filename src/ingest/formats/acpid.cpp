// acpid's own log (`acpid -l`, `/var/log/acpid` of acpid 1.x): `[ctime] received event "..."`,
// then what acpid did with the event (`notifying client`, `executing action`, the handler's
// output between `BEGIN HANDLER MESSAGES` and `END HANDLER MESSAGES`, `completed event`). Only
// the `received` line of an event is a message to recognize (`ac_adapter AC 00000080 00000000`,
// `button/lid LID close`): the `completed` and `executing action` lines name the same event
// again. acpid 2 logs to syslog instead (`acpid: received input layer event ...`), which the
// syslog and journal formats read.
#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"
#include "ingest/formats/stamps.hpp"

namespace gpucost::formats {
namespace {

constexpr std::string_view kIdent = "acpid";

// `[Thu Aug 31 02:38:11 2006] rest`: the stamp (ctime(3), local time) and what follows it.
bool take_apart(std::string_view s, ParsedStamp& stamp, std::string_view& rest) noexcept {
  if (s.size() < 20 || s[0] != '[') return false;
  const auto close = s.find(']');
  if (close == std::string_view::npos || close > 64 || !parse_ctime(s.substr(1, close - 1), stamp)) return false;
  rest = text::trim(s.substr(close + 1));
  return true;
}

// `received event "..."`, `received input layer event "..."`, `received netlink event "..."`.
bool is_received(std::string_view rest) noexcept {
  return rest.substr(0, 9) == "received " && text::contains(rest, "event \"");
}

// What acpid 1.x writes about itself and the events it handles, after the stamp.
bool is_acpid_phrase(std::string_view rest) noexcept {
  if (is_received(rest)) return true;
  for (std::string_view p : {"completed event \"", "completed input layer event \"", "completed netlink event \"",
                             "notifying client ", "executing action \"", "BEGIN HANDLER MESSAGES",
                             "END HANDLER MESSAGES", "action exited with status ", "client connected from ",
                             "client has disconnected", "starting up", "exiting", "DBG: ", "rule from ",
                             "lockfile present", "waiting for events"})
    if (rest.substr(0, p.size()) == p) return true;
  // `1 rule loaded`, `7 rules loaded`.
  return text::contains(rest, " rule loaded") || text::contains(rest, " rules loaded");
}

// Real lines of the format, with what the parser makes of them (tests/unit/format_samples_test.cpp).
constexpr FormatSample kSamples[] = {
    {"acpid", "tests/data/kernel/acpid-log-ac-battery-hotkey-2006.txt",
     R"smp([Thu Aug 31 02:38:11 2006] received event "ac_adapter AC0 00000080 00000001"
[Thu Aug 31 02:38:11 2006] notifying client 4714[108:108]
[Thu Aug 31 02:38:11 2006] executing action "/etc/acpi/power.sh"
[Thu Aug 31 02:38:11 2006] BEGIN HANDLER MESSAGES
[Thu Aug 31 02:38:11 2006] END HANDLER MESSAGES
[Thu Aug 31 02:38:11 2006] action exited with status 0
[Thu Aug 31 02:38:11 2006] completed event "ac_adapter AC0 00000080 00000001"
[Thu Aug 31 02:38:11 2006] received event "battery BAT0 00000080 00000001"
[Thu Aug 31 02:38:11 2006] notifying client 4714[108:108]
[Thu Aug 31 02:38:11 2006] executing action "/etc/acpi/power.sh"
[Thu Aug 31 02:38:11 2006] BEGIN HANDLER MESSAGES
[Thu Aug 31 02:38:11 2006] END HANDLER MESSAGES
[Thu Aug 31 02:38:11 2006] action exited with status 0
[Thu Aug 31 02:38:11 2006] completed event "battery BAT0 00000080 00000001"
[Thu Aug 31 02:38:11 2006] received event "hotkey ATKD 00000057 0000000e"
[Thu Aug 31 02:38:11 2006] notifying client 4714[108:108]
[Thu Aug 31 02:38:11 2006] completed event "hotkey ATKD 00000057 0000000e"
[Thu Aug 31 02:38:11 2006] received event "ac_adapter AC0 00000080 00000000"
[Thu Aug 31 02:38:11 2006] notifying client 4714[108:108]
[Thu Aug 31 02:38:11 2006] executing action "/etc/acpi/power.sh"
[Thu Aug 31 02:38:11 2006] BEGIN HANDLER MESSAGES
[Thu Aug 31 02:38:11 2006] END HANDLER MESSAGES
[Thu Aug 31 02:38:11 2006] action exited with status 0
[Thu Aug 31 02:38:11 2006] completed event "ac_adapter AC0 00000080 00000000"
)smp",
     2},
};

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::acpid; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }

  // dmesg -T prints the same `[ctime]` bracket (it scores 80): acpid's own phrases after it say
  // the file is acpid's.
  int score(std::string_view line) const noexcept override {
    ParsedStamp stamp;
    std::string_view rest;
    if (!take_apart(text::rtrim(line), stamp, rest)) return 0;
    return is_acpid_phrase(rest) ? 100 : 0;
  }

  void parse(LineSource& src, FileSink& sink) const override {
    Line line;
    ParsedStamp stamp;
    std::string_view rest;
    while (src.next(line)) {
      sink.line_read(line);
      const std::string_view t = text::rtrim(line.text);
      if (text::is_blank(t)) continue;
      if (!take_apart(t, stamp, rest)) {
        // An unstamped line is a handler's output (between BEGIN and END HANDLER MESSAGES, or
        // printed later by a handler left running in the background).
        sink.continuation();
        continue;
      }
      MessageRecord m;
      m.line = line.number;
      m.wall_kind = WallKind::kLocal;
      m.wall_raw_ns = civil_to_ns(stamp.civil);
      m.ident = kIdent;
      // Every stamped line moves the file's last stamp; only a `received` line is recognized (the
      // other lines name an event again, or none).
      m.text = is_received(rest) ? rest : std::string_view{};
      sink.message(m);
      sink.accept();
    }
  }
};

}  // namespace

const LogFormat& acpid_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
