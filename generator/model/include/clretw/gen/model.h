// clretw/gen/model.h - the manifest model: the one in-memory form of an
// instrumentation manifest.
//
// The loader fills it from XML, the fix-up overlay edits it, the resolver
// links references, the validator and differ read it, the schema builder lays
// it out and the emitters render it. Names and raw attribute text are kept as
// the manifest spells them; every node remembers where it came from, and the
// comment that precedes it (its note), so that a manifest can be rewritten
// without losing what its authors wrote beside the facts.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "clretw/gen/diagnostics.h"
#include "clretw/guid.h"
#include "clretw/schema.h"

namespace clretw::gen {

inline constexpr int kUnresolved = -1;

struct Keyword {
  std::string name, symbol, message_ref, message;
  std::string mask_text;
  std::uint64_t mask = 0;
  std::string note;  // the comment(s) just before the element: the project's own notes
  Loc loc;
};

struct Level {
  std::string name, symbol, message_ref, message;
  std::uint32_t value = 0;
  bool standard = false;  // one of win:LogAlways .. win:Verbose
  std::string note;  // the comment(s) just before the element: the project's own notes
  Loc loc;
};

struct Opcode {
  std::string name, symbol, message_ref, message;
  std::uint32_t value = 0;
  bool standard = false;  // win:Info, win:Start, ...
  std::string note;  // the comment(s) just before the element: the project's own notes
  Loc loc;
};

struct Task {
  std::string name, symbol, message_ref, message, event_guid;
  std::uint32_t value = 0;
  std::vector<Opcode> opcodes;  // opcodes declared inside the task
  std::string note;  // the comment(s) just before the element: the project's own notes
  Loc loc;
};

struct Channel {
  std::string name, chid, type, symbol, message_ref, message;
  std::optional<std::uint32_t> value;
  bool imported = false;
  std::string note;  // the comment(s) just before the element: the project's own notes
  Loc loc;
};

struct MapEntry {
  std::string value_text, message_ref, message;
  std::uint64_t value = 0;
  std::string note;  // the comment(s) just before the element: the project's own notes
  Loc loc;
};

struct Map {
  std::string name;
  bool bitmap = false;
  std::vector<MapEntry> entries;
  std::string note;  // the comment(s) just before the element: the project's own notes
  Loc loc;
};

struct Field {
  std::string name;
  bool is_struct = false;
  std::string in_type_text, out_type_text, map_name, count_text, length_text;
  std::optional<InType> in_type;    // set when in_type_text is a known inType
  std::optional<OutType> out_type;  // set when out_type_text is a known outType
  std::vector<Field> members;       // <struct> only
  // Resolved by resolve(): index of the map in the provider, and of the
  // count/length field among the siblings (kUnresolved when absent/unknown).
  int map = kUnresolved;
  int count_field = kUnresolved;
  int length_field = kUnresolved;
  std::optional<std::uint32_t> count_const, length_const;
  std::string note;  // the comment(s) just before the element: the project's own notes
  Loc loc;
};

// length="*": a win:Binary that is its template's last field holds the rest of the payload (an extension for
// events whose last part no field bounds, such as kernel events described in a project's own manifest).
inline constexpr std::string_view kRestOfPayload = "*";
inline bool takes_rest(const Field& f) { return f.length_text == kRestOfPayload; }

struct Template {
  std::string tid;
  std::vector<Field> fields;
  std::string note;  // the comment(s) just before the element: the project's own notes
  Loc loc;
};

struct Event {
  std::string value_text, version_text;
  std::uint32_t value = 0;
  std::uint32_t version = 0;
  std::string level, task, opcode, keywords_text, template_name, symbol, message_ref, message, channel;
  std::vector<std::string> keywords;
  // Resolved by resolve().
  int template_index = kUnresolved;
  int task_index = kUnresolved;
  std::uint32_t level_value = 0, task_value = 0, opcode_value = 0;
  std::uint64_t keyword_mask = 0;
  std::string opcode_message;  // resolved display text of the opcode
  std::string note;  // the comment(s) just before the element: the project's own notes
  Loc loc;
};

struct Provider {
  std::string name, guid_text, symbol, resource_file, message_file, message_ref, message;
  Guid guid;
  std::vector<Keyword> keywords;
  std::vector<Level> levels;    // custom levels as declared
  std::vector<Task> tasks;
  std::vector<Opcode> opcodes;  // provider-wide opcodes
  std::vector<Channel> channels;
  std::vector<Map> maps;
  std::vector<Template> templates;
  std::vector<Event> events;
  std::string note;  // the comment(s) just before the element: the project's own notes
  Loc loc;

  const Template* find_template(const std::string& tid) const;
  const Map* find_map(const std::string& name) const;
  const Task* find_task(const std::string& name) const;
};

struct StringEntry {
  std::string id, value;
  std::string culture;  // of the <resources> it is in
  std::string note;  // the comment(s) just before the element: the project's own notes
  Loc loc;
};

struct Manifest {
  std::string path;  // as given on the command line (used in diagnostics)
  std::string note;  // the comment before the root element
  std::vector<Provider> providers;
  std::vector<StringEntry> strings;
  std::map<std::string, std::size_t> string_index;  // id -> strings[i]

  // Resolves "$(string.ID)"; nullptr if the reference is not of that form or the id is unknown.
  const std::string* lookup_message(const std::string& ref) const;
};

// The standard levels and opcodes every manifest may use (winmeta.xml).
const std::vector<Level>& standard_levels();
const std::vector<Opcode>& standard_opcodes();

}  // namespace clretw::gen
