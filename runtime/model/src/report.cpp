// The report's tables: each kind's rows are cells with a column name, written as aligned text,
// JSON lines or CSV by one writer each - the columns are the same in every format.
#include "clretw/report.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "clretw/dotnet_runtime.h"
#include "clretw/format.h"
#include "clretw/text.h"

namespace clretw {

namespace {

namespace rt = dotnet_runtime;

struct Cell {
  enum class Kind : std::uint8_t { text, integer, real, boolean } kind = Kind::text;
  std::string text;
  std::int64_t integer = 0;
  double real = 0;
  int decimals = 3;
};

struct Column {
  const char* name;
  bool in_text;  // shown in the terminal's table (JSON and CSV have every column)
};

// Where a table's rows go, one at a time: JSON lines, CSV lines, or a terminal's table, which is
// made twice - once to measure its columns, once to write it. No table is held in memory.
struct Sink {
  enum class Mode : std::uint8_t { json, csv, measure, text } mode = Mode::json;
  std::ostream* out = nullptr;
  bool with_trace = false;               // text: the trace column (several traces)
  std::vector<std::size_t> widths;       // text: filled by measure
  std::vector<bool> text_column;         // text: left-aligned columns, from the first row
  std::vector<std::size_t> shown;        // text: the columns shown, as indices into a row (set by header())
  std::uint64_t rows = 0;
};

// One table: a kind's columns; its rows go to the sink as they are made.
class Table {
 public:
  Table(const char* kind, std::vector<Column> columns, Sink& sink) : kind_(kind), columns_(std::move(columns)), sink_(sink) {}
  ~Table() { flush(); }
  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;
  // Starts a row for `trace`, process `pid`; then one add() per column, in order.
  void row(const std::string& trace, std::uint32_t pid) {
    flush();
    add(trace);
    add(static_cast<std::int64_t>(pid));
  }
  void add(std::string s) {
    Cell c;
    c.text = std::move(s);
    row_.push_back(std::move(c));
  }
  void add(std::int64_t v) {
    Cell c;
    c.kind = Cell::Kind::integer;
    c.integer = v;
    row_.push_back(std::move(c));
  }
  void add(double v, int decimals) {
    Cell c;
    c.kind = Cell::Kind::real;
    c.real = v;
    c.decimals = decimals;
    row_.push_back(std::move(c));
  }
  void add_bool(bool v) {
    Cell c;
    c.kind = Cell::Kind::boolean;
    c.integer = v;
    row_.push_back(std::move(c));
  }
  // The header (CSV, text): call before the first row.
  void header();

 private:
  void flush();
  static std::string plain(const Cell& c, bool grouped);
  const std::vector<std::size_t>& shown();  // text: the columns shown, as indices into a row
  std::string name(std::size_t i) const { return i == 0 ? "trace" : i == 1 ? "pid" : columns_[i - 2].name; }
  void put(std::string& line, std::size_t j, std::size_t last, const std::string& v) const;
  const char* kind_;
  std::vector<Column> columns_;  // after "trace" and "pid"
  Sink& sink_;
  std::vector<Cell> row_;
  std::string line_;
};

std::string number(double v, int decimals) {
  if (!std::isfinite(v)) return v != v ? "NaN" : v > 0 ? "Infinity" : "-Infinity";
  if (v == -1) return "-1";
  char b[400];  // (a double's fixed form is at most 309 digits before the point)
  const auto r = std::to_chars(b, b + sizeof b, v, std::chars_format::fixed, decimals);
  return std::string(b, r.ptr);
}

// 1234567.891 -> "1,234,567.891" (text tables).
std::string grouped(std::string s) {
  std::size_t end = s.find('.');
  if (end == std::string::npos) end = s.size();
  std::size_t begin = (s[0] == '-') ? 1 : 0;
  for (std::size_t i = end; i > begin + 3; i -= 3) s.insert(i - 3, 1, ',');
  return s;
}

// Code points, as a terminal lays them out (type names are not all ASCII).
std::size_t utf8_length(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char ch : s) n += (ch & 0xC0) != 0x80;
  return n;
}

std::string Table::plain(const Cell& c, bool group) {
  switch (c.kind) {
    case Cell::Kind::text: return c.text;
    case Cell::Kind::integer: return group ? grouped(std::to_string(c.integer)) : std::to_string(c.integer);
    case Cell::Kind::real: return group && c.real != -1 ? grouped(number(c.real, c.decimals)) : number(c.real, c.decimals);
    case Cell::Kind::boolean: return c.integer ? "true" : "false";
  }
  return {};
}

const std::vector<std::size_t>& Table::shown() {
  std::vector<std::size_t>& cols = sink_.shown;
  if (!cols.empty()) return cols;
  if (sink_.with_trace) cols.push_back(0);
  cols.push_back(1);
  for (std::size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i].in_text) cols.push_back(i + 2);
  return cols;
}

