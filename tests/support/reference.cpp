#include "reference.h"

#include <algorithm>
#include <filesystem>

#include "clretw/gen/fixups.h"
#include "clretw/gen/loader.h"

namespace clretw::test {

const RecordDesc* Reference::record(const Guid& provider, std::uint16_t id, unsigned version) const {
  for (const auto& schema : schemas) {
    EventLookup l = schema->catalog().find(provider, id, static_cast<std::uint8_t>(version));
    if (l.event && l.event->version == version) return l.event->payload;
  }
  return nullptr;
}

std::unique_ptr<Reference> load_reference(const std::string& paths) {
  auto r = std::make_unique<Reference>();
  std::size_t start = 0;
  while (start <= paths.size()) {
    const std::size_t end = std::min(paths.find(';', start), paths.size());
    const std::string path = paths.substr(start, end - start);
    start = end + 1;
    gen::Diagnostics diags;
    auto m = gen::load_manifest(path, diags);
    if (!m) {
      r->diagnostics += gen::format_gcc(diags);
      return nullptr;
    }
    auto manifest = std::make_unique<gen::Manifest>(std::move(*m));
    if (gen::is_clr_manifest(*manifest)) gen::apply_fixups(*manifest, gen::clr_fixups(), diags);
    gen::resolve(*manifest);
    r->schemas.push_back(gen::build_schema(*manifest, diags));
    r->manifests.push_back(std::move(manifest));
    for (const auto& d : diags.items())
      if (d.severity != gen::Severity::note) r->diagnostics += gen::format_gcc(d);
  }
  return r;
}

std::string shared_dir() {
  const std::string dir = CLRETW_SHARED_DIR;
  return std::filesystem::is_directory(dir + "/manifests") ? dir : std::string();
}

}  // namespace clretw::test
