# Writes a C++ source that embeds text files, so clretw-gen carries its
# templates and the CLR fix-up overlay and runs from any directory.
#   cmake -DOUT=embedded.cpp -DTEMPLATES="a.mustache;b.mustache" -DFIXUPS=clr-fixups.xml -P Embed.cmake
set(delim "clretw_embed")
function(_raw var file)
  file(READ "${file}" text)
  string(FIND "${text}" ")${delim}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${file} contains the raw-string delimiter ${delim}")
  endif()
  set(${var} "R\"${delim}(${text})${delim}\"" PARENT_SCOPE)
endfunction()

set(names "")
set(texts "")
list(LENGTH TEMPLATES count)
foreach(t IN LISTS TEMPLATES)
  get_filename_component(name "${t}" NAME)
  _raw(raw "${t}")
  string(APPEND names "    \"${name}\",\n")
  string(APPEND texts "    ${raw},\n")
endforeach()
_raw(fixups "${FIXUPS}")

set(content "// Generated at build time by cmake/Embed.cmake. Do not edit.
#include <cstddef>

namespace clretw::gen {

extern const char* const kTemplateNames[];
extern const char* const kTemplateTexts[];
extern const std::size_t kTemplateCount;
extern const char* const kClrFixupsText;

const char* const kTemplateNames[] = {
${names}};
const char* const kTemplateTexts[] = {
${texts}};
const std::size_t kTemplateCount = ${count};
const char* const kClrFixupsText = ${fixups};

}  // namespace clretw::gen
")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUT}" "${content}")
endif()