// Text columns align left, numbers right; the last column is not padded.
void Table::put(std::string& line, std::size_t j, std::size_t last, const std::string& v) const {
  if (j) line += "  ";
  const std::size_t width = j < sink_.widths.size() ? sink_.widths[j] : 0;
  const std::size_t length = utf8_length(v);
  const std::size_t pad = width > length ? width - length : 0;
  if (j < sink_.text_column.size() && sink_.text_column[j]) {
    line += v;
    if (j != last) line.append(pad, ' ');
  } else {
    line.append(pad, ' ');
    line += v;
  }
}

void Table::header() {
  line_.clear();
  if (sink_.mode == Sink::Mode::csv) {
    line_ = "trace,pid";
    for (const Column& c : columns_) (line_ += ',') += c.name;
  } else if (sink_.mode == Sink::Mode::text) {
    const auto& cols = shown();
    for (std::size_t j = 0; j < cols.size(); ++j) put(line_, j, cols.size() - 1, name(cols[j]));
  } else if (sink_.mode == Sink::Mode::measure) {
    const auto& cols = shown();
    sink_.widths.assign(cols.size(), 0);
    for (std::size_t j = 0; j < cols.size(); ++j) sink_.widths[j] = name(cols[j]).size();
    return;
  } else {
    return;
  }
  line_ += '\n';
  sink_.out->write(line_.data(), static_cast<std::streamsize>(line_.size()));
}

void Table::flush() {
  if (row_.empty()) return;
  ++sink_.rows;
  line_.clear();
  switch (sink_.mode) {
    case Sink::Mode::json:
      line_ = "{\"table\":\"";
      line_ += kind_;
      line_ += '"';
      for (std::size_t i = 0; i < row_.size(); ++i) {
        line_ += ",\"";
        line_ += name(i);
        line_ += "\":";
        const Cell& c = row_[i];
        if (c.kind == Cell::Kind::text) {
          line_ += '"';
          append_json_escaped(line_, c.text);
          line_ += '"';
        } else if (c.kind == Cell::Kind::real && !std::isfinite(c.real)) {
          line_ += '"' + number(c.real, c.decimals) + '"';
        } else {
          line_ += plain(c, false);
        }
      }
      line_ += "}\n";
      break;
    case Sink::Mode::csv:
      for (std::size_t i = 0; i < row_.size(); ++i) {
        if (i) line_ += ',';
        const std::string v = plain(row_[i], false);
        if (row_[i].kind == Cell::Kind::text && v.find_first_of(",\"\n\r") != std::string::npos) {
          line_ += '"';
          for (char ch : v) {
            if (ch == '"') line_ += '"';
            line_ += ch;
          }
          line_ += '"';
        } else {
          line_ += v;
        }
      }
      line_ += '\n';
      break;
    case Sink::Mode::measure: {
      const auto& cols = shown();
      if (sink_.text_column.empty())
        for (std::size_t col : cols) sink_.text_column.push_back(row_[col].kind == Cell::Kind::text);
      if (sink_.widths.size() < cols.size()) sink_.widths.resize(cols.size(), 0);
      for (std::size_t j = 0; j < cols.size(); ++j)
        sink_.widths[j] = std::max(sink_.widths[j], utf8_length(plain(row_[cols[j]], cols[j] != 1)));
      row_.clear();
      return;
    }
    case Sink::Mode::text: {
      const auto& cols = shown();
      for (std::size_t j = 0; j < cols.size(); ++j) put(line_, j, cols.size() - 1, plain(row_[cols[j]], cols[j] != 1));
      line_ += '\n';
      break;
    }
  }
  row_.clear();
  sink_.out->write(line_.data(), static_cast<std::streamsize>(line_.size()));
}

std::string map_name(std::string_view name, std::uint32_t value) {
  return name.empty() ? std::to_string(value) : std::string(name);
}


