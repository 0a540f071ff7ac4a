#include "gpucost/cost/stage.hpp"

#include <fmt/format.h>

#include <chrono>
#include <tuple>

#include "gpucost/cost/from_logs.hpp"
#include "gpucost/features/feature_ids.hpp"
#include "gpucost/features/features.hpp"

namespace gpucost::cost {

std::shared_ptr<const CostResult> CostStage::run(const Timeline* timeline, const FeatureSet* features) const {
  ResolveRequest rq = setup_.request;
  if (timeline) {
    rq.detected_gpus = named_gpus(*timeline);
    rq.detected_power_limits_w = power_limits(*timeline);
    rq.mig_slice = mig_slice(*timeline);
    rq.logs_read = true;
  }
  if (features) rq.measured = measured_from_features(*features, setup_.measured);
  if (features && timeline && setup_.measured)
    for (auto& m : rq.measured)
      if (m.input == InputId::kJobStallFraction) m = measure_job_stalls(*timeline, *features);
  if (features && setup_.measured) {
    const auto sm = features->get(FeatureId::gpu_util_busy_mean_pct);
    const auto mem = features->get(FeatureId::gpu_mem_util_busy_mean_pct);
    if (sm && mem && *sm > 0)
      rq.activity =
          ResolveRequest::Activity{*sm, *mem,
                                   fmt::format("measured:{}/{}", feature_code(FeatureId::gpu_mem_util_busy_mean_pct),
                                               feature_code(FeatureId::gpu_util_busy_mean_pct))};
  }
  if (timeline && setup_.measured) rq.host_power = measure_host_power(*timeline);
  if (timeline && features) {
    if (setup_.measured) rq.usage = measure_usage(*timeline, *features, rq.min_usage_span_days);
    std::tie(rq.gpu_count, rq.gpu_count_note) = gpu_count(*timeline, *features);
  }
  CostQuery q;
  const CostInputs in = resolve_inputs(setup_.catalog, rq, &q);
  auto result = std::make_shared<CostResult>(evaluate(in, q));
  result->price_warnings = stale_prices(in);
  return result;
}

std::vector<std::string> stale_prices(const CostInputs& in) {
  std::vector<std::string> out;
  const auto today = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  const std::chrono::year_month_day ymd{today};
  const std::string now = fmt::format("{:04}-{:02}-{:02}", static_cast<int>(ymd.year()),
                                      static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
  auto check = [&](std::string_view what, const std::string& name, const std::string& observed, InputId id) {
    if (name.empty() || !in[id].value || in[id].origin != "preset:" + name) return;
    if (observed.empty()) {
      out.push_back(
          fmt::format("the {} of {} has no date: check it, or give a dated one with --catalog FILE", what, name));
      return;
    }
    const auto days = days_between(observed, now);
    if (days && *days > kStalePriceDays)
      out.push_back(
          fmt::format("the {} of {} was observed on {}, {} days ago (more than {}): prices move; refresh "
                      "it with --catalog FILE or give it as an option",
                      what, name, observed, *days, kStalePriceDays));
  };
  check("purchase price", in.local_gpu, in.local_price_observed_on, InputId::kPurchasePrice);
  check("hourly rate", in.cloud_offer, in.cloud_price_observed_on, InputId::kHourlyRate);
  return out;
}

}  // namespace gpucost::cost
