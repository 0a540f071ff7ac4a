// Reads the compiled-in Xid catalog once; lookups by code are an index into a table.
#include "gpucost/features/xid_catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>

#include "gpucost/text.hpp"

namespace gpucost {

namespace {

XidNeeds needs_of(std::string_view s, std::size_t line) {
  if (s == "none") return XidNeeds::kNone;
  if (s == "reset") return XidNeeds::kReset;
  if (s == "reboot") return XidNeeds::kReboot;
  if (s == "rma") return XidNeeds::kRma;
  if (s == "per-line") return XidNeeds::kPerLine;
  throw std::invalid_argument(fmt::format("Xid catalog line {}: needs_person '{}' is not none, reset, reboot, rma or per-line", line, s));
}

template <std::size_t N>
void expect_one_of(std::string_view v, const std::array<std::string_view, N>& allowed, std::string_view what, std::size_t line) {
  if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
    throw std::invalid_argument(fmt::format("Xid catalog line {}: {} '{}' is not a known one", line, what, v));
}

constexpr std::array<std::string_view, 5> kCauses = {"application", "driver", "hardware", "thermal-power", "memory"};
constexpr std::string_view kHeader =
    "code,name,cause,class,action,needs_person,note,mnemonic,immediate,investigatory,subcodes";
constexpr std::array<std::string_view, 5> kClasses = {"application", "driver_firmware", "memory_ecc", "bus", "recovery_action"};

}  // namespace

std::string_view xid_needs_name(XidNeeds n) noexcept {
  switch (n) {
    case XidNeeds::kNone: return "none";
    case XidNeeds::kReset: return "reset";
    case XidNeeds::kReboot: return "reboot";
    case XidNeeds::kRma: return "rma";
    case XidNeeds::kPerLine: return "per-line";
  }
  return "?";
}

std::optional<int> xid_gpu_instance(std::string_view text) noexcept {
  const auto open = text.find("Xid (");
  if (open == std::string_view::npos) return std::nullopt;
  const auto close = text.find(')', open);
  const auto gi = text.find(" GPU-I:", open);
  if (gi == std::string_view::npos || gi > close) return std::nullopt;
  int v = 0, digits = 0;
  for (std::size_t i = gi + 7; i < close && text::is_digit(text[i]) && digits < 6; ++i, ++digits)
    v = v * 10 + (text[i] - '0');
  return digits ? std::optional<int>(v) : std::nullopt;
}

std::vector<XidInfo> parse_xid_catalog(std::string_view csv) {
  std::vector<XidInfo> out;
  bool header = false;
  std::size_t line_no = 0;
  while (!csv.empty()) {
    const auto nl = csv.find('\n');
    std::string_view line = csv.substr(0, nl);
    csv = nl == std::string_view::npos ? std::string_view{} : csv.substr(nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (text::trim(line).empty() || line.front() == '#') continue;
    std::vector<std::string_view> f;
    for (std::size_t start = 0;;) {
      const auto comma = line.find(',', start);
      f.push_back(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    if (!header) {
      if (line != kHeader)
        throw std::invalid_argument(fmt::format("Xid catalog line {}: the header is not '{}'", line_no, kHeader));
      header = true;
      continue;
    }
    if (f.size() != 11)
      throw std::invalid_argument(fmt::format("Xid catalog line {}: {} fields, expected 11", line_no, f.size()));
    XidInfo x;
    const auto code = text::to_int<int>(f[0]);
    if (!code || *code < 0) throw std::invalid_argument(fmt::format("Xid catalog line {}: code '{}' is no number", line_no, f[0]));
    x.code = *code;
    x.name = f[1];
    expect_one_of(f[2], kCauses, "cause", line_no);
    x.cause = f[2];
    expect_one_of(f[3], kClasses, "class", line_no);
    x.xid_class = f[3];
    x.action = f[4];
    x.needs = needs_of(f[5], line_no);
    x.note = f[6];
    x.mnemonic = f[7];
    x.immediate = f[8];
    x.investigatory = f[9];
    for (std::string_view rest = f[10]; !rest.empty();) {
      const auto semi = rest.find(';');
      x.subcodes.emplace_back(rest.substr(0, semi));
      rest = semi == std::string_view::npos ? std::string_view{} : rest.substr(semi + 1);
    }
    if (std::any_of(out.begin(), out.end(), [&](const XidInfo& o) { return o.code == x.code; }))
      throw std::invalid_argument(fmt::format("Xid catalog line {}: code {} listed twice", line_no, x.code));
    out.push_back(std::move(x));
  }
  std::sort(out.begin(), out.end(), [](const XidInfo& a, const XidInfo& b) { return a.code < b.code; });
  return out;
}

const std::vector<XidInfo>& xid_catalog() {
  static const std::vector<XidInfo> catalog = parse_xid_catalog(embedded_xid_catalog_csv());
  return catalog;
}

const XidInfo* xid_info(std::int64_t code) noexcept {
  // Codes are small: one slot per code up to the largest, filled once.
  static const std::vector<const XidInfo*> by_code = [] {
    std::vector<const XidInfo*> v;
    for (const auto& x : xid_catalog()) {
      if (static_cast<std::size_t>(x.code) >= v.size()) v.resize(static_cast<std::size_t>(x.code) + 1, nullptr);
      v[static_cast<std::size_t>(x.code)] = &x;
    }
    return v;
  }();
  if (code < 0 || static_cast<std::uint64_t>(code) >= by_code.size()) return nullptr;
  return by_code[static_cast<std::size_t>(code)];
}

}  // namespace gpucost
