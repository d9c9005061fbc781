#include "clretw/gen/diagnostics.h"

#include <algorithm>

namespace clretw::gen {

Diagnostic& Diagnostics::add(Severity severity, std::string code, std::string rule, std::string file, Loc loc,
                             std::string message) {
  Diagnostic d;
  d.severity = severity;
  d.code = std::move(code);
  d.rule = std::move(rule);
  d.file = std::move(file);
  d.loc = loc;
  d.message = std::move(message);
  items_.push_back(std::move(d));
  return items_.back();
}

std::size_t Diagnostics::error_count() const noexcept {
  return static_cast<std::size_t>(
      std::count_if(items_.begin(), items_.end(), [](const Diagnostic& d) { return d.severity == Severity::error; }));
}

std::size_t Diagnostics::warning_count() const noexcept {
  return static_cast<std::size_t>(std::count_if(items_.begin(), items_.end(), [](const Diagnostic& d) {
    return d.severity == Severity::warning && d.accepted.empty();
  }));
}

std::size_t Diagnostics::accepted_count() const noexcept {
  return static_cast<std::size_t>(
      std::count_if(items_.begin(), items_.end(), [](const Diagnostic& d) { return !d.accepted.empty(); }));
}

void Diagnostics::append(const Diagnostics& other) { items_.insert(items_.end(), other.items_.begin(), other.items_.end()); }

void Diagnostics::sort() {
  std::stable_sort(items_.begin(), items_.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.file != b.file) return a.file < b.file;
    if (a.loc.line != b.loc.line) return a.loc.line < b.loc.line;
    return a.loc.col < b.loc.col;
  });
}

std::string_view severity_name(Severity s) noexcept {
  switch (s) {
    case Severity::error: return "error";
    case Severity::warning: return "warning";
    case Severity::note: return "note";
  }
  return "error";
}

namespace {
std::string where(const std::string& file, Loc loc) {
  std::string s = file;
  if (loc.line) s += ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
  return s;
}
}  // namespace

std::string format_gcc(const Diagnostic& d) {
  std::string s = where(d.file, d.loc) + ": " + std::string(severity_name(d.severity));
  if (!d.code.empty()) s += "[" + d.code + (d.rule.empty() ? "" : " " + d.rule) + "]";
  s += ": " + d.message + "\n";
  for (const Related& r : d.related) s += where(r.file, r.loc) + ": note: " + r.message + "\n";
  if (!d.hint.empty()) s += "  hint: " + d.hint + "\n";
  if (!d.accepted.empty()) s += "  accepted by the manifest: " + d.accepted + "\n";
  return s;
}

std::string format_gcc(const Diagnostics& ds, bool accepted) {
  std::string s;
  for (const Diagnostic& d : ds.items())
    if (accepted || d.accepted.empty()) s += format_gcc(d);
  return s;
}

}  // namespace clretw::gen
