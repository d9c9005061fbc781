// clretw/gen/config.h - what a trace session must enable to record chosen
// events: `clretw-gen config`.
//
// Names (events, globs over them, keywords) are resolved in the providers of
// resolved manifests; for each provider involved, plan_provider() picks the
// keywords and the level that enable every event asked for, and counts what
// else they enable. format_config() writes the result in the syntax of each
// collection tool (dotnet-trace, DOTNET_EventPipeConfig, PerfView, logman,
// xperf, WPR).
//
// The enabling rule (ETW's, as the checks mc.exe generates for providers make it
// with no MatchAllKeyword, and EventPipe's; the EventPipe side observed with .NET 10,
// tests/dotnet/config_check.sh): an event is written when
//   its keyword mask is 0, or it shares a bit with the session's keywords; and
//   its level is 0 (LogAlways), or at most the session's level, or the session's level is 0.
// The rundown's enumeration events (DCStart/DCEnd in their symbol, with keywords)
// are written only in a start or an end rundown: with ETW they also need
// StartRundownKeyword/EndRundownKeyword (in the runtime provider
// StartEnumerationKeyword/EndEnumerationKeyword), which plan_provider() adds.
// EventPipe does the end rundown itself when a session ends, whatever keywords it
// was given, and no start rundown (observed with .NET 10).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clretw/gen/model.h"

namespace clretw::gen {

// The built-in manifests (manifest/ClrEtwBuiltin.man, manifest/WindowsKernel.man)
// as embedded in the generator at build time: file name and text.
struct EmbeddedText {
  std::string name, text;
};
std::vector<EmbeddedText> builtin_manifests();

// The enabling rule above, without the rundown's extra condition.
bool session_enables(std::uint64_t event_keywords, std::uint32_t event_level, std::uint64_t session_keywords,
                     std::uint32_t session_level);

// What a provider must be enabled with.
struct ProviderPlan {
  const Provider* provider = nullptr;
  std::uint64_t keywords = 0;           // the OR of chosen's masks
  std::uint32_t level = 1;              // the highest level asked for, at least 1 (0 would enable every level)
  std::vector<const Keyword*> chosen;   // ascending mask
  std::vector<const Event*> asked;      // every event version asked for, manifest order
  std::vector<const Event*> extra;      // other events whose newest version the setting enables, noisiest first
  bool start_rundown = false;           // a DCStart event is asked for (no EventPipe session records one)
};

// The keywords and level that enable `events` (all of provider p): the `forced`
// keywords, the rundown keywords the events need, and every keyword of every
// event no forced keyword enables. (By the manifest an event's keywords are alternatives, any one enabling
// it; but where the runtime writes an event it often checks one of them:
// Method/LoadVerbose, JitKeyword NGenKeyword, is written for jitted methods under
// JitKeyword only - with NGenKeyword alone .NET 10 writes none.) The level is the
// highest of the events' and min_level, at least 1.
ProviderPlan plan_provider(const Provider& p, const std::vector<const Event*>& events,
                           const std::vector<const Keyword*>& forced = {}, std::uint32_t min_level = 1);

struct ConfigPlan {
  std::vector<ProviderPlan> providers;  // in the order the manifests declare them
  std::vector<std::string> notes;       // how names were read, what a tool cannot do
};

// Resolves `names` in the providers of `manifests` (resolved models) and plans
// each provider they reach. A name is
//   [PROVIDER:]NAME, or PROVIDER/NAME as clretw-dump prints events;
//   NAME: a keyword (GCKeyword, or GC), else an event's display name (GC/Start),
//   symbol (GCStart_V2) or symbol without its version suffix (GCStart), or a
//   '*' glob over those; case does not matter. A keyword stands for its events
//   (at the highest level they use), less the rundown events that need a
//   rundown keyword not named (a note says so). An event name stands for every
//   version of the event.
//   PROVIDER: a provider's name, or it without Microsoft-Windows- or Microsoft-
//   (DotNETRuntimeRundown), or a '*' glob over those.
// An unqualified name is looked up in the providers in order, and means what it
// matches in the first provider where it matches anything (a note names the
// other providers it matches in). nullopt, with `error`, when a name matches
// nothing (with the nearest names), or only events of the Windows kernel logger
// (enabled by kernel flags, not by provider keywords).
std::optional<ConfigPlan> plan_config(const std::vector<const Manifest*>& manifests,
                                      const std::vector<std::string>& names, std::string& error);

enum class ConfigFormat : std::uint8_t { all, eventpipe, dotnet_trace, perfview, logman, xperf, wpr };
std::optional<ConfigFormat> parse_config_format(std::string_view name);

// The plan in one tool's syntax, or (all) a report of every provider and each
// tool's syntax. eventpipe is the DOTNET_EventPipeConfig value alone, one line.
std::string format_config(const ConfigPlan& plan, ConfigFormat format);

// clretw-gen config: loads the manifests (the built-in ones when none is given)
// with the CLR fix-ups, plans `names` and writes the plan in `format` to out,
// notes (with a format other than all) and errors to err. Returns the exit
// status: 0, 1 (errors in a manifest), 2 (a name that matches nothing, an
// unreadable manifest).
struct ConfigCommand {
  std::vector<std::string> names;
  std::vector<std::string> manifests;
  ConfigFormat format = ConfigFormat::all;
};
int run_config(const ConfigCommand& command, std::ostream& out, std::ostream& err);

// How many times one round of the workload of tests/dotnet produced the event in
// runs with one keyword on, at most (generator/emit/src/config_volume.inc, made by
// tools/config-volume.py); nullopt when it was never seen. Noisiest first means:
// the larger this count, then the higher level (verbose first), then by name.
std::optional<std::uint64_t> reference_volume(std::string_view provider, std::string_view display_name);

}  // namespace clretw::gen
