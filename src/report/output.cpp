#include "gpucost/report/output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace gpucost {

namespace {
constexpr std::size_t kFlushAt = 1 << 20;
}

Output::Output(std::string path) : path_(std::move(path)) {
  if (path_.empty() || path_ == "-") {
    fd_ = 1;
    return;
  }
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    // A device or FIFO (/dev/stdout, /dev/full, a named pipe): write to it directly; renaming a
    // temporary file over it would replace the node.
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) {
      error_ = "cannot write " + path_ + ": " + std::strerror(errno);
      failed_ = true;
    }
    return;
  }
  tmp_path_ = path_ + ".tmp." + std::to_string(::getpid());
  fd_ = ::open(tmp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    error_ = "cannot write " + path_ + ": " + std::strerror(errno);
    failed_ = true;
  }
}

Output::~Output() {
  if (fd_ > 1) ::close(fd_);
  if (!finished_ && !tmp_path_.empty()) ::unlink(tmp_path_.c_str());
}

WriteStatus Output::write(std::string_view data) {
  if (failed_) return WriteStatus::kError;
  if (closed_pipe_) return WriteStatus::kClosedPipe;
  buffer_.append(data);
  if (buffer_.size() >= kFlushAt) return flush();
  return WriteStatus::kOk;
}

WriteStatus Output::flush() {
  std::size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE && fd_ == 1) {
        closed_pipe_ = true;
        buffer_.clear();
        return WriteStatus::kClosedPipe;
      }
      error_ = "cannot write " + (fd_ == 1 ? std::string("standard output") : path_) + ": " + std::strerror(errno);
      failed_ = true;
      buffer_.clear();
      return WriteStatus::kError;
    }
    done += static_cast<std::size_t>(n);
  }
  buffer_.clear();
  return WriteStatus::kOk;
}

WriteStatus Output::finish() {
  if (failed_) return WriteStatus::kError;
  if (closed_pipe_) return WriteStatus::kClosedPipe;
  const WriteStatus s = flush();
  if (s != WriteStatus::kOk) return s;
  if (fd_ == 1) return WriteStatus::kOk;
  if (tmp_path_.empty()) {  // written in place (device or FIFO)
    finished_ = true;
    return WriteStatus::kOk;
  }
  if (::fsync(fd_) != 0 && errno != EINVAL) {
    error_ = "cannot write " + path_ + ": " + std::strerror(errno);
    failed_ = true;
    return WriteStatus::kError;
  }
  ::close(fd_);
  fd_ = -1;
  if (std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    error_ = "cannot rename into " + path_ + ": " + std::strerror(errno);
    failed_ = true;
    return WriteStatus::kError;
  }
  finished_ = true;
  return WriteStatus::kOk;
}

}  // namespace gpucost
