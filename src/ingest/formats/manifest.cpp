// manifest.json, written by scripts/collect-logs.sh next to the logs it collects: the host, the
// zone, the boot, the collection window, the GPUs and the fate of each collection command.
// Schema: docs/manifest.md. Unknown keys are skipped (newer scripts may add some); a field of
// the wrong type is reported on its line and left out, the rest of the manifest still counts.
#include <fmt/format.h>
#include <simdjson.h>

#include <cmath>
#include <cstring>

#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"
#include "ingest/formats/json_support.hpp"
#include "ingest/formats/rfc3339_stamp.hpp"

namespace gpucost::formats {
namespace {

namespace od = simdjson::ondemand;

constexpr std::int64_t kManifestVersion = 1;
constexpr std::size_t kReadBlock = 1 << 20;
/// A manifest is a few KB (docs/manifest.md); one larger than this (a .gz of whitespace behind a
/// manifest's first key) is not read past it, and not used.
constexpr std::size_t kMaxManifestBytes = 4 << 20;

constexpr std::string_view kKeys[] = {
    "\"host\"",       "\"kernel\"", "\"driver_version\"", "\"timezone\"", "\"utc_offset\"", "\"boot_id\"",
    "\"boot_time\"",  "\"start\"",  "\"end\"",            "\"interval_s\"", "\"gpus\"",     "\"index\"",
    "\"pci_bus_id\"", "\"uuid\"",   "\"commands\"",       "\"cmd\"",      "\"status\"",     "\"reason\"",
    "\"name\""};

bool is_json_structure(std::string_view t) noexcept {
  if (t.empty()) return false;
  for (const char c : t)
    if (!std::strchr("{}[],: \t", c)) return false;
  return true;
}

// A problem found in one field, kept until the lines are accounted for.
struct FieldProblem {
  std::uint64_t line;
  Problem problem;
  std::string reason;
};

class ManifestReader {
 public:
  explicit ManifestReader(std::string_view doc) : doc_(doc) {}

  Manifest manifest;
  std::vector<GpuDevice> gpus;
  std::vector<FieldProblem> problems;
  std::optional<std::int64_t> version;
  std::optional<TimeNs> stamp_offset;  ///< the offset of a non-`Z` stamp: zone evidence without timezone
  std::string state;                   ///< `complete`, `interrupted`, `collecting` (never finished) ...
  std::vector<std::string> command_files;  ///< commands[].file, in step with manifest.commands

  simdjson::error_code read(od::document& d) {
    od::object top;
    if (auto err = d.get_object().get(top)) return err;
    for (auto field : top) {
      std::string_view key;
      if (auto err = field.unescaped_key().get(key)) return err;
      od::value v;
      if (auto err = field.value().get(v)) return err;
      simdjson::error_code err = simdjson::SUCCESS;
      if (key == "gpucost_manifest") {
        std::int64_t n = 0;
        if (const auto e = v.get_int64().get(n); e == simdjson::SUCCESS) version = n;
        else if (!fatal(e, err)) note(v, Problem::bad_json, "gpucost_manifest is not a whole number");
      } else if (key == "host") {
        err = text(v, key, manifest.host);
      } else if (key == "kernel") {
        err = text(v, key, manifest.kernel);
      } else if (key == "driver_version") {
        err = text(v, key, manifest.driver_version);
      } else if (key == "boot_id") {
        err = text(v, key, manifest.boot_id);
      } else if (key == "state") {
        err = text(v, key, state);
      } else if (key == "timezone") {
        err = timezone(v);
      } else if (key == "boot_time") {
        err = instant(v, key, manifest.boot_time_ns);
      } else if (key == "start") {
        err = instant(v, key, manifest.start_ns);
      } else if (key == "end") {
        err = instant(v, key, manifest.end_ns);
      } else if (key == "interval_s") {
        err = interval(v);
      } else if (key == "gpus") {
        err = each(v, key, [this](od::value g) { return gpu(g); });
      } else if (key == "commands") {
        err = each(v, key, [this](od::value c) { return command(c); });
      }
      if (err) return err;
    }
    return simdjson::SUCCESS;
  }

  std::uint64_t line_of(const char* p) const noexcept {
    std::uint64_t line = 1, offset = 0;
    json_line_at(doc_, static_cast<std::size_t>(p - doc_.data()), line, offset);
    return line;
  }

 private:
  // Errors that break the document (as opposed to a wrong type in one field) end the read.
  static bool fatal(simdjson::error_code e, simdjson::error_code& out) {
    if (e == simdjson::INCORRECT_TYPE || e == simdjson::NUMBER_OUT_OF_RANGE || e == simdjson::NUMBER_ERROR) return false;
    out = e;
    return true;
  }

