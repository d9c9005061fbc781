// clretw/gen/output.h - the files a command writes (clretw-gen generate, docs), or with --check only
// compares: one rule for what is rewritten, reported and counted.
#pragma once

#include <cstddef>
#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>

namespace clretw::gen {

struct OutputCount {
  std::size_t written = 0;  // files written
  std::size_t differ = 0;   // with --check: files missing or out of date
};

// Brings `target` up to `text`. A file that holds it already is left alone; otherwise, with `check`,
// "TARGET: missing" or "TARGET: out of date" goes to `err`, else the file is written (its directory
// created first). False when it cannot be written, having told `err` "<command>: --output: cannot
// write TARGET" (the command exits with status 2).
bool update_output(const std::filesystem::path& target, const std::string& text, bool check, std::string_view command,
                   OutputCount& count, std::ostream& err);

}  // namespace clretw::gen
