#include "ingest/formats/kernel_message.hpp"

#include <fmt/format.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gpucost/text.hpp"

namespace gpucost::formats {

namespace {

using text::is_digit;
using text::is_space;

bool starts_with(std::string_view s, std::string_view p) noexcept { return s.substr(0, p.size()) == p; }

// Length of a PCI address at s: `0000:00:1d.0` (domain of 4 to 8 hex digits), 0 when none.
std::size_t pci_address_length(std::string_view s) noexcept {
  std::size_t i = 0;
  while (i < s.size() && text::is_hex(s[i])) ++i;
  if (i < 4 || i > 8 || i + 6 > s.size() || s[i] != ':' || !text::is_hex(s[i + 1]) ||
      !text::is_hex(s[i + 2]) || s[i + 3] != ':' || !text::is_hex(s[i + 4]) || !text::is_hex(s[i + 5]))
    return 0;
  i += 6;
  if (i + 1 < s.size() && s[i] == '.' && is_digit(s[i + 1])) i += 2;
  return i;
}

// First words of kernel messages common enough to recognize a paste whose stamps were cut.
constexpr std::string_view kSubsystems[] = {
    "ACPI:", "ACPI", "PM:", "pci", "pcieport", "usb", "xhci_hcd", "ehci-pci", "i915", "amdgpu", "nouveau",
    "nvme", "ata", "sd", "scsi", "EXT4-fs", "BTRFS", "XFS", "audit:", "mce:", "thermal", "input:",
    "hid-generic", "Bluetooth:", "iwlwifi", "r8169", "e1000e", "igb", "snd_hda_intel", "intel_rapl_common:",
    "microcode:", "smpboot:", "sysrq:", "perf:", "kvm:", "apparmor", "Linux", "Command", "BIOS-e820:",
    "Call", "RIP:", "Hardware", "CPU:", "Out", "Memory", "oom-kill:", "oom_reaper:", "traps:", "nvidia",
    "nvidia:", "nvidia-nvlink:", "nvidia-uvm:", "nvidia-modeset:", "nvidia_uvm:", "fbcon:", "Disabling",
    "intel_pstate:", "tpm", "ucsi_acpi", "wmi", "platform", "x86/fpu:", "clocksource:", "Freezing",
    "Restarting", "Filesystems", "OOM", "printk:", "random:",
};

}  // namespace

namespace {

constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
constexpr std::uint64_t kHigh = 0x8080808080808080ULL;

// The 8 bytes at p, the first in the lowest byte (parse_mono_stamp_fixed runs on little-endian
// machines only).
std::uint64_t load8(const char* p) noexcept {
  std::uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

// 0x80 in each byte of w that is an ASCII digit, 0 in the others (exact per byte: no carry
// crosses a byte because the high bits are cleared before adding).
std::uint64_t digit_bytes(std::uint64_t w) noexcept {
  const std::uint64_t low7 = w & ~kHigh;
  const std::uint64_t ge0 = low7 + 0x50 * kOnes;  // high bit set where the byte >= '0'
  const std::uint64_t gt9 = low7 + 0x46 * kOnes;  // high bit set where the byte > '9'
  return ge0 & ~gt9 & ~w & kHigh;
}

// 0x80 in each byte of w that is c (c < 0x80), 0 in the others (exact per byte).
std::uint64_t bytes_equal(std::uint64_t w, char c) noexcept {
  const std::uint64_t x = (w ^ (static_cast<std::uint64_t>(static_cast<unsigned char>(c)) * kOnes));
  // x's byte is 0 exactly where w's was c; adding 0x7F to the low 7 bits sets the high bit of
  // every byte that has any low bit set.
  return ~(((x & ~kHigh) + 0x7F * kOnes) | x) & kHigh;
}

// The 8 ASCII digits of w (the first, most significant, in the lowest byte) as a number.
std::uint64_t eight_digits(std::uint64_t w) noexcept {
  w -= 0x30 * kOnes;
  w = (w * 10 + (w >> 8)) & 0x00FF00FF00FF00FFULL;
  w = (w * 100 + (w >> 16)) & 0x0000FFFF0000FFFFULL;
  return (w * 10000 + (w >> 32)) & 0xFFFFFFFFULL;
}

}  // namespace

bool parse_mono_stamp_fixed(std::string_view s, TimeNs& mono, std::size_t& length) noexcept {
  if constexpr (std::endian::native != std::endian::little) return false;
  if (s.size() < 10 || s[0] != '[') return false;
  const char* p = s.data();
  // The dot among bytes 2..9: the field before it (bytes 1..dot-1) is 1 to 8 bytes long.
  const std::uint64_t head = load8(p + 1);
  const std::uint64_t dots = bytes_equal(head, '.');
  unsigned field;  // bytes before the first dot
  if (dots != 0) field = static_cast<unsigned>(std::countr_zero(dots)) / 8;
  else if (p[9] == '.') field = 8;
  else return false;
  const std::size_t dot = field + 1;
  if (field == 0 || dot + 8 > s.size()) return false;
  // `.dddddd]`: the fraction and the closing bracket in one word.
  const std::uint64_t tail = load8(p + dot);
  if ((tail & 0xFF) != '.' || (tail >> 56) != ']' ||
      (digit_bytes(tail) & 0x0080808080808000ULL) != 0x0080808080808000ULL)
    return false;
  // The field moved to the word's top bytes (its last digit in the highest), zeros below it:
  // blanks then digits, at least one.
  const std::uint64_t f = head << (8 * (8 - field));
  const std::uint64_t in_field = kHigh << (8 * (8 - field));
  const std::uint64_t digits = digit_bytes(f);
  const std::uint64_t blanks = bytes_equal(f, ' ') & in_field;
  if ((digits | blanks) != in_field || (digits >> 63) == 0 || blanks >= (digits & (~digits + 1))) return false;
  const std::uint64_t keep = (digits >> 7) * 0xFF;  // 0xFF in each digit byte
  const std::uint64_t secs = eight_digits((f & keep) | (0x30 * kOnes & ~keep));
  const std::uint64_t frac = eight_digits(((tail & 0x00FFFFFFFFFFFF00ULL) << 8) | 0x3030);
  mono = static_cast<TimeNs>(secs) * kNsPerSec + static_cast<TimeNs>(frac) * 1000;
  length = dot + 8;
  return true;
}

bool parse_mono_stamp(std::string_view s, TimeNs& mono, std::size_t& length) noexcept {
  return parse_mono_stamp_fixed(s, mono, length) || parse_mono_stamp_loop(s, mono, length);
}

bool MonoStampCache::parse(std::string_view s, TimeNs& mono, std::size_t& length) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    if (mask_ != 0 && s.size() >= dot_ + 8 && (load8(s.data()) & mask_) == head_) {
      // The same `[`, seconds and dot as a stamp parse_mono_stamp_fixed took: its checks of the
      // rest, `dddddd]`, decide alone.
      const std::uint64_t tail = load8(s.data() + dot_);
      if ((tail >> 56) == ']' && (digit_bytes(tail) & 0x0080808080808000ULL) == 0x0080808080808000ULL) {
        mono = seconds_ns_ + static_cast<TimeNs>(eight_digits(((tail & 0x00FFFFFFFFFFFF00ULL) << 8) | 0x3030)) * 1000;
        length = dot_ + 8;
        return true;
      }
    }
    if (parse_mono_stamp_fixed(s, mono, length)) {
      const std::size_t dot = length - 8;
      if (dot <= 7) {  // the head fits one word
        mask_ = dot == 7 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * (dot + 1))) - 1;
        head_ = load8(s.data()) & mask_;
        dot_ = dot;
        seconds_ns_ = mono / kNsPerSec * kNsPerSec;
      }
      return true;
    }
    return parse_mono_stamp_loop(s, mono, length);  // the fast path said no just now
  }
  return parse_mono_stamp(s, mono, length);
}

