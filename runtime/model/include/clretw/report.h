// clretw/report.h - RuntimeModel's answers as tables: text for a terminal, JSON lines and CSV for
// DuckDB, Spark or ClickHouse, or one self-contained HTML page (summary, plots, sortable tables).
//
//   std::vector<clretw::TraceReport> traces;          // one per trace, in command-line order
//   traces.push_back({"app.nettrace", std::move(model), ""});
//   clretw::ReportOptions o;
//   o.kinds = clretw::parse_report_kinds("gc,alloc").value();
//   o.format = clretw::ReportFormat::json;
//   clretw::write_report(std::cout, traces, o);
//
// JSON: one object per line, each with "table" (summary, gc, alloc, jit, exceptions, contention,
// threadpool), "trace" and "pid", then the table's columns. CSV: one table (one kind), with a
// header line; the columns are JSON's. Times in ms since the trace start, sizes in MB (10^6 bytes,
// as PerfView counts); -1 where the trace does not say.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "clretw/runtime_model.h"

namespace clretw {

enum ReportKind : unsigned {
  kReportSummary = 1, kReportGc = 2, kReportAlloc = 4, kReportJit = 8, kReportExceptions = 16,
  kReportContention = 32, kReportThreadPool = 64,
  kReportAll = 127
};
// "gc", "alloc", "jit", "exceptions", "contention", "threadpool", "summary" or "all", comma-separated;
// nullopt for an unknown name.
std::optional<unsigned> parse_report_kinds(std::string_view list) noexcept;
const char* report_kind_name(unsigned single_kind) noexcept;

enum class ReportFormat : std::uint8_t { text, json, csv, html };

struct ReportOptions {
  unsigned kinds = kReportAll;
  ReportFormat format = ReportFormat::text;
  std::size_t top = 20;  // text and HTML: rows of the allocation, exception and contention tables (JSON, CSV: all)
};

struct TraceReport {
  std::string trace;    // the trace's name, the "trace" column
  RuntimeModel model;   // finished
  std::string damage;   // where the trace is damaged, when it is ("" when read to its end)
};

// Every table `o.kinds` names for every trace; one table per kind, traces one after another.
// CSV needs exactly one kind (std::invalid_argument otherwise).
void write_report(std::ostream& out, const std::vector<TraceReport>& traces, const ReportOptions& o);
// The HTML page alone (write_report() calls it for ReportFormat::html): no network fetch of any
// kind; the plots are SVG written here, the sorting a few lines of script in the page.
void write_html_report(std::ostream& out, const std::vector<TraceReport>& traces, const ReportOptions& o);

// Names as the runtime's maps give them (GCType, GCReason, ThreadAdjustmentReason); the number for
// a value the map does not name.
std::string gc_type_name(std::uint32_t type);
std::string gc_reason_name(std::uint32_t reason);
std::string thread_adjustment_name(std::uint32_t reason);

// Why a figure a ProcessSummary did not record (ProcessSummary::not_recorded) says nothing, and what
// records it: "the trace has no event of keyword Contention (0x4000) at level 4 (informational) or a
// more verbose level; record it for this figure".
std::string not_recorded_reason(Figure figure);

// Pause percentiles of `gcs` (p in [0, 100], nearest rank); 0 for none.
double pause_percentile(const std::vector<const GcInfo*>& gcs, double p);

}  // namespace clretw
