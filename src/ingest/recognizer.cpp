#include "gpucost/ingest/recognizer.hpp"

#include <array>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <span>
#include <vector>

#include "gpucost/small_file.hpp"
#include "gpucost/text.hpp"
#include "ingest/key_prefilter.hpp"
#include "ingest/recognizer_patterns.hpp"

namespace gpucost {

namespace {

using namespace recognizer_detail;
using text::contains;

// ---- prefilter -------------------------------------------------------------------------------

// Most syslog lines are noise: they cost one KeyPrefilter pass and no pattern is tried.
KeyPrefilter prefilter_of(std::span<const Builtin> table) {
  std::vector<std::string_view> keys;
  for (const Builtin& b : table) keys.push_back(b.prefilter_key());
  return KeyPrefilter(keys);
}

static_assert(std::size(kKernel) <= 64 && std::size(kAnyIdent) <= 64, "a prefilter mask holds 64 patterns");

const KeyPrefilter& kernel_prefilter() {
  static const KeyPrefilter p = prefilter_of(kKernel);
  return p;
}

const KeyPrefilter& any_ident_prefilter() {
  static const KeyPrefilter p = prefilter_of(kAnyIdent);
  return p;
}

// ---- matching --------------------------------------------------------------------------------

bool starts_with(std::string_view s, std::string_view p) noexcept { return s.substr(0, p.size()) == p; }

bool matches(const Builtin& b, std::string_view t) noexcept {
  if (b.at_start ? !starts_with(t, b.needle) : !contains(t, b.needle)) return false;
  return b.also.empty() || contains(t, b.also);
}

// Tries the patterns whose bits are set, in table order.
std::optional<Recognition> match_bits(std::uint64_t bits, std::span<const Builtin> table, std::string_view t) noexcept {
  while (bits) {
    const auto bit = static_cast<std::size_t>(__builtin_ctzll(bits));
    bits &= bits - 1;
    const Builtin& b = table[bit];
    Recognition r;
    if (matches(b, t) && apply(b, t, r)) return r;
  }
  return std::nullopt;
}

constexpr std::size_t kNoFamily = std::size(kFamilies);

// The family of an ident (its index in kFamilies), or kNoFamily.
std::size_t family_of(std::string_view ident) noexcept {
  // Idents may be paths (`/usr/bin/nvidia-powerd`).
  const auto slash = ident.rfind('/');
  if (slash != std::string_view::npos) ident = ident.substr(slash + 1);
  // Most idents of a syslog are of no family (NetworkManager, gnome-shell ...): the first byte
  // rules them out before any comparison.
  static const std::array<bool, 256> first = [] {
    std::array<bool, 256> f{};
    for (const Family& fam : kFamilies)
      for (std::string_view name : fam.idents)
        if (!name.empty()) f[static_cast<unsigned char>(name[0])] = true;
    return f;
  }();
  if (ident.empty() || !first[static_cast<unsigned char>(ident[0])]) return kNoFamily;
  for (std::size_t i = 0; i < std::size(kFamilies); ++i)
    for (std::string_view name : kFamilies[i].idents)
      if (!name.empty() && name == ident) return i;
  return kNoFamily;
}

const KeyPrefilter& family_prefilter(std::size_t family) {
  static const std::vector<KeyPrefilter> filters = [] {
    std::vector<KeyPrefilter> v;
    for (const Family& f : kFamilies) v.push_back(prefilter_of(f.patterns));
    return v;
  }();
  return filters[family];
}

bool ident_matches(std::string_view ident, std::string_view want) noexcept {
  return want.empty() || ident.substr(0, want.size()) == want;
}

}  // namespace

EventRecognizer::EventRecognizer() = default;

void EventRecognizer::add(EventPattern p) { user_.push_back(std::move(p)); }

std::string EventRecognizer::load_file(const std::string& path) {
  std::string all;
  try {
    all = read_small_file(path, kMaxPatternsFileBytes, "patterns file");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  std::istringstream in(all);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string_view l = line;
    if (text::trim(l).empty() || text::trim(l).front() == '#') continue;
    std::vector<std::string> fields;
    std::size_t start = 0;
    while (true) {
      auto tab = l.find('\t', start);
      fields.emplace_back(l.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
      if (tab == std::string_view::npos) break;
      start = tab + 1;
    }
    if (fields.size() < 3 || fields[2].empty())
      return path + ":" + std::to_string(n) + ": expected kind<TAB>ident<TAB>needle[<TAB>needle...]";
    auto kind = event_kind_from_name(fields[0]);
    if (!kind || *kind == EventKind::log_end) return path + ":" + std::to_string(n) + ": unknown kind '" + fields[0] + "'";
    EventPattern p;
    p.kind = *kind;
    p.ident = fields[1];
    p.label = fields[0];
    for (std::size_t i = 2; i < fields.size(); ++i)
      if (!fields[i].empty()) p.needles.push_back(fields[i]);
    add(std::move(p));
  }
  return {};
}

std::optional<Recognition> EventRecognizer::classify(std::string_view ident, std::string_view t) const {
  const bool kernel = ident.empty() || ident == "kernel";
  std::optional<Recognition> r;
  if (kernel) r = match_bits(kernel_prefilter().scan(t), kKernel, t);
  else if (const auto f = family_of(ident); f != kNoFamily) r = match_bits(family_prefilter(f).scan(t), kFamilies[f].patterns, t);
  else r = match_bits(any_ident_prefilter().scan(t), kAnyIdent, t);
  if (r || user_.empty()) return r;
  for (const auto& p : user_) {
    if (!p.ident.empty() && !(ident_matches(ident, p.ident) || (p.ident == "kernel" && kernel))) continue;
    bool all = true;
    for (const auto& n : p.needles)
      if (!contains(t, n)) {
        all = false;
        break;
      }
    if (all) {
      Recognition u;
      u.kind = p.kind;
      return u;
    }
  }
  return std::nullopt;
}

}  // namespace gpucost
