#pragma once
// A log file mapped into memory, read in place: no copy from the page cache into a buffer (the
// copy was a tenth of the whole run's time). Safe against the one danger of mapping a file that
// another process may change: when the file shrinks under the mapping (logrotate's
// copytruncate, a collector restarting), touching a page past its new end raises SIGBUS. A
// process-wide handler knows every live mapping; a fault inside one maps zero pages over the
// rest of that mapping, counts the fault and returns, so the read goes on with zeros and the
// reader, which checks the mark, stops at the file's new end: what read() would have given.
// Faults anywhere else keep the default action.
//
// Pages already read are dropped from the mapping as the reader moves on, so the peak resident
// memory stays at a few MiB per file, not the file's size.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace gpucost {

class MappedFile {
 public:
  /// Maps the first `size` bytes of the open file `fd` (which the caller keeps and closes).
  /// nullptr when the file cannot be mapped (the caller reads it instead).
  static std::unique_ptr<MappedFile> map(int fd, std::uint64_t size);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  /// The bytes, as they were when mapped (zeros past a new end once the file shrank).
  std::string_view bytes() const noexcept { return {data_, size_}; }

  /// How many reads past the file's end were caught so far (more than 0: the file shrank while
  /// mapped). A reader tests it on every line: it changes only inside a read of its own thread.
  const std::atomic<unsigned>& faults() const noexcept;

  /// Where the zeros start that replaced what was lost (the size when nothing was).
  std::size_t zeros_from() const noexcept;

  /// Drops the pages before `offset` from memory (they will not be read again).
  void release_before(std::uint64_t offset) noexcept;
  /// Drops the whole pages inside [from, to) from memory (a chunk's reader, behind itself: the
  /// readers of the chunks around it may touch the pages at its edges again, which reads them
  /// back from the page cache).
  void release(std::uint64_t from, std::uint64_t to) const noexcept;

 private:
  MappedFile(const char* data, std::size_t size, int slot) : data_(data), size_(size), slot_(slot) {}

  const char* data_;
  std::size_t size_;
  int slot_;  // index in the handler's table of live mappings
  std::size_t released_ = 0;
};

}  // namespace gpucost
