// What every trace-reader harness does with a source that opened: read it to its end (or its first
// error), describing every event with the built-in decoders and formatting it as text and JSON; the
// symbolizer learns from every event, every event with a stack goes into a stack profile and has its
// frames named, the kernel's CPU samples (ETL) go in with the stacks their StackWalk events join to
// them, and the profile is written in every form; the runtime model sees every event and its
// reports are written as JSON, text and HTML. Each event is also described without a
// visitor, which must give the same answer (the harness aborts when it does not).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "clretw/describe.h"
#include "clretw/catalog.h"
#include "clretw/kernel_stacks.h"
#include "clretw/profile.h"
#include "clretw/report.h"
#include "clretw/runtime_model.h"
#include "clretw/source.h"

inline void describe_all(clretw::TraceSource& source) {
  static const clretw::EventDescriber describer({&clretw::catalog()});
  std::string line;
  clretw::Symbolizer symbols;
  clretw::StackProfile profile;
  clretw::KernelStacks kernel;
  clretw::RuntimeModel model;
  for (int n = 0; n < 100000; ++n) {
    auto next = source.next();
    if (!next || !*next) break;
    const clretw::EventRecord& r = **next;
    line.clear();
    clretw::Described visited;
    clretw::format_event(r, describer, source.milliseconds(r.timestamp), (n & 1) ? clretw::LineFormat::json : clretw::LineFormat::text,
                         line, &visited);
    // Checking without a visitor (a fixed layout's length, the generated checks, the trace's
    // metadata checked without reporting) answers as visiting does.
    const clretw::Described checked = describer.describe(r);
    if (checked.kind != visited.kind || checked.consumed != visited.consumed || checked.trailing != visited.trailing ||
        checked.type != visited.type || checked.name != visited.name ||
        (checked.kind == clretw::Described::Kind::malformed && checked.error.message() != visited.error.message())) {
      std::fprintf(stderr, "describe() without a visitor and with one disagree on %.*s\n", static_cast<int>(visited.name.size()),
                   visited.name.data());
      std::abort();
    }
    symbols.observe(r);
    model.observe(r, source.milliseconds(r.timestamp));  // in any order: the fuzzers do not sort
    kernel.observe(r);
    if (clretw::is_kernel_cpu_sample(r)) kernel.add(r, source.milliseconds(r.timestamp));
    if (r.stack_depth() == 0) continue;
    profile.add(r, source.milliseconds(r.timestamp), symbols);
    for (std::size_t i = 0; i < r.stack_depth(); ++i)
      symbols.append_name(symbols.resolve(r.process_id, r.stack_frame(i), r.timestamp), line);
  }
  kernel.finish(profile, symbols);
  profile.finish(symbols);
  std::ostringstream out;
  profile.write_folded(out);
  profile.write_speedscope(out, "fuzz", "fuzz");
  profile.write_top(out, 5);
  model.finish(symbols);
  std::vector<clretw::TraceReport> reports;
  reports.push_back({"fuzz", std::move(model), ""});
  clretw::ReportOptions o;
  for (clretw::ReportFormat f : {clretw::ReportFormat::json, clretw::ReportFormat::text, clretw::ReportFormat::html}) {
    o.format = f;
    clretw::write_report(out, reports, o);
  }
}
