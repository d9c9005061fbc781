#include "reference.h"

#include <filesystem>

#include "clretw/gen/fixups.h"
#include "clretw/gen/loader.h"

namespace clretw::test {

const RecordDesc* Reference::record(const Guid& provider, std::uint16_t id, unsigned version) const {
  EventLookup l = schema->catalog().find(provider, id, static_cast<std::uint8_t>(version));
  if (!l.event || l.event->version != version) return nullptr;
  return l.event->payload;
}

std::unique_ptr<Reference> load_reference(const std::string& path) {
  auto r = std::make_unique<Reference>();
  gen::Diagnostics diags;
  auto m = gen::load_manifest(path, diags);
  if (!m) {
    r->diagnostics = gen::format_gcc(diags);
    return nullptr;
  }
  r->manifest = std::move(*m);
  if (gen::is_clr_manifest(r->manifest)) gen::apply_fixups(r->manifest, gen::clr_fixups(), diags);
  gen::resolve(r->manifest);
  r->schema = gen::build_schema(r->manifest, diags);
  for (const auto& d : diags.items())
    if (d.severity != gen::Severity::note) r->diagnostics += gen::format_gcc(d);
  return r;
}

std::string shared_dir() {
  const std::string dir = CLRETW_SHARED_DIR;
  return std::filesystem::is_directory(dir + "/manifests") ? dir : std::string();
}

}  // namespace clretw::test
