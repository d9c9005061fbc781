// What every trace-reader harness does with a source that opened: read it to its end (or its first
// error), describing every event with the built-in decoders and formatting it as text and JSON; the
// symbolizer learns from every event, every event with a stack goes into a stack profile and has its
// frames named, and the profile is written in every form.
#pragma once

#include <sstream>
#include <string>

#include "clretw/describe.h"
#include "clretw/events.h"
#include "clretw/profile.h"
#include "clretw/source.h"

inline void describe_all(clretw::TraceSource& source) {
  static const clretw::EventDescriber describer({&clretw::catalog()});
  std::string line;
  clretw::Symbolizer symbols;
  clretw::StackProfile profile;
  for (int n = 0; n < 100000; ++n) {
    auto next = source.next();
    if (!next || !*next) break;
    const clretw::EventRecord& r = **next;
    line.clear();
    clretw::format_event(r, describer, source.milliseconds(r.timestamp), (n & 1) ? clretw::LineFormat::json : clretw::LineFormat::text,
                         line);
    symbols.observe(r);
    if (r.stack_depth() == 0) continue;
    profile.add(r, source.milliseconds(r.timestamp), symbols);
    for (std::size_t i = 0; i < r.stack_depth(); ++i)
      symbols.append_name(symbols.resolve(r.process_id, r.stack_frame(i), r.timestamp), line);
  }
  profile.finish(symbols);
  std::ostringstream out;
  profile.write_folded(out);
  profile.write_speedscope(out, "fuzz", "fuzz");
  profile.write_top(out, 5);
}
