#pragma once
/// \file cost_section.hpp
/// The cost block of the reports. `gpucost breakeven` prints it alone; `gpucost analyze` puts
/// the same block in its report as the section `cost`. Three renderings of one CostResult:
/// JSON (an object), rows of the analyze CSV layout (`id,name,value,unit,layer,reason,scope`
/// with layer `cost`) and a table for people. The cost model (cost/) computes; this renders.

#include <memory>
#include <string>

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

/// The section `cost` for the analyze report.
ReportSection cost_section(std::shared_ptr<const CostResult> result);

}  // namespace gpucost::cost