std::vector<const GcInfo*> process_gcs(const RuntimeModel& m, std::uint32_t pid) {
  std::vector<const GcInfo*> gcs;
  for (const GcInfo& gc : m.gcs())
    if (gc.process_id == pid) gcs.push_back(&gc);
  return gcs;
}

// The summary's column of each Figure (not_recorded lists them).
constexpr const char* kFigureColumns[kFigures] = {"gcs", "allocated_mb", "jitted", "jit_ms", "r2r_methods", "exceptions",
                                                  "contentions", "max_workers"};

void summary_table(Sink& sink, const std::vector<TraceReport>& traces) {
  Table t("summary", {{"duration_ms", true}, {"gcs", true}, {"gen0", true}, {"gen1", true}, {"gen2", true},
                      {"background", true}, {"induced", true}, {"pause_ms", true}, {"pause_percent", true},
                      {"max_pause_ms", true}, {"p50_pause_ms", false}, {"p90_pause_ms", false}, {"p99_pause_ms", true},
                      {"allocated_mb", true}, {"alloc_mb_per_s", true}, {"jitted", true}, {"jit_ms", true},
                      {"r2r_methods", false}, {"exceptions", true}, {"contentions", true}, {"contention_ms", true},
                      {"max_workers", true}, {"starvation", false}, {"not_recorded", false}}, sink);
  t.header();
  t.header();
  for (const TraceReport& tr : traces)
    for (const ProcessSummary& s : tr.model.processes()) {
      const auto gcs = process_gcs(tr.model, s.process_id);
      t.row(tr.trace, s.process_id);
      t.add(s.duration_ms(), 1);
      t.add(static_cast<std::int64_t>(gcs.size()));
      for (std::uint64_t g : s.gcs) t.add(static_cast<std::int64_t>(g));
      t.add(static_cast<std::int64_t>(s.background_gcs));
      t.add(static_cast<std::int64_t>(s.induced_gcs));
      t.add(s.pause_ms, 3);
      t.add(s.pause_percent(), 2);
      t.add(s.max_pause_ms, 3);
      t.add(pause_percentile(gcs, 50), 3);
      t.add(pause_percentile(gcs, 90), 3);
      t.add(pause_percentile(gcs, 99), 3);
      t.add(s.allocated_bytes / 1e6, 3);
      t.add(s.duration_ms() > 0 ? s.allocated_bytes / 1e6 / (s.duration_ms() / 1000) : 0.0, 2);
      t.add(static_cast<std::int64_t>(s.jitted));
      t.add(s.jit_ms, 1);
      t.add(static_cast<std::int64_t>(s.r2r_methods));
      t.add(static_cast<std::int64_t>(s.exceptions));
      t.add(static_cast<std::int64_t>(s.contentions));
      t.add(s.contention_ms, 3);
      t.add(static_cast<std::int64_t>(s.max_workers));
      t.add(static_cast<std::int64_t>(s.starvation_adjustments));
      std::string unrecorded;  // the figures whose zero says nothing: "r2r_methods contention"
      for (std::size_t f = 0; f < kFigures; ++f)
        if (!s.recorded(static_cast<Figure>(f))) unrecorded += (unrecorded.empty() ? "" : " ") + std::string(kFigureColumns[f]);
      t.add(unrecorded);
    }
}

