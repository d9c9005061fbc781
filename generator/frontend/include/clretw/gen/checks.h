// clretw/gen/checks.h - the predicates the validator and the schema builder
// share, so that a problem is found one way and reported under one rule
// whoever meets it: `validate` on a manifest as written, or `generate` and
// clretw-dump --manifest through the front end.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clretw/gen/diagnostics.h"
#include "clretw/gen/model.h"

namespace clretw::gen {

// The X of a "$(string.X)" reference; nullopt when ref does not have that form.
std::optional<std::string_view> string_ref_id(std::string_view ref) noexcept;

// The opcode an event names: its task's first, then the provider's, then the
// standard ones. nullptr when it names none (or no opcode).
const Opcode* find_opcode(const Provider& p, const Event& e) noexcept;

// What a count or length attribute names.
struct ExtentCheck {
  enum class Problem {
    none,          // a number, or an earlier scalar integer sibling: usable
    unresolved,    // M210: neither a number nor a field
    not_earlier,   // M211: the field itself or a later sibling
    out_of_scope,  // M212: a field of another struct or of the enclosing template
    not_integer,   // M213: a struct, an array, a pointer or a non-integer
    unknown_type,  // the field named has an unknown inType (the loader reported M401)
  };
  Problem problem = Problem::none;
  const Field* target = nullptr;  // the field named, when there is one
  std::string why;                // not_integer: what the target is ("is a struct")
};

// Checks fields[i]'s count or length `text`, which resolve() linked to the
// sibling `resolved` (or kUnresolved); `outer` is the enclosing field list
// (the template's, for members of a struct).
ExtentCheck check_extent(const std::vector<Field>& fields, std::size_t i, const std::string& text, int resolved,
                         const std::vector<Field>* outer);

// Reports a problem check_extent() found, under its rule (M210-M213), with the
// field named as a related location. `what` names the attribute, e.g.
// "field 'Values' of template 'T': count 'N'", and `scope` the field list it
// belongs to ("template 'T'", "struct 'S'"). Nothing for none/unknown_type.
void report_extent(Diagnostics& diags, const std::string& file, const Field& f, const std::string& what,
                   const std::string& scope, const ExtentCheck& check);

}  // namespace clretw::gen