bool parse_mono_stamp_loop(std::string_view s, TimeNs& mono, std::size_t& length) noexcept {
  if (s.size() < 4 || s[0] != '[') return false;
  std::size_t i = 1;
  while (i < s.size() && s[i] == ' ') ++i;
  const std::size_t int_start = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  // At most 9 digits of seconds (31 years of uptime): more are damage, and boot time plus
  // monotonic time must stay inside int64 nanoseconds.
  if (i == int_start || i - int_start > 9 || i >= s.size() || s[i] != '.') return false;
  std::int64_t secs = 0;
  for (std::size_t k = int_start; k < i; ++k) secs = secs * 10 + (s[k] - '0');
  ++i;
  const std::size_t frac_start = i;
  std::int64_t frac = 0;
  while (i < s.size() && is_digit(s[i])) {
    if (i - frac_start < 9) frac = frac * 10 + (s[i] - '0');
    ++i;
  }
  const std::size_t frac_len = i - frac_start;
  if (frac_len == 0) return false;
  for (std::size_t k = frac_len; k < 9; ++k) frac *= 10;
  // dmesg -d appends the delta to the previous message inside the brackets: ` <    0.000123>`.
  if (i < s.size() && s[i] == ' ') {
    std::size_t j = i;
    while (j < s.size() && s[j] == ' ') ++j;
    if (j < s.size() && s[j] == '<') {
      const std::size_t close = s.find('>', j);
      if (close == std::string_view::npos) return false;
      i = close + 1;
    }
  }
  if (i >= s.size() || s[i] != ']') return false;
  mono = secs * kNsPerSec + frac;
  length = i + 1;
  return true;
}