void gc_table(Sink& sink, const std::vector<TraceReport>& traces) {
  std::vector<Column> cols = {{"gc", true}, {"generation", true}, {"type", true}, {"reason", true}, {"induced", false},
                              {"start_ms", true}, {"end_ms", false}, {"pause_ms", true}, {"suspend_ms", true},
                              {"bgc_final_pause_ms", false}, {"heap_before_mb", true}, {"heap_after_mb", true},
                              {"promoted_mb", true}};
  static const char* after[kGcHeaps] = {"gen0_after_mb", "gen1_after_mb", "gen2_after_mb", "loh_after_mb", "poh_after_mb"};
  static const char* promoted[kGcHeaps] = {"gen0_promoted_mb", "gen1_promoted_mb", "gen2_promoted_mb", "loh_promoted_mb",
                                           "poh_promoted_mb"};
  for (const char* c : {"bgc_initial_mark_ms", "bgc_concurrent_mark_ms", "bgc_final_mark_ms", "bgc_concurrent_sweep_ms"})
    cols.push_back({c, false});
  for (const char* c : after) cols.push_back({c, false});
  for (const char* c : promoted) cols.push_back({c, false});
  for (const Column& c : std::vector<Column>{{"pinned_objects", false}, {"fragmentation_mb", false}, {"heaps", false},
                                             {"allocated_mb", true}, {"complete", false}})
    cols.push_back(c);
  Table t("gc", std::move(cols), sink);
  t.header();
  auto mb = [](std::int64_t b) { return b < 0 ? -1.0 : static_cast<double>(b) / 1e6; };
  for (const TraceReport& tr : traces)
    for (const GcInfo& gc : tr.model.gcs()) {
      t.row(tr.trace, gc.process_id);
      t.add(static_cast<std::int64_t>(gc.number));
      t.add(static_cast<std::int64_t>(gc.generation));
      t.add(gc_type_name(gc.type));
      t.add(gc_reason_name(gc.reason));
      t.add_bool(gc.induced());
      t.add(gc.start_ms, 4);
      t.add(gc.end_ms, 4);
      t.add(gc.pause_ms, 4);
      t.add(gc.suspend_ms, 4);
      t.add(gc.bgc_final_pause_ms, 4);
      t.add(gc.heap_before_mb(), 6);
      t.add(gc.heap_after_mb(), 6);
      t.add(gc.promoted_mb(), 6);
      for (double phase : gc.bgc_phases_ms) t.add(phase, 4);
      for (std::int64_t b : gc.size_after) t.add(mb(b), 6);
      for (std::int64_t b : gc.promoted) t.add(mb(b), 6);
      t.add(gc.pinned_objects);
      t.add(mb(gc.fragmentation), 6);
      t.add(static_cast<std::int64_t>(gc.heaps));
      t.add(static_cast<double>(gc.allocated) / 1e6, 6);
      t.add_bool(gc.complete);
    }
}

void alloc_table(Sink& sink, const std::vector<TraceReport>& traces, std::size_t top) {
  Table t("alloc", {{"type", true}, {"mb", true}, {"events", true}, {"large_mb", true}}, sink);
  t.header();
  for (const TraceReport& tr : traces) {
    std::size_t n = 0;
    for (const TypeAllocations& a : tr.model.allocations()) {
      if (top && n++ >= top) break;
      t.row(tr.trace, a.process_id);
      t.add(a.type);
      t.add(a.bytes / 1e6, 6);
      t.add(static_cast<std::int64_t>(a.events));
      t.add(a.large_bytes / 1e6, 6);
    }
  }
}

void jit_table(Sink& sink, const std::vector<TraceReport>& traces, std::size_t top) {
  Table t("jit", {{"tid", false}, {"tier", true}, {"dynamic", false}, {"il_size", true}, {"native_size", true},
                  {"start_ms", true}, {"jit_ms", true}, {"complete", false}, {"method", true}}, sink);
  t.header();
  for (const TraceReport& tr : traces) {
    std::vector<const JitMethod*> methods;
    for (const JitMethod& m : tr.model.methods()) methods.push_back(&m);
    if (top) {  // the terminal's table: the longest compilations
      std::stable_sort(methods.begin(), methods.end(), [](const JitMethod* a, const JitMethod* b) { return a->jit_ms > b->jit_ms; });
      if (methods.size() > top) methods.resize(top);
    }
    for (const JitMethod* m : methods) {
      t.row(tr.trace, m->process_id);
      t.add(static_cast<std::int64_t>(m->thread_id));
      t.add(std::string(jit_tier_name(m->tier)));
      t.add_bool(m->dynamic);
      t.add(static_cast<std::int64_t>(m->il_size));
      t.add(static_cast<std::int64_t>(m->native_size));
      t.add(m->start_ms, 4);
      t.add(m->jit_ms, 4);
      t.add_bool(m->complete);
      t.add(m->name);
    }
  }
}

