// What every trace-reader harness does with a source that opened: read it to its end (or its first
// error), describing every event with the built-in decoders and formatting it as text and JSON.
#pragma once

#include <string>

#include "clretw/describe.h"
#include "clretw/events.h"
#include "clretw/source.h"

inline void describe_all(clretw::TraceSource& source) {
  static const clretw::EventDescriber describer({&clretw::catalog()});
  std::string line;
  for (int n = 0; n < 100000; ++n) {
    auto next = source.next();
    if (!next || !*next) break;
    const clretw::EventRecord& r = **next;
    line.clear();
    clretw::format_event(r, describer, source.milliseconds(r.timestamp), (n & 1) ? clretw::LineFormat::json : clretw::LineFormat::text,
                         line);
  }
}
