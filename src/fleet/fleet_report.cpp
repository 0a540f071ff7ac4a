// `gpucost fleet` output: one block per group (job, user, node, GPU model) and the fleet line,
// as a table for people, CSV and JSON for scripts. Costs are summed only in one currency.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "gpucost/fleet/fleet.hpp"
#include "gpucost/text/csv.hpp"
#include "gpucost/text/escape.hpp"
#include "gpucost/text/json.hpp"

namespace gpucost::fleet {

namespace {

constexpr std::pair<Group, std::string_view> kGroups[] = {
    {Group::kJob, "job"}, {Group::kUser, "user"}, {Group::kNode, "node"}, {Group::kGpuModel, "gpu_model"}};

// A total, or nullopt when no row had a value.
std::optional<double> total(const Sum& s) {
  if (s.known == 0) return std::nullopt;
  return s.value;
}

std::optional<double> per(const Sum& a, const Sum& b) {
  if (a.known == 0 || b.known == 0 || b.value <= 0) return std::nullopt;
  return a.value / b.value;
}

// The figures of one group, derived from its sums.
struct Figures {
  std::optional<double> allocated, busy, idle, unmeasured, unmeasured_share, effective, energy, busy_share, local_cost,
      idle_cost, cloud_cost, local_per_effective, cloud_per_effective, xid, incidents, lost_s;
  std::string cheaper;  // local, cloud, or "" when unknown
};

Figures figures(const Totals& t, bool costs) {
  Figures f;
  f.allocated = total(t.allocated_gpu_hours);
  f.busy = total(t.busy_gpu_hours);
  f.idle = total(t.idle_gpu_hours);
  f.unmeasured = total(t.unmeasured_gpu_hours);
  f.unmeasured_share = per(t.unmeasured_gpu_hours, t.allocated_gpu_hours);
  f.effective = total(t.effective_gpu_hours);
  f.energy = total(t.energy_kwh);
  f.busy_share = per(t.busy_gpu_hours, t.allocated_gpu_hours);
  f.xid = total(t.xid_events);
  f.incidents = total(t.incidents);
  f.lost_s = total(t.gpu_lost_s);
  if (costs) {
    f.local_cost = total(t.local_cost);
    f.idle_cost = total(t.idle_cost);
    f.cloud_cost = total(t.cloud_cost);
    f.local_per_effective = per(t.local_cost, t.effective_gpu_hours);
    f.cloud_per_effective = per(t.cloud_cost, t.effective_gpu_hours);
    if (f.local_cost && f.cloud_cost) f.cheaper = *f.local_cost <= *f.cloud_cost ? "local" : "cloud";
  }
  return f;
}

// Keys of a group, most idle cost first (then allocated hours, then the key itself).
std::vector<const std::pair<const std::string, Totals>*> sorted(const std::unordered_map<std::string, Totals>& m) {
  std::vector<const std::pair<const std::string, Totals>*> v;
  v.reserve(m.size());
  for (const auto& kv : m) v.push_back(&kv);
  std::sort(v.begin(), v.end(), [](auto* a, auto* b) {
    const double ia = a->second.idle_cost.value, ib = b->second.idle_cost.value;
    if (ia != ib) return ia > ib;
    const double ha = a->second.allocated_gpu_hours.value, hb = b->second.allocated_gpu_hours.value;
    if (ha != hb) return ha > hb;
    return a->first < b->first;
  });
  return v;
}

std::string cell(const std::optional<double>& v, int digits = 2) {
  return v ? fmt::format("{:.{}f}", *v, digits) : std::string("-");
}

std::string currency_of(const FleetSummary& s) {
  return s.currencies.size() == 1 ? *s.currencies.begin() : std::string();
}

bool costs_summable(const FleetSummary& s) { return s.currencies.size() <= 1; }

std::string verdict_text(const FleetSummary& s, const Figures& f) {
  if (!costs_summable(s))
    return fmt::format("no verdict: the rows are priced in {} currencies; analyze with one --currency",
                       s.currencies.size());
  if (!f.local_cost || !f.cloud_cost) return "no verdict: the rows carry no local or cloud cost";
  const std::string cur = currency_of(s);
  if (*f.local_cost <= *f.cloud_cost)
    return fmt::format("buy: owning cost {:.2f} {} for this usage; renting the same useful work would cost {:.2f} {}",
                       *f.local_cost, cur, *f.cloud_cost, cur);
  return fmt::format("rent: owning cost {:.2f} {} for this usage; renting the same useful work would cost {:.2f} {}",
                     *f.local_cost, cur, *f.cloud_cost, cur);
}

void write_figures_json(JsonWriter& w, const Totals& t, const Figures& f) {
  w.kv("gpu_rows", t.gpu_rows).kv("node_rows", t.node_rows);
  w.kv("allocated_gpu_hours", f.allocated).kv("busy_gpu_hours", f.busy).kv("idle_gpu_hours", f.idle);
  w.kv("unmeasured_gpu_hours", f.unmeasured).kv("unmeasured_share", f.unmeasured_share);
  w.kv("busy_share", f.busy_share).kv("effective_gpu_hours", f.effective).kv("energy_kwh", f.energy);
  w.kv("xid_events", f.xid).kv("incidents", f.incidents).kv("gpu_lost_s", f.lost_s);
  w.kv("local_cost", f.local_cost).kv("idle_cost", f.idle_cost).kv("cloud_cost", f.cloud_cost);
  w.kv("local_cost_per_effective_hour", f.local_per_effective)
      .kv("cloud_cost_per_effective_hour", f.cloud_per_effective);
  w.key("cheaper");
  if (f.cheaper.empty()) w.null();
  else w.value(f.cheaper);
  // Rows whose value was null: a total over fewer rows than it seems says so.
  w.key("rows_without").begin_object();
  const std::pair<std::string_view, const Sum*> sums[] = {{"allocated_gpu_hours", &t.allocated_gpu_hours},
                                                          {"busy_gpu_hours", &t.busy_gpu_hours},
                                                          {"idle_gpu_hours", &t.idle_gpu_hours},
                                                          {"unmeasured_gpu_hours", &t.unmeasured_gpu_hours},
                                                          {"effective_gpu_hours", &t.effective_gpu_hours},
                                                          {"energy_kwh", &t.energy_kwh},
                                                          {"local_cost", &t.local_cost},
                                                          {"cloud_cost", &t.cloud_cost},
                                                          {"incidents", &t.incidents},
                                                          {"gpu_lost_s", &t.gpu_lost_s}};
  for (const auto& [k, s] : sums)
    if (s->missing) w.kv(k, s->missing);
  w.end_object();
}

std::string render_json(const FleetSummary& s) {
  std::string out;
  JsonWriter w(out);
  const bool costs = costs_summable(s);
  w.begin_object();
  w.key("tool").begin_object().kv("name", "gpucost").kv("version", GPUCOST_VERSION).end_object();
  w.key("input").begin_object();
  w.kv("files", s.files).kv("bytes", s.bytes).kv("lines", s.lines).kv("blank_lines", s.blank_lines);
  w.kv("rows", s.rows).kv("malformed", s.malformed).kv("duplicates", s.duplicates).kv("summaries", s.summaries);
  w.key("refused").begin_object();
  for (const auto& [kind, n] : s.refused) w.kv(kind, n);
  w.end_object();
  w.key("schema_versions").begin_object();
  for (const auto& [v, n] : s.schema_versions) w.kv(fmt::format("{}", v), n);
  w.end_object();
  w.key("problems").begin_array();
  for (const auto& p : s.problems)
    w.begin_object().kv("file", p.file).kv("line", p.line).kv("kind", p.kind).kv("reason", p.reason).end_object();
  w.end_array();
  w.key("duplicate_rows").begin_array();
  for (const auto& d : s.duplicate_rows)
    w.begin_object()
        .kv("file", d.file)
        .kv("line", d.line)
        .kv("kept_file", d.kept_file)
        .kv("kept_line", d.kept_line)
        .end_object();
  w.end_array();
  w.key("unreadable").begin_array();
  for (const auto& u : s.unreadable) w.value(u);
  w.end_array();
  w.end_object();
  w.key("currency");
  if (costs && !s.currencies.empty()) w.value(*s.currencies.begin());
  else w.null();
  w.key("cloud_offers").begin_array();
  for (const auto& c : s.cloud_offers) w.value(c);
  w.end_array();
  const Figures ff = figures(s.fleet, costs);
  w.key("fleet").begin_object();
  write_figures_json(w, s.fleet, ff);
  w.kv("verdict", verdict_text(s, ff));
  w.end_object();
  for (const auto& [g, name] : kGroups) {
    w.key(fmt::format("by_{}", name)).begin_array();
    for (const auto* kv : sorted(s.group(g))) {
      w.begin_object().kv(name, kv->first);
      write_figures_json(w, kv->second, figures(kv->second, costs));
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();
  out += '\n';
  return out;
}

std::string render_csv(const FleetSummary& s) {
  std::string out;
  CsvWriter c(out);
  const bool costs = costs_summable(s);
  for (const char* h : {"group",
                        "key",
                        "gpu_rows",
                        "node_rows",
                        "allocated_gpu_hours",
                        "busy_gpu_hours",
                        "idle_gpu_hours",
                        "unmeasured_gpu_hours",
                        "busy_share",
                        "effective_gpu_hours",
                        "energy_kwh",
                        "xid_events",
                        "incidents",
                        "gpu_lost_s",
                        "local_cost",
                        "idle_cost",
                        "cloud_cost",
                        "local_cost_per_effective_hour",
                        "cloud_cost_per_effective_hour",
                        "cheaper",
                        "currency"})
    c.field(h);
  c.end_row();
  const std::string cur = costs ? currency_of(s) : std::string();
  auto row = [&](std::string_view group, std::string_view key, const Totals& t) {
    const Figures f = figures(t, costs);
    c.field(group).field(key).number(static_cast<double>(t.gpu_rows)).number(static_cast<double>(t.node_rows));
    for (const auto& v :
         {f.allocated, f.busy, f.idle, f.unmeasured, f.busy_share, f.effective, f.energy, f.xid, f.incidents, f.lost_s,
          f.local_cost, f.idle_cost, f.cloud_cost, f.local_per_effective, f.cloud_per_effective})
      c.number(v ? *v : NAN);
    c.field(f.cheaper).field(cur).end_row();
  };
  row("fleet", "all", s.fleet);
  for (const auto& [g, name] : kGroups)
    for (const auto* kv : sorted(s.group(g))) row(name, kv->first, kv->second);
  return out;
}

std::string render_table(const FleetSummary& s, std::size_t top) {
  std::string out;
  auto line = [&]<typename... Args>(fmt::format_string<Args...> f, Args&&... args) {
    fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
    out += '\n';
  };
  const bool costs = costs_summable(s);
  const std::string cur = costs ? currency_of(s) : std::string("?");
  line("gpucost {} fleet: {} rows from {} files ({} lines, {} malformed, {} duplicates dropped)", GPUCOST_VERSION,
       s.rows - s.duplicates, s.files, s.lines, s.malformed, s.duplicates);
  const Figures ff = figures(s.fleet, costs);
  line(
      "Fleet: {} GPU-hours allocated = {} busy ({}) + {} idle costing {} {} + {} unmeasured ({} of the allocation "
      "without samples); {} kWh; {} incidents",
      cell(ff.allocated), cell(ff.busy), ff.busy_share ? fmt::format("{:.1f} %", 100 * *ff.busy_share) : "-",
      cell(ff.idle), cell(ff.idle_cost), escape_control(cur), cell(ff.unmeasured),
      ff.unmeasured_share ? fmt::format("{:.1f} %", 100 * *ff.unmeasured_share) : "-", cell(ff.energy, 3),
      cell(ff.incidents, 0));
  std::vector<std::string> offers;
  for (const auto& o : s.cloud_offers) offers.push_back(escape_control(o));
  line(
      "Cost per effective GPU-hour: {} {} owned vs {} {} rented ({}), over {} measured effective GPU-hours; "
      "unmeasured hours count as cost, never as work",
      cell(ff.local_per_effective), escape_control(cur), cell(ff.cloud_per_effective), escape_control(cur),
      offers.empty() ? std::string("no cloud offer") : fmt::format("{}", fmt::join(offers, ", ")), cell(ff.effective));
  line("Buy vs rent for this usage: {}", escape_control(verdict_text(s, ff)));
  for (const auto& [g, name] : kGroups) {
    const auto keys = sorted(s.group(g));
    out += '\n';
    line("{:<24} {:>10} {:>10} {:>7} {:>10} {:>10} {:>9} {:>5} {:>10} {:>10} {}", fmt::format("by {}", name),
         "alloc GPUh", "busy GPUh", "busy %", "idle cost", "energy kWh", "incidents", "Xid", "own/effh", "rent/effh",
         "cheaper");
    std::size_t shown = 0;
    for (const auto* kv : keys) {
      if (top && shown++ >= top) {
        line("  ... {} more (all in --format csv or json)", keys.size() - top);
        break;
      }
      const Figures f = figures(kv->second, costs);
      std::string key = kv->first;
      if (key.size() > 24) {
        std::size_t cut = 21;  // not inside a UTF-8 character
        while (cut > 0 && (static_cast<unsigned char>(key[cut]) & 0xc0) == 0x80) --cut;
        key = escape_control(std::string_view(key).substr(0, cut)) + "...";
      } else {
        key = escape_control(key);
      }
      line("{:<24} {:>10} {:>10} {:>7} {:>10} {:>10} {:>9} {:>5} {:>10} {:>10} {}", key, cell(f.allocated),
           cell(f.busy), f.busy_share ? fmt::format("{:.1f}", 100 * *f.busy_share) : "-", cell(f.idle_cost),
           cell(f.energy, 3), cell(f.incidents, 0), cell(f.xid, 0), cell(f.local_per_effective),
           cell(f.cloud_per_effective), f.cheaper.empty() ? "-" : f.cheaper);
    }
  }
  if (s.malformed || !s.unreadable.empty()) {
    out += '\n';
    std::vector<std::string> kinds;
    for (const auto& [kind, n] : s.refused) kinds.push_back(fmt::format("{} {}", kind, n));
    line("Malformed rows: {} ({}; first {} listed; skipped, not counted above)", s.malformed,
         kinds.empty() ? std::string("none") : fmt::format("{}", fmt::join(kinds, ", ")), s.problems.size());
    for (const auto& p : s.problems)
      line("  {}:{}: {}: {}", escape_control(p.file), p.line, p.kind, escape_control(p.reason));
    for (const auto& u : s.unreadable) line("  unreadable: {}", escape_control(u));
  }
  if (s.duplicates) {
    out += '\n';
    line("Duplicate rows dropped: {} (the same row key again; first {} listed; not counted above)", s.duplicates,
         s.duplicate_rows.size());
    for (const auto& d : s.duplicate_rows)
      line("  {}:{}: duplicate of {}:{}", escape_control(d.file), d.line, escape_control(d.kept_file), d.kept_line);
  }
  return out;
}

// One self-contained page (inline CSS, no script), well-formed XML like analyze's HTML report;
// every text goes through append_xml_escaped.
std::string render_html(const FleetSummary& s, std::size_t top) {
  std::string out;
  auto text = [&](std::string_view t) { text::append_xml_escaped(out, t); };
  const bool costs = costs_summable(s);
  const std::string cur = costs ? currency_of(s) : std::string("?");
  const Figures ff = figures(s.fleet, costs);
  out +=
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>gpucost fleet</title>\n<style>"
      "body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}"
      "th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}th:first-child,td:first-child{text-align:left}"
      "th{background:#f2f2f2}.verdict{font-size:1.2em;font-weight:600}.bad{color:#a00}</style></head><body>\n";
  out += "<h1>gpucost fleet</h1>\n<p>";
  text(fmt::format("{} rows from {} files ({} lines, {} malformed, {} duplicates dropped); gpucost {}",
                   s.rows - s.duplicates, s.files, s.lines, s.malformed, s.duplicates, GPUCOST_VERSION));
  out += "</p>\n<p class=\"verdict\">";
  text(fmt::format("Buy vs rent for this usage: {}", verdict_text(s, ff)));
  out += "</p>\n<p>";
  text(fmt::format(
      "{} GPU-hours allocated = {} busy + {} idle costing {} {} + {} unmeasured (no samples); {} kWh; {} "
      "incidents; cost per measured effective GPU-hour {} {} owned vs {} {} rented (unmeasured hours "
      "count as cost, never as work).",
      cell(ff.allocated), cell(ff.busy), cell(ff.idle), cell(ff.idle_cost), cur, cell(ff.unmeasured),
      cell(ff.energy, 3), cell(ff.incidents, 0), cell(ff.local_per_effective), cur, cell(ff.cloud_per_effective), cur));
  out += "</p>\n";
  for (const auto& [g, name] : kGroups) {
    const auto keys = sorted(s.group(g));
    out += "<h2>";
    text(fmt::format("By {} ({} keys, most idle cost first)", name, keys.size()));
    out += "</h2>\n<table><tr>";
    for (const char* h : {name.data(), "allocated GPU-h", "busy GPU-h", "busy %", "idle GPU-h", "idle cost",
                          "energy kWh", "incidents", "Xid", "owned per eff. h", "rented per eff. h", "cheaper"}) {
      out += "<th>";
      text(h);
      out += "</th>";
    }
    out += "</tr>\n";
    std::size_t shown = 0;
    for (const auto* kv : keys) {
      if (top && shown++ >= top) break;
      const Figures f = figures(kv->second, costs);
      out += "<tr>";
      for (const std::string& c :
           {kv->first, cell(f.allocated), cell(f.busy),
            f.busy_share ? fmt::format("{:.1f}", 100 * *f.busy_share) : std::string("-"), cell(f.idle),
            cell(f.idle_cost), cell(f.energy, 3), cell(f.incidents, 0), cell(f.xid, 0), cell(f.local_per_effective),
            cell(f.cloud_per_effective), f.cheaper.empty() ? std::string("-") : f.cheaper}) {
        out += "<td>";
        text(c);
        out += "</td>";
      }
      out += "</tr>\n";
    }
    out += "</table>\n";
    if (top && keys.size() > top) {
      out += "<p>";
      text(fmt::format("... {} more (all in --format csv or json)", keys.size() - top));
      out += "</p>\n";
    }
  }
  if (s.malformed || !s.unreadable.empty()) {
    out += "<h2 class=\"bad\">";
    text(fmt::format("Malformed rows: {} (skipped)", s.malformed));
    out += "</h2>\n<ul>\n";
    for (const auto& p : s.problems) {
      out += "<li>";
      text(fmt::format("{}:{}: {}", p.file, p.line, p.reason));
      out += "</li>\n";
    }
    for (const auto& u : s.unreadable) {
      out += "<li>";
      text("unreadable: " + u);
      out += "</li>\n";
    }
    out += "</ul>\n";
  }
  if (s.duplicates) {
    out += "<h2>";
    text(fmt::format("Duplicate rows dropped: {} (the same row key again; not counted)", s.duplicates));
    out += "</h2>\n<ul>\n";
    for (const auto& d : s.duplicate_rows) {
      out += "<li>";
      text(fmt::format("{}:{}: duplicate of {}:{}", d.file, d.line, d.kept_file, d.kept_line));
      out += "</li>\n";
    }
    out += "</ul>\n";
  }
  out += "</body></html>\n";
  return out;
}

}  // namespace

std::string render_fleet(const FleetSummary& s, FleetFormat format, std::size_t top) {
  switch (format) {
    case FleetFormat::kJson: return render_json(s);
    case FleetFormat::kCsv: return render_csv(s);
    case FleetFormat::kTable: return render_table(s, top);
    case FleetFormat::kHtml: return render_html(s, top);
  }
  return {};
}

}  // namespace gpucost::fleet