// Methods per tier, per process: the terminal's JIT summary.
void jit_tier_table(Sink& sink, const std::vector<TraceReport>& traces) {
  Table t("jit_tiers", {{"tier", true}, {"methods", true}, {"jit_ms", true}, {"il_bytes", true}, {"native_bytes", true}}, sink);
  t.header();
  for (const TraceReport& tr : traces) {
    std::map<std::pair<std::uint32_t, std::string>, std::array<double, 4>> tiers;
    for (const JitMethod& m : tr.model.methods()) {
      auto& a = tiers[{m.process_id, std::string(m.dynamic ? "Dynamic" : jit_tier_name(m.tier))}];
      a[0] += 1;
      a[1] += m.jit_ms;
      a[2] += m.il_size;
      a[3] += m.native_size;
    }
    for (const ProcessSummary& s : tr.model.processes())
      if (s.r2r_methods) tiers[{s.process_id, jit_tier_name(JitTier::ready_to_run)}][0] += static_cast<double>(s.r2r_methods);
    for (const auto& [key, a] : tiers) {
      t.row(tr.trace, key.first);
      t.add(key.second);
      t.add(static_cast<std::int64_t>(a[0]));
      t.add(a[1], 1);
      t.add(static_cast<std::int64_t>(a[2]));
      t.add(static_cast<std::int64_t>(a[3]));
    }
  }
}

void exception_table(Sink& sink, const std::vector<TraceReport>& traces, std::size_t top) {
  Table t("exceptions", {{"type", true}, {"count", true}, {"site", true}, {"site_count", true}, {"sites", false}, {"message", false}}, sink);
  t.header();
  for (const TraceReport& tr : traces) {
    std::size_t n = 0;
    for (const ExceptionType& e : tr.model.exceptions()) {
      if (top && n++ >= top) break;
      t.row(tr.trace, e.process_id);
      t.add(e.type);
      t.add(static_cast<std::int64_t>(e.count));
      t.add(e.sites.empty() ? std::string() : e.sites.front().frame);
      t.add(static_cast<std::int64_t>(e.sites.empty() ? 0 : e.sites.front().count));
      t.add(static_cast<std::int64_t>(e.sites.size()));
      t.add(e.message);
    }
  }
}

void contention_table(Sink& sink, const std::vector<TraceReport>& traces, std::size_t top) {
  Table t("contention", {{"lock", true}, {"count", true}, {"total_ms", true}, {"max_ms", true}, {"frame", true}}, sink);
  t.header();
  for (const TraceReport& tr : traces) {
    std::size_t n = 0;
    for (const LockContention& c : tr.model.contention()) {
      if (top && n++ >= top) break;
      char lock[32];
      std::snprintf(lock, sizeof lock, "0x%llx", static_cast<unsigned long long>(c.lock_id));
      t.row(tr.trace, c.process_id);
      t.add(std::string(lock));
      t.add(static_cast<std::int64_t>(c.count));
      t.add(c.total_ms, 4);
      t.add(c.max_ms, 4);
      t.add(c.frame);
    }
  }
}

void threadpool_table(Sink& sink, const std::vector<TraceReport>& traces) {
  Table t("threadpool", {{"ms", true}, {"workers", true}, {"io_threads", true}, {"reason", true}, {"throughput", true}}, sink);
  t.header();
  for (const TraceReport& tr : traces)
    for (const ThreadPoolSample& s : tr.model.thread_pool()) {
      t.row(tr.trace, s.process_id);
      t.add(s.ms, 4);
      t.add(static_cast<std::int64_t>(s.workers));
      t.add(static_cast<std::int64_t>(s.io_threads));
      t.add(s.reason == kNoAdjustment ? std::string("(thread start/stop)") : thread_adjustment_name(s.reason));
      t.add(s.throughput, 2);
    }
}

