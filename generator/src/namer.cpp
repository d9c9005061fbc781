#include "clretw/gen/namer.h"

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
      "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
      // Macros commonly defined by system headers.
      "NULL", "TRUE", "FALSE", "EOF", "errno", "assert", "min", "max", "major", "minor", "stdin", "stdout", "stderr"};
  return k;
}

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::string identifier(std::string_view name) {
  std::string s;
  for (char c : name) s.push_back(is_ident_char(c) ? c : '_');
  if (s.empty()) s = "unnamed";
  if (std::isdigit(static_cast<unsigned char>(s[0]))) s = "n" + s;
  // Identifiers starting with '_' + capital, or containing "__", are reserved.
  while (s.size() > 1 && s[0] == '_' && (s[1] == '_' || std::isupper(static_cast<unsigned char>(s[1])))) s.erase(0, 1);
  for (std::size_t i; (i = s.find("__")) != std::string::npos;) s.erase(i, 1);
  if (s == "_") s = "unnamed";
  if (cpp_keywords().count(s)) s += '_';
  return s;
}

std::string provider_namespace(std::string_view name) {
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
  return identifier(out.empty() ? std::string("provider") : out);
}

std::string enumerator(std::string_view message) {
  std::string s;
  bool gap = false;
  for (char c : message) {
    if (is_ident_char(c) && c != '_') {
      if (gap && !s.empty()) s.push_back('_');
      s.push_back(c);
      gap = false;
    } else {
      gap = true;
    }
  }
  return s.empty() ? std::string() : identifier(s);
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

std::string NameScope::take(const std::string& wanted, const std::string& suffix) {
  std::string name = wanted;
  if (used_.count(name)) name = wanted + suffix;
  for (int n = 2; used_.count(name); ++n) name = wanted + suffix + std::to_string(n);
  used_.insert(name);
  return name;
}

}  // namespace clretw::gen
