// Resolution: links the model's references (event -> template, task, opcode,
// level, keywords; field -> map and count/length siblings) and resolves
// $(string.X) messages. It reports nothing: unresolved references are the
// validator's and the schema builder's to report.
#include "clretw/gen/resolve.h"

#include "clretw/gen/checks.h"
#include "clretw/gen/loader.h"

namespace clretw::gen {

namespace {

void resolve_fields(std::vector<Field>& fields, const Provider& p) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    Field& f = fields[i];
    f.map = kUnresolved;
    if (!f.map_name.empty())
      for (std::size_t k = 0; k < p.maps.size(); ++k)
        if (p.maps[k].name == f.map_name) f.map = static_cast<int>(k);
    auto extent = [&](const std::string& text, int& field, std::optional<std::uint32_t>& constant) {
      field = kUnresolved;
      constant.reset();
      if (text.empty() || text == kRestOfPayload) return;
      if (auto n = parse_number(text)) {
        if (*n <= UINT32_MAX) constant = static_cast<std::uint32_t>(*n);
        return;
      }
      for (std::size_t k = 0; k < i; ++k)
        if (fields[k].name == text) field = static_cast<int>(k);
    };
    extent(f.count_text, f.count_field, f.count_const);
    extent(f.length_text, f.length_field, f.length_const);
    if (f.is_struct) resolve_fields(f.members, p);
  }
}

}  // namespace

void resolve(Manifest& m) {
  auto message = [&](const std::string& ref) -> std::string {
    const std::string* s = m.lookup_message(ref);
    return s ? *s : std::string();
  };
  for (Provider& p : m.providers) {
    p.message = message(p.message_ref);
    for (Keyword& k : p.keywords) k.message = message(k.message_ref);
    for (Level& l : p.levels) l.message = message(l.message_ref);
    for (Opcode& o : p.opcodes) o.message = message(o.message_ref);
    for (Channel& c : p.channels) c.message = message(c.message_ref);
    for (Task& t : p.tasks) {
      t.message = message(t.message_ref);
      for (Opcode& o : t.opcodes) o.message = message(o.message_ref);
    }
    for (Map& mp : p.maps)
      for (MapEntry& e : mp.entries) e.message = message(e.message_ref);
    for (Template& t : p.templates) resolve_fields(t.fields, p);

    for (Event& e : p.events) {
      e.message = message(e.message_ref);
      e.template_index = kUnresolved;
      for (std::size_t i = 0; i < p.templates.size(); ++i)
        if (!e.template_name.empty() && p.templates[i].tid == e.template_name) e.template_index = static_cast<int>(i);
      e.task_index = kUnresolved;
      e.task_value = 0;
      for (std::size_t i = 0; i < p.tasks.size(); ++i)
        if (!e.task.empty() && p.tasks[i].name == e.task) {
          e.task_index = static_cast<int>(i);
          e.task_value = p.tasks[i].value;
        }
      e.level_value = 0;
      for (const Level& l : standard_levels())
        if (l.name == e.level) e.level_value = l.value;
      for (const Level& l : p.levels)
        if (l.name == e.level) e.level_value = l.value;
      // An opcode is looked up in the event's task first, then provider-wide, then the standard set.
      e.opcode_value = 0;
      e.opcode_message.clear();
      if (const Opcode* op = find_opcode(p, e)) {
        e.opcode_value = op->value;
        e.opcode_message = op->message.empty() ? op->name : op->message;
      }
      e.keyword_mask = 0;
      for (const std::string& w : e.keywords)
        for (const Keyword& k : p.keywords)
          if (k.name == w) e.keyword_mask |= k.mask;
    }
  }
}

}  // namespace clretw::gen