// The terminal's summary: a few lines per process a person reads at a glance. A figure the trace
// did not record (ProcessSummary::not_recorded) says so, and a line after the figures says which
// keyword records it.
void write_text_summary(std::ostream& out, const std::vector<TraceReport>& traces) {
  auto n = [](double v, int decimals) { return grouped(number(v, decimals)); };
  auto i = [](std::uint64_t v) { return grouped(std::to_string(v)); };
  const std::string unrecorded = "not recorded";
  bool any = false;
  for (const TraceReport& tr : traces)
    for (const ProcessSummary& s : tr.model.processes()) {
      any = true;
      const auto gcs = process_gcs(tr.model, s.process_id);
      out << tr.trace << ", process " << s.process_id << " (" << n(s.duration_ms(), 1) << " ms of runtime events)\n";
      if (s.recorded(Figure::gcs))
        out << "  GCs: " << i(gcs.size()) << " (gen0 " << i(s.gcs[0]) << ", gen1 " << i(s.gcs[1]) << ", gen2 " << i(s.gcs[2])
            << "; " << i(s.background_gcs) << " background, " << i(s.induced_gcs) << " induced)\n";
      else
        out << "  GCs: " << unrecorded << "\n";
      if (!gcs.empty())
        out << "  paused: " << n(s.pause_ms, 3) << " ms, " << n(s.pause_percent(), 2) << "% of the time; longest "
            << n(s.max_pause_ms, 3) << " ms; p50 " << n(pause_percentile(gcs, 50), 3) << ", p90 "
            << n(pause_percentile(gcs, 90), 3) << ", p99 " << n(pause_percentile(gcs, 99), 3) << " ms\n";
      if (s.allocation_events)
        out << "  allocated: " << n(s.allocated_bytes / 1e6, 1) << " MB ("
            << n(s.duration_ms() > 0 ? s.allocated_bytes / 1e3 / s.duration_ms() : 0.0, 1) << " MB/s), estimated from "
            << i(s.allocation_events) << " allocation events\n";
      else if (!s.recorded(Figure::allocations))
        out << "  allocated: " << unrecorded << "\n";
      out << "  JIT: ";
      if (!s.recorded(Figure::jit_methods)) out << unrecorded;
      else if (!s.recorded(Figure::jit_time)) out << i(s.jitted) << " methods, their JIT time " << unrecorded;
      else out << i(s.jitted) << " methods in " << n(s.jit_ms, 1) << " ms";
      out << "; precompiled (R2R) methods used: " << (s.recorded(Figure::r2r_methods) ? i(s.r2r_methods) : unrecorded) << "\n";
      out << "  exceptions: " << (s.recorded(Figure::exceptions) ? i(s.exceptions) : unrecorded) << "; lock contention: "
          << (s.recorded(Figure::contention) ? i(s.contentions) + " (" + n(s.contention_ms, 1) + " ms)" : unrecorded)
          << "; thread pool: "
          << (s.recorded(Figure::thread_pool)
                  ? "up to " + i(s.max_workers) + " workers, " + i(s.starvation_adjustments) + " starvation adjustments"
                  : unrecorded)
          << "\n";
      for (std::size_t f = 0; f < kFigures; ++f) {
        const auto figure = static_cast<Figure>(f);
        // (JIT time's keyword is the JIT methods' at a more verbose level: one line says it.)
        if (s.recorded(figure) || (figure == Figure::jit_time && !s.recorded(Figure::jit_methods))) continue;
        out << "  " << figure_name(figure) << " " << unrecorded << ": " << not_recorded_reason(figure) << "\n";
      }
    }
  if (!any) out << "no .NET runtime events in the trace\n";
  out << "\n";
}

// The line of an empty table: no such rows, the keyword that gives them, and whether the traces
// have any event of it.
std::string none_note(const std::vector<TraceReport>& traces, std::string_view rows, Figure figure) {
  bool processes = false, recorded = false;
  for (const TraceReport& tr : traces)
    for (const ProcessSummary& s : tr.model.processes()) {
      processes = true;
      recorded |= s.recorded(figure);
    }
  std::string note = "no " + std::string(rows) + " in the trace (" + figure_keyword_text(figure) + " gives them";
  if (processes && !recorded) note += "; the trace has no event of it: it was not recorded";
  return note + ")";
}

const char* kKindNames[] = {"summary", "gc", "alloc", "jit", "exceptions", "contention", "threadpool"};

}  // namespace

std::string gc_type_name(std::uint32_t t) { return map_name(rt::to_string(static_cast<rt::GCTypeMap>(t)), t); }
std::string gc_reason_name(std::uint32_t r) { return map_name(rt::to_string(static_cast<rt::GCReasonMap>(r)), r); }
std::string thread_adjustment_name(std::uint32_t r) {
  return map_name(rt::to_string(static_cast<rt::ThreadAdjustmentReasonMap>(r)), r);
}

std::string not_recorded_reason(Figure figure) {
  std::size_t keywords = 0;
  for (const FigureKeyword& k : figure_keywords()) keywords += k.figure == figure;
  return "the trace has no event of " + figure_keyword_text(figure) + " or a more verbose level; record " +
         (keywords > 1 ? "either" : "it") + " for this figure";
}

