#include "gpucost/ingest/message_memo.hpp"

#include <functional>

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
  const std::uint8_t slot = order_[i];
  for (; i > 0; --i) order_[i] = order_[i - 1];
  order_[0] = slot;
}

MessageMemo::Entry* MessageMemo::lookup(const EventRecognizer& recognizer, std::string_view ident, std::string_view text) {
  for (std::size_t i = 0; i < filled_; ++i) {
    Entry& e = entries_[order_[i]];
    if (e.text.size() == text.size() && e.ident == ident && e.text == text) {
      to_front(i);
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
