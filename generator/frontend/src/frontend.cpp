#include "clretw/gen/frontend.h"

#include "clretw/gen/loader.h"

namespace clretw::gen {

namespace {

std::optional<LoadedManifest> finish(std::optional<Manifest> m, const FrontEndOptions& o, Diagnostics& diags) {
  if (!m) return std::nullopt;
  LoadedManifest l;
  l.manifest = std::make_unique<Manifest>(std::move(*m));
  const FixupSet* fx = nullptr;
  if (o.fixups == FrontEndOptions::Fixups::custom) fx = o.custom;
  else if (o.fixups == FrontEndOptions::Fixups::clr && is_clr_manifest(*l.manifest)) fx = &clr_fixups();
  if (fx) apply_fixups(*l.manifest, *fx, diags);
  resolve(*l.manifest);
  if (o.schema) l.schema = build_schema(*l.manifest, diags);
  return l;
}

}  // namespace

bool choose_fixups(std::string_view command, const std::string& file, bool none, std::optional<FixupSet>& custom,
                   FrontEndOptions& options, Diagnostics& diags, std::ostream& err) {
  if (!file.empty()) {
    custom = load_fixups(file, diags);
    if (!custom) {
      err << command << ": --fixups " << file << ":\n" << format_gcc(diags);
      return false;
    }
    options.fixups = FrontEndOptions::Fixups::custom;
    options.custom = &*custom;
  } else if (none) {
    options.fixups = FrontEndOptions::Fixups::none;
  }
  return true;
}

std::optional<LoadedManifest> load(const std::string& path, const FrontEndOptions& options, Diagnostics& diags) {
  return finish(load_manifest(path, diags), options, diags);
}

std::optional<LoadedManifest> load_text(std::string text, const std::string& path, const FrontEndOptions& options,
                                        Diagnostics& diags) {
  return finish(load_manifest_text(std::move(text), path, diags), options, diags);
}

std::vector<LoadedManifest> load_all(const std::vector<std::string>& paths, const FrontEndOptions& options,
                                     Diagnostics& diags, bool& unreadable_input) {
  std::vector<LoadedManifest> loaded;
  for (const std::string& path : paths) {
    if (auto l = load(path, options, diags)) loaded.push_back(std::move(*l));
    else unreadable_input |= unreadable(diags);
  }
  return loaded;
}

}  // namespace clretw::gen
