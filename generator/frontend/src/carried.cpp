#include "clretw/gen/carried.h"

#include <exception>
#include <utility>

#include "clretw/gen/frontend.h"

namespace clretw::gen {

namespace {

// The catalog of a loaded manifest, keeping the manifest alive.
std::shared_ptr<const Catalog> catalog_of(LoadedManifest&& l) {
  auto owner = std::make_shared<LoadedManifest>(std::move(l));
  return std::shared_ptr<const Catalog>(owner, &owner->schema->catalog());
}

}  // namespace

std::shared_ptr<const Catalog> CarriedManifestLoader::load(std::string xml, const std::string& what,
                                                           std::string& diagnostics) const {
  try {
    Diagnostics diags;
    FrontEndOptions fo;
    fo.fixups = FrontEndOptions::Fixups::none;
    auto l = load_text(std::move(xml), what, fo, diags);
    if (!l || diags.error_count() > 0 || !l->schema) {
      diagnostics += format_gcc(diags);
      return nullptr;
    }
    return catalog_of(std::move(*l));
  } catch (const std::exception& e) {  // (out of memory)
    diagnostics += what + ": " + e.what() + "\n";
    return nullptr;
  }
}

std::shared_ptr<const Catalog> load_catalog(const std::string& path, std::string& report) {
  Diagnostics diags;
  auto l = load(path, {}, diags);
  if (!l || !l->schema) {
    report += format_gcc(diags);
    return nullptr;
  }
  for (const Diagnostic& d : diags.items())
    if (d.severity == Severity::error) report += format_gcc(d);
  return catalog_of(std::move(*l));
}

}  // namespace clretw::gen
