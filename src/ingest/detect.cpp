#include "gpucost/ingest/detect.hpp"

#include <algorithm>
#include <iterator>
#include <vector>

#include "gpucost/ingest/format.hpp"
#include "gpucost/ingest/paste_prefix.hpp"
#include "gpucost/ingest/shell_prompt.hpp"
#include "gpucost/text.hpp"

namespace gpucost {

namespace {
// Whether a word of the format's registered file name hints is in the (lower-cased) path.
bool name_hints_at(FormatId f, std::string_view lower_path) {
  std::string_view words = format_info(f).name_hints;
  while (!words.empty()) {
    const std::string_view w = text::next_token(words);
    if (!w.empty() && lower_path.find(w) != std::string_view::npos) return true;
  }
  return false;
}
}  // namespace

Detection detect_format(LineSource& src, std::string_view name_hint) {
  const auto formats = all_formats();
  std::vector<int> totals(formats.size(), 0), deep_totals(formats.size(), 0);
  Detection d;
  Line line;
  FormatId prompt_format = FormatId::unknown;
  ShellHints hints;
  std::size_t kernel_lines = 0, deep_kernel_lines = 0;
  while (d.lines_scored < kDetectLines && src.next(line)) {
    if (text::is_blank(line.text)) continue;
    if (parse_shell_prompt(line.text, &hints)) {
      if (prompt_format == FormatId::unknown) prompt_format = hints.format;
      continue;
    }
    ++d.lines_scored;
    std::string_view text = line.text;
    text.remove_prefix(paste_prefix_length(text));
    const std::size_t deep = message_start(text);
    for (std::size_t i = 0; i < formats.size(); ++i) {
      const int s = formats[i]->score(text);
      const int ds = deep ? formats[i]->score(text.substr(deep)) : s;
      deep_totals[i] += std::clamp(ds, 0, 100);
      if (ds >= kStrongKernelScore && formats[i]->id() == FormatId::dmesg) ++deep_kernel_lines;
      // A signature opens a file (truth.json: `{`, then its first key); further down it is one
      // more line, which a log may have quoted from anywhere.
      if (s == kSignatureScore && d.lines_scored <= 2) {
        d.format = formats[i]->id();
        d.score = kSignatureScore;
        return d;
      }
      totals[i] += std::clamp(s, 0, 100);
      if (s >= kStrongKernelScore && formats[i]->id() == FormatId::dmesg) ++kernel_lines;
    }
  }
  if (d.lines_scored == 0) return d;
  std::size_t best = 0;
  for (std::size_t i = 1; i < formats.size(); ++i)
    if (totals[i] > totals[best]) best = i;
  std::size_t second = formats.size();
  for (std::size_t i = 0; i < formats.size(); ++i)
    if (i != best && (second == formats.size() || totals[i] > totals[second])) second = i;
  // Near tie (within 5 %): the pasted command line, else the file name, may pick between the two
  // best.
  if (second < formats.size() && totals[second] > 0 && (totals[best] - totals[second]) * 20 <= totals[best]) {
    const FormatId runner_up = formats[second]->id();
    const bool hinted = prompt_format != FormatId::unknown ? prompt_format == runner_up
                                                           : name_hints_at(runner_up, text::to_lower(name_hint));
    if (hinted) std::swap(best, second);
  }
  d.score = totals[best];
  if (second < formats.size()) {
    d.runner_up = formats[second]->id();
    d.runner_up_score = totals[second];
  }
  const int enough = kMinMeanScore * static_cast<int>(d.lines_scored);
  const auto deep_best = static_cast<std::size_t>(
      std::distance(deep_totals.begin(), std::max_element(deep_totals.begin(), deep_totals.end())));
  if (totals[best] >= enough) {
    d.format = formats[best]->id();
  } else if (deep_totals[deep_best] >= enough) {
    // Read from where each line's log part starts (a pager cut the headers at the left margin).
    d.format = formats[deep_best]->id();
    d.score = deep_totals[deep_best];
    d.message_first = true;
  } else if (kernel_lines > 0 || deep_kernel_lines > 0) {
    // A careful reader finds the kernel's lines in a forum post: the message first, the layout
    // after (issue 36). dmesg reads an unstamped line as a message, so prose costs nothing.
    d.format = FormatId::dmesg;
    d.message_first = kernel_lines == 0;
    d.kernel_lines_in_text = kernel_lines > 0 ? kernel_lines : deep_kernel_lines;
  }
  return d;
}

}  // namespace gpucost
