// clretw/gen/namer.h - manifest names to C++ names.
//
// Generated names keep the manifest's spelling wherever C++ allows, so a user
// can grep from a trace to the manifest to the code: field GCStart.Depth is
// accessor Depth(), map GCReasonMap is enum class GCReasonMap. Two things can
// change a name, and both are recorded:
//   - identifier() (or enumerator()): the spelling is not a usable C++
//     identifier: characters outside [A-Za-z0-9_], a leading digit, a keyword,
//     a macro the standard or system headers define, a reserved spelling;
//   - NameScope::take(): the name is already declared in the C++ scope it goes
//     into (by another manifest item or by the generated code itself); it gets
//     a deterministic suffix.
// Each change is a Rename in the scope's log. The emitter reports them as notes
// M710 identifier-changed and M704 name-collision (`clretw-gen generate -v`
// prints them, with the manifest location of the item renamed).
//
// How the emitter uses this to keep every valid manifest compilable:
//   - each C++ scope the generated code declares names in (the root namespace,
//     a provider namespace with its unnamed namespace, `templates`, `payload`,
//     every enum, struct and view class) has exactly one NameScope, seeded with
//     the names the generated code declares or refers to unqualified there;
//   - everything the generated code refers to across scopes is fully qualified:
//     the runtime (::clretw::), the standard library (::std::) and, from inside
//     a class or function, the provider's own declarations (::ns::GCReasonMap),
//     so no manifest name can hide or change the meaning of it.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "clretw/gen/diagnostics.h"

namespace clretw::gen {

// A valid C++ identifier for `name`: invalid characters become '_' (runs of
// them one '_'), a leading digit gets the prefix 'n', reserved spellings (a
// leading '_' and capital, "__") lose underscores, C++ keywords and macros of
// the standard and system headers get a trailing '_'. Never empty. When it
// differs from `name` and `why` is given, *why says what had to change.
std::string identifier(std::string_view name, std::string* why = nullptr);

// Provider namespace: "Microsoft-Windows-DotNETRuntimeRundown" -> "dotnet_runtime_rundown".
// Drops the Microsoft-/Windows- prefixes, splits words, lower-cases, joins with '_'.
// Always lower case, so namespaces (and their file names) never differ only in case.
// *why (if given) is set when more changed than that: non-ASCII characters dropped,
// or what identifier() changed.
std::string provider_namespace(std::string_view provider_name, std::string* why = nullptr);

// Enumerator for a map entry's message ("Small object heap" -> "Small_object_heap"):
// the runs of ASCII letters and digits, joined with '_', made an identifier().
// Empty when the message has no such run. *why (if given) is set when more had
// to change than the joining: characters dropped other than spaces and
// punctuation (non-ASCII letters), or what identifier() changed.
std::string enumerator(std::string_view message, std::string* why = nullptr);

// "GCStart_V2" -> "GCStart": the event name without a trailing _V<digits>.
std::string strip_version_suffix(std::string_view symbol);

// What a name is given to, for reports.
struct NameOrigin {
  std::string what;      // "field 'class' of template 'T'"
  std::string file;      // the manifest declaring it; empty when unknown
  Loc loc;               // where in it
  std::string spelling;  // the manifest's spelling, when the name asked for was derived from it
  std::string why;       // why the name asked for differs from `spelling` (from identifier() / enumerator())
};

// A name that differs from what was asked for.
struct Rename {
  NameOrigin origin;
  std::string from;         // the manifest's spelling, else the name asked for
  std::string to;           // the C++ name given
  std::string reason;       // what changed it, in words
  bool collision = false;   // take() added a suffix (M704); else only the spelling changed (M710)
};

// Hands out unique names within one C++ scope and logs every change.
class NameScope {
 public:
  // `reserved`: names the generated code itself declares or refers to
  // unqualified in this scope. `label` names the scope in reports
  // ("namespace clretw::dotnet_runtime"). Renames go to *log, if given.
  explicit NameScope(const std::set<std::string>& reserved = {}, std::string label = {}, std::vector<Rename>* log = nullptr);

  // Takes `wanted` if it is free, else wanted + suffix, else wanted + suffix +
  // 2, 3, ... (never forming "__"). `members`, if given, is the scope of the
  // members of the class being named: a class cannot have a member of its own
  // name, so the name must be free there too. Logs a Rename when the name
  // given differs from `wanted`, or when origin.why says `wanted` already
  // differs from the manifest's spelling.
  std::string take(const std::string& wanted, const std::string& suffix, const NameOrigin& origin = {},
                   const NameScope* members = nullptr);

  // take(identifier(manifest_name)), reporting a change by either against the manifest's spelling.
  std::string take_name(std::string_view manifest_name, const std::string& suffix, NameOrigin origin,
                        const NameScope* members = nullptr);

  // Marks `name` taken by `what` (e.g. "the struct itself"), for names the generated code declares.
  void reserve(const std::string& name, std::string what) { owners_[name] = std::move(what); }
  bool taken(const std::string& name) const { return owners_.count(name) != 0; }
  const std::string& label() const noexcept { return label_; }

 private:
  std::string why_taken(const std::string& name, const NameScope* members) const;

  std::string label_;
  std::map<std::string, std::string> owners_;  // name -> what took it (empty: the generated code)
  std::vector<Rename>* log_ = nullptr;
};

}  // namespace clretw::gen
