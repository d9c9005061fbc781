// clretw/select.h - which events a name chooses. clretw-gen config plans a session for the
// names it is given, clretw-dump --filter prints the events its names choose: both read names
// with EventPattern, so a name means the same to both.
//
// A pattern is matched without regard to case, '*' standing for any run of characters:
//   GC/Start, GC/*                   an event's display name (task/opcode, as events print)
//   GCStart_V2, GCStart              its manifest symbol, with or without the version suffix
//   GC, GCKeyword                    a keyword of its provider: every event that declares it
//   DotNETRuntimeRundown:Method/*    any of those in the providers the qualifier names, by their
//                                    full or short name (Microsoft-[Windows-] left out), '*' allowed
//   DotNETRuntime/GC/Start           the same, written as events print (no '*' in the provider)
//   */GC/Start, *PerfInfo/Sample*    PROVIDER/NAME as events print
//
//   clretw::EventPattern gc("GC/Start");
//   gc.selects(provider, event);                        // a catalog's event
//   gc.names_event("MyEventSource", "Work/Start", {});  // an event the trace describes itself
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "clretw/schema.h"
#include "clretw/text.h"  // glob_match_nocase

namespace clretw {

// "Microsoft-Windows-DotNETRuntime" -> "DotNETRuntime": without "Microsoft-Windows-" or "Microsoft-".
std::string_view short_provider_name(std::string_view provider) noexcept;
// "GCStart_V2" -> "GCStart": without a trailing _V and digits.
std::string_view without_version_suffix(std::string_view symbol) noexcept;

// One name as a user wrote it, read once. Matching allocates nothing but PROVIDER/NAME's text;
// a caller that matches every event of a trace decides once per event type.
class EventPattern {
 public:
  explicit EventPattern(std::string_view text);

  const std::string& text() const noexcept { return text_; }
  // The part that names events or keywords: after the provider qualifier, when there is one.
  std::string_view unqualified() const noexcept { return std::string_view(text_).substr(part_at_); }
  // "PROVIDER:...": the pattern chooses nothing outside the providers it names.
  bool provider_required() const noexcept { return colon_; }
  // Whether the qualifier ("PROVIDER:" or "PROVIDER/") names `provider`; false without one.
  bool qualifies(std::string_view provider) const;

  // Whether an event of `provider` answers to the pattern by its names: its display name
  // (alone and as PROVIDER/NAME) and its symbol (empty when the event has none).
  bool names_event(std::string_view provider, std::string_view name, std::string_view symbol) const;
  // Whether the pattern names `keyword`, a keyword of `provider` ("GC" or "GCKeyword").
  bool names_keyword(std::string_view provider, std::string_view keyword) const;
  // A catalog's event: by its names, or by a keyword of its provider that it declares.
  bool selects(const ProviderDesc& provider, const EventDesc& event) const;

 private:
  std::string text_;
  std::string lower_;      // text_ in lower case
  std::string qualifier_;  // lower case, before the ':' or the first '/'; empty: none
  std::size_t part_at_ = 0;
  bool colon_ = false;
};

// The names of `names` nearest to `wanted` (its '*' left out, case ignored): those containing it
// (shortest first), then those a few edits away; at most `most`, each once, in that order.
std::vector<std::string> nearest_names(std::string_view wanted, const std::vector<std::string>& names,
                                       std::size_t most = 6);

}  // namespace clretw
