#pragma once
/// \file findings.hpp
/// The findings stage: rules that read the features, the timeline's events and the cost result
/// and say what the logs ask a person to do, with the evidence (feature values, events with
/// file:line) and what it costs. One table in src/findings/rules.cpp is the single source of
/// truth for the rules; docs/findings.md is generated from it (`gpucost findings --format md`).

#ifndef GPUCOST_LAYER_FINDINGS
#error "gpucost_findings header: include it only in gpucost_findings or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/align/timeline.hpp"
#include "gpucost/cost/model.hpp"
#include "gpucost/features/features.hpp"

namespace gpucost::findings {

/// How urgent a finding is.
enum class Severity : std::uint8_t { kInfo, kWarning, kCritical };
/// `info`, `warning`, `critical`.
std::string_view severity_name(Severity s) noexcept;

/// Thresholds of the rules (analyze options; defaults documented in docs/findings.md).
struct FindingOptions {
  /// --finding-idle-fraction: share of sampled GPU time idle from which idling is a finding.
  double idle_fraction = 0.10;
  /// --finding-cpu-competing: mean %CPU of everything but the top process (F102) from which the
  /// CPU is taken as saturated by competition (100 = one whole core).
  double cpu_competing_pct = 100.0;
  /// --finding-throttled-fraction: share of samples throttled by power or heat (F047) from which
  /// throttling is a finding.
  double throttled_fraction = 0.05;
  /// --finding-battery-s: seconds on battery from which a laptop's power is a finding.
  double battery_s = 60.0;
  /// --finding-rma-xids: hardware Xids (memory, bus) from which a board is an RMA candidate.
  int rma_hardware_xids = 3;
  /// --finding-xid-escalation: the same hardware Xid seen again after this many resets or
  /// reboots of its GPU escalates from the driver's recovery action to inspect / RMA.
  int xid_escalation_recoveries = 1;
  /// --ignore-finding RULE (repeatable): rules, by id (`R02`) or name, whose findings are left
  /// out; the report lists them in an `ignored_findings` finding, never drops them silently.
  std::vector<std::string> ignore;
};

/// One feature value that supports a finding.
struct FeatureEvidence {
  std::string id;    ///< `F018`
  std::string name;  ///< `gpu_idle_s`
  std::optional<double> value;
  std::string unit;
};

/// One timeline event that supports a finding, where it was read.
struct EventEvidence {
  std::string kind;  ///< `xid`
  TimeNs ts = kNoTime;
  std::string file;  ///< path relative to the input directory
  std::uint64_t line = 0;
  std::string text;  ///< the message (first line)
};

/// What a finding costs, in the report's currency.
struct Money {
  std::optional<double> over_span;  ///< over the logs' span
  std::optional<double> per_month;  ///< per month at the measured usage
  std::string currency;
  std::string basis;  ///< how it was computed, or why it is null
};

/// What the logs say to do.
struct Finding {
  std::string id;    ///< the rule id (`R01`)
  std::string rule;  ///< the rule name (`input_pipeline_bound`)
  Severity severity = Severity::kInfo;
  std::string title;       ///< one line
  std::vector<FeatureEvidence> features;
  std::vector<EventEvidence> events;  ///< the first few, in time order
  std::uint64_t events_total = 0;     ///< all events of the finding (events holds the first)
  Money money;
  std::string next_step;   ///< the concrete next step
  std::string to_confirm;  ///< what would confirm it when a source is missing (empty: nothing)
};

/// One rule of the table.
struct RuleDef {
  std::string_view id;          ///< `R01`
  std::string_view name;        ///< snake_case, stable
  std::string_view fires_when;  ///< the condition, with the options it uses
  std::string_view money;       ///< how its cost is computed
  std::string_view rationale;   ///< why an operator cares
  std::string_view normal;      ///< what the rule considers normal: no finding, or info only
};

/// The rule table, in id order.
std::span<const RuleDef> finding_rules();

/// Whether `id_or_name` names a rule (`R02` or `thermal_or_power_throttling`), for
/// --ignore-finding's validation.
bool is_rule(std::string_view id_or_name) noexcept;

/// Runs every rule. `cost` may be null (no cost section: money is null with that reason).
/// Findings come sorted by severity (critical first), then money per month (largest first),
/// then rule id.
std::vector<Finding> find(const Timeline& timeline, const FeatureSet& features, const cost::CostResult* cost,
                          const FindingOptions& options);

/// The rule table as text: `table` or `md` (the whole of docs/findings.md). Throws
/// std::invalid_argument for another format.
std::string render_finding_rules(std::string_view format);

/// A money amount with its currency (`12.3 CNY`); `-` when null.
std::string format_money(const std::optional<double>& v, std::string_view currency);

}  // namespace gpucost::findings