  void note(od::value& v, Problem p, std::string reason) {
    problems.push_back({line_of(v.raw_json_token().data()), p, std::move(reason)});
  }

  bool is_null(od::value& v, simdjson::error_code& err) {
    od::json_type t;
    if ((err = v.type().get(t))) return false;
    return t == od::json_type::null;
  }

  simdjson::error_code text(od::value v, std::string_view key, std::string& out) {
    simdjson::error_code err;
    if (is_null(v, err) || err) return err;
    std::string_view s;
    if (const auto e = v.get_string().get(s); e != simdjson::SUCCESS) {
      if (fatal(e, err)) return err;
      note(v, Problem::bad_json, fmt::format("{} is not a string", key));
      return simdjson::SUCCESS;
    }
    out.assign(s);
    return simdjson::SUCCESS;
  }

  simdjson::error_code instant(od::value v, std::string_view key, std::optional<TimeNs>& out) {
    std::string s;
    if (auto err = text(v, key, s)) return err;
    if (s.empty()) return simdjson::SUCCESS;
    Rfc3339Stamp stamp;
    if (!parse_rfc3339(s, stamp) || !stamp.has_offset) {
      note(v, Problem::bad_timestamp, fmt::format("{} \"{}\" is not an RFC 3339 time with a UTC offset", key,
                                                  text::excerpt(s, 40)));
      return simdjson::SUCCESS;
    }
    out = stamp.utc_ns();
    if (!stamp.zulu && !stamp_offset) stamp_offset = stamp.offset_ns;
    return simdjson::SUCCESS;
  }

  simdjson::error_code timezone(od::value v) {
    simdjson::error_code err;
    if (is_null(v, err) || err) return err;
    od::object obj;
    if (const auto e = v.get_object().get(obj); e != simdjson::SUCCESS) {
      if (fatal(e, err)) return err;
      note(v, Problem::bad_json, "timezone is not an object");
      return simdjson::SUCCESS;
    }
    for (auto field : obj) {
      std::string_view key;
      if ((err = field.unescaped_key().get(key))) return err;
      od::value f;
      if ((err = field.value().get(f))) return err;
      if (key == "name") {
        if ((err = text(f, "timezone.name", manifest.timezone_name))) return err;
      } else if (key == "utc_offset") {
        std::string s;
        if ((err = text(f, "timezone.utc_offset", s))) return err;
        TimeNs off = 0;
        if (s.empty()) continue;
        if (parse_utc_offset(s, off)) manifest.utc_offset_ns = off;
        else note(f, Problem::bad_timestamp, fmt::format("timezone.utc_offset \"{}\" is not like +08:00", text::excerpt(s, 20)));
      }
    }
    return simdjson::SUCCESS;
  }

  simdjson::error_code interval(od::value v) {
    simdjson::error_code err;
    if (is_null(v, err) || err) return err;
    double s = 0;
    if (const auto e = v.get_double().get(s); e != simdjson::SUCCESS) {
      if (fatal(e, err)) return err;
      note(v, Problem::bad_number, "interval_s is not a number");
      return simdjson::SUCCESS;
    }
    if (!(s > 0) || !std::isfinite(s) || s > 86400) {
      note(v, Problem::bad_number, fmt::format("interval_s {} is not a sampling interval in seconds", s));
      return simdjson::SUCCESS;
    }
    manifest.interval_ns = static_cast<TimeNs>(std::llround(s * 1e9));
    return simdjson::SUCCESS;
  }

  template <typename F>
  simdjson::error_code each(od::value v, std::string_view key, F f) {
    simdjson::error_code err;
    if (is_null(v, err) || err) return err;
    od::array arr;
    if (const auto e = v.get_array().get(arr); e != simdjson::SUCCESS) {
      if (fatal(e, err)) return err;
      note(v, Problem::bad_json, fmt::format("{} is not a list", key));
      return simdjson::SUCCESS;
    }
    for (auto element : arr) {
      od::value item;
      if ((err = element.get(item))) return err;
      if ((err = f(item))) return err;
    }
    return simdjson::SUCCESS;
  }

