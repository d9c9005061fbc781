// write_html_report(): RuntimeModel's answers as one self-contained page - a summary per process,
// SVG plots written here (GC pauses, heap sizes, allocations by type, JIT, thread pool workers) and
// tables sorted by clicking a header. Nothing is fetched: the styles and the few lines of script are
// in the page, whose Content-Security-Policy forbids any load; a script error, or a load the policy
// refused, is written into the page's data-errors attribute (tests/report/html_check.sh reads it).
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <initializer_list>
#include <iterator>
#include <map>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "clretw/report.h"

namespace clretw {

namespace {

// One trace's tables, as plain lists (RuntimeModel's own, or made up by a test).
struct TraceData {
  std::string_view trace, damage;
  std::vector<ProcessSummary> processes;
  std::span<const GcInfo> gcs;
  std::vector<TypeAllocations> allocations;
  std::span<const JitMethod> methods;
  std::vector<ExceptionType> exceptions;
  std::vector<LockContention> contention;
  std::span<const ThreadPoolSample> thread_pool;
};

constexpr std::size_t kMaxRows = 2000;  // GC and thread pool tables: beyond this, the most telling rows
constexpr double kMB = 1e6;
const char* const kHeapColor[kGcHeaps] = {"#4e79a7", "#59a14f", "#e15759", "#f28e2b", "#b07aa1"};
const char* const kHeapName[kGcHeaps] = {"gen0", "gen1", "gen2", "LOH", "POH"};
const char* const kPauseColor[4] = {"#4e79a7", "#59a14f", "#e15759", "#ff9d9a"};
const char* const kPauseName[4] = {"gen0", "gen1", "gen2 blocking", "gen2 background"};
const char* const kTierColor[9] = {"#bab0ac", "#9c755f", "#4e79a7", "#f28e2b", "#59a14f",
                                   "#76b7b2", "#edc948", "#b07aa1", "#e15759"};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void put(std::ostream& out, const char* format, ...) {  // printf onto the page
  char buf[512];
  std::va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  const int n = std::vsnprintf(buf, sizeof buf, format, args);
  if (n >= static_cast<int>(sizeof buf)) {
    std::string big(static_cast<std::size_t>(n) + 1, '\0');
    std::vsnprintf(big.data(), big.size(), format, again);
    out.write(big.data(), n);
  } else if (n > 0) {
    out.write(buf, n);
  }
  va_end(again);
  va_end(args);
}

std::string num(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

void esc(std::ostream& out, std::string_view s) {
  for (char c : s) {
    switch (c) {
      case '&': out << "&amp;"; break;
      case '<': out << "&lt;"; break;
      case '>': out << "&gt;"; break;
      case '"': out << "&quot;"; break;
      case '\'': out << "&#39;"; break;
      default: out << c;
    }
  }
}

// At most `max` bytes of `s`, the middle left out (type names tell most at both ends).
std::string shorten(std::string_view s, std::size_t max) {
  if (s.size() <= max) return std::string(s);
  std::size_t head = max * 2 / 5, tail = s.size() - (max - head - 1);
  while (head > 0 && (static_cast<unsigned char>(s[head]) & 0xC0) == 0x80) --head;
  while (tail < s.size() && (static_cast<unsigned char>(s[tail]) & 0xC0) == 0x80) ++tail;
  return std::string(s.substr(0, head)) + "\xE2\x80\xA6" + std::string(s.substr(tail));
}

std::string adjustment_name(std::uint32_t r) { return r == kNoAdjustment ? "thread start/stop" : thread_adjustment_name(r); }

// ---- plots ----

// 1, 2 or 5 times a power of ten, about range/target.
double nice_step(double range, int target) {
  if (!(range > 0)) return 1;
  const double raw = range / target, p = std::pow(10.0, std::floor(std::log10(raw))), f = raw / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}
// The axis' top for values up to v, a multiple of a round step, and that step.
std::pair<double, double> nice_top(double v, int target) {
  const double step = nice_step(v, target);
  return {std::max(step, std::ceil(v / step - 1e-9) * step), step};
}
// The multiples of `step` in lo..hi.
std::vector<double> ticks(double lo, double hi, double step) {
  std::vector<double> v;
  for (long long i = std::llround(std::ceil(lo / step - 1e-9)); i * step <= hi + step * 1e-9 && v.size() < 50; ++i)
    v.push_back(static_cast<double>(i) * step);
  return v;
}
int step_decimals(double step) { return step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9)); }

// The drawing area of a plot: data (x0..x1, y0..y1) onto the SVG's w x h less the margins.
struct Frame {
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1, xstep = 0, ystep = 0;  // steps between ticks; 0: chosen here
  double w = 560, h = 260, l = 62, r = 18, t = 14, b = 42;
  double X(double x) const { return std::isfinite(x) ? l + (x - x0) / (x1 - x0) * (w - l - r) : l; }
  double Y(double y) const { return std::isfinite(y) ? h - b - (y - y0) / (y1 - y0) * (h - t - b) : h - b; }
};

// A time axis in ms, or in s when it spans 10 s or more: the divisor and its label.
std::pair<double, const char*> time_unit(const Frame& f) {
  if (f.x1 - f.x0 >= 10000) return {1000, "time since trace start (s)"};
  return {1, "time since trace start (ms)"};
}

// The figure, its SVG, grid lines and ticks (x labels divided by xdiv; no y ticks when !yticks).
void open_plot(std::ostream& out, const Frame& f, std::string_view caption, double xdiv, const char* xlabel,
               const char* ylabel, bool yticks = true) {
  out << "<figure><figcaption>";
  esc(out, caption);
  put(out, "</figcaption><svg viewBox=\"0 0 %.0f %.0f\" role=\"img\">", f.w, f.h);
  const double xs = f.xstep > 0 ? f.xstep / xdiv : nice_step((f.x1 - f.x0) / xdiv, 6);
  const int xd = step_decimals(xs);
  for (double v : ticks(f.x0 / xdiv, f.x1 / xdiv, xs)) {
    const double x = f.X(v * xdiv);
    put(out, "<line class=\"g\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x, x, f.t, f.h - f.b);
    put(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>", x, f.h - f.b + 14,
        num(v, xd).c_str());
  }
  if (yticks) {
    const double ys = f.ystep > 0 ? f.ystep : nice_step(f.y1 - f.y0, 5);
    const int yd = step_decimals(ys);
    for (double v : ticks(f.y0, f.y1, ys)) {
      const double y = f.Y(v);
      put(out, "<line class=\"g\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", f.l, f.w - f.r, y, y);
      put(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>", f.l - 5, y + 4, num(v, yd).c_str());
    }
  }
  put(out, "<path class=\"ax\" d=\"M%.1f %.1fV%.1fH%.1f\"/>", f.l, f.t, f.h - f.b, f.w - f.r);
  put(out, "<text class=\"lb\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>", (f.l + f.w - f.r) / 2,
      f.h - 6, xlabel);
  if (*ylabel)
    put(out, "<text class=\"lb\" transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>",
        (f.t + f.h - f.b) / 2, ylabel);
}

void close_plot(std::ostream& out, const std::vector<std::pair<const char*, std::string>>& legend) {
  out << "</svg><div class=\"legend\">";
  for (const auto& [color, label] : legend) {
    put(out, "<span><i style=\"background:%s\"></i>", color);
    esc(out, label);
    out << "</span>";
  }
  out << "</div></figure>\n";
}

// Points reduced to one per pixel column (the last), as an SVG polyline.
void polyline(std::ostream& out, const Frame& f, const std::vector<std::pair<double, double>>& pts,
              const char* color, bool step, bool dashed = false) {
  put(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\"%s points=\"", color,
      dashed ? " stroke-dasharray=\"6 3\"" : "");
  double last_x = -1, last_y = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const double x = f.X(pts[i].first), y = f.Y(pts[i].second);
    const bool next_same = i + 1 < pts.size() && std::floor(f.X(pts[i + 1].first)) == std::floor(x);
    if (next_same) continue;
    if (step && last_x >= 0) put(out, "%.1f,%.1f ", x, last_y);
    put(out, "%.1f,%.1f ", x, y);
    last_x = x, last_y = y;
  }
  out << "\"/>";
}

// The time range of a process: its first to last event, widened to hold `extra` times.
Frame time_frame(const ProcessSummary& p, std::initializer_list<double> extra) {
  Frame f;
  f.x0 = p.first_ms, f.x1 = p.last_ms;
  for (double v : extra) f.x0 = std::min(f.x0, v), f.x1 = std::max(f.x1, v);
  if (!(f.x1 > f.x0)) f.x1 = f.x0 + 1;
  return f;
}

void pause_plot(std::ostream& out, const ProcessSummary& p, const std::vector<const GcInfo*>& gcs) {
  double lo = p.first_ms, hi = p.last_ms, top = 0;
  for (const GcInfo* g : gcs)
    lo = std::min(lo, g->start_ms), hi = std::max(hi, g->start_ms + g->pause_ms), top = std::max(top, g->pause_ms);
  Frame f = time_frame(p, {lo, hi});
  std::tie(f.y1, f.ystep) = nice_top(top, 4);
  const auto [xdiv, xlabel] = time_unit(f);
  open_plot(out, f, "GC pauses (one bar per GC, at its start)", xdiv, xlabel, "pause (ms)");
  // The longest pause per pixel column and kind: bounded output however many GCs there are.
  struct Bar { const GcInfo* gc; double pause; std::size_t n; int kind; };
  std::map<std::pair<long, int>, Bar> columns;
  bool seen[4] = {};
  for (const GcInfo* g : gcs) {
    const int kind = g->type == 1 ? 3 : g->generation >= 2 ? 2 : static_cast<int>(g->generation);  // any number a trace says
    seen[kind] = true;
    Bar& b = columns.try_emplace({std::lround(f.X(g->start_ms)), kind}, Bar{g, -1, 0, kind}).first->second;
    if (g->pause_ms > b.pause) b.gc = g, b.pause = g->pause_ms;
    ++b.n;
  }
  std::vector<Bar> bars;  // the tallest first, so that the shorter ones in front of them show
  for (const auto& [key, b] : columns) bars.push_back(b);
  std::stable_sort(bars.begin(), bars.end(), [](const Bar& a, const Bar& b) { return a.pause > b.pause; });
  for (const Bar& b : bars) {
    const double w = std::max(2.0, f.X(b.gc->start_ms + b.pause) - f.X(b.gc->start_ms));
    const double y = std::min(f.Y(b.pause), f.h - f.b - 1);
    put(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>GC #%u gen%u %s, "
        "at %.1f ms: pause %.3f ms%s</title></rect>", f.X(b.gc->start_ms), y, w, f.h - f.b - y,
        kPauseColor[b.kind], b.gc->number, b.gc->generation, gc_reason_name(b.gc->reason).c_str(),
        b.gc->start_ms, b.pause, b.n > 1 ? " (the longest of several here)" : "");
  }
  std::vector<std::pair<const char*, std::string>> legend;
  for (int k = 0; k < 4; ++k)
    if (seen[k]) legend.emplace_back(kPauseColor[k], kPauseName[k]);
  close_plot(out, legend);
}

void heap_plot(std::ostream& out, const ProcessSummary& p, const std::vector<const GcInfo*>& gcs) {
  struct Point { double ms, total; const GcInfo* gc; };
  std::vector<Point> all;
  bool seen[kGcHeaps] = {};
  double top = 0;
  for (const GcInfo* g : gcs) {
    double total = -1;
    for (std::size_t h = 0; h < kGcHeaps; ++h)
      if (g->size_after[h] >= 0) seen[h] = true, total = std::max(total, 0.0) + g->size_after[h] / kMB;
    if (total >= 0) all.push_back({g->end_ms >= 0 ? g->end_ms : g->start_ms, total, g}), top = std::max(top, total);
  }
  if (all.empty()) return;
  std::stable_sort(all.begin(), all.end(), [](const Point& a, const Point& b) { return a.ms < b.ms; });
  Frame f = time_frame(p, {all.front().ms, all.back().ms});
  std::tie(f.y1, f.ystep) = nice_top(top, 4);
  // One point per pixel column: the largest heap there.
  std::vector<std::pair<double, const GcInfo*>> pts;
  double last_total = 0;
  for (const Point& x : all) {
    if (!pts.empty() && std::floor(f.X(pts.back().first)) == std::floor(f.X(x.ms))) {
      if (x.total > last_total) pts.back() = {x.ms, x.gc}, last_total = x.total;
    } else {
      pts.emplace_back(x.ms, x.gc), last_total = x.total;
    }
  }
  const auto [xdiv, xlabel] = time_unit(f);
  open_plot(out, f, "Heap size after each GC (stacked, held until the next)", xdiv, xlabel, "size after GC (MB)");
  auto until = [&](std::size_t i) {  // where a GC's sizes end: at the next GC, or the process' end (4 px at least)
    return i + 1 < pts.size() ? f.X(pts[i + 1].first) : std::max(f.X(p.last_ms), f.X(pts[i].first) + 4);
  };
  std::vector<double> below(pts.size(), 0);
  std::vector<std::pair<const char*, std::string>> legend;
  for (std::size_t h = 0; h < kGcHeaps; ++h) {
    if (!seen[h]) continue;
    put(out, "<polygon fill=\"%s\" fill-opacity=\"0.85\" points=\"", kHeapColor[h]);
    const std::vector<double> lower = below;
    for (std::size_t i = 0; i < pts.size(); ++i) {
      below[i] += std::max<std::int64_t>(pts[i].second->size_after[h], 0) / kMB;
      put(out, "%.1f,%.1f %.1f,%.1f ", f.X(pts[i].first), f.Y(below[i]), until(i), f.Y(below[i]));
    }
    for (std::size_t i = pts.size(); i-- > 0;)
      put(out, "%.1f,%.1f %.1f,%.1f ", until(i), f.Y(lower[i]), f.X(pts[i].first), f.Y(lower[i]));
    out << "\"/>";
    legend.emplace_back(kHeapColor[h], kHeapName[h]);
  }
  close_plot(out, legend);
}

void alloc_plot(std::ostream& out, const std::vector<const TypeAllocations*>& types) {
  Frame f;
  f.l = 240, f.r = 64, f.t = 8, f.b = 40, f.h = f.t + f.b + 18.0 * types.size();
  double top = 0;
  for (const TypeAllocations* a : types) top = std::max(top, a->bytes / kMB);
  std::tie(f.x1, f.xstep) = nice_top(top, 5);
  open_plot(out, f, "Allocations by type (estimated)", 1, "allocated (MB)", "", false);
  bool large = false;
  for (std::size_t i = 0; i < types.size(); ++i) {
    const TypeAllocations& a = *types[i];
    const double y = f.t + 18.0 * i, all_mb = std::max(0.0, a.bytes / kMB);
    const double small_mb = std::clamp((a.bytes - a.large_bytes) / kMB, 0.0, all_mb);
    out << "<g><title>";
    esc(out, a.type);
    put(out, ": %.3f MB (%.3f MB large/pinned), %llu events</title>", all_mb, a.large_bytes / kMB,
        static_cast<unsigned long long>(a.events));
    put(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", f.l - 6, y + 13);
    esc(out, shorten(a.type, 36));
    put(out, "</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"13\" fill=\"%s\"/>", f.l, y + 3,
        f.X(small_mb) - f.l, kHeapColor[0]);
    if (a.large_bytes > 0) {
      large = true;
      put(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"13\" fill=\"%s\"/>", f.X(small_mb), y + 3,
          f.X(all_mb) - f.X(small_mb), kHeapColor[3]);
    }
    put(out, "<text x=\"%.1f\" y=\"%.1f\">%s</text></g>", f.X(all_mb) + 4, y + 13, num(all_mb, 2).c_str());
  }
  std::vector<std::pair<const char*, std::string>> legend{{kHeapColor[0], "small object heap"}};
  if (large) legend.emplace_back(kHeapColor[3], "large and pinned object heaps");
  close_plot(out, legend);
}

void jit_plot(std::ostream& out, const ProcessSummary& p, std::vector<const JitMethod*> methods) {
  std::stable_sort(methods.begin(), methods.end(),
                   [](const JitMethod* a, const JitMethod* b) { return a->start_ms < b->start_ms; });
  std::vector<std::pair<double, double>> series[10];  // per tier, then all
  std::size_t counts[10] = {};
  for (const JitMethod* m : methods) {
    const auto t = std::min<std::size_t>(static_cast<std::size_t>(m->tier), 8);
    series[t].emplace_back(m->start_ms, static_cast<double>(++counts[t]));
    series[9].emplace_back(m->start_ms, static_cast<double>(++counts[9]));
  }
  Frame f = time_frame(p, {methods.front()->start_ms, methods.back()->start_ms});
  std::tie(f.y1, f.ystep) = nice_top(std::max(4.0, static_cast<double>(counts[9])), 4);
  const auto [xdiv, xlabel] = time_unit(f);
  open_plot(out, f, "Methods loaded over time, by tier (cumulative)", xdiv, xlabel, "methods");
  std::vector<std::pair<const char*, std::string>> legend{{"#333", "all tiers"}};
  for (std::size_t t = 0; t < 10; ++t) {
    if (series[t].empty()) continue;
    series[t].insert(series[t].begin(), {f.x0, 0.0});
    series[t].emplace_back(f.x1, series[t].back().second);
    polyline(out, f, series[t], t == 9 ? "#333" : kTierColor[t], true, t == 9);
    if (t < 9) legend.emplace_back(kTierColor[t], jit_tier_name(static_cast<JitTier>(t)));
  }
  close_plot(out, legend);
}

void threadpool_plot(std::ostream& out, const ProcessSummary& p, const std::vector<const ThreadPoolSample*>& s) {
  std::vector<std::pair<double, double>> workers, io;
  double top = 0, top_io = 0;
  for (const ThreadPoolSample* t : s) {
    workers.emplace_back(t->ms, t->workers), io.emplace_back(t->ms, t->io_threads);
    top = std::max<double>(top, t->workers), top_io = std::max<double>(top_io, t->io_threads);
  }
  top = std::max(top, top_io);
  Frame f = time_frame(p, {s.front()->ms, s.back()->ms});
  std::tie(f.y1, f.ystep) = nice_top(std::max(4.0, top), 4);
  workers.emplace_back(f.x1, workers.back().second), io.emplace_back(f.x1, io.back().second);
  const auto [xdiv, xlabel] = time_unit(f);
  open_plot(out, f, "Thread pool threads", xdiv, xlabel, "threads");
  polyline(out, f, workers, kHeapColor[0], true);
  if (!(top_io > 0)) return close_plot(out, {{kHeapColor[0], "worker threads"}});
  polyline(out, f, io, kHeapColor[3], true);
  close_plot(out, {{kHeapColor[0], "worker threads"}, {kHeapColor[3], "IO threads"}});
}

// ---- tables ----

void open_table(std::ostream& out, std::string_view title, std::initializer_list<const char*> columns,
                std::string_view note = {}) {
  out << "<h4>";
  esc(out, title);
  out << "</h4>";
  if (!note.empty()) {
    out << "<p class=\"note\">";
    esc(out, note);
    out << "</p>";
  }
  out << "<div class=\"tw\"><table class=\"sort\"><thead><tr>";
  for (const char* c : columns) {  // "#..." : a numeric column
    if (*c == '#') out << "<th class=\"n\">" << c + 1 << "</th>";
    else out << "<th>" << c << "</th>";
  }
  out << "</tr></thead><tbody>\n";
}
void close_table(std::ostream& out) { out << "</tbody></table></div>\n"; }
// Table cells: text (wrapped when long: names and messages), numbers (-1: unknown, shown as a dash).
std::string T(std::string_view text, bool wrap = false) {
  std::ostringstream s;
  s << (wrap ? "<td class=\"w\">" : "<td>");
  if (!wrap || text.size() <= 60) esc(s, text);
  else  // a long name may break after a dot, a comma or a parenthesis
    for (std::size_t i = 0, next; i < text.size(); i = next) {
      next = std::min(text.find_first_of(".,(", i), text.size() - 1) + 1;
      esc(s, text.substr(i, next - i));
      if (next < text.size()) s << "<wbr>";
    }
  s << "</td>";
  return s.str();
}
std::string N(double v, int decimals) {
  return v < 0 ? "<td class=\"n\" data-v=\"-1\">&mdash;</td>" : "<td class=\"n\">" + num(v, decimals) + "</td>";
}
std::string U(std::uint64_t v) { return "<td class=\"n\">" + std::to_string(v) + "</td>"; }
void row(std::ostream& out, std::initializer_list<std::string> cells) {
  out << "<tr>";
  for (const std::string& c : cells) out << c;
  out << "</tr>\n";
}

template <class List>
auto of_process(const List& all, std::uint32_t pid) {
  std::vector<const typename List::value_type*> v;
  for (const auto& x : all)
    if (x.process_id == pid) v.push_back(&x);
  return v;
}

void card(std::ostream& out, const std::string& value, std::string_view label, const std::string& detail) {
  out << "<div class=\"card\"><b>" << value << "</b><span>";
  esc(out, label);
  out << "</span><small>" << detail << "</small></div>";
}

void write_process(std::ostream& out, const TraceData& t, const ProcessSummary& p, bool alone, const ReportOptions& o) {
  const auto gcs = of_process(t.gcs, p.process_id);
  const auto allocs = of_process(t.allocations, p.process_id);
  const auto methods = of_process(t.methods, p.process_id);
  const auto exceptions = of_process(t.exceptions, p.process_id);
  const auto locks = of_process(t.contention, p.process_id);
  const auto pool = of_process(t.thread_pool, p.process_id);
  const unsigned k = o.kinds;
  put(out, "<section class=\"process\"><h3>Process %u <small>%.3f s, %.1f to %.1f ms</small></h3>\n",
      p.process_id, p.duration_ms() / 1000, p.first_ms, p.last_ms);

  if (k & kReportSummary) {
    const double secs = p.duration_ms() / 1000;
    out << "<div class=\"cards summary\">";
    // A figure the trace did not record reads so (its reason is in the lines below the plots).
    const std::string unrecorded = "not recorded";
    auto value = [&](Figure f, const std::string& v) { return p.recorded(f) ? v : unrecorded; };
    auto detail = [&](Figure f, const std::string& v) { return p.recorded(f) ? v : std::string(); };
    card(out, value(Figure::gcs, std::to_string(p.gcs[0] + p.gcs[1] + p.gcs[2])), "GCs",
         detail(Figure::gcs, "gen0 " + std::to_string(p.gcs[0]) + " &middot; gen1 " + std::to_string(p.gcs[1]) +
                                 " &middot; gen2 " + std::to_string(p.gcs[2])));
    card(out, value(Figure::gcs, std::to_string(p.background_gcs) + " / " + std::to_string(p.induced_gcs)),
         "background / induced GCs", "");
    card(out, value(Figure::gcs, num(p.pause_percent(), 2) + " %"), "time paused for GCs",
         detail(Figure::gcs, num(p.pause_ms, 1) + " ms over " + num(secs, 2) + " s"));
    auto pct = [&](double q) { const double v = pause_percentile(gcs, q); return num(v, v >= 10 ? 1 : 2); };
    card(out, value(Figure::gcs, num(p.max_pause_ms, 2) + " ms"), "longest pause",
         detail(Figure::gcs, "p50 " + pct(50) + " &middot; p90 " + pct(90) + " &middot; p99 " + pct(99) + " ms"));
    card(out, value(Figure::allocations, secs > 0 ? num(p.allocated_bytes / kMB / secs, 1) + " MB/s" : "&mdash;"),
         "allocation rate",
         detail(Figure::allocations, num(p.allocated_bytes / kMB, 1) + " MB, " + std::to_string(p.allocation_events) + " events"));
    card(out, value(Figure::jit_methods, std::to_string(p.jitted)), "methods jitted",
         (p.recorded(Figure::jit_methods) ? (p.recorded(Figure::jit_time) ? "in " + num(p.jit_ms, 1) + " ms" : "JIT time " + unrecorded)
                                          : std::string()) +
             " &middot; " + (p.recorded(Figure::r2r_methods) ? std::to_string(p.r2r_methods) : unrecorded) + " precompiled");
    card(out, value(Figure::exceptions, std::to_string(p.exceptions)), "exceptions thrown", "");
    card(out, value(Figure::contention, std::to_string(p.contentions)), "lock contentions",
         detail(Figure::contention, num(p.contention_ms, 1) + " ms waited"));
    card(out, value(Figure::thread_pool, std::to_string(p.max_workers)), "most thread pool workers",
         detail(Figure::thread_pool, std::to_string(p.starvation_adjustments) + " starvation adjustments"));
    out << "</div>\n";
  }

  out << "<div class=\"plots\">";
  if ((k & kReportGc) && !gcs.empty()) pause_plot(out, p, gcs), heap_plot(out, p, gcs);
  std::vector<const TypeAllocations*> top_allocs(allocs.begin(), allocs.begin() + std::min(o.top, allocs.size()));
  if ((k & kReportAlloc) && !top_allocs.empty()) alloc_plot(out, top_allocs);
  if ((k & kReportJit) && !methods.empty()) jit_plot(out, p, methods);
  if ((k & kReportThreadPool) && !pool.empty()) threadpool_plot(out, p, pool);
  out << "</div>\n";

  // What the trace does not have, in one line.
  std::vector<const char*> none;
  if ((k & kReportGc) && gcs.empty()) none.push_back("GC events");
  if ((k & kReportAlloc) && allocs.empty()) none.push_back("allocation events");
  if ((k & kReportJit) && methods.empty()) none.push_back("JIT events");
  if ((k & kReportExceptions) && exceptions.empty()) none.push_back("exceptions");
  if ((k & kReportContention) && locks.empty()) none.push_back("contention events");
  if ((k & kReportThreadPool) && pool.empty()) none.push_back("thread pool events");
  for (std::size_t i = 0; i < none.size(); ++i)
    out << (i == 0 ? "<p class=\"empty\">No " : i + 1 == none.size() ? " or " : ", ") << none[i]
        << (i + 1 == none.size() ? (alone ? " in this trace.</p>\n" : " for this process.</p>\n") : "");
  // The figures not recorded, and what records them (the text summary's lines), for the summary or
  // the figure's own table.
  constexpr unsigned kFigureKind[kFigures] = {kReportGc,  kReportAlloc,      kReportJit,        kReportJit,
                                              kReportJit, kReportExceptions, kReportContention, kReportThreadPool};
  for (std::size_t f = 0; f < kFigures; ++f) {
    const auto figure = static_cast<Figure>(f);
    if (!(k & (kReportSummary | kFigureKind[f]))) continue;
    if (p.recorded(figure) || (figure == Figure::jit_time && !p.recorded(Figure::jit_methods))) continue;
    out << "<p class=\"empty\">Not recorded: ";
    esc(out, std::string(figure_name(figure)) + ": " + not_recorded_reason(figure) + ".");
    out << "</p>\n";
  }
  if ((k & kReportGc) && !gcs.empty()) {
    std::vector<const GcInfo*> rows = gcs;
    std::string note;
    if (rows.size() > kMaxRows) {  // the longest pauses, in time order
      std::stable_sort(rows.begin(), rows.end(), [](auto a, auto b) { return a->pause_ms > b->pause_ms; });
      rows.resize(kMaxRows);
      std::stable_sort(rows.begin(), rows.end(), [](auto a, auto b) { return a->start_ms < b->start_ms; });
      note = "The " + std::to_string(kMaxRows) + " longest pauses of " + std::to_string(gcs.size()) + " GCs.";
    }
    open_table(out, "Garbage collections",
               {"#GC", "#Gen", "Type", "Reason", "#Start (ms)", "#Pause (ms)", "#Suspend (ms)", "#Before (MB)",
                "#After (MB)", "#Promoted (MB)", "#Fragmentation (MB)", "#Allocated (MB)", "#Pinned", "#Heaps"}, note);
    auto sum_mb = [](const GcSizes& sizes) {  // -1 when no heap's size is known
      double sum = -1;
      for (std::int64_t bytes : sizes)
        if (bytes >= 0) sum = std::max(sum, 0.0) + bytes / kMB;
      return sum;
    };
    for (const GcInfo* g : rows)
      row(out, {U(g->number), U(g->generation), T(gc_type_name(g->type)),
                T(gc_reason_name(g->reason) + (g->complete ? "" : " (no end)")), N(g->start_ms, 3),
                N(g->pause_ms, 3), N(g->suspend_ms, 3), N(sum_mb(g->size_before), 3), N(sum_mb(g->size_after), 3),
                N(sum_mb(g->promoted), 3), N(g->fragmentation < 0 ? -1 : g->fragmentation / kMB, 3),
                N(g->allocated / kMB, 3), N(static_cast<double>(g->pinned_objects), 0), U(g->heaps)});
    close_table(out);
  }
  if ((k & kReportAlloc) && !allocs.empty()) {
    double total = 0;
    for (const TypeAllocations* a : allocs) total += a->bytes;
    open_table(out, "Allocations by type", {"Type", "#Allocated (MB)", "#Share (%)", "#Large/pinned (MB)", "#Events"},
               allocs.size() > o.top ? "The top " + std::to_string(o.top) + " of " + std::to_string(allocs.size()) +
                                           " types." : "");
    for (const TypeAllocations* a : top_allocs)
      row(out, {T(a->type, true), N(a->bytes / kMB, 3), N(total > 0 ? a->bytes / total * 100 : 0, 1),
                N(a->large_bytes / kMB, 3), U(a->events)});
    close_table(out);
  }
  if ((k & kReportJit) && !methods.empty()) {
    struct Tier { std::uint64_t n = 0; double ms = 0; std::uint64_t il = 0, native = 0; };
    std::map<int, Tier> tiers;
    for (const JitMethod* m : methods) {
      Tier& t = tiers[static_cast<int>(m->tier)];
      ++t.n, t.ms += m->jit_ms, t.il += m->il_size, t.native += m->native_size;
    }
    open_table(out, "JIT by tier", {"Tier", "#Methods", "#JIT time (ms)", "#IL (bytes)", "#Native (bytes)"});
    for (const auto& [tier, t] : tiers)
      row(out, {T(jit_tier_name(static_cast<JitTier>(tier))), U(t.n), N(t.ms, 3), U(t.il), U(t.native)});
    close_table(out);
    std::vector<const JitMethod*> top = methods;
    std::stable_sort(top.begin(), top.end(), [](auto a, auto b) { return a->jit_ms > b->jit_ms; });
    top.resize(std::min(top.size(), o.top));
    open_table(out, "Longest JIT compilations",
               {"Method", "Tier", "#JIT time (ms)", "#Start (ms)", "#IL (bytes)", "#Native (bytes)", "#Thread"},
               "The top " + std::to_string(top.size()) + " of " + std::to_string(methods.size()) + " methods.");
    for (const JitMethod* m : top)
      row(out, {T(m->name + (m->dynamic ? " [dynamic]" : ""), true), T(jit_tier_name(m->tier)), N(m->jit_ms, 3),
                N(m->start_ms, 3), U(m->il_size), U(m->native_size), U(m->thread_id)});
    close_table(out);
  }
  if ((k & kReportExceptions) && !exceptions.empty()) {
    open_table(out, "Exceptions", {"Type", "#Count", "First message", "Top throw site", "#Site count"});
    for (std::size_t i = 0; i < exceptions.size() && i < o.top; ++i) {
      const ExceptionType& e = *exceptions[i];
      row(out, {T(e.type, true), U(e.count), T(e.message, true), T(e.sites.empty() ? "" : e.sites[0].frame, true),
                e.sites.empty() ? N(-1, 0) : U(e.sites[0].count)});
    }
    close_table(out);
  }
  if ((k & kReportContention) && !locks.empty()) {
    open_table(out, "Lock contention", {"Lock", "Where", "#Count", "#Total (ms)", "#Max (ms)"});
    for (std::size_t i = 0; i < locks.size() && i < o.top; ++i) {
      const LockContention& c = *locks[i];
      char id[24] = "";
      if (c.lock_id) std::snprintf(id, sizeof id, "0x%llx", static_cast<unsigned long long>(c.lock_id));
      row(out, {T(id), T(c.frame, true), U(c.count), N(c.total_ms, 3), N(c.max_ms, 3)});
    }
    close_table(out);
  }
  if ((k & kReportThreadPool) && !pool.empty()) {
    const std::size_t first = pool.size() > kMaxRows ? pool.size() - kMaxRows : 0;
    open_table(out, "Thread pool", {"#Time (ms)", "#Workers", "#IO threads", "Reason", "#Throughput"},
               first ? "The last " + std::to_string(kMaxRows) + " of " + std::to_string(pool.size()) + " changes."
                     : "");
    for (std::size_t i = first; i < pool.size(); ++i) {
      const ThreadPoolSample& x = *pool[i];
      row(out, {N(x.ms, 3), U(x.workers), U(x.io_threads), T(adjustment_name(x.reason)),
                N(x.reason == kNoAdjustment ? -1 : x.throughput, 2)});
    }
    close_table(out);
  }
  out << "</section>\n";
}

const char* const kStyle = R"(
body{font:14px/1.45 system-ui,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1d2330;background:#f4f5f7;
margin:0;padding:20px 28px}h1{font-size:22px;margin:0 0 2px}h4{font-size:14px;margin:18px 0 6px}
h2{font-size:19px;margin:28px 0 8px;border-bottom:2px solid #d5d9e0}h3{font-size:17px;margin:18px 0 10px}
h3 small,.sub{color:#667085;font-weight:normal;font-size:13px}.empty,.note{color:#667085;font-style:italic;margin:4px 0}
section.process{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:4px 18px 16px;margin:14px 0}
.warn{background:#fff4e0;border:1px solid #f0b45a;border-left:5px solid #e8890c;padding:8px 12px;border-radius:6px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:10px}.card small{color:#667085}
.card{background:#f7f8fa;border:1px solid #e3e6eb;border-radius:6px;padding:8px 12px}
.card b{display:block;font-size:21px;font-variant-numeric:tabular-nums}.card span{display:block;color:#344054}
.plots{display:grid;grid-template-columns:repeat(auto-fill,minmax(520px,1fr));gap:14px;margin-top:14px;align-items:start}
figure{margin:0;background:#fff;border:1px solid #e3e6eb;border-radius:6px;padding:8px}
figcaption{font-weight:600;margin-bottom:4px}svg{width:100%;height:auto;display:block}
svg text{font-size:11px;fill:#475467}svg text.lb{font-size:12px;fill:#1d2330}line.g{stroke:#e8eaee}
path.ax{stroke:#98a2b3;fill:none}.legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px;padding:2px 4px}
.legend i{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px;vertical-align:-1px}
.tw{display:inline-block;max-width:100%;max-height:420px;overflow:auto;border:1px solid #e3e6eb;border-radius:6px}
table{border-collapse:collapse;font-size:12.5px}th:hover{background:#e1e5ec}
th{position:sticky;top:0;background:#eef0f4;text-align:left;padding:5px 8px;cursor:pointer;white-space:nowrap}
th[aria-sort=ascending]::after{content:" \25B2"}th[aria-sort=descending]::after{content:" \25BC"}
td{padding:3px 8px;border-top:1px solid #eef0f3;vertical-align:top;white-space:nowrap}
td.w{white-space:normal;overflow-wrap:anywhere;min-width:16ch;max-width:70ch}.n{text-align:right}
tbody tr:nth-child(even){background:#fafbfc}tbody tr:hover{background:#eef4ff}td.n{font-variant-numeric:tabular-nums}
)";

// Errors (and refused loads) are written into the page for tests to read; then the sorting.
const char* const kGuard = R"(<script>(function(){var d=document.documentElement;
function e(m){d.setAttribute('data-errors',(d.getAttribute('data-errors')||'')+m+'\n')}
window.addEventListener('error',function(v){e('error: '+v.message)});
window.addEventListener('unhandledrejection',function(v){e('rejection: '+v.reason)});
document.addEventListener('securitypolicyviolation',function(v){e('refused: '+v.blockedURI)});})()</script>
)";
const char* const kSort = R"(<script>
document.querySelectorAll('table.sort th').forEach(function(th){th.addEventListener('click',function(){
var t=th.closest('table'),b=t.tBodies[0],i=th.cellIndex,n=th.classList.contains('n');
var d=th.getAttribute('aria-sort')==='descending'?1:th.getAttribute('aria-sort')==='ascending'?-1:n?-1:1;
t.querySelectorAll('th').forEach(function(h){h.removeAttribute('aria-sort')});
th.setAttribute('aria-sort',d>0?'ascending':'descending');
function k(r){var c=r.cells[i];if(!n)return c.textContent.toLowerCase();var v=c.getAttribute('data-v');
return parseFloat(v!==null?v:c.textContent)||0}
Array.prototype.slice.call(b.rows).sort(function(x,y){var p=k(x),q=k(y);return(p<q?-1:p>q?1:0)*d})
.forEach(function(r){b.appendChild(r)})})});
document.documentElement.setAttribute('data-ready','1');
</script>
)";

void write_page(std::ostream& out, const std::vector<TraceData>& traces, const ReportOptions& o) {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>clretw report: ";
  if (traces.size() == 1) esc(out, traces[0].trace);
  else out << traces.size() << " traces";
  out << "</title>\n" << kGuard << "<style>" << kStyle << "</style></head>\n<body>\n<h1>.NET runtime report</h1>\n";
  out << "<p class=\"sub\">clretw &middot; " << traces.size() << (traces.size() == 1 ? " trace" : " traces")
      << " &middot; times in ms since the trace start, sizes in MB (10<sup>6</sup> bytes)</p>\n";
  for (const TraceData& t : traces) {
    out << "<section class=\"trace\"><h2>";
    esc(out, t.trace);
    out << "</h2>\n";
    if (!t.damage.empty()) {
      out << "<div class=\"warn\"><b>Damaged trace:</b> ";
      esc(out, t.damage.substr(0, t.damage.find_last_not_of(". ") + 1));
      out << ". What follows is what was read before the damage.</div>\n";
    }
    // The processes the summaries name, then any other the tables name (a summary of its pid only).
    std::vector<ProcessSummary> processes = t.processes;
    auto add = [&processes](const auto& list) {
      for (const auto& x : list)
        if (std::none_of(processes.begin(), processes.end(), [&](auto& p) { return p.process_id == x.process_id; }))
          processes.emplace_back().process_id = x.process_id;
    };
    add(t.gcs), add(t.allocations), add(t.methods), add(t.exceptions), add(t.contention), add(t.thread_pool);
    if (processes.empty()) out << "<p class=\"empty\">No .NET runtime events in this trace.</p>\n";
    for (const ProcessSummary& p : processes) write_process(out, t, p, processes.size() == 1, o);
    out << "</section>\n";
  }
  out << kSort << "</body></html>\n";
}

}  // namespace

void write_html_report(std::ostream& out, const std::vector<TraceReport>& traces, const ReportOptions& o) {
  std::vector<TraceData> data;
  data.reserve(traces.size());
  for (const TraceReport& t : traces) {
    const RuntimeModel& m = t.model;
    data.push_back({t.trace, t.damage, m.processes(), m.gcs(), m.allocations(), m.methods(), m.exceptions(),
                    m.contention(), m.thread_pool()});
  }
  write_page(out, data, o);
}

}  // namespace clretw
