#pragma once
/// \file cost_section.hpp
/// The cost block of the reports. `gpucost breakeven` prints it alone; `gpucost analyze` puts
/// the same block in its report as the section `cost`. Three renderings of one CostResult:
/// JSON (an object), rows of the analyze CSV layout (`id,name,value,unit,layer,reason,scope`
/// with layer `cost`) and a table for people. The cost model (cost/) computes; this renders.

#ifndef GPUCOST_LAYER_REPORT
#error "gpucost_report header: include it only in gpucost_report or a layer above it (docs/architecture.md, Layers)"
#endif

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/cost/model.hpp"
#include "gpucost/report/report.hpp"

namespace gpucost {
class JsonWriter;
class CsvWriter;
}  // namespace gpucost

namespace gpucost::cost {

/// Writes the cost object (inputs, local, cloud, break_even, sensitivity, steps, verdict_text).
void write_cost_json(JsonWriter& w, const CostResult& r);
/// Appends the cost rows in the analyze CSV layout (no header).
void write_cost_csv_rows(CsvWriter& c, const CostResult& r);
/// Appends the table block (with units, currency and a plain-language verdict).
void write_cost_table(std::string& out, const CostResult& r);

/// Appends the answer the reports open with (docs/cost-model.md, "The two questions"): the owner's
/// and the buyer's decision in a sentence each, the usage and its basis (and how to supply it when
/// unknown), the odds and what flips them, a small table of a month's cost each way by hours of
/// use, and any warning the inputs raise. Lines are indented by `indent`.
void write_answer_table(std::string& out, const CostResult& r, std::string_view indent = "  ");

/// Hours of use a month at which the answer's table compares owning and renting: round figures
/// around the threshold and the usage (when known), at most a month of 744 h.
std::vector<double> answer_hours(const CostResult& r);

}  // namespace gpucost::cost
