// A consumer of the built-in decoders only: reads any trace clretw knows (.nettrace,
// .netperf, .etl), prints how long each garbage collection took, and the event types
// seen most. Usage: read-trace FILE
#include <clretw/dispatch.h>  // Dispatcher
#include <clretw/events.h>    // the built-in decoders: catalog(), dotnet_runtime::...
#include <clretw/open.h>      // open_trace

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace rt = clretw::dotnet_runtime;

int main(int argc, char** argv) {
  if (argc != 2) return std::fprintf(stderr, "usage: read-trace FILE\n"), 2;
  auto source = clretw::open_trace(argv[1]);
  if (!source) return std::fprintf(stderr, "%s\n", source.error().message().c_str()), 2;
  clretw::TraceSource& trace = **source;

  clretw::Dispatcher dispatch({&clretw::catalog()});
  std::map<std::pair<std::uint32_t, std::uint32_t>, double> started;  // (process, GC number) -> start ms
  std::size_t gcs = 0;
  double longest = 0;
  dispatch.on<rt::GCStart>([&](const rt::GCStartView& gc, const clretw::EventRecord& r) {
    started[{r.process_id, gc.Count()}] = trace.milliseconds(r.timestamp);
  });
  dispatch.on<rt::GCEnd>([&](const rt::GCEndView& gc, const clretw::EventRecord& r) {
    auto it = started.find({r.process_id, gc.Count()});
    if (it == started.end()) return;
    const double ms = trace.milliseconds(r.timestamp) - it->second;
    std::printf("GC #%u (gen %u) in process %u: %.3f ms\n", gc.Count(), gc.Depth(), r.process_id, ms);
    longest = std::max(longest, ms);
    ++gcs;
    started.erase(it);
  });

  std::map<std::string, std::size_t> by_name;  // events of every type, by name
  std::size_t events = 0;
  while (true) {
    auto event = trace.next();
    if (!event) return std::fprintf(stderr, "%s: %s\n", argv[1], event.error().message().c_str()), 1;
    if (!*event) break;
    const clretw::EventRecord& r = **event;
    ++events;
    dispatch.dispatch(r);
    const clretw::EventLookup known = clretw::catalog().find(r.provider_guid, r.id, r.version);
    std::string name = known ? std::string(known.event->name)
                             : std::string(r.provider_name) + "/" +
                                   (r.event_name.empty() ? std::to_string(r.id) : std::string(r.event_name));
    ++by_name[name];
  }

  std::vector<std::pair<std::size_t, std::string>> top;
  for (const auto& [name, n] : by_name) top.emplace_back(n, name);
  std::sort(top.rbegin(), top.rend());
  std::printf("%zu events, %zu event types; %zu GCs, the longest %.3f ms\n", events, by_name.size(), gcs, longest);
  for (std::size_t i = 0; i < top.size() && i < 5; ++i) std::printf("%10zu  %s\n", top[i].first, top[i].second.c_str());
  return 0;
}
