// The format registration (GPUCOST_FORMATS in records/formats.hpp) and every format's sample lines
// (LogFormat::samples, lnav's idea): each registered format's samples are detected as that
// format and parsed without a rejected line into as many rows and events as the sample says.
// A new format is covered here by its registration row alone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpucost/ingest/detect.hpp"
#include "gpucost/ingest/format.hpp"
#include "gpucost/ingest/ingest.hpp"

namespace gpucost {
namespace {

std::vector<FormatId> registered_formats() {
  std::vector<FormatId> ids;
  for (std::size_t i = 0; i < kFormatCount; ++i) ids.push_back(static_cast<FormatId>(i));
  return ids;
}

TEST(FormatRegistry, EveryRowHasItsParserInRowOrder) {
  ASSERT_EQ(all_formats().size(), kFormatCount);
  for (std::size_t i = 0; i < kFormatCount; ++i) {
    const auto id = static_cast<FormatId>(i);
    EXPECT_EQ(all_formats()[i]->id(), id) << format_name(id);
    EXPECT_EQ(find_format(id), all_formats()[i]) << format_name(id);
  }
  EXPECT_EQ(find_format(FormatId::unknown), nullptr);
  EXPECT_EQ(format_name(FormatId::unknown), "unknown");
  EXPECT_EQ(format_info(FormatId::unknown).traits, 0u);
}

TEST(FormatRegistry, FamiliesAndTraitsAreThoseTheStagesRelyOn) {
  // The stages read these traits instead of naming formats: features (which logs are present),
  // align (one GPU sample source at a time, dmon first) and the diagnostics (usable files).
  EXPECT_LT(format_info(FormatId::dmon).sample_priority, format_info(FormatId::query_gpu_csv).sample_priority);
  EXPECT_GT(format_info(FormatId::dmon).sample_priority, 0);
  // pmon's GPU samples (its processes' sums) count only where no other source samples the GPU.
  EXPECT_GT(format_info(FormatId::pmon).sample_priority, format_info(FormatId::dcgmi_dmon).sample_priority);
  for (FormatId f : {FormatId::dmesg, FormatId::syslog, FormatId::journal_short, FormatId::journal_json,
                     FormatId::journal_export})
    EXPECT_TRUE(format_has(f, kTraitKernelLog)) << format_name(f);
  EXPECT_FALSE(format_has(FormatId::dmesg, kTraitServiceLog));
  EXPECT_TRUE(format_has(FormatId::sim_truth, kTraitNotALog));
  EXPECT_EQ(format_family(FormatId::journal_export), "journal");
}

// journalctl's short output and a classic syslog file can be byte-identical: the file name
// hints of the runner-up's registration row decide.
TEST(FormatRegistry, TheRunnerUpsFileNameHintsBreakANearTie) {
  const std::string text =
      "Nov 29 11:28:12 zeus systemd[1]: Started Session 4 of user alice.\n"
      "Nov 29 11:28:13 zeus CRON[2201]: (root) CMD (run-parts /etc/cron.hourly)\n";
  auto detect = [&](std::string_view name) {
    auto src = make_buffer_source(text, kDefaultMaxLineLength);
    return detect_format(*src, name).format;
  };
  EXPECT_EQ(detect("log.txt"), FormatId::syslog);  // a tie without a hint: the earlier row
  EXPECT_EQ(detect("logs/journal.txt"), FormatId::journal_short);
  EXPECT_EQ(detect("var/log/kern.log"), FormatId::syslog);
  EXPECT_EQ(detect("var/log/messages"), FormatId::syslog);
  EXPECT_EQ(detect("LOGS/JOURNAL.TXT"), FormatId::journal_short);  // matched case-insensitively
}

class FormatSamples : public ::testing::TestWithParam<FormatId> {};

TEST_P(FormatSamples, AreDetectedAndParsedWithoutRejection) {
  const FormatId id = GetParam();
  const LogFormat* format = find_format(id);
  ASSERT_NE(format, nullptr);
  ASSERT_FALSE(format->samples().empty()) << "every registered format carries sample lines";
  IngestOptions options;
  options.threads = 1;
  const IngestStage stage(options);
  for (const FormatSample& s : format->samples()) {
    SCOPED_TRACE(std::string(s.source));
    IngestResult out;
    Diagnostics diag;
    stage.run_buffer(s.text, s.file_name, FormatId::unknown, out, diag);
    ASSERT_EQ(diag.files.size(), 1u);
    const FileDiagnostics& d = diag.files.front();
    EXPECT_EQ(format_name(d.format), format_name(id)) << "runner-up " << format_name(d.runner_up);
    EXPECT_EQ(d.rejected(), 0u) << (d.samples.empty() ? std::string() : d.samples.front().reason);
    EXPECT_GT(d.accepted, 0u);
    EXPECT_EQ(d.records, s.records);
    // The registered sample priority says whether the format writes GPU sample rows.
    if (format_samples_gpus(id)) EXPECT_GT(out.samples.rows(), 0u);
    else EXPECT_EQ(out.samples.rows(), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, FormatSamples, ::testing::ValuesIn(registered_formats()),
                         [](const ::testing::TestParamInfo<FormatId>& info) {
                           return std::string(format_name(info.param));
                         });

}  // namespace
}  // namespace gpucost
