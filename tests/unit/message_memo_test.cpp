// MessageMemo: a remembered message gives what classifying it again gives, its views point into
// the memo (not into the line it came from, which the reader overwrites), noise is not
// remembered, and the least recently used entry makes room.
#include "gpucost/ingest/message_memo.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gpucost/records/devices.hpp"

namespace gpucost {
namespace {

const EventRecognizer& rec() {
  static const EventRecognizer r;
  return r;
}

struct Seen {
  EventKind kind;
  std::int64_t code, pid;
  std::string gpu, process;
  bool operator==(const Seen&) const = default;
};

Seen seen(const Recognition& r) { return {r.kind, r.code, r.pid, std::string(r.gpu), std::string(r.process)}; }

// Real wording (tests/data/kernel/SOURCES.md): an Xid with its PCI address, pid and process
// name; an OOM kill with its process; the benign modeset flood; and two noise lines.
const std::vector<std::pair<std::string, std::string>> kMessages = {
    {"kernel", "NVRM: Xid (PCI:0000:01:00): 31, pid=13705, name=UnrealEditor, channel 0x0000000c, intr 00000000. MMU Fault"},
    {"kernel", "Out of memory: Killed process 4120 (python3) total-vm:81234567kB, anon-rss:61234567kB"},
    {"kernel", "nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x0000c67d:4:0:0x0000000f"},
    {"kernel", "NVRM: Xid (PCI:0000:41:00): 79, pid=1911, name=Xorg, GPU has fallen off the bus."},
    {"kernel", "NVRM: Xid (PCI:0000:81:00): 13, pid=2001, name=python3, Graphics Exception"},
    {"kernel", "wlp0s20f3: Limiting TX power to 23 (23 - 0) dBm as advertised by 9c:53:22:aa:bb:cc"},
    {"NetworkManager", "<info>  [1732871234.5678] device (wlp0s20f3): state change: activated"},
};

TEST(MessageMemo, GivesWhatClassifyingGivesWithViewsOfItsOwn) {
  MessageMemo memo;
  std::string line;  // one buffer for every line, as the reader's block is
  // Every message many times, in an order that makes each entry leave and come back.
  for (int round = 0; round < 40; ++round)
    for (std::size_t i = 0; i < kMessages.size(); ++i) {
      const auto& [ident, text] = kMessages[(i * 3 + static_cast<std::size_t>(round)) % kMessages.size()];
      line = text;
      const auto want = rec().classify(ident, line);
      const MessageMemo::Entry* e = memo.lookup(rec(), ident, line);
      ASSERT_EQ(e != nullptr, want.has_value()) << text;
      if (!e) continue;
      line.assign(line.size(), '#');  // the reader moved on: nothing may still point here
      EXPECT_EQ(seen(e->recognition), seen(*rec().classify(ident, text))) << text;
      EXPECT_EQ(e->text, text);
      EXPECT_EQ(e->ident, ident);
      if (!e->recognition.gpu.empty()) {
        EXPECT_EQ(e->gpu, normalize_pci_bus(e->recognition.gpu));
      }
    }
}

TEST(MessageMemo, KeepsTheFourMostRecentEventsAndNoNoise) {
  MessageMemo memo;
  std::vector<const MessageMemo::Entry*> at;
  for (std::size_t i = 0; i < 5; ++i) {
    const auto& [ident, text] = kMessages[i];
    at.push_back(memo.lookup(rec(), ident, text));
    ASSERT_NE(at.back(), nullptr);
    EXPECT_EQ(memo.lookup(rec(), kMessages[5].first, kMessages[5].second), nullptr) << "noise";
    EXPECT_EQ(memo.lookup(rec(), kMessages[6].first, kMessages[6].second), nullptr) << "noise";
  }
  // The fifth took the slot of the first (least recently used); the others stayed where they were.
  EXPECT_EQ(at[4], at[0]);
  for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(memo.lookup(rec(), kMessages[i].first, kMessages[i].second), at[i]);
  // A hit makes an entry the most recent: now message 4 is the least recent one and goes.
  const MessageMemo::Entry* again = memo.lookup(rec(), kMessages[0].first, kMessages[0].second);
  EXPECT_EQ(again, at[4]) << "message 0 classified again into the slot message 4 had";
  EXPECT_EQ(again->text, kMessages[0].second);
  // One byte more is another message: a miss, which takes the least recent slot (message 1's).
  const MessageMemo::Entry* longer = memo.lookup(rec(), kMessages[1].first, kMessages[1].second + "!");
  ASSERT_NE(longer, nullptr);
  EXPECT_EQ(longer, at[1]);
  EXPECT_EQ(longer->text, kMessages[1].second + "!");
  // Message 2 stayed; message 1 is classified again, into the slot of the now least recent, 3.
  EXPECT_EQ(memo.lookup(rec(), kMessages[2].first, kMessages[2].second), at[2]);
  const MessageMemo::Entry* one = memo.lookup(rec(), kMessages[1].first, kMessages[1].second);
  EXPECT_EQ(one, at[3]);
  EXPECT_EQ(one->text, kMessages[1].second);
}

// An entry's serial says which strings it holds: the same while the message is found again, new
// whenever the entry is filled again (with another message, or the same one after it left), and
// never one that another fill had (RepeatRuns takes equal serials for equal strings).
TEST(MessageMemo, ASerialStandsForOneFillOfAnEntry) {
  MessageMemo memo;
  std::vector<std::uint64_t> given;
  std::vector<std::string> text_of;  // the text each serial was given with
  auto look = [&](std::size_t i) {
    const MessageMemo::Entry* e = memo.lookup(rec(), kMessages[i].first, kMessages[i].second);
    EXPECT_NE(e, nullptr);
    EXPECT_NE(e->serial, 0u);
    if (e->serial >= text_of.size()) text_of.resize(e->serial + 1);
    if (text_of[e->serial].empty()) {
      text_of[e->serial] = e->text;
      given.push_back(e->serial);
    }
    EXPECT_EQ(text_of[e->serial], e->text) << "serial " << e->serial << " with two texts";
    return e->serial;
  };
  const std::uint64_t first = look(0);
  EXPECT_EQ(look(0), first) << "found again: the same serial";
  for (std::size_t i = 1; i < 5; ++i) look(i);  // the fifth pushes message 0 out
  const std::uint64_t back = look(0);
  EXPECT_NE(back, first) << "filled again: a new serial";
  for (int round = 0; round < 30; ++round) look((static_cast<std::size_t>(round) * 3) % 5);
  std::sort(given.begin(), given.end());
  EXPECT_EQ(std::adjacent_find(given.begin(), given.end()), given.end()) << "a serial given twice";
}

}  // namespace
}  // namespace gpucost
