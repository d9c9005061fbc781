// docs/LIBRARY.md's stacks example, compiled and run on a real trace. tests/docs/test_doc_examples.cpp
// checks that the block between the markers is, byte for byte, a ```cpp block of docs/LIBRARY.md.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>

#include "shared_cases.h"

// --- docs/LIBRARY.md example begins --------------------------------------------------
#include <clretw/open.h>     // open_trace: .nettrace, .netperf, .etl
#include <clretw/profile.h>  // Symbolizer, StackProfile

// Prints the 10 methods a trace's CPU samples were taken in most often.
int hot_methods(const std::string& path, std::ostream& out) {
  auto source = clretw::open_trace(path);
  if (!source) return std::fprintf(stderr, "%s\n", source.error().message().c_str()), 2;
  clretw::Symbolizer symbols;    // method names and address ranges, from the trace's own events
  clretw::StackProfile profile;  // the samples' stacks, a tree per thread
  for (;;) {
    auto next = (*source)->next();
    if (!next) return std::fprintf(stderr, "%s\n", next.error().message().c_str()), 1;
    const clretw::EventRecord* r = *next;
    if (!r) break;
    symbols.observe(*r);
    if (clretw::is_cpu_sample(*r)) profile.add(*r, (*source)->milliseconds(r->timestamp), symbols);
  }
  profile.finish(symbols);  // rundown, at the trace's end, names what was jitted before it began
  profile.write_top(out, 10);
  return 0;
}
// --- docs/LIBRARY.md example ends ----------------------------------------------------

CLRETW_SHARED_CASE("docs/LIBRARY.md: hot_methods prints the hot methods of objver4") {
  const std::filesystem::path trace =
      std::filesystem::path(CLRETW_SHARED_DIR) / "traces" / "eventpipe-dotnetcore3.0-win-x64-objver4.nettrace";
  if (!std::filesystem::exists(trace)) {
    clretw::test::skip(trace.string() + " is absent");
    return;
  }
  std::ostringstream out;
  REQUIRE(hot_methods(trace.string(), out) == 0);
  const std::string top = out.str();
  // 17 847 of the 35 161 samples end in XNamespace.EnsureNamespace (named by its R2R entry point).
  CHECK(top.find("     17847   50.8%      17950   51.1%  System.Xml.Linq.XNamespace.EnsureNamespace(") != std::string::npos);
  CHECK(std::count(top.begin(), top.end(), '\n') == 11);
}