  simdjson::error_code gpu(od::value v) {
    simdjson::error_code err;
    od::object obj;
    const std::uint64_t line = line_of(v.raw_json_token().data());
    if (const auto e = v.get_object().get(obj); e != simdjson::SUCCESS) {
      if (fatal(e, err)) return err;
      problems.push_back({line, Problem::bad_json, "a gpus entry is not an object"});
      return simdjson::SUCCESS;
    }
    GpuDevice g;
    g.line = line;
    std::string bus;
    for (auto field : obj) {
      std::string_view key;
      if ((err = field.unescaped_key().get(key))) return err;
      od::value f;
      if ((err = field.value().get(f))) return err;
      if (key == "index") {
        const bool null = is_null(f, err);
        if (err) return err;
        if (null) continue;
        std::int64_t i = 0;
        const auto e = f.get_int64().get(i);
        if (e != simdjson::SUCCESS && fatal(e, err)) return err;
        if (e == simdjson::SUCCESS && i >= 0 && i < 4096) g.index = static_cast<int>(i);
        else note(f, Problem::bad_number, "gpus[].index is not a GPU index");
      } else if (key == "name") {
        if ((err = text(f, "gpus[].name", g.name))) return err;
      } else if (key == "pci_bus_id") {
        if ((err = text(f, "gpus[].pci_bus_id", bus))) return err;
      } else if (key == "uuid") {
        if ((err = text(f, "gpus[].uuid", g.uuid))) return err;
      }
    }
    g.pci_bus = normalize_pci_bus(bus);
    manifest.gpu_names.push_back(g.name);
    manifest.gpu_bus_ids.push_back(g.pci_bus.empty() ? bus : g.pci_bus);
    gpus.push_back(std::move(g));
    return simdjson::SUCCESS;
  }

  simdjson::error_code command(od::value v) {
    simdjson::error_code err;
    od::object obj;
    if (const auto e = v.get_object().get(obj); e != simdjson::SUCCESS) {
      if (fatal(e, err)) return err;
      note(v, Problem::bad_json, "a commands entry is not an object");
      return simdjson::SUCCESS;
    }
    ManifestCommand c;
    std::string file;
    for (auto field : obj) {
      std::string_view key;
      if ((err = field.unescaped_key().get(key))) return err;
      od::value f;
      if ((err = field.value().get(f))) return err;
      if (key == "cmd") err = text(f, "commands[].cmd", c.cmd);
      else if (key == "status") err = text(f, "commands[].status", c.status);
      else if (key == "reason") err = text(f, "commands[].reason", c.reason);
      else if (key == "file") err = text(f, "commands[].file", file);
      if (err) return err;
    }
    manifest.commands.push_back(std::move(c));
    command_files.push_back(std::move(file));
    return simdjson::SUCCESS;
  }

