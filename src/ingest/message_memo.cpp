#include "gpucost/ingest/message_memo.hpp"

#include <functional>

#include "gpucost/records/devices.hpp"
#include "gpucost/text.hpp"

namespace gpucost {

namespace {

// A view into `from` moved to the same place in `to` (a copy of it); any other view is kept.
std::string_view rebase(std::string_view v, std::string_view from, const std::string& to) noexcept {
  const std::less<const char*> before;  // defined on pointers into different objects, unlike <
  if (v.empty() || before(v.data(), from.data()) || before(from.data() + from.size(), v.data() + v.size())) return v;
  return std::string_view(to).substr(static_cast<std::size_t>(v.data() - from.data()), v.size());
}

}  // namespace

void MessageMemo::to_front(std::size_t i) noexcept {
  static_assert(kEntries == 4, "to_front moves at most three places");
  const std::uint8_t slot = order_[i];
  // Spelled out: a loop here became a call to memmove for what is mostly one byte.
  switch (i) {
    case 3: order_[3] = order_[2]; [[fallthrough]];
    case 2: order_[2] = order_[1]; [[fallthrough]];
    case 1: order_[1] = order_[0]; break;
    default: break;
  }
  order_[0] = slot;
}

MessageMemo::Entry* MessageMemo::lookup(const EventRecognizer& recognizer, std::string_view ident, std::string_view text) {
  for (std::size_t i = 0; i < filled_; ++i) {
    Entry& e = entries_[order_[i]];
    // The variants of one flood often have the same length and differ only near their end
    // (`...:4:0:0x0000000f`, `...:6:0:0x0000000f`): same_bytes compares the end first.
    if (text::same_bytes(e.text, text) && text::same_bytes(e.ident, ident)) {
      if (i != 0) to_front(i);
      return &e;
    }
  }
  std::optional<Recognition> r = recognizer.classify(ident, text);
  if (!r) return nullptr;  // noise is not remembered: it would push the floods out
  if (filled_ < kEntries) ++filled_;
  to_front(filled_ - 1);  // the least recently used, or a slot not used yet
  Entry& e = entries_[order_[0]];
  e.ident.assign(ident);
  e.text.assign(text);
  for (std::string_view* v : {&r->gpu, &r->process}) *v = rebase(rebase(*v, text, e.text), ident, e.ident);
  e.recognition = *r;
  e.gpu = r->gpu.empty() ? std::string() : normalize_pci_bus(r->gpu);
  e.key_parts_known = false;
  e.serial = ++serials_;
  return &e;
}

}  // namespace gpucost
