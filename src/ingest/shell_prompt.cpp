#include "gpucost/ingest/shell_prompt.hpp"

#include <fmt/format.h>

#include <vector>

#include "gpucost/text.hpp"

namespace gpucost {

namespace {

// The same bytes as may_be_shell_prompt's quick test (one table for both).
constexpr bool is_name_char(char c) noexcept { return detail::kPromptNameBytes[static_cast<unsigned char>(c)]; }

// Commands whose output people paste into bug reports: a bare `$ cmd` / `# cmd` is a prompt
// only with one of these (after `sudo`), so that `# gpu pwr ...` and `# comment` are not.
constexpr std::string_view kLogCommands[] = {
    "sudo",    "dmesg", "journalctl", "nvidia-smi", "ps",    "cat",    "zcat",  "zgrep",   "grep",   "egrep",
    "tail",    "head",  "less",       "more",       "uptime", "uname", "lspci", "lsmod",   "modinfo", "systemctl",
    "docker",  "top",   "free",       "watch",      "awk",    "sed",   "date",  "sensors", "nvidia-bug-report.sh",
    "nvtop",   "cut",   "sort",       "uniq",       "doas",   "su",    "time",  "env",     "xzcat",   "bzcat",
    "dcgmi"};

std::string_view basename(std::string_view path) noexcept {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_log_command(std::string_view word) noexcept {
  word = basename(word);
  for (std::string_view c : kLogCommands)
    if (c == word) return true;
  return false;
}

// The first word of a command line.
std::string_view first_word(std::string_view cmd) noexcept {
  std::string_view s = cmd;
  return text::next_token(s);
}

// `user@host` starting at i; advances i past it. User and host are name characters.
bool user_at_host(std::string_view s, std::size_t& i) noexcept {
  const std::size_t user = i;
  while (i < s.size() && i - user < 64 && is_name_char(s[i])) ++i;
  if (i == user || i >= s.size() || s[i] != '@') return false;
  const std::size_t host = ++i;
  while (i < s.size() && i - host < 128 && is_name_char(s[i])) ++i;
  return i > host;
}

// A path as prompts print it: `~`, `~/src`, `/var/log` (`full`), or the last directory's name
// alone (`log`, Fedora's `\W`); no blanks.
bool prompt_path(std::string_view s, std::size_t& i, bool full = true) noexcept {
  const std::size_t start = i;
  while (i < s.size() && i - start < 256 && !text::is_space(s[i]) && s[i] != '$' && s[i] != '#' && s[i] != '%' &&
         s[i] != ']')
    ++i;
  return i == start || !full || s[start] == '~' || s[start] == '/';
}

constexpr bool is_sigil(char c) noexcept { return c == '$' || c == '#' || c == '%'; }

// After the sigil: the end of the line, or a blank and the command. Sets cmd.
bool after_sigil(std::string_view s, std::size_t i, std::string_view& cmd) noexcept {
  if (i == s.size()) {
    cmd = {};
    return true;
  }
  if (s[i] != ' ') return false;
  cmd = text::trim(s.substr(i + 1));
  return true;
}

// Finds the prompt; cmd receives the command line after it.
bool match_prompt(std::string_view line, std::string_view& cmd) noexcept {
  std::string_view s = text::rtrim(line);
  if (s.empty()) return false;
  if (s == "^C") {  // the terminal's echo of the Ctrl-C that stopped `dmon` or `-l`
    cmd = {};
    return true;
  }
  std::size_t i = 0;
  // `(venv) user@host:~$`: a virtualenv or conda environment name in front.
  if (s[0] == '(') {
    const auto close = s.find(") ");
    if (close == std::string_view::npos || close > 64) return false;
    i = close + 2;
  }
  if (i >= s.size()) return false;
  const char c = s[i];
  if (c == '$' || c == '#') {
    // Bare sigil: only in front of a command that prints logs.
    if (!after_sigil(s, i + 1, cmd) || cmd.empty()) return false;
    return is_log_command(first_word(cmd));
  }
  if (c == '[') {  // `[user@host dir]$` (Fedora, RHEL)
    ++i;
    if (!user_at_host(s, i) || i >= s.size() || s[i] != ' ') return false;
    ++i;
    if (!prompt_path(s, i, false) || i >= s.size() || s[i] != ']') return false;
    ++i;
    if (i >= s.size() || !is_sigil(s[i])) return false;
    return after_sigil(s, i + 1, cmd);
  }
  if (!user_at_host(s, i) || i >= s.size()) return false;
  if (s[i] == ':') {  // `user@host:~$` (Debian, Ubuntu)
    ++i;
    if (!prompt_path(s, i) || i >= s.size() || !is_sigil(s[i])) return false;
    return after_sigil(s, i + 1, cmd);
  }
  if (s[i] == ' ') {  // `user@host ~ %` (zsh), `user@host ~ $`
    ++i;
    if (!prompt_path(s, i) || i + 1 >= s.size() || s[i] != ' ' || !is_sigil(s[i + 1])) return false;
    return after_sigil(s, i + 2, cmd);
  }
  if (is_sigil(s[i])) return after_sigil(s, i + 1, cmd);  // `root@host#`
  return false;
}

std::string_view unquote(std::string_view t) noexcept {
  if (t.size() >= 2 && (t.front() == '\'' || t.front() == '"') && t.back() == t.front()) return t.substr(1, t.size() - 2);
  return t;
}

// The command line's words, split at blanks and at `|`, `;`, `&` (which end a command: an empty
// word marks the boundary).
std::vector<std::string_view> words(std::string_view cmd) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < cmd.size()) {
    if (text::is_space(cmd[i])) {
      ++i;
      continue;
    }
    if (cmd[i] == '|' || cmd[i] == ';' || cmd[i] == '&') {
      if (out.empty() || !out.back().empty()) out.emplace_back();
      ++i;
      continue;
    }
    const std::size_t start = i;
    char quote = 0;
    while (i < cmd.size()) {
      const char c = cmd[i];
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (text::is_space(c) || c == '|' || c == ';' || c == '&') {
        break;
      }
      ++i;
    }
    out.push_back(unquote(cmd.substr(start, i - start)));
  }
  return out;
}

// `15`, `0.5` seconds -> ns; kNoTime when not a positive number.
TimeNs seconds_value(std::string_view v, TimeNs unit) {
  double d = 0;
  const auto r = std::from_chars(v.data(), v.data() + v.size(), d);
  if (r.ec != std::errc() || r.ptr != v.data() + v.size() || !(d > 0) || d > 86400.0 * 1000) return kNoTime;
  return static_cast<TimeNs>(d * static_cast<double>(unit));
}

// `--name=value`, `--name value`, `-n value` and `-nvalue`: the value of an option at w[k], or
// empty. k advances past a separate value.
std::string_view option_value(const std::vector<std::string_view>& w, std::size_t& k, std::string_view long_name,
                              std::string_view short_name) {
  const std::string_view t = w[k];
  if (!long_name.empty() && t.substr(0, long_name.size()) == long_name) {
    if (t.size() == long_name.size()) return k + 1 < w.size() ? w[++k] : std::string_view{};
    if (t[long_name.size()] == '=') return t.substr(long_name.size() + 1);
    return {};
  }
  if (!short_name.empty() && t.substr(0, short_name.size()) == short_name) {
    if (t.size() == short_name.size()) return k + 1 < w.size() ? w[++k] : std::string_view{};
    return t.substr(short_name.size());
  }
  return {};
}

void read_nvidia_smi(const std::vector<std::string_view>& w, std::size_t k, std::size_t end, ShellHints& h) {
  std::string_view sub;
  if (k < end && !w[k].empty() && w[k][0] != '-') sub = w[k++];
  if (sub == "dmon") h.format = FormatId::dmon;
  else if (sub == "pmon") h.format = FormatId::pmon;
  for (; k < end; ++k) {
    const std::string_view t = w[k];
    std::string_view v;
    if (sub == "dmon" || sub == "pmon") {
      if (!(v = option_value(w, k, "--delay", "-d")).empty()) h.interval_ns = seconds_value(v, kNsPerSec);
      continue;
    }
    if (t == "-q" || t == "--query") {
      if (h.format == FormatId::unknown) h.format = FormatId::nvidia_smi_q;
    } else if (t == "-x" || t == "--xml-format" || t == "-qx" || t == "-xq") {
      h.format = FormatId::nvidia_smi_q_xml;
    } else if (!(v = option_value(w, k, "--query-gpu", "")).empty()) {
      h.format = FormatId::query_gpu_csv;
      h.query_fields.assign(v);
    } else if (!(v = option_value(w, k, "--format", "")).empty()) {
      h.csv_noheader = text::contains(v, "noheader");
    } else if (!(v = option_value(w, k, "--loop-ms", "-lms")).empty()) {
      h.interval_ns = seconds_value(v, kNsPerSec / 1000);
    } else if (!(v = option_value(w, k, "--loop", "-l")).empty()) {
      h.interval_ns = seconds_value(v, kNsPerSec);
    }
  }
}

// `dcgmi dmon -e 155,150 -d 500`: DCGM's delay is in milliseconds (default 1000).
void read_dcgmi(const std::vector<std::string_view>& w, std::size_t k, std::size_t end, ShellHints& h) {
  if (k >= end || w[k] != "dmon") return;
  h.format = FormatId::dcgmi_dmon;
  for (++k; k < end; ++k) {
    std::string_view v;
    if (!(v = option_value(w, k, "--delay", "-d")).empty()) h.interval_ns = seconds_value(v, kNsPerSec / 1000);
  }
}

void read_dmesg(const std::vector<std::string_view>& w, std::size_t k, std::size_t end, ShellHints& h) {
  h.format = FormatId::dmesg;
  for (; k < end; ++k) {
    const std::string_view t = w[k];
    if (t == "--ctime") h.dmesg_ctime = true;
    else if (t.size() > 1 && t[0] == '-' && t[1] != '-' && t.find('T') != std::string_view::npos) h.dmesg_ctime = true;
  }
}

void read_journalctl(const std::vector<std::string_view>& w, std::size_t k, std::size_t end, ShellHints& h) {
  h.format = FormatId::journal_short;
  for (; k < end; ++k) {
    const std::string_view v = option_value(w, k, "--output", "-o");
    if (v.empty()) continue;
    h.journal_output.assign(v);
    if (v == "json" || v == "json-pretty" || v == "json-sse" || v == "json-seq") h.format = FormatId::journal_json;
    else if (v == "export") h.format = FormatId::journal_export;
    else h.format = FormatId::journal_short;
  }
}

// Reads the options of the first command of the line that prints something gpucost reads.
void read_hints(std::string_view cmd, ShellHints& h) {
  const std::vector<std::string_view> w = words(cmd);
  std::size_t k = 0;
  while (k < w.size()) {
    std::size_t end = k;
    while (end < w.size() && !w[end].empty()) ++end;
    // Step over `sudo`, `sudo -u x`, `time`, `env`, `VAR=value` in front of the command.
    std::size_t c = k;
    while (c < end) {
      const std::string_view b = basename(w[c]);
      if (b == "sudo" || b == "doas" || b == "time" || b == "env" || b == "nice" || b == "watch") {
        ++c;
        while (c < end && w[c].size() > 1 && w[c][0] == '-') c += (w[c] == "-u" || w[c] == "-n") ? 2 : 1;
        continue;
      }
      if (w[c].find('=') != std::string_view::npos && w[c][0] != '-') {
        ++c;
        continue;
      }
      break;
    }
    if (c < end) {
      const std::string_view b = basename(w[c]);
      if (b == "nvidia-smi") read_nvidia_smi(w, c + 1, end, h);
      else if (b == "dmesg") read_dmesg(w, c + 1, end, h);
      else if (b == "journalctl") read_journalctl(w, c + 1, end, h);
      else if (b == "ps") h.format = FormatId::ps;
      else if (b == "dcgmi") read_dcgmi(w, c + 1, end, h);
      if (h.format != FormatId::unknown) return;
    }
    k = end + 1;
  }
}

}  // namespace

bool parse_shell_prompt(std::string_view line, ShellHints* hints) {
  std::string_view cmd;
  if (!match_prompt(line, cmd)) return false;
  if (hints) {
    *hints = ShellHints{};
    hints->command.assign(cmd);
    read_hints(cmd, *hints);
  }
  return true;
}

std::string ShellHints::describe() const {
  std::string out = format == FormatId::unknown ? std::string("no format named")
                                                : fmt::format("output of {}", format_name(format));
  if (interval_ns != kNoTime) out += fmt::format(", every {:g} s", static_cast<double>(interval_ns) / kNsPerSec);
  if (!query_fields.empty()) out += fmt::format(", fields {}", query_fields);
  if (csv_noheader) out += ", no header";
  if (dmesg_ctime) out += ", -T stamps";
  if (!journal_output.empty()) out += fmt::format(", -o {}", journal_output);
  return out;
}

}  // namespace gpucost
