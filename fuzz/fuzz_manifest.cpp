// libFuzzer harness: the manifest loader, the validator, and the schema builder
// (as clretw-gen generate runs them) on arbitrary text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "clretw/gen/fixups.h"
#include "clretw/gen/loader.h"
#include "clretw/gen/schema_builder.h"
#include "clretw/gen/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace clretw::gen;
  const std::string text(reinterpret_cast<const char*>(data), size);
  {
    Diagnostics diags;
    auto m = load_manifest_text(text, "fuzz.man", diags);
    if (!m) return 0;
    if (is_clr_manifest(*m)) apply_fixups(*m, clr_fixups(), diags);
    resolve(*m);
    auto schema = build_schema(*m, diags);
  }
  validate_text(text, "fuzz.man", RuleOptions{});
  return 0;
}