 private:
  std::string_view doc_;
};

// Real lines of the format, with what the parser makes of them (tests/unit/format_samples_test.cpp).
constexpr FormatSample kSamples[] = {
    {"manifest.json", "tests/data/structured/manifest.json (docs/manifest.md's example)",
     R"smp({
  "gpucost_manifest": 1,
  "host": "gpu-box-01",
  "kernel": "6.1.0-18-amd64",
  "driver_version": "535.154.05",
  "timezone": {"name": "Asia/Shanghai", "utc_offset": "+08:00"},
  "boot_id": "c4b33c96f240457abc130dcb73da2b24",
  "boot_time": "2026-11-29T08:00:01+08:00",
  "start": "2026-11-29T19:50:45+08:00",
  "end": "2026-11-29T20:50:45.500+08:00",
  "interval_s": 1,
  "gpus": [
    {"index": 0, "name": "NVIDIA GeForce RTX 3090", "pci_bus_id": "00000000:01:00.0", "uuid": "GPU-6a1e3f9e-1c2b-4d5e-8f70-1a2b3c4d5e6f"},
    {"index": 1, "name": "NVIDIA GeForce RTX 3090", "pci_bus_id": "00000000:4C:00.0", "uuid": "GPU-0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0"}
  ],
  "commands": [
    {"cmd": "nvidia-smi dmon -s pucvmet -o DT -d 1", "status": "ok", "reason": ""},
    {"cmd": "journalctl -o export --since @1764417045", "status": "ok", "reason": ""},
    {"cmd": "dmesg --time-format iso", "status": "failed", "reason": "dmesg: read kernel buffer failed: Operation not permitted"},
    {"cmd": "nvidia-bug-report.sh", "status": "skipped", "reason": "not run by default (takes minutes)"}
  ]
}
)smp",
     1},
};

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::manifest; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }

  int score(std::string_view line) const noexcept override {
    const std::string_view t = text::trim(line);
    if (t.empty()) return 0;
    if (has_json_key(t, "\"gpucost_manifest\"")) return 100;
    for (const auto k : kKeys)
      if (has_json_key(t, k)) return 40;
    return is_json_structure(t) ? 20 : 0;
  }

  void parse(LineSource& src, FileSink& sink) const override {
    std::string doc;
    while (doc.size() <= kMaxManifestBytes && src.read_raw(kReadBlock, doc) > 0) {
    }
    if (doc.size() > kMaxManifestBytes) {
      sink.file_problem(Problem::bad_json, fmt::format("the manifest is larger than {} MiB (decompressed); not read "
                                                       "past that, not used",
                                                       kMaxManifestBytes >> 20));
      return;
    }
    const std::size_t len = doc.size();
    doc.append(simdjson::SIMDJSON_PADDING, ' ');
    const std::string_view text(doc.data(), len);

    ManifestReader reader(text);
    od::parser parser;
    od::document d;
    simdjson::error_code err = parser.iterate(simdjson::padded_string_view(doc.data(), len, doc.size())).get(d);
    std::size_t error_pos = len;
    if (!err) {
      err = reader.read(d);
      if (!err) {
        const char* rest = nullptr;
        if (d.current_location().get(rest) == simdjson::SUCCESS) err = simdjson::TRAILING_CONTENT;
      }
      const char* at = nullptr;
      if (err && d.current_location().get(at) == simdjson::SUCCESS)
        error_pos = std::min(len, static_cast<std::size_t>(at - doc.data()));
    }
    if (err) {
      // A broken manifest is not used at all: every line of it is lost.
      account(text, {{line_at(text, error_pos), Problem::bad_json,
                      fmt::format("{} (byte {}); the manifest is not used", json_error_text(err), error_pos)}},
              true, sink);
      return;
    }
    if (!reader.version) {
      account(text, {{1, Problem::missing_field, "no \"gpucost_manifest\" key: not a gpucost manifest"}}, true, sink);
      return;
    }
    if (*reader.version > kManifestVersion)
      sink.diagnostics().notes.push_back(fmt::format(
          "manifest version {} is newer than this gpucost reads ({}); the known fields were used", *reader.version,
          kManifestVersion));
    account(text, reader.problems, false, sink);

    Manifest& m = reader.manifest;
    m.file = sink.file_index();
    note_collection(reader, sink.diagnostics().notes);
    if (m.utc_offset_ns) sink.observe_utc_offset(*m.utc_offset_ns);
    else if (reader.stamp_offset) sink.observe_utc_offset(*reader.stamp_offset);
    for (auto& g : reader.gpus) {
      g.driver_version = m.driver_version;
      g.file = sink.file_index();
      sink.devices().push_back(std::move(g));
    }
    sink.manifest() = std::move(m);
    sink.record();
  }

 private:
  // What the collection could not read, and a collection that never finished, belong in the
  // report beside the logs they concern.
  static void note_collection(const ManifestReader& r, std::vector<std::string>& notes) {
    if (!r.state.empty() && r.state != "complete")
      notes.push_back(fmt::format("the collection {}: files may be missing or cut short (see the commands)",
                                  r.state == "collecting" ? "did not finish (the manifest still says \"collecting\")"
                                                          : "ended \"" + text::excerpt(r.state, 20) + "\""));
    const auto& commands = r.manifest.commands;
    for (std::size_t i = 0; i < commands.size(); ++i) {
      const ManifestCommand& c = commands[i];
      const std::string& file = r.command_files[i];
      if (c.status.empty() || c.status == "ok") continue;
      notes.push_back(fmt::format("collection: `{}` {}{}{}{}", text::excerpt(c.cmd, 80), text::excerpt(c.status, 20),
                                  file.empty() ? "" : " (" + text::excerpt(file, 80) + ")", c.reason.empty() ? "" : ": ",
                                  text::excerpt(c.reason, 240)));
    }
  }

  static std::uint64_t line_at(std::string_view text, std::size_t pos) {
    std::uint64_t line = 1, offset = 0;
    json_line_at(text, pos, line, offset);
    return line;
  }

  // One outcome per line: a line with field problems gets them (reasons joined), the others
  // are accepted; when `lost`, the manifest was not used and the other lines count as lost
  // under the first problem. A problem past the last non-blank line moves back onto it.
  static void account(std::string_view text, std::vector<FieldProblem> problems, bool lost, FileSink& sink) {
    std::uint64_t last_nonblank = 0;
    for_each_doc_line(text, [&](const Line& l) {
      if (!text::is_blank(l.text)) last_nonblank = l.number;
      return true;
    });
    for (auto& p : problems) {
      if (p.line > last_nonblank) p.line = last_nonblank;
    }
    std::uint64_t lost_lines = 0;  // counted after the loop, so that the sample goes in first
    for_each_doc_line(text, [&](const Line& l) {
      sink.line_read(l);
      if (text::is_blank(l.text)) return true;
      std::string reason;
      Problem kind = Problem::bad_json;
      for (const auto& p : problems)
        if (p.line == l.number) {
          if (reason.empty()) kind = p.problem;
          else reason += "; ";
          reason += p.reason;
        }
      if (!reason.empty()) sink.problem(l, kind, reason);
      else if (lost && !problems.empty()) ++lost_lines;
      else sink.accept();
      return true;
    });
    if (lost_lines > 0) sink.diagnostics().problems[static_cast<std::size_t>(problems[0].problem)] += lost_lines;
  }
};

}  // namespace

const LogFormat& manifest_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
