#include "reference.h"

#include <algorithm>
#include <filesystem>

#include "clretw/gen/frontend.h"
#include "shared_cases.h"

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
    auto l = gen::load(path, {}, diags);
    if (!l) {
      r->diagnostics += gen::format_gcc(diags);
      return nullptr;
    }
    r->schemas.push_back(std::move(l->schema));
    r->manifests.push_back(std::move(l->manifest));
    for (const auto& d : diags.items())
      if (d.severity != gen::Severity::note) r->diagnostics += gen::format_gcc(d);
  }
  return r;
}

std::string shared_dir() {
  const std::string dir = CLRETW_SHARED_DIR;
  return std::filesystem::is_directory(dir + "/manifests") ? dir : std::string();
}

std::string shared_dir_or_skip(const std::string& why) {
  std::string dir = shared_dir();
  if (dir.empty()) skip(why);
  return dir;
}

}  // namespace clretw::test