std::string_view after_kernel_stamp(std::string_view rest) noexcept {
  // Caller id: `[  T291]` or `[    C3]`, right after the stamp or after one blank.
  const std::size_t open = (rest.size() > 1 && rest[0] == ' ' && rest[1] == '[') ? 1 : 0;
  if (open < rest.size() && rest[open] == '[') {
    std::size_t j = open + 1;
    while (j < rest.size() && rest[j] == ' ') ++j;
    if (j < rest.size() && (rest[j] == 'T' || rest[j] == 'C')) {
      std::size_t k = j + 1;
      while (k < rest.size() && is_digit(rest[k])) ++k;
      if (k > j + 1 && k < rest.size() && rest[k] == ']') rest.remove_prefix(k + 1);
    }
  }
  if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  return rest;
}

bool is_elision(std::string_view line) noexcept {
  std::string_view t = text::trim(line);
  if (t.empty()) return false;
  if (t == "<snip>" || t == "[snip]" || t == "(snip)" || t == "snip" || t == "<...>" || t == "(...)") return true;
  std::size_t dots = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '.') ++dots;
    else if (t.substr(i, 3) == "\xE2\x80\xA6") {  // U+2026 HORIZONTAL ELLIPSIS
      dots += 3;
      i += 2;
    } else if (c != '[' && c != ']' && c != ' ' && c != '\t') {
      return false;
    }
  }
  return dots >= 2;
}

int kernel_likeness(std::string_view line) noexcept {
  std::string_view t = text::ltrim(line);
  if (t.empty()) return 0;
  if (starts_with(t, "NVRM")) return 45;
  if (starts_with(t, "[drm]") || starts_with(t, "[drm:")) return 40;
  if (starts_with(t, "kernel: ")) return 40;
  std::string_view rest = t;
  const std::string_view word = text::next_token(rest);
  // `driver 0000:00:1d.0: message`: how the kernel names a PCI device.
  if (!rest.empty() && pci_address_length(rest) > 0) {
    const std::size_t n = pci_address_length(rest);
    if (n < rest.size() && rest[n] == ':') return 40;
  }
  for (std::string_view s : kSubsystems)
    if (word == s) return 30;
  // `CPU3: Core temperature ...`, `usb 1-1: ...`
  if (word.size() > 3 && starts_with(word, "CPU") && word.back() == ':') return 30;
  return 0;
}

