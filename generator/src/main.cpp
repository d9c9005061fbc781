// clretw-gen: instrumentation manifests to C++ decoders.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "clretw/gen/emit_cpp.h"
#include "clretw/gen/fixups.h"
#include "clretw/gen/loader.h"
#include "clretw/gen/schema_builder.h"

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

// A manifest read, fixed up, resolved and laid out.
struct Loaded {
  Manifest manifest;
  std::unique_ptr<BuiltSchema> schema;
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
  std::optional<FixupSet> custom;
  if (!o.fixups.empty()) {
    custom = load_fixups(o.fixups, diags);
    if (!custom) {
      std::cerr << format_gcc(diags);
      return 2;
    }
  }
  EmitOptions eo;
  eo.root_namespace = o.ns;
  if (!o.templates.empty()) {
    auto t = load_templates(o.templates, diags);
    if (!t) {
      std::cerr << format_gcc(diags);
      return 2;
    }
    eo.templates = *t;
  }

  std::vector<std::unique_ptr<Loaded>> loaded;
  bool unreadable = false;
  for (const std::string& path : o.manifests) {
    auto l = std::make_unique<Loaded>();
    auto m = load_manifest(path, diags);
    if (!m) {
      unreadable = true;
      continue;
    }
    l->manifest = std::move(*m);
    const FixupSet* fx = nullptr;
    if (custom) fx = &*custom;
    else if (!o.no_fixups && is_clr_manifest(l->manifest)) fx = &clr_fixups();
    if (fx) apply_fixups(l->manifest, *fx, diags);
    resolve(l->manifest);
    l->schema = build_schema(l->manifest, diags);
    loaded.push_back(std::move(l));
  }
  for (const Diagnostic& d : diags.items())
    if (d.severity != Severity::note || o.verbose) std::cerr << format_gcc(d);
  if (unreadable) return 2;
  if (diags.has_errors()) {
    std::cerr << "clretw-gen: " << diags.error_count() << " error(s); nothing generated\n";
    return 1;
  }

  std::vector<SourceManifest> sources;
  for (const auto& l : loaded)
    sources.push_back({&l->manifest, l->schema.get(), fs::path(l->manifest.path).filename().string()});
  auto result = emit_cpp(sources, eo, diags);
  if (!result || diags.has_errors()) {
    std::cerr << format_gcc(diags);
    return 1;
  }

  std::size_t written = 0, stale = 0;
  for (const EmittedFile& f : result->files) {
    const fs::path target = fs::path(o.output) / f.path;
    bool exists = false;
    const std::string old = read_file(target, exists);
    if (exists && old == f.text) continue;
    if (o.check) {
      std::cerr << target.string() << ": " << (exists ? "out of date" : "missing") << "\n";
      ++stale;
      continue;
    }
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    std::ofstream out(target, std::ios::binary);
    out << f.text;
    if (!out) {
      std::cerr << "clretw-gen: cannot write " << target.string() << "\n";
      return 2;
    }
    ++written;
  }
  if (!o.quiet) {
    std::printf("clretw-gen: %zu provider(s), %zu events (%zu event ids), %zu templates, %zu maps -> %s (%zu file(s) %s)\n",
                result->providers, result->events, result->event_ids, result->templates, result->maps, o.output.c_str(),
                o.check ? stale : written, o.check ? "out of date" : "written");
  }
  return stale ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "clretw-gen: turn ETW instrumentation manifests (the .NET runtime's ClrEtwAll.man above all) into C++ decoders.\n"
      "Run 'clretw-gen COMMAND --help' for the options of a command."};
  app.require_subcommand(1);

  GenerateOptions g;
  CLI::App* gen = app.add_subcommand("generate", "Generate C++ payload structs, zero-copy views and descriptor tables");
  gen->add_option("manifests", g.manifests, "Manifest files (their providers are generated together)")->required()->check(CLI::ExistingFile);
  gen->add_option("-o,--output", g.output, "Output directory (files go under OUTPUT/<namespace path>/)")->required();
  gen->add_option("-n,--namespace", g.ns, "C++ namespace for the generated code")->capture_default_str();
  gen->add_option("--templates", g.templates, "Render the *.mustache templates in DIR instead of the built-in ones");
  gen->add_option("--fixups", g.fixups, "Apply this fix-up overlay instead of the built-in CLR one");
  gen->add_flag("--no-fixups", g.no_fixups, "Apply no fix-ups (by default CLR manifests get manifest/clr-fixups.xml)");
  gen->add_flag("--check", g.check, "Write nothing; exit 1 if any output file is missing or differs");
  gen->add_flag("-v,--verbose", g.verbose, "Also print notes, e.g. every fix-up applied");
  gen->add_flag("-q,--quiet", g.quiet, "Do not print the summary line");
  gen->footer(
      "Output: per provider NS/<provider>.h and .cpp, plus NS/events.h (all headers, catalog()) and NS/all.cpp\n"
      "(compile this one file). Exit status: 0 done, 1 errors in the manifests (or --check found differences),\n"
      "2 unreadable input.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return generate(g);
}
