#pragma once
// The lines of a file as a format sees them (ingest.cpp, chunked_parse.cpp).

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <string>

#include "gpucost/ingest/format.hpp"
#include "gpucost/ingest/line_source.hpp"
#include "gpucost/ingest/paste_prefix.hpp"
#include "gpucost/ingest/shell_prompt.hpp"

namespace gpucost {

// The file's lines as a format sees them: pasted shell prompt lines are taken out here, counted
// as prompts and turned into hints (FileSink::prompt), so that no format reads them as data; a
// paste prefix (quote marks, grep -H file names, pdsh hosts: paste_prefix.hpp) is taken off the
// front of a line and counted.
class PromptFilter final : public LineSource {
 public:
  /// `message_first`: also read each line from where its log part starts (message_start).
  PromptFilter(LineSource& inner, FileSink& sink, bool message_first = false)
      : inner_(inner), sink_(sink), message_first_(message_first) {}
  bool next(Line& line) override {
    while (inner_.next(line)) {
      if (!may_be_shell_prompt(line.text) || !parse_shell_prompt(line.text)) {
        std::size_t n = paste_prefix_length(line.text);
        if (message_first_) n += message_start(line.text.substr(n));
        if (n) {
          line.text.remove_prefix(n);
          ++sink_.diagnostics().paste_prefixed;
        }
        return true;
      }
      sink_.line_read(line);
      sink_.prompt(line);
    }
    return false;
  }
  // The prompt lines it skips come from inner_, which tells the keeper before it moves bytes.
  bool set_keeper(LineKeeper* keeper) noexcept override { return inner_.set_keeper(keeper); }
  std::size_t read_raw(std::size_t n, std::string& out) override { return inner_.read_raw(n, out); }
  bool rewind() override { return inner_.rewind(); }
  const std::string& error() const noexcept override { return inner_.error(); }
  Compression compression() const noexcept override { return inner_.compression(); }
  DecompressFailure failure() const noexcept override { return inner_.failure(); }
  std::uint64_t compressed_size() const noexcept override { return inner_.compressed_size(); }
  std::uint64_t bytes_read() const noexcept override { return inner_.bytes_read(); }
  std::uint64_t nul_bytes_skipped() const noexcept override { return inner_.nul_bytes_skipped(); }

 private:
  LineSource& inner_;
  FileSink& sink_;
  bool message_first_;
};

}  // namespace gpucost
