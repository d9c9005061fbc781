#include "clretw/file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace clretw {

Result<std::FILE*> open_for_reading(const std::string& path) {
  // Asked first: on POSIX a directory opens and fails only when read; on Windows it does not open,
  // and the system's reason ("Permission denied") would say nothing of what is wrong.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return cannot_open("is a directory; name a file in it");
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    const int e = errno;
    return cannot_open(e ? std::strerror(e) : "the system gave no reason");
  }
  return f;
}

}  // namespace clretw