std::size_t indentation(std::string_view line) noexcept {
  std::size_t i = 0;
  while (i < line.size() && is_space(line[i])) ++i;
  return i;
}

bool is_linux_version(std::string_view text) noexcept { return starts_with(text, "Linux version "); }

void PendingMessage::start(bool stamped, std::size_t indent, bool borrow) {
  const std::string_view first = text::rtrim(rec_.text);
  borrowed_ = borrow;
  if (borrow) {
    rec_.text = first;
  } else {
    // clear() and append() rather than assign(): the text never overlaps text_, and append
    // copies without assign's care for that.
    text_.clear();
    text_.append(first);
    rec_.text = text_;
  }
  // Ident and boot id are mostly the previous message's (`kernel`, none): comparing them is
  // cheaper than copying them again.
  if (!text::same_bytes(ident_, rec_.ident)) ident_.assign(rec_.ident);
  if (!text::same_bytes(boot_id_, rec_.boot_id)) boot_id_.assign(rec_.boot_id);
  rec_.ident = ident_;
  rec_.boot_id = boot_id_;
  stamped_ = stamped;
  indent_ = indent;
  active_ = true;
  capped_ = false;
}

void PendingMessage::append(std::string_view line, FileSink& sink) {
  keep();
  rec_.flags |= kFlagContinued;
  if (capped_) return;
  const std::string_view add = text::trim(line);
  const std::size_t cap = sink.options().max_line_length;
  if (text_.size() + 1 + add.size() > cap) {
    capped_ = true;
    if (text_.size() < cap) {
      text_ += '\n';
      text_.append(add.substr(0, cap - text_.size()));
    }
    rec_.flags |= kFlagTruncated;
    Diagnostics::record(sink.diagnostics(), Problem::truncated_line, rec_.line, 0, text_,
                        fmt::format("message joined from continuation lines longer than {} bytes "
                                    "(--max-line-length); the rest of its lines were counted, not kept",
                                    cap));
  } else {
    text_ += '\n';
    text_.append(add);
  }
  rec_.text = text_;  // the buffer may have moved
}

bool PendingMessage::flush(FileSink& sink) {
  if (!active_) return false;
  active_ = false;
  if (!borrowed_) rec_.text = text_;
  borrowed_ = false;
  rec_.ident = ident_;
  rec_.boot_id = boot_id_;
  return sink.message(rec_);
}

bool year_clock_continues(const NoYearClock& before, unsigned first_month) noexcept {
  return first_month == 0 ||
         (before.rollovers() == 0 && (before.prev_month() == 0 || first_month + 6 >= before.prev_month()));
}

bool wrap_continues(const JiffiesWrap& before, TimeNs raw, bool fresh_boot_start, bool boot_start) noexcept {
  JiffiesWrap fresh, file = before;
  fresh.adjust(raw, fresh_boot_start);
  file.adjust(raw, boot_start);
  return fresh.active() == file.active() && (!fresh.active() || fresh.base() == file.base());
}

void take_chunk_over(PendingMessage& before_pending, std::int32_t before_boots, std::int32_t chunk_boots,
                     PendingMessage& chunk_pending, FileSink& file_sink, FileSink& chunk_sink) {
  before_pending.flush(file_sink);
  if (before_boots != 0) {
    std::vector<std::int32_t> to_file(static_cast<std::size_t>(chunk_boots) + 1);
    for (std::size_t i = 0; i < to_file.size(); ++i) to_file[i] = before_boots + static_cast<std::int32_t>(i);
    chunk_sink.renumber_boots(to_file);
  }
  chunk_pending.move_by(file_sink.diagnostics().lines, before_boots);
}

}  // namespace gpucost::formats
