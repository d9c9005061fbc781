// clretw/file.h - a file opened to be read, or the reason it cannot be.
//
// Every reader that opens a file by its path (open_trace(), nettrace::Reader::open_file(),
// etl::Reader::open_file()) opens it here, so that a file that cannot be read is reported alike:
// an Error of code Errc::cannot_open whose detail is the reason, and whose message names no offset.
#pragma once

#include <cstdio>
#include <string>

#include "clretw/result.h"

namespace clretw {

// `path` opened to read its bytes (binary mode), or Errc::cannot_open with the reason: the
// system's (strerror: "No such file or directory", "Permission denied", ...) or "is a directory; name a file in it".
// The caller closes the file.
Result<std::FILE*> open_for_reading(const std::string& path);

}  // namespace clretw
