// Input descriptions and validation: impossible inputs are usage errors with one clear line.
#include "gpucost/cost/inputs.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace gpucost::cost {
namespace {

CostInputs valid() {
  CostInputs in;
  in.currency = "CNY";
  for (const auto& s : input_specs()) in.set(s.id, s.domain == Domain::kRatio ? 0.5 : 1.0, "test");
  return in;
}

// The message of the std::invalid_argument validate() throws, or "" when it accepts.
std::string error_of(const CostInputs& in, CostQuery q = {}) {
  try {
    validate(in, q);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

TEST(CostInputs, NamesFlagsAndUnits) {
  EXPECT_EQ(input_specs().size(), kInputCount);
  for (std::size_t i = 0; i < kInputCount; ++i) EXPECT_EQ(static_cast<std::size_t>(input_specs()[i].id), i);
  EXPECT_EQ(input_name(InputId::kPowerW), "local.power_w");
  EXPECT_EQ(input_flag(InputId::kPowerW), "--local-power-w");
  EXPECT_EQ(input_flag(InputId::kHourlyRate), "--cloud-hourly-rate");
  EXPECT_EQ(input_unit(InputId::kElectricityPrice, "CNY"), "CNY/kWh");
  EXPECT_EQ(input_unit(InputId::kPurchasePrice, "USD"), "USD");
  EXPECT_EQ(find_input(Side::kCloud, "cold_start_s"), InputId::kColdStartS);
  EXPECT_FALSE(find_input(Side::kLocal, "cold_start_s"));
}

TEST(CostInputs, DefaultsAreTheArticlesFigures) {
  EXPECT_DOUBLE_EQ(spec(InputId::kAmortizationHours).fallback, 24 * 30 * 8);
  EXPECT_DOUBLE_EQ(spec(InputId::kHoursPerIncident).fallback, 47.0 / 60);
  EXPECT_DOUBLE_EQ(spec(InputId::kIncidentsPerHour).fallback, 12.0 / 5760);
  EXPECT_NEAR(spec(InputId::kEffectiveUtilization).fallback, 0.7666, 1e-12);
  EXPECT_TRUE(std::isnan(spec(InputId::kPurchasePrice).fallback));  // no price without a preset
}

TEST(CostInputs, AcceptsValidInputs) { EXPECT_EQ(error_of(valid()), ""); }

TEST(CostInputs, NegativePriceIsImpossible) {
  CostInputs in = valid();
  in.set(InputId::kPurchasePrice, -1, "cli");
  const std::string e = error_of(in);
  EXPECT_NE(e.find("local.purchase_price = -1 CNY (cli)"), std::string::npos) << e;
  EXPECT_NE(e.find("must not be negative"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << "one line";
}

TEST(CostInputs, UtilizationAboveOneIsImpossible) {
  CostInputs in = valid();
  in.set(InputId::kUtilization, 1.2, "config");
  EXPECT_NE(error_of(in).find("cloud.utilization = 1.2 ratio (config)"), std::string::npos);
  in = valid();
  in.set(InputId::kEffectiveUtilization, 1.01, "cli");
  EXPECT_NE(error_of(in).find("between 0 and 1"), std::string::npos);
}

TEST(CostInputs, ZeroPeriodsAndSpeedAreImpossible) {
  for (InputId id : {InputId::kAmortizationHours, InputId::kAmortizationMonths, InputId::kRelativeSpeed}) {
    CostInputs in = valid();
    in.set(id, 0, "cli");
    EXPECT_NE(error_of(in).find("greater than 0"), std::string::npos) << input_name(id);
  }
}

TEST(CostInputs, NonFiniteValuesAreImpossible) {
  CostInputs in = valid();
  in.set(InputId::kPowerW, std::numeric_limits<double>::quiet_NaN(), "cli");
  EXPECT_NE(error_of(in).find("not a finite number"), std::string::npos);
  in.set(InputId::kPowerW, std::numeric_limits<double>::infinity(), "cli");
  EXPECT_NE(error_of(in).find("not a finite number"), std::string::npos);
}

TEST(CostInputs, BothSidesIdleIsImpossible) {
  CostInputs in = valid();
  in.set(InputId::kEffectiveUtilization, 0, "cli");
  EXPECT_EQ(error_of(in), "");  // one idle side is a verdict, not an error
  in.set(InputId::kUtilization, 0, "cli");
  EXPECT_NE(error_of(in).find("neither GPU does any work"), std::string::npos);
}

TEST(CostInputs, MissingValueSaysHowToGiveIt) {
  CostInputs in = valid();
  in[InputId::kHourlyRate] = InputValue{};
  const std::string e = error_of(in);
  EXPECT_NE(e.find("no value for cloud.hourly_rate"), std::string::npos) << e;
  EXPECT_NE(e.find("--cloud-hourly-rate"), std::string::npos) << e;
}

TEST(CostInputs, PresetMoneyInAnotherCurrencyIsRefused) {
  CostInputs in = valid();
  in[InputId::kHourlyRate].currency = "USD";
  in[InputId::kHourlyRate].origin = "preset:aws-g6.xlarge";
  const std::string e = error_of(in);
  EXPECT_NE(e.find("converts currencies only with an explicit, dated rate"), std::string::npos) << e;
  EXPECT_NE(e.find("--fx FILE"), std::string::npos) << e;
  in[InputId::kHourlyRate].currency = "CNY";
  EXPECT_EQ(error_of(in), "");
}

TEST(CostInputs, QueryMustBeSensible) {
  EXPECT_NE(error_of(valid(), CostQuery{0, 0.12}).find("--job-hours"), std::string::npos);
  EXPECT_NE(error_of(valid(), CostQuery{1, -1}).find("--target-premium"), std::string::npos);
  EXPECT_EQ(error_of(valid(), CostQuery{1, -0.5}), "");
}

}  // namespace
}  // namespace gpucost::cost
