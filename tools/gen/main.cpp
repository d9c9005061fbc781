// clretw-gen: instrumentation manifests to C++ decoders.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "clretw/gen/config.h"
#include "clretw/gen/diff.h"
#include "clretw/gen/docs.h"
#include "clretw/gen/emit_cpp.h"
#include "clretw/gen/fixups.h"
#include "clretw/gen/frontend.h"
#include "clretw/gen/loader.h"
#include "clretw/gen/merge.h"
#include "clretw/gen/namer.h"
#include "clretw/gen/output.h"
#include "clretw/gen/report_formats.h"
#include "clretw/gen/rules.h"
#include "clretw/gen/schema_builder.h"
#include "clretw/gen/validate.h"
#include "clretw/gen/writer.h"
#include "common/guarded_main.h"

namespace fs = std::filesystem;
using namespace clretw::gen;

namespace {

struct GenerateOptions {
  std::vector<std::string> manifests;
  std::string output;
  std::string ns = "clretw";
  std::string templates, fixups;
  bool no_fixups = false, check = false, verbose = false, quiet = false;
};

std::string read_file(const fs::path& p, bool& ok) {
  std::ifstream in(p, std::ios::binary);
  ok = static_cast<bool>(in);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int generate(const GenerateOptions& o) {
  Diagnostics diags;
  FrontEndOptions fo;
  std::optional<FixupSet> custom;
  if (!choose_fixups("clretw-gen generate", o.fixups, o.no_fixups, custom, fo, diags, std::cerr)) return 2;
  EmitOptions eo;
  eo.root_namespace = o.ns;
  if (!o.templates.empty()) {
    auto t = load_templates(o.templates, diags);
    if (!t) {
      std::cerr << "clretw-gen generate: --templates " << o.templates << ":\n" << format_gcc(diags);
      return 2;
    }
    eo.templates = *t;
  }

  bool failed_to_read = false;
  const std::vector<LoadedManifest> loaded = load_all(o.manifests, fo, diags, failed_to_read);
  for (const Diagnostic& d : diags.items())
    if (d.severity != Severity::note || o.verbose) std::cerr << format_gcc(d);
  if (failed_to_read) return 2;
  if (diags.has_errors()) {
    std::cerr << "clretw-gen: " << diags.error_count() << " error(s); nothing generated\n";
    return 1;
  }

  std::vector<SourceManifest> sources;
  for (const auto& l : loaded)
    sources.push_back({l.manifest.get(), l.schema.get(), fs::path(l.manifest->path).filename().string()});
  const std::size_t printed = diags.items().size();
  auto result = emit_cpp(sources, eo, diags);
  const bool failed = !result || diags.has_errors();
  // The emitter's diagnostics: errors, and with -v the notes on every name changed.
  for (std::size_t i = printed; i < diags.items().size(); ++i)
    if (failed || diags.items()[i].severity != Severity::note || o.verbose) std::cerr << format_gcc(diags.items()[i]);
  if (failed) return 1;

  OutputCount count;
  for (const EmittedFile& f : result->files)
    if (!update_output(fs::path(o.output) / f.path, f.text, o.check, "clretw-gen generate", count, std::cerr)) return 2;
  if (!o.quiet) {
    std::printf("clretw-gen: %zu provider(s), %zu events (%zu event ids), %zu templates, %zu maps -> %s (%zu file(s) %s)\n",
                result->providers, result->events, result->event_ids, result->templates, result->maps, o.output.c_str(),
                o.check ? count.differ : count.written, o.check ? "out of date" : "written");
  }
  return count.differ ? 1 : 0;
}

struct ValidateOptions {
  std::vector<std::string> manifests, disable, severity;
  std::string format = "text";
  bool werror = false, list_rules = false, show_accepted = false;
};

void list_rules() {
  for (const Rule& r : rules()) {
    std::string name(r.name);
    name.resize(26, ' ');
    std::string sev(severity_name(r.severity));
    sev.resize(8, ' ');
    std::printf("%.*s  %s %s %.*s\n", static_cast<int>(r.code.size()), r.code.data(), name.c_str(), sev.c_str(),
                static_cast<int>(r.summary.size()), r.summary.data());
  }
}

int validate(const ValidateOptions& o) {
  if (o.list_rules) {
    list_rules();
    return 0;
  }
  if (o.manifests.empty()) {
    std::cerr << "clretw-gen validate: no manifest given (see --help)\n";
    return 2;
  }
  std::string error;
  if (!parse_rule_options(o.disable, {}, error)) {
    std::cerr << "clretw-gen validate: --disable: " << error << "\n";
    return 2;
  }
  auto options = parse_rule_options(o.disable, o.severity, error);
  if (!options) {
    std::cerr << "clretw-gen validate: --severity: " << error << "\n";
    return 2;
  }
  options->werror = o.werror;
  const ValidateResult r = validate_files(o.manifests, *options);
  if (o.format == "json") std::cout << format_json(r.diags, r.status);
  else if (o.format == "sarif") std::cout << format_sarif(r.diags);
  else {
    std::cout << format_gcc(r.diags, o.show_accepted);
    std::cout << "clretw-gen validate: " << o.manifests.size() << " manifest(s), " << r.diags.error_count()
              << " error(s), " << r.diags.warning_count() << " warning(s)";
    if (const std::size_t accepted = r.diags.accepted_count())
      std::cout << "; " << accepted << " warning(s) accepted by the manifests, with their reasons"
                << (o.show_accepted ? "" : " (--show-accepted prints them)");
    std::cout << "\n";
  }
  return r.status;
}

struct DiffOptions {
  std::string old_path, new_path, format = "text";
};

int diff(const DiffOptions& o) {
  const DiffRun run = diff_files(o.old_path, o.new_path);
  std::cerr << format_gcc(run.diags);
  if (run.status == 2) return 2;
  if (o.format == "json") std::cout << format_diff_json(run.result, run.status);
  else std::cout << format_diff_text(run.result);
  return run.status;
}

struct MergeOptions {
  std::string base, update, output;
  bool check = false, quiet = false;
};

// Loads and resolves a manifest as written (no fix-ups: they apply when generating).
std::unique_ptr<Manifest> load_resolved(const std::string& path, Diagnostics& diags) {
  auto l = load(path, {.fixups = FrontEndOptions::Fixups::none, .schema = false}, diags);
  return l ? std::move(l->manifest) : nullptr;
}

int merge(const MergeOptions& o) {
  Diagnostics diags;
  auto base = load_resolved(o.base, diags);
  auto update = load_resolved(o.update, diags);
  std::cerr << format_gcc(diags);
  if (!base || !update) return clretw::gen::unreadable(diags) ? 2 : 1;
  if (diags.has_errors()) return 1;
  const MergeResult r = merge_manifests(*base, *update);
  if (!o.quiet) {
    for (const std::string& k : r.kept) std::printf("kept from %s: %s\n", o.base.c_str(), k.c_str());
    for (const std::string& k : r.dropped) std::printf("dropped from %s: %s\n", o.base.c_str(), k.c_str());
  }
  const std::string text = write_manifest(r.manifest);
  const std::string target = o.output.empty() ? o.base : o.output;
  bool exists = false;
  const std::string old = read_file(target, exists);
  const bool same = exists && old == text;
  if (!o.quiet)
    std::printf("clretw-gen merge: %zu fact(s) kept from %s, %zu dropped; %s %s\n", r.kept.size(), o.base.c_str(),
                r.dropped.size(), target.c_str(), same ? "unchanged" : o.check ? "out of date" : "written");
  if (same) return 0;
  if (o.check) return 1;
  std::ofstream out(target, std::ios::binary);
  out << text;
  if (!out) {
    std::cerr << "clretw-gen merge: --output: cannot write " << target << "\n";
    return 2;
  }
  return 0;
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{
      "clretw-gen: turn ETW instrumentation manifests (the .NET runtime's ClrEtwAll.man above all) into C++ decoders.\n"
      "Run 'clretw-gen COMMAND --help' for the options of a command."};
  app.require_subcommand(1);

  GenerateOptions g;
  CLI::App* gen = app.add_subcommand("generate", "Generate C++ payload structs, zero-copy views and descriptor tables");
  gen->add_option("manifests", g.manifests, "Manifest files (their providers are generated together)")->required()->check(CLI::ExistingFile);
  gen->add_option("-o,--output", g.output, "Output directory (files go under OUTPUT/<namespace path>/)")->required();
  gen->add_option("-n,--namespace", g.ns, "C++ namespace for the generated code")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& ns) -> std::string {
            // Components separated by "::", each a C++ identifier that is not a keyword.
            std::size_t start = 0;
            while (true) {
              const std::size_t end = std::min(ns.find("::", start), ns.size());
              const std::string part = ns.substr(start, end - start);
              if (part.empty() || identifier(part) != part)
                return "'" + ns + "' is not a C++ namespace (identifiers separated by ::)";
              if (end == ns.size()) return {};
              start = end + 2;
            }
          },
          "NAMESPACE"));
  gen->add_option("--templates", g.templates, "Render the *.mustache templates in DIR instead of the built-in ones");
  gen->add_option("--fixups", g.fixups, "Apply this fix-up overlay instead of the built-in CLR one");
  gen->add_flag("--no-fixups", g.no_fixups, "Apply no fix-ups (by default CLR manifests get manifest/clr-fixups.xml)");
  gen->add_flag("--check", g.check, "Write nothing; exit 1 if any output file is missing or differs");
  gen->add_flag("-v,--verbose", g.verbose, "Also print notes: every fix-up applied, every name changed for C++");
  gen->add_flag("-q,--quiet", g.quiet, "Do not print the summary line");
  gen->footer(
      "Output: per provider NS/<provider>.h and .cpp, plus NS/events.h (all headers, catalog()) and NS/all.cpp\n"
      "(compile this one file). Exit status: 0 done, 1 errors in the manifests (or --check found differences),\n"
      "2 unreadable input.");

  ValidateOptions v;
  CLI::App* val = app.add_subcommand("validate", "Check manifests against the rule set (see --list-rules)");
  val->add_option("manifests", v.manifests, "Manifest files");
  val->add_option("--format", v.format, "Output: text (gcc-style), json or sarif (SARIF 2.1.0)")
      ->check(CLI::IsMember({"text", "json", "sarif"}))
      ->capture_default_str();
  val->add_flag("--werror", v.werror, "Exit 1 on warnings too (not on the warnings a manifest accepts)");
  val->add_flag("--show-accepted", v.show_accepted,
                "Print the warnings the manifests accept too, each with the manifest's reason");
  val->add_option("--disable", v.disable, "Turn a rule off, by code or name (e.g. M302 or opcode-value-10); repeatable")
      ->allow_extra_args(false);  // one value per occurrence: `--disable M302 FILE` keeps FILE a manifest
  val->add_option("--severity", v.severity, "Re-grade a rule: CODE=error or CODE=warning (or NAME=...); repeatable")
      ->allow_extra_args(false);  // one value per occurrence: `--disable M302 FILE` keeps FILE a manifest
  val->add_flag("--list-rules", v.list_rules, "Print every rule: code, name, default severity, summary");
  val->footer(
      "Each finding is printed as FILE:LINE:COL: SEVERITY[CODE name]: message, with notes pointing at the item it\n"
      "conflicts with and a hint where one helps. Fix-ups are not applied: the manifest is checked as written.\n"
      "A manifest accepts a warning it knows it has with a comment that says why, anywhere in the file:\n"
      "  <!-- clretw-gen validate accepts M302 opcode-value-10: the runtime's own opcodes use 10 -->\n"
      "Such warnings are counted apart and printed with --show-accepted (SARIF: suppressions).\n"
      "Exit status: 0 clean (warnings allowed), 1 errors (or warnings with --werror), 2 unreadable input or bad usage.");

  DiffOptions d;
  CLI::App* dif = app.add_subcommand("diff", "Compare two versions of a manifest; exit 1 on breaking changes");
  dif->add_option("old", d.old_path, "The manifest existing decoders were built from")->required();
  dif->add_option("new", d.new_path, "The changed manifest")->required();
  dif->add_option("--format", d.format, "Output: text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  dif->footer(
      "Reports, per provider, what was added, removed or changed, each change classed compatible (new events,\n"
      "versions, keywords, map entries ...), warning (what users see moves: a map entry renamed, a level changed)\n"
      "or breaking (a field of an existing event version changed, an id reused, an event version removed, a keyword\n"
      "bit reassigned ...). Exit status: 0 nothing breaking, 1 breaking changes, 2 unreadable input.");

  MergeOptions mo;
  CLI::App* mrg = app.add_subcommand("merge", "Carry a newer manifest's facts into a manifest that has notes and additions");
  mrg->add_option("base", mo.base, "The manifest to update (e.g. manifest/ClrEtwBuiltin.man)")->required()->check(CLI::ExistingFile);
  mrg->add_option("update", mo.update, "The newer manifest (e.g. the runtime's ClrEtwAll.man)")->required()->check(CLI::ExistingFile);
  mrg->add_option("-o,--output", mo.output, "Write the result here instead of over BASE");
  mrg->add_flag("--check", mo.check, "Write nothing; exit 1 if the result differs from the output file");
  mrg->add_flag("-q,--quiet", mo.quiet, "Print nothing but errors");
  mrg->footer(
      "Every fact of UPDATE is taken as it stands. From BASE, the comments of every element still there are kept,\n"
      "and so is everything UPDATE lacks where it does not collide (providers, keywords, tasks, opcodes, maps, map\n"
      "entries, templates, events), and the map a field names where UPDATE's field names none. Each kept or\n"
      "dropped item is printed. The result is written in clretw's canonical form (event messages left out).\n"
      "Exit status: 0 written or unchanged, 1 errors in the input (or --check found a difference), 2 unreadable input.");

  DocsOptions dopt;
  CLI::App* doc = app.add_subcommand("docs", "Write reference documentation in Markdown: a page per provider and an index");
  doc->add_option("manifests", dopt.manifests, "Manifest files")->required()->check(CLI::ExistingFile);
  doc->add_option("-o,--output", dopt.output, "Output directory (README.md and <provider>.md)")->required();
  doc->add_option("--fixups", dopt.fixups, "Apply this fix-up overlay instead of the built-in CLR one");
  doc->add_flag("--no-fixups", dopt.no_fixups, "Apply no fix-ups (by default CLR manifests get manifest/clr-fixups.xml)");
  doc->add_flag("--check", dopt.check, "Write nothing; exit 1 if any page is missing, differs or is stale");
  doc->add_flag("-v,--verbose", dopt.verbose, "Also print notes: every fix-up applied");
  doc->add_flag("-q,--quiet", dopt.quiet, "Do not print the summary line");
  doc->footer(
      "Per provider: its GUID, keywords (what each enables), levels, tasks and opcodes, maps, every event version\n"
      "with its fields, and what changed between consecutive versions of an event; README.md lists the providers.\n"
      "Manifests load as for generate (fix-ups included), so the pages describe what the decoders decode. A stale\n"
      "page that clretw-gen docs wrote is removed. Exit status: 0 done, 1 errors in the manifests (or --check found\n"
      "differences), 2 unreadable input.");

  ConfigCommand co;
  std::string co_format = "all";
  CLI::App* cfg = app.add_subcommand("config", "Print the provider, keywords and level each tracing tool needs to record chosen events");
  cfg->add_option("names", co.names, "Events, globs over them, or keywords: GC/Start, GCAllocationTick, GC/*, Loader, ...")->required();
  cfg->add_option("--manifest", co.manifests, "Read the events from this manifest instead of the built-in ones (repeatable)")
      ->check(CLI::ExistingFile)
      ->allow_extra_args(false);  // one value per occurrence: the names stay names
  cfg->add_option("--format", co_format,
                  "Print one syntax alone: eventpipe (the DOTNET_EventPipeConfig value), dotnet-trace, perfview, logman, xperf "
                  "or wpr; all (the default) prints a report and every syntax")
      ->check(CLI::IsMember({"all", "eventpipe", "dotnet-trace", "perfview", "logman", "xperf", "wpr"}))
      ->capture_default_str();
  cfg->footer(
      "NAME: an event's display name (GC/Start), its symbol (GCAllocationTick_V4, or without the version:\n"
      "GCAllocationTick), a '*' glob over those (GC/*), or a keyword (GC or GCKeyword: its events; a rundown's\n"
      "DCStart/DCEnd ones only with that rundown's keyword named too); case does not matter. An event name means every\n"
      "version of the event. PROVIDER:NAME, or PROVIDER/NAME as clretw-dump prints events, looks in PROVIDER only (its\n"
      "name, the name without Microsoft-Windows- or Microsoft-, or a glob); else a name is read in the first provider\n"
      "it matches anything in (Microsoft-Windows-DotNETRuntime first), a note naming the others.\n"
      "Per provider the level is the highest asked for, and the keywords are: those named; every keyword of every event\n"
      "asked for (any one enables it by the manifest, but the runtime often checks a particular one: Method/LoadVerbose\n"
      "needs JitKeyword, not NGenKeyword, for jitted methods); the StartRundown/EndRundown (runtime provider:\n"
      "StartEnumeration/EndEnumeration) keyword DCStart/DCEnd events need. An event is recorded when its keyword mask\n"
      "is 0 or shares a bit with the session's, and its level is 0 or at most the session's (ETW's rule and\n"
      "EventPipe's, the latter checked against .NET 10).\n"
      "The report counts the other events (newest versions) the same keywords and level enable, the noisiest first: by\n"
      "how often one round of tests/dotnet/workload produced each with one keyword on (.NET 10;\n"
      "tools/config-volume.py), then by level, verbose first. Kernel logger events are not planned (kernel flags enable\n"
      "them).\n"
      "Exit status: 0 done, 1 errors in a manifest, 2 a name that matches nothing, an unreadable manifest or bad usage.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (val->parsed()) return validate(v);
  if (dif->parsed()) return diff(d);
  if (mrg->parsed()) return merge(mo);
  if (doc->parsed()) return run_docs(dopt);
  if (cfg->parsed()) {
    co.format = *parse_config_format(co_format);
    return run_config(co, std::cout, std::cerr);
  }
  return generate(g);
}

int main(int argc, char** argv) { return clretw::tools::guarded_main("clretw-gen", run, argc, argv); }
