#include "clretw/gen/namer.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace clretw::gen {

namespace {

const std::set<std::string>& cpp_keywords() {
  static const std::set<std::string> k = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
      "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
      "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
      "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
      "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
      "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
      "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
      "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq"};
  return k;
}

// Macros commonly defined by the standard and system headers (min/max: windows.h;
// linux/unix: predefined by gcc and clang in the GNU modes, -std=gnu++20).
const std::set<std::string>& common_macros() {
  static const std::set<std::string> k = {"NULL", "TRUE", "FALSE", "EOF", "errno", "assert", "min", "max", "major",
                                          "minor", "stdin", "stdout", "stderr", "linux", "unix"};
  return k;
}

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_non_ascii(char c) { return static_cast<unsigned char>(c) >= 0x80; }

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : sep) + p;
  return s;
}

}  // namespace

std::string identifier(std::string_view name, std::string* why) {
  std::vector<std::string> reasons;
  std::string s;
  bool non_ascii = false, invalid = false;
  for (char c : name) {
    if (is_ident_char(c)) {
      s.push_back(c);
    } else {
      s.push_back('_');
      (is_non_ascii(c) ? non_ascii : invalid) = true;
    }
  }
  if (non_ascii) reasons.push_back("non-ASCII characters");
  if (invalid) reasons.push_back("characters not allowed in identifiers");
  if (s.empty()) {
    s = "unnamed";
    reasons.push_back("empty");
  }
  if (std::isdigit(static_cast<unsigned char>(s[0]))) {
    s = "n" + s;
    reasons.push_back("starts with a digit");
  }
  // Identifiers starting with '_' + capital, or containing "__", are reserved.
  const std::string before = s;
  while (s.size() > 1 && s[0] == '_' && (s[1] == '_' || std::isupper(static_cast<unsigned char>(s[1])))) s.erase(0, 1);
  for (std::size_t i; (i = s.find("__")) != std::string::npos;) s.erase(i, 1);
  if (s == "_") s = "unnamed";
  const bool reserved_spelling = name.find("__") != std::string_view::npos ||
                                 (name.size() > 1 && name[0] == '_' && std::isupper(static_cast<unsigned char>(name[1])));
  if (s != before && reserved_spelling) reasons.push_back("a reserved spelling ('__', or '_' and a capital letter)");
  if (cpp_keywords().count(s)) {
    s += '_';
    reasons.push_back("a C++ keyword");
  } else if (common_macros().count(s)) {
    s += '_';
    reasons.push_back("a macro of the standard or system headers");
  }
  if (why) *why = s == name ? std::string() : join(reasons, ", ");
  return s;
}

std::string provider_namespace(std::string_view name, std::string* why) {
  for (std::string_view prefix : {"Microsoft-", "Windows-"})
    if (name.substr(0, prefix.size()) == prefix) name.remove_prefix(prefix.size());
  // Split on punctuation and at case boundaries: "DotNETRuntimeRundown" -> Dot NET Runtime Rundown.
  std::vector<std::string> words;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) words.push_back(cur);
    cur.clear();
  };
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (!std::isalnum(static_cast<unsigned char>(c))) {
      flush();
      continue;
    }
    if (!cur.empty()) {
      const char prev = cur.back();
      const bool lower_to_upper = std::islower(static_cast<unsigned char>(prev)) && std::isupper(static_cast<unsigned char>(c));
      const bool acronym_end = std::isupper(static_cast<unsigned char>(prev)) && std::isupper(static_cast<unsigned char>(c)) &&
                               i + 1 < name.size() && std::islower(static_cast<unsigned char>(name[i + 1]));
      const bool digit_edge = std::isdigit(static_cast<unsigned char>(prev)) != std::isdigit(static_cast<unsigned char>(c));
      if (lower_to_upper || acronym_end || digit_edge) flush();
    }
    cur.push_back(c);
  }
  flush();
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string w;
    for (char c : words[i]) w.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    // ".NET" is one word: Dot + NET -> dotnet.
    if (w == "dot" && i + 1 < words.size() && (words[i + 1] == "NET" || words[i + 1] == "Net")) {
      w = "dotnet";
      ++i;
    }
    if (!out.empty()) out += '_';
    out += w;
  }
  std::string id_why;
  std::string id = identifier(out.empty() ? std::string("provider") : out, &id_why);
  if (why) {
    std::vector<std::string> reasons;
    if (std::any_of(name.begin(), name.end(), is_non_ascii)) reasons.push_back("non-ASCII characters dropped");
    if (!id_why.empty()) reasons.push_back(id_why);
    *why = join(reasons, ", ");
  }
  return id;
}

