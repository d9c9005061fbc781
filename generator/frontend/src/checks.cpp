#include "clretw/gen/checks.h"

#include "clretw/gen/loader.h"
#include "clretw/gen/rules.h"

namespace clretw::gen {

std::optional<std::string_view> string_ref_id(std::string_view ref) noexcept {
  static constexpr std::string_view kPrefix = "$(string.";
  if (ref.size() <= kPrefix.size() + 1 || !ref.starts_with(kPrefix) || ref.back() != ')') return std::nullopt;
  return ref.substr(kPrefix.size(), ref.size() - kPrefix.size() - 1);
}

const Opcode* find_opcode(const Provider& p, const Event& e) noexcept {
  if (e.opcode.empty()) return nullptr;
  if (e.task_index != kUnresolved)
    for (const Opcode& o : p.tasks[static_cast<std::size_t>(e.task_index)].opcodes)
      if (o.name == e.opcode) return &o;
  for (const Opcode& o : p.opcodes)
    if (o.name == e.opcode) return &o;
  for (const Opcode& o : standard_opcodes())
    if (o.name == e.opcode) return &o;
  return nullptr;
}

ExtentCheck check_extent(const std::vector<Field>& fields, std::size_t i, const std::string& text, int resolved,
                         const std::vector<Field>* outer) {
  using P = ExtentCheck::Problem;
  ExtentCheck c;
  if (text.empty() || parse_number(text)) return c;
  if (resolved == kUnresolved || static_cast<std::size_t>(resolved) >= i) {
    for (std::size_t k = i; k < fields.size(); ++k)
      if (fields[k].name == text) {
        c.problem = P::not_earlier;
        c.target = &fields[k];
        return c;
      }
    if (outer)
      for (const Field& o : *outer)
        if (o.name == text) c.target = &o;
    for (const Field& o : fields)
      if (o.is_struct)
        for (const Field& member : o.members)
          if (member.name == text) c.target = &member;
    c.problem = c.target ? P::out_of_scope : P::unresolved;
    return c;
  }
  const Field& t = fields[static_cast<std::size_t>(resolved)];
  c.target = &t;
  if (t.is_struct) c.why = "is a struct";
  else if (!t.in_type) c.problem = P::unknown_type;
  else if (!is_integer(*t.in_type)) c.why = "is " + t.in_type_text + ", not an integer";
  else if (*t.in_type == InType::Pointer) c.why = "is win:Pointer, whose size depends on the trace";
  else if (!t.count_text.empty() && t.count_const != 1u) c.why = "is an array";
  if (!c.why.empty()) c.problem = P::not_integer;
  return c;
}

void report_extent(Diagnostics& diags, const std::string& file, const Field& f, const std::string& what,
                   const std::string& scope, const ExtentCheck& c) {
  using P = ExtentCheck::Problem;
  Diagnostic* d = nullptr;
  switch (c.problem) {
    case P::none:
    case P::unknown_type: return;
    case P::unresolved:
      report(diags, RuleId::unresolved_extent, file, f.loc,
             what + " is neither a number nor the name of a field of " + scope);
      return;
    case P::not_earlier:
      d = &report(diags, RuleId::extent_not_earlier, file, f.loc,
                  what + (c.target == &f ? " names the field itself" : " names a field that comes after it"));
      d->hint = "a count or length must be read before the item it sizes";
      break;
    case P::out_of_scope:
      d = &report(diags, RuleId::extent_out_of_scope, file, f.loc, what + " names a field outside " + scope);
      d->hint = "a count or length must name an earlier sibling: a field of the same template or struct";
      break;
    case P::not_integer:
      d = &report(diags, RuleId::extent_not_integer, file, f.loc,
                  what + " names field '" + c.target->name + "', which " + c.why);
      d->hint = "a count or length must be a scalar integer field (win:UInt8 .. win:UInt64, win:Int8 .. win:Int64)";
      break;
  }
  d->related.push_back({file, c.target->loc, "field '" + c.target->name + "' is declared here"});
}

}  // namespace clretw::gen