std::optional<unsigned> parse_report_kinds(std::string_view list) noexcept {
  unsigned kinds = 0;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    if (name == "all") {
      kinds |= kReportAll;
      continue;
    }
    bool found = false;
    for (unsigned i = 0; i < std::size(kKindNames); ++i)
      if (name == kKindNames[i]) {
        kinds |= 1u << i;
        found = true;
      }
    if (!found) return std::nullopt;
  }
  if (!kinds) return std::nullopt;
  return kinds;
}

const char* report_kind_name(unsigned kind) noexcept {
  for (unsigned i = 0; i < std::size(kKindNames); ++i)
    if (kind == 1u << i) return kKindNames[i];
  return "?";
}

double pause_percentile(const std::vector<const GcInfo*>& gcs, double p) {
  if (gcs.empty()) return 0;
  std::vector<double> pauses;
  for (const GcInfo* gc : gcs) pauses.push_back(gc->pause_ms);
  std::sort(pauses.begin(), pauses.end());
  const double rank = std::ceil(std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(pauses.size()));
  const std::size_t i = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
  return pauses[std::min(i, pauses.size() - 1)];
}

void write_report(std::ostream& out, const std::vector<TraceReport>& traces, const ReportOptions& o) {
  if (o.format == ReportFormat::html) return write_html_report(out, traces, o);
  const bool csv = o.format == ReportFormat::csv;
  if (csv && (o.kinds & (o.kinds - 1)))
    throw std::invalid_argument("CSV holds one table: choose one report (gc, alloc, jit, exceptions, contention, threadpool or summary)");
  const bool text = o.format == ReportFormat::text;
  const std::size_t top = text ? o.top : 0;
  const bool several = traces.size() > 1;
  // A table: JSON or CSV at once; text measured first, then written (or the reason it is empty).
  auto emit = [&](auto&& fill, const std::string& title, const std::string& none) {
    Sink sink;
    sink.out = &out;
    sink.with_trace = several;
    if (!text) {
      sink.mode = csv ? Sink::Mode::csv : Sink::Mode::json;
      fill(sink);
      return;
    }
    sink.mode = Sink::Mode::measure;
    fill(sink);
    out << title << '\n';
    if (!sink.rows) {
      out << none << "\n\n";
      return;
    }
    sink.mode = Sink::Mode::text;
    fill(sink);
    out << '\n';
  };
  for (const TraceReport& tr : traces)
    if (!tr.damage.empty() && text) out << tr.trace << ": damaged; the report covers what came before: " << tr.damage << "\n\n";
  if (o.kinds & kReportSummary) {
    if (text) write_text_summary(out, traces);
    else emit([&](Sink& s) { summary_table(s, traces); }, "Summary", "");
  }
  if (o.kinds & kReportGc)
    emit([&](Sink& s) { gc_table(s, traces); }, "GCs (ms since the trace start; MB = 10^6 bytes)",
         none_note(traces, "GC events", Figure::gcs));
  if (o.kinds & kReportAlloc)
    emit([&](Sink& s) { alloc_table(s, traces, top); },
         top ? "Allocations by type (top " + std::to_string(top) + " by estimated bytes)" : "Allocations by type",
         none_note(traces, "allocation events", Figure::allocations));
  if (o.kinds & kReportJit) {
    if (text)
      emit([&](Sink& s) { jit_tier_table(s, traces); }, "JIT: methods per tier", none_note(traces, "JIT events", Figure::jit_methods));
    emit([&](Sink& s) { jit_table(s, traces, top); }, (top ? "JIT: the " + std::to_string(top) + " longest compilations" : std::string("JIT")) +
             " (sizes in bytes; start_ms since the trace start)",
         none_note(traces, "JIT events", Figure::jit_methods));
  }
  if (o.kinds & kReportExceptions)
    emit([&](Sink& s) { exception_table(s, traces, top); }, "Exceptions by type",
         none_note(traces, "exceptions", Figure::exceptions));
  if (o.kinds & kReportContention)
    emit([&](Sink& s) { contention_table(s, traces, top); }, "Lock contention (by lock and waiting frame)",
         none_note(traces, "lock contention", Figure::contention));
  if (o.kinds & kReportThreadPool)
    emit([&](Sink& s) { threadpool_table(s, traces); }, "Thread pool (worker count changes and hill-climbing adjustments; ms since the trace start)",
         none_note(traces, "thread pool events", Figure::thread_pool));
}

}  // namespace clretw
