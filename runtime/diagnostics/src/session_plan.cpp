// What a session asks for, from dotnet-trace's options: provider specifications, the profiles,
// --clrevents, and the table of what was enabled.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <map>
#include <set>

#include "clretw/diagnostics.h"
#include "clretw/select.h"
#include "clretw/text.h"

namespace clretw::diagnostics {

namespace {

constexpr std::string_view kRuntimeProvider = "Microsoft-Windows-DotNETRuntime";

std::string lower(std::string_view s) { return ascii_lower(s); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

const ProviderDesc* find_provider(std::string_view name, const std::vector<const Catalog*>& catalogs) {
  for (const Catalog* c : catalogs)
    for (const ProviderDesc* p : c->providers)
      if (lower(p->name) == lower(name)) return p;
  return nullptr;
}

// A keyword of `p` by name: exact, or without its "Keyword" suffix, case-insensitively.
std::optional<std::uint64_t> keyword_of(const ProviderDesc& p, std::string_view name) {
  const std::string want = lower(name);
  for (const KeywordDesc& k : p.keywords) {
    const std::string n = lower(k.name);
    if (k.mask && (n == want || n == want + "keyword")) return k.mask;
  }
  return std::nullopt;
}

// dotnet-trace's --clrevents names that are not a keyword's name in today's manifest.
constexpr std::pair<std::string_view, std::uint64_t> kClrAliases[] = {
    {"fusion", 0x4}, {"assemblyloader", 0x4}, {"gcheapcollect", 0x800000}, {"managedheadcollect", 0x800000},
    {"managedheapcollect", 0x800000}};

// Level names and numbers as dotnet-trace reads them (a number above 5 is verbose).
std::optional<std::uint32_t> parse_level(std::string_view text) {
  static const std::map<std::string, std::uint32_t> names{{"logalways", 0}, {"critical", 1}, {"error", 2},
                                                          {"warning", 3}, {"informational", 4}, {"verbose", 5}};
  const std::string level = lower(trim(text));
  if (auto it = names.find(level); it != names.end()) return it->second;
  std::uint32_t n = 0;
  auto [ptr, ec] = std::from_chars(level.data(), level.data() + level.size(), n);
  if (level.empty() || ec != std::errc() || ptr != level.data() + level.size()) return std::nullopt;
  return std::min<std::uint32_t>(n, 5);
}

const char* level_name(std::uint32_t level) {
  static const char* const names[] = {"LogAlways", "Critical", "Error", "Warning", "Informational", "Verbose"};
  return level <= 5 ? names[level] : "Verbose";
}

// Keywords: a hex mask, or names joined by '+' or '|' (of `provider` in `catalogs`).
Result<std::uint64_t> parse_keywords(std::string_view text, std::string_view provider, const std::vector<const Catalog*>& catalogs) {
  std::string_view k = trim(text);
  std::string_view hex = k;
  if (hex.size() > 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex.remove_prefix(2);
  std::uint64_t mask = 0;
  auto [ptr, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), mask, 16);
  if (!hex.empty() && ec == std::errc() && ptr == hex.data() + hex.size()) return mask;
  const ProviderDesc* p = find_provider(provider, catalogs);
  const bool runtime = lower(provider) == lower(kRuntimeProvider);
  mask = 0;
  std::size_t start = 0;
  while (start <= k.size()) {
    const std::size_t end = std::min(k.find_first_of("+|", start), k.size());
    const std::string_view name = trim(k.substr(start, end - start));
    start = end + 1;
    std::optional<std::uint64_t> bit;
    if (p) bit = keyword_of(*p, name);
    if (!bit && runtime) bit = clr_keyword(name, catalogs);
    if (!bit) {
      std::string known;
      if (p)
        for (const KeywordDesc& kw : p->keywords)
          if (kw.mask && known.size() < 400) known += (known.empty() ? "" : ", ") + std::string(kw.name);
      return Error{Errc::bad_format, 0, {},
                   "keywords '" + std::string(text) + "' are neither a hex mask nor keyword names" +
                       (name.empty() ? std::string() : ": '" + std::string(name) + "' is not a keyword of " + std::string(provider)) +
                       (known.empty() ? std::string(" (no catalog lists this provider's keywords: give a hex mask)")
                                      : " (its keywords: " + known + ")")};
    }
    mask |= *bit;
  }
  return mask;
}

// EventSources of the runtime libraries and ASP.NET Core that people trace by name: known to
// exist, though no catalog describes them (their events describe themselves).
constexpr std::string_view kWellKnownSources[] = {
    "Microsoft-DotNETCore-EventPipe",
    "Microsoft-DotNETCore-SampleProfiler",
    "System.Runtime",
    "System.Threading.Tasks.TplEventSource",
    "System.Diagnostics.Metrics",
    "Microsoft-Diagnostics-DiagnosticSource",
    "System.Buffers.ArrayPoolEventSource",
    "System.Collections.Concurrent.ConcurrentCollectionsEventSource",
    "System.Net.Http",
    "System.Net.Sockets",
    "System.Net.NameResolution",
    "System.Net.Security",
    "Private.InternalDiagnostics.System.Net.Http",
    "Microsoft-Extensions-Logging",
    "Microsoft.Extensions.Hosting",
    "Microsoft.AspNetCore.Hosting",
    "Microsoft.AspNetCore.Http.Connections",
    "Microsoft-AspNetCore-Server-Kestrel",
    "Microsoft-AspNetCore-Server-Kestrel-Connections",
    "Microsoft.Data.SqlClient.EventSource",
    "Microsoft.EntityFrameworkCore",
    "Microsoft-Windows-DotNETRuntimeStress",
};

bool known_provider(std::string_view name, const std::vector<const Catalog*>& catalogs) {
  if (find_provider(name, catalogs)) return true;
  return std::any_of(std::begin(kWellKnownSources), std::end(kWellKnownSources),
                     [&](std::string_view k) { return lower(k) == lower(name); });
}

}  // namespace

std::optional<std::uint64_t> clr_keyword(std::string_view name, const std::vector<const Catalog*>& catalogs) {
  const std::string want = lower(trim(name));
  for (const auto& [alias, mask] : kClrAliases)
    if (alias == want) return mask;
  if (const ProviderDesc* p = find_provider(kRuntimeProvider, catalogs)) return keyword_of(*p, want);
  return std::nullopt;
}

std::vector<std::string> nearest_providers(std::string_view name, const std::vector<const Catalog*>& catalogs, std::size_t n) {
  std::vector<std::string> known(std::begin(kWellKnownSources), std::end(kWellKnownSources));
  for (const Catalog* c : catalogs)
    for (const ProviderDesc* p : c->providers) known.emplace_back(p->name);
  return nearest_names(name, known, n);
}

Result<std::vector<Provider>> parse_providers(std::string_view spec, const std::vector<const Catalog*>& catalogs) {
  std::vector<Provider> out;
  auto bad = [&](std::string_view part, const std::string& why) {
    return Error{Errc::bad_format, 0, {}, "provider '" + std::string(part) + "': " + why};
  };
  std::size_t start = 0;
  while (start <= spec.size()) {
    // Providers are comma separated; a filter argument may be quoted and hold commas.
    std::size_t end = start;
    bool quoted = false;
    while (end < spec.size() && (quoted || spec[end] != ',')) quoted ^= spec[end++] == '"';
    std::string_view part = trim(spec.substr(start, end - start));
    start = end + 1;
    if (part.empty()) {
      if (end >= spec.size()) break;
      continue;
    }
    Provider p;
    // Name[:Keywords[:Level[:Arguments]]]: the arguments keep any further colons.
    std::vector<std::string_view> pieces;
    std::string_view rest = part;
    for (std::size_t colon; pieces.size() < 3 && (colon = rest.find(':')) != std::string_view::npos;) {
      pieces.push_back(rest.substr(0, colon));
      rest.remove_prefix(colon + 1);
    }
    pieces.push_back(rest);
    p.name = std::string(trim(pieces[0]));
    if (p.name.empty()) return bad(part, "no provider name");
    if (pieces.size() > 1 && !trim(pieces[1]).empty() && trim(pieces[1]) != "*") {
      auto k = parse_keywords(pieces[1], p.name, catalogs);
      if (!k) return bad(part, k.error().detail);
      p.keywords = *k;
    }
    if (pieces.size() > 2 && !trim(pieces[2]).empty()) {
      auto level = parse_level(pieces[2]);
      if (!level) return bad(part, "level '" + std::string(pieces[2]) + "' is not a number 0-5 or a level name (critical ... verbose)");
      p.level = *level;
    }
    if (pieces.size() > 3) {
      std::string args(pieces[3]);
      if (args.size() >= 2 && args.front() == '"' && args.back() == '"') args = args.substr(1, args.size() - 2);
      p.arguments = args;
    }
    out.push_back(std::move(p));
  }
  if (out.empty()) return Error{Errc::bad_format, 0, {}, "no providers in '" + std::string(spec) + "'"};
  return out;
}

const std::vector<ProfileInfo>& profiles() {
  // As dotnet-trace 10 defines them (its list-profiles, and the table collect prints).
  constexpr std::uint64_t kCommon = 0x1 | 0x4 | 0x8 | 0x10 | 0x8000 | 0x10000 | 0x20000 | 0x1000000000ull;
  static const std::vector<ProfileInfo> kProfiles = {
      {.name = "dotnet-common",
       .description = "Lightweight .NET runtime diagnostics designed to stay low overhead: GC, AssemblyLoader, Loader, JIT,\n"
                      "Exceptions, Threading, JittedMethodILToNativeMap and Compilation events",
       .providers = {{std::string(kRuntimeProvider), kCommon, 4, {}}}},
      {.name = "dotnet-sampled-thread-time",
       // dotnet-trace says "~100 Hz"; measured on .NET 10 (docs/TESTING.md, "The sample profiler's rate"),
       // each thread is sampled every 1.1 to 1.3 ms.
       .description = "Samples .NET thread stacks to estimate how much wall clock time code is using: a sample of\n"
                      "each thread every 1.1 to 1.3 ms (700-850 Hz measured on .NET 10; fewer when every core is busy)",
       .providers = {{"Microsoft-DotNETCore-SampleProfiler", 0xF00000000000ull, 4, {}}},
       .verb = "collect"},
      {.name = "gc-verbose",
       .description = "Tracks GC collections and samples object allocations",
       .providers = {{std::string(kRuntimeProvider), 0x8003, 5, {}}}},
      {.name = "gc-collect",
       .description = "Tracks GC collections only at very low overhead (its rundown: GC only; none before .NET 9)",
       .providers = {{std::string(kRuntimeProvider), 0x1, 4, {}}, {"Microsoft-Windows-DotNETRuntimePrivate", 0x1, 4, {}}},
       .rundown_keywords = 0x1,
       .fallback = RundownFallback::none},
      {.name = "database",
       .description = "Captures ADO.NET and Entity Framework database commands",
       .providers = {{"System.Threading.Tasks.TplEventSource", 0x80, 4, {}},
                     {"Microsoft-Diagnostics-DiagnosticSource", 0x3, 5,
                      "FilterAndPayloadSpecs=\""
                      "SqlClientDiagnosticListener/System.Data.SqlClient.WriteCommandBefore@Activity1Start:-Command;Command.CommandText;"
                      "ConnectionId;Operation;Command.Connection.ServerVersion;Command.CommandTimeout;Command.CommandType;"
                      "Command.Connection.ConnectionString;Command.Connection.Database;Command.Connection.DataSource;"
                      "Command.Connection.PacketSize\r\n"
                      "SqlClientDiagnosticListener/System.Data.SqlClient.WriteCommandAfter@Activity1Stop:\r\n"
                      "Microsoft.EntityFrameworkCore/Microsoft.EntityFrameworkCore.Database.Command.CommandExecuting@Activity2Start:"
                      "-Command.CommandText;Command;ConnectionId;IsAsync;Command.Connection.ClientConnectionId;"
                      "Command.Connection.ServerVersion;Command.CommandTimeout;Command.CommandType;Command.Connection.ConnectionString;"
                      "Command.Connection.Database;Command.Connection.DataSource;Command.Connection.PacketSize\r\n"
                      "Microsoft.EntityFrameworkCore/Microsoft.EntityFrameworkCore.Database.Command.CommandExecuted@Activity2Stop:\""}}},
      {.name = "cpu-sampling",
       .description = "Kernel CPU sampling events for measuring CPU usage",
       .verb = "collect-linux"},
      {.name = "thread-time",
       .description = "Kernel thread context switch events for measuring CPU usage and wall clock time",
       .verb = "collect-linux"},
  };
  return kProfiles;
}

namespace {

const ProfileInfo* find_profile(std::string_view name) {
  for (const ProfileInfo& p : profiles())
    if (lower(p.name) == lower(trim(name))) return &p;
  return nullptr;
}

Error no_profile(std::string_view name, std::string_view verb) {
  std::string known;
  for (const ProfileInfo& p : profiles())
    if (p.verb.empty() || p.verb == verb) known += (known.empty() ? "" : ", ") + std::string(p.name);
  return Error{Errc::bad_format, 0, {}, "no profile '" + std::string(name) + "' (profiles: " + known + ")"};
}

// Two configurations of one provider: keywords or'ed, the more verbose level, the one set of
// filter arguments.
Status merge_into(Provider& into, const Provider& p) {
  if (!into.arguments.empty() && !p.arguments.empty() && into.arguments != p.arguments)
    return Error{Errc::bad_format, 0, {}, "provider '" + p.name + "' is given twice with different filter arguments"};
  into.keywords |= p.keywords;
  into.level = (into.level == 0 || p.level == 0) ? 0 : std::max(into.level, p.level);
  if (into.arguments.empty()) into.arguments = p.arguments;
  return {};
}

}  // namespace

Result<SessionOptions> profile(std::string_view name) {
  const ProfileInfo* p = find_profile(name);
  if (!p) return no_profile(name, "collect");
  SessionOptions o;
  o.providers = p->providers;
  if (p->rundown_keywords) o.rundown_keywords = p->rundown_keywords;
  o.rundown_fallback = p->fallback;
  return o;
}

std::vector<std::string_view> profile_names() {
  std::vector<std::string_view> out;
  for (const ProfileInfo& p : profiles()) out.push_back(p.name);
  return out;
}

Result<SessionPlan> plan_session(const SessionRequest& r, const std::vector<const Catalog*>& catalogs) {
  SessionPlan plan;
  SessionOptions& o = plan.options;
  o.buffer_mb = r.buffer_mb;
  o.buffering = r.buffering;
  std::string profile_list = r.profiles;
  if (trim(profile_list).empty() && trim(r.providers).empty() && trim(r.clrevents).empty()) {
    profile_list = "dotnet-common,dotnet-sampled-thread-time";
    plan.notes.push_back("no profile or providers given: the profiles dotnet-common and dotnet-sampled-thread-time, as dotnet-trace's default");
  }
  auto index_of = [&](std::string_view name) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < o.providers.size(); ++i)
      if (lower(o.providers[i].name) == lower(name)) return i;
    return std::nullopt;
  };
  // --providers first: they decide for the providers they name.
  if (!trim(r.providers).empty()) {
    auto given = parse_providers(r.providers, catalogs);
    if (!given) return Error{Errc::bad_format, 0, {}, "--providers: " + given.error().detail};
    for (const Provider& p : *given) {
      if (auto i = index_of(p.name)) {
        if (Status s = merge_into(o.providers[*i], p); !s) return Error{Errc::bad_format, 0, {}, "--providers: " + s.error().detail};
      } else {
        o.providers.push_back(p);
        plan.enabled_by.push_back(by_providers);
      }
    }
  }
  // The profiles: a union of their providers where --providers did not name them.
  std::uint64_t rundown_keywords = 0;
  bool standard_rundown = false;
  RundownFallback fallback = RundownFallback::fail;
  std::size_t start = 0;
  while (start <= profile_list.size()) {
    const std::size_t end = std::min(profile_list.find(',', start), profile_list.size());
    const std::string_view name = trim(std::string_view(profile_list).substr(start, end - start));
    start = end + 1;
    if (name.empty()) continue;
    const ProfileInfo* p = find_profile(name);
    if (!p) return Error{Errc::bad_format, 0, {}, "--profile: " + no_profile(name, r.verb).detail};
    if (!p->verb.empty() && p->verb != r.verb)
      return Error{Errc::bad_format, 0, {},
                   "--profile: the profile '" + std::string(p->name) + "' is for dotnet-trace " + std::string(p->verb) + ", not for " +
                       std::string(r.verb) + (p->verb == "collect-linux" ? " (kernel events through perf_events)" : "")};
    for (const Provider& q : p->providers) {
      if (auto i = index_of(q.name)) {
        if (plan.enabled_by[*i] & by_providers) continue;  // --providers decides
        if (Status s = merge_into(o.providers[*i], q); !s) return Error{Errc::bad_format, 0, {}, "--profile: " + s.error().detail};
      } else {
        o.providers.push_back(q);
        plan.enabled_by.push_back(by_profile);
      }
    }
    // A narrower rundown only when every profile asks for one: a profile that wants the standard
    // rundown (0) gets it, whatever the others ask.
    standard_rundown |= p->rundown_keywords == 0;
    rundown_keywords |= p->rundown_keywords;
    if (p->fallback > fallback) fallback = p->fallback;
  }
  // --clrevents: the runtime provider, unless something named it already.
  if (!trim(r.clrevents).empty()) {
    Provider clr{std::string(kRuntimeProvider), 0, 4, {}};
    std::string_view list = r.clrevents;
    std::size_t s = 0;
    while (s <= list.size()) {
      const std::size_t e = std::min(list.find('+', s), list.size());
      const std::string_view name = trim(list.substr(s, e - s));
      s = e + 1;
      auto bit = clr_keyword(name, catalogs);
      if (!bit) return Error{Errc::bad_format, 0, {}, "--clrevents: '" + std::string(name) + "' is not a CLR event keyword"};
      clr.keywords |= *bit;
    }
    if (!trim(r.clreventlevel).empty()) {
      auto level = parse_level(r.clreventlevel);
      if (!level) return Error{Errc::bad_format, 0, {}, "--clreventlevel: '" + r.clreventlevel + "' is not a level (0-5, critical ... verbose)"};
      clr.level = *level;
    }
    if (index_of(clr.name)) {
      plan.notes.push_back("the runtime provider is given by --providers or --profile already: --clrevents is ignored");
    } else {
      o.providers.push_back(clr);
      plan.enabled_by.push_back(by_clrevents);
    }
  } else if (!trim(r.clreventlevel).empty()) {
    plan.notes.push_back("--clreventlevel without --clrevents is ignored");
  }
  // The rundown: as the profiles ask, unless --rundown says.
  o.rundown = true;
  if (rundown_keywords && !standard_rundown) o.rundown_keywords = rundown_keywords, o.rundown_fallback = fallback;
  if (r.rundown) {
    if (*r.rundown) {
      o.rundown_keywords.reset();  // the standard rundown, which covers every profile's narrower one
      o.rundown_fallback = RundownFallback::fail;
    } else {
      o.rundown = false;
      o.rundown_keywords.reset();
    }
  }
  if (o.providers.empty()) return Error{Errc::bad_format, 0, {}, "--providers: no providers to enable"};
  for (const Provider& p : o.providers) {
    if (known_provider(p.name, catalogs)) continue;
    const auto near = nearest_providers(p.name, catalogs);
    std::string note = "no catalog knows the provider '" + p.name + "'";
    if (!near.empty()) {
      note += ": did you mean ";
      for (std::size_t i = 0; i < near.size(); ++i) note += (i ? (i + 1 == near.size() ? " or " : ", ") : "") + near[i];
      note += "?";
    } else {
      note += " (an EventSource of the application's own is enabled by its name as given)";
    }
    plan.notes.push_back(note);
  }
  return plan;
}

std::string provider_table(const SessionPlan& plan) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-40s%-20s%-20s%s\n", "Provider Name", "Keywords", "Level", "Enabled By");
  out += line;
  for (std::size_t i = 0; i < plan.options.providers.size(); ++i) {
    const Provider& p = plan.options.providers[i];
    const unsigned by = i < plan.enabled_by.size() ? plan.enabled_by[i] : 0;
    std::string sources;
    for (auto [bit, name] : {std::pair{by_providers, "--providers"}, {by_clrevents, "--clrevents"}, {by_profile, "--profile"}})
      if (by & bit) sources += (sources.empty() ? "" : ", ") + std::string(name);
    char keywords[24], level[24];
    std::snprintf(keywords, sizeof keywords, "0x%016llX", static_cast<unsigned long long>(p.keywords));
    std::snprintf(level, sizeof level, "%s(%u)", level_name(p.level), p.level);
    std::snprintf(line, sizeof line, "%-40s%-20s%-20s%s\n", p.name.c_str(), keywords, level, sources.c_str());
    out += line;
  }
  return out;
}

}  // namespace clretw::diagnostics
