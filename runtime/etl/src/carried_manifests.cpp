#include "carried_manifests.h"

#include <exception>
#include <utility>

#include "clretw/bytes.h"

namespace clretw::etl {

std::optional<CarriedManifest> ManifestChunks::take(const EventRecord& r, const ManifestLoader* loader) {
  const Bytes p = r.payload;
  if (p.size() < 8 || p[0] != 1 || p[3] != 0x5B) return std::nullopt;
  std::string key = r.provider_guid.to_string();
  if (taken_.count(key)) return std::nullopt;
  const auto total = load_le<std::uint16_t>(p.data() + 4), chunk = load_le<std::uint16_t>(p.data() + 6);
  if (total == 0 || chunk >= total) return std::nullopt;
  Pending& m = pending_[key];
  if (m.chunks.size() != total) m = Pending{std::vector<std::string>(total), std::vector<bool>(total), 0};
  if (!m.have[chunk]) {
    m.have[chunk] = true;
    ++m.count;
  }
  m.chunks[chunk].assign(reinterpret_cast<const char*>(p.data() + 8), p.size() - 8);
  if (m.count != total) return std::nullopt;
  std::string xml;
  for (const std::string& c : m.chunks) xml += c;
  pending_.erase(key);
  CarriedManifest c;
  c.provider_guid = r.provider_guid;
  c.provider_name = manifest_provider_name(xml);
  if (loader) {
    try {
      c.catalog = loader->load(std::move(xml), "the manifest of provider " + key + " in the trace", c.diagnostics);
    } catch (const std::exception& e) {  // (a loader must not throw; one that does refuses the manifest)
      c.catalog = nullptr;
      c.diagnostics += std::string(e.what()) + "\n";
    }
    c.status = c.catalog ? CarriedManifest::Status::loaded : CarriedManifest::Status::failed;
  }
  taken_.insert(std::move(key));
  return c;
}

std::string manifest_provider_name(std::string_view xml) {
  const std::size_t element = xml.find("<provider");
  if (element == std::string_view::npos) return {};
  const std::size_t end = xml.find('>', element);
  const std::string_view tag = xml.substr(element, end == std::string_view::npos ? std::string_view::npos : end - element);
  for (std::size_t at = tag.find("name"); at != std::string_view::npos; at = tag.find("name", at + 4)) {
    std::size_t i = at + 4;
    if (at == 0 || (tag[at - 1] != ' ' && tag[at - 1] != '\t' && tag[at - 1] != '\n' && tag[at - 1] != '\r')) continue;
    while (i < tag.size() && (tag[i] == ' ' || tag[i] == '\t' || tag[i] == '\n' || tag[i] == '\r')) ++i;
    if (i >= tag.size() || tag[i] != '=') continue;
    ++i;
    while (i < tag.size() && (tag[i] == ' ' || tag[i] == '\t' || tag[i] == '\n' || tag[i] == '\r')) ++i;
    if (i >= tag.size() || (tag[i] != '"' && tag[i] != '\'')) continue;
    const std::size_t close = tag.find(tag[i], i + 1);
    if (close == std::string_view::npos) return {};
    return std::string(tag.substr(i + 1, close - i - 1));
  }
  return {};
}

}  // namespace clretw::etl