std::string enumerator(std::string_view message, std::string* why) {
  std::string s;
  bool gap = false, dropped = false;
  for (char c : message) {
    if (is_ident_char(c) && c != '_') {
      if (gap && !s.empty()) s.push_back('_');
      s.push_back(c);
      gap = false;
    } else {
      dropped |= is_non_ascii(c);
      gap = true;
    }
  }
  std::vector<std::string> reasons;
  if (dropped) reasons.push_back("non-ASCII characters dropped");
  std::string id;
  if (s.empty()) {
    reasons.push_back("no ASCII letters or digits");
  } else {
    std::string id_why;
    id = identifier(s, &id_why);
    if (!id_why.empty()) reasons.push_back(id_why);
  }
  if (why) *why = join(reasons, ", ");
  return id;
}

std::string strip_version_suffix(std::string_view symbol) {
  auto pos = symbol.rfind("_V");
  if (pos != std::string_view::npos && pos + 2 < symbol.size() && pos > 0) {
    bool digits = true;
    for (std::size_t i = pos + 2; i < symbol.size(); ++i) digits &= std::isdigit(static_cast<unsigned char>(symbol[i])) != 0;
    if (digits) return std::string(symbol.substr(0, pos));
  }
  return std::string(symbol);
}

NameScope::NameScope(const std::set<std::string>& reserved, std::string label, std::vector<Rename>* log)
    : label_(std::move(label)), log_(log) {
  for (const std::string& r : reserved) owners_.emplace(r, std::string());
}

std::string NameScope::why_taken(const std::string& name, const NameScope* members) const {
  const std::string in = label_.empty() ? std::string() : " in " + label_;
  auto it = owners_.find(name);
  if (it == owners_.end()) return "'" + name + "' is a member of " + (members->label_.empty() ? "the class" : members->label_);
  if (it->second.empty()) return "'" + name + "' is used by the generated code" + in;
  return "'" + name + "' is taken by " + it->second + in;
}

std::string NameScope::take(const std::string& wanted, const std::string& suffix, const NameOrigin& origin,
                            const NameScope* members) {
  auto free = [&](const std::string& n) { return !taken(n) && !(members && members->taken(n)); };
  std::string name = wanted;
  std::string collision;
  if (!free(wanted)) {
    collision = why_taken(wanted, members);
    // wanted + suffix, without forming "__" (reserved) when wanted ends in '_'.
    const std::string base = !wanted.empty() && wanted.back() == '_' && !suffix.empty() && suffix[0] == '_'
                                 ? wanted + suffix.substr(1)
                                 : wanted + suffix;
    name = base;
    for (int n = 2; !free(name); ++n) name = base + std::to_string(n);
  }
  owners_.emplace(name, origin.what);
  if (log_ && (name != wanted || !origin.why.empty())) {
    Rename r;
    r.origin = origin;
    r.from = origin.spelling.empty() ? wanted : origin.spelling;
    r.to = name;
    r.collision = name != wanted;
    std::vector<std::string> reasons;
    if (!origin.why.empty()) reasons.push_back(origin.why);
    if (r.collision) reasons.push_back(collision);
    r.reason = join(reasons, "; ");
    log_->push_back(std::move(r));
  }
  return name;
}

std::string NameScope::take_name(std::string_view manifest_name, const std::string& suffix, NameOrigin origin,
                                 const NameScope* members) {
  std::string why;
  const std::string id = identifier(manifest_name, &why);
  origin.spelling = std::string(manifest_name);
  origin.why = why;
  return take(id, suffix, origin, members);
}

}  // namespace clretw::gen
