#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "sim/writers.hpp"

namespace gpucost::sim {

struct OutFile::Gz {
  z_stream z{};
  std::string out;
};

OutFile::OutFile(std::string path, bool gzip) : path_(std::move(path)) {
  buf_.reserve(kFlushAt + (64u << 10));
  if (!path_.empty()) {
    f_ = std::fopen(path_.c_str(), "wb");
    if (!f_) throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(errno));
  }
  if (gzip) {
    gz_ = std::make_unique<Gz>();
    // windowBits 15 + 16: a gzip wrapper whose header has no name and mtime 0, so the bytes
    // depend on the content only.
    if (deflateInit2(&gz_->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw std::runtime_error("zlib: deflateInit2 failed");
  }
}

OutFile::~OutFile() {
  try {
    close();
  } catch (...) {
  }
}

void OutFile::write_raw(const char* p, std::size_t n) {
  bytes_ += n;
  if (f_ && n && std::fwrite(p, 1, n, f_) != n) throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(errno));
}

void OutFile::flush() {
  if (!gz_) {
    write_raw(buf_.data(), buf_.size());
    buf_.clear();
    return;
  }
  auto& z = gz_->z;
  z.next_in = reinterpret_cast<Bytef*>(buf_.data());
  z.avail_in = static_cast<uInt>(buf_.size());
  gz_->out.resize(1u << 20);
  int ret = Z_OK;
  do {
    z.next_out = reinterpret_cast<Bytef*>(gz_->out.data());
    z.avail_out = static_cast<uInt>(gz_->out.size());
    ret = deflate(&z, closed_ ? Z_FINISH : Z_NO_FLUSH);
    write_raw(gz_->out.data(), gz_->out.size() - z.avail_out);
  } while (z.avail_out == 0 || (closed_ && ret == Z_OK));
  buf_.clear();
}

void OutFile::close() {
  if (closed_) return;
  closed_ = true;
  flush();
  if (gz_) deflateEnd(&gz_->z);
  if (f_) {
    const bool bad = std::fclose(f_) != 0;
    f_ = nullptr;
    if (bad) throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(errno));
  }
}

}  // namespace gpucost::sim
