// clretw/gen/diagnostics.h - located messages about manifests.
//
// Every problem the loader, the fix-up overlay, the schema builder or the
// validator finds is a Diagnostic with a file:line:col, a stable code and a
// message naming the offending item. Printed gcc-style:
//   ClrEtwAll.man:120:21: error[M401 unknown-intype]: field 'Count' of template 'T': unknown inType 'win:Int33'
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace clretw::gen {

struct Loc {
  std::uint32_t line = 0;  // 1-based; 0 when unknown
  std::uint32_t col = 0;
};

enum class Severity : std::uint8_t { error, warning, note };

struct Related {
  std::string file;
  Loc loc;
  std::string message;
};

struct Diagnostic {
  Severity severity = Severity::error;
  std::string code;  // e.g. "M401"
  std::string rule;  // e.g. "unknown-intype"
  std::string file;
  Loc loc;
  std::string message;
  std::string hint;
  std::vector<Related> related;
  // A warning the manifest accepts, with its reason (validate.h: "accepts" comments): counted apart,
  // printed only when asked, a suppression in SARIF.
  std::string accepted;
};

class Diagnostics {
 public:
  Diagnostic& add(Severity severity, std::string code, std::string rule, std::string file, Loc loc, std::string message);
  Diagnostic& error(std::string code, std::string rule, std::string file, Loc loc, std::string message) {
    return add(Severity::error, std::move(code), std::move(rule), std::move(file), loc, std::move(message));
  }
  Diagnostic& warning(std::string code, std::string rule, std::string file, Loc loc, std::string message) {
    return add(Severity::warning, std::move(code), std::move(rule), std::move(file), loc, std::move(message));
  }

  const std::vector<Diagnostic>& items() const noexcept { return items_; }
  std::vector<Diagnostic>& items() noexcept { return items_; }
  std::size_t error_count() const noexcept;
  std::size_t warning_count() const noexcept;   // warnings not accepted by their manifest
  std::size_t accepted_count() const noexcept;  // warnings accepted by their manifest
  bool has_errors() const noexcept { return error_count() != 0; }
  void append(const Diagnostics& other);
  // Sorts by file, line, column (stable), for deterministic output.
  void sort();

 private:
  std::vector<Diagnostic> items_;
};

// "file:line:col: error[M401 unknown-intype]: message" plus indented notes and hint (and the reason, for an
// accepted warning).
std::string format_gcc(const Diagnostic& d);
// Every diagnostic but the accepted warnings (with them too when `accepted` is true).
std::string format_gcc(const Diagnostics& ds, bool accepted = false);
std::string_view severity_name(Severity s) noexcept;

}  // namespace clretw::gen
