#include "clretw/gen/output.h"

#include <fstream>
#include <optional>
#include <sstream>

namespace clretw::gen {

namespace fs = std::filesystem;

bool update_output(const fs::path& target, const std::string& text, bool check, std::string_view command,
                   OutputCount& count, std::ostream& err) {
  std::optional<std::string> old;
  if (std::ifstream in(target, std::ios::binary); in) {
    std::ostringstream ss;
    ss << in.rdbuf();
    old = ss.str();
  }
  if (old && *old == text) return true;
  if (check) {
    err << target.string() << ": " << (old ? "out of date" : "missing") << "\n";
    ++count.differ;
    return true;
  }
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  std::ofstream out(target, std::ios::binary);
  out << text;
  if (!out) {
    err << command << ": --output: cannot write " << target.string() << "\n";
    return false;
  }
  ++count.written;
  return true;
}

}  // namespace clretw::gen
