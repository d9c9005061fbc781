// libFuzzer harness: the manifest loader, the validator, and the schema builder
// (as clretw-gen generate runs them) on arbitrary text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "clretw/gen/frontend.h"
#include "clretw/gen/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace clretw::gen;
  const std::string text(reinterpret_cast<const char*>(data), size);
  {
    Diagnostics diags;
    auto loaded = load_text(text, "fuzz.man", {}, diags);
    if (!loaded) return 0;
  }
  validate_text(text, "fuzz.man", RuleOptions{});
  return 0;
}
