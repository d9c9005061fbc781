// clretw/gen/namer.h - manifest names to C++ names.
//
// Generated names keep the manifest's spelling wherever C++ allows, so a user
// can grep from a trace to the manifest to the code: field GCStart.Depth is
// accessor Depth(), map GCReasonMap is enum class GCReasonMap. Only what is
// not a valid identifier changes, and collisions get a deterministic suffix
// (reported as M704).
#pragma once

#include <set>
#include <string>
#include <string_view>

namespace clretw::gen {

// A valid C++ identifier for `name`: invalid characters become '_', a leading
// digit gets a prefix, C++ keywords get a trailing '_'. Never empty.
std::string identifier(std::string_view name);

// Provider namespace: "Microsoft-Windows-DotNETRuntimeRundown" -> "dotnet_runtime_rundown".
// Drops the Microsoft-/Windows- prefixes, splits words, lower-cases, joins with '_'.
std::string provider_namespace(std::string_view provider_name);

// Enumerator for a map entry's message ("Small object heap" -> "Small_object_heap").
std::string enumerator(std::string_view message);

// "GCStart_V2" -> "GCStart": the event name without a trailing _V<digits>.
std::string strip_version_suffix(std::string_view symbol);

// Hands out unique names within one scope.
class NameScope {
 public:
  explicit NameScope(std::set<std::string> reserved = {}) : used_(std::move(reserved)) {}
  // `wanted` if free, else wanted + suffix (+ a counter if needed). Returns the name taken.
  std::string take(const std::string& wanted, const std::string& suffix);
  bool taken(const std::string& name) const { return used_.count(name) != 0; }

 private:
  std::set<std::string> used_;
};

}  // namespace clretw::gen
