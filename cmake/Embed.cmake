# Writes a C++ source that embeds text files, so clretw-gen carries its
# templates, the CLR fix-up overlay and the built-in manifests, and runs from any directory.
#   cmake -DOUT=embedded_templates.cpp -DTEMPLATES="a.mustache;b.mustache" -P Embed.cmake  (the C++ emitter's)
#   cmake -DOUT=embedded_fixups.cpp -DFIXUPS=clr-fixups.xml -P Embed.cmake                   (the front end's)
#   cmake -DOUT=embedded_manifests.cpp -DMANIFESTS="a.man;b.man" -P Embed.cmake              (clretw-gen config's)
# (each in a source of its own, in the stage that reads it).
set(delim "clretw_embed")
function(_raw var file)
  file(READ "${file}" text)
  string(FIND "${text}" ")${delim}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${file} contains the raw-string delimiter ${delim}")
  endif()
  set(${var} "R\"${delim}(${text})${delim}\"" PARENT_SCOPE)
endfunction()
# Writes OUT unless it holds `content` already (no rebuild for nothing).
function(_write_if_changed content)
  if(EXISTS "${OUT}")
    file(READ "${OUT}" old)
  endif()
  if(NOT old STREQUAL content)
    file(WRITE "${OUT}" "${content}")
  endif()
endfunction()

if(DEFINED MANIFESTS)
  # Each manifest is cut at line ends into pieces under 60000 bytes: ISO C++ compilers need
  # accept no longer string literal (GCC's -Woverlength-strings, in -Wpedantic).
  set(names "")
  set(chunks "")
  set(counts "")
  list(LENGTH MANIFESTS count)
  foreach(m IN LISTS MANIFESTS)
    get_filename_component(name "${m}" NAME)
    string(APPEND names "    \"${name}\",\n")
    file(READ "${m}" rest)
    set(pieces 0)
    while(NOT rest STREQUAL "")
      string(LENGTH "${rest}" cut)
      if(cut GREATER 60000)
        string(SUBSTRING "${rest}" 0 60000 head)
        string(FIND "${head}" "\n" cut REVERSE)
        if(cut EQUAL -1)
          message(FATAL_ERROR "${m} has a line of more than 60000 bytes")
        endif()
        math(EXPR cut "${cut} + 1")
      endif()
      string(SUBSTRING "${rest}" 0 ${cut} piece)
      string(SUBSTRING "${rest}" ${cut} -1 rest)
      string(FIND "${piece}" ")${delim}\"" clash)
      if(NOT clash EQUAL -1)
        message(FATAL_ERROR "${m} contains the raw-string delimiter ${delim}")
      endif()
      string(APPEND chunks "    R\"${delim}(${piece})${delim}\",\n")
      math(EXPR pieces "${pieces} + 1")
    endwhile()
    string(APPEND counts "    ${pieces},\n")
  endforeach()
  if(count EQUAL 0)  # no zero-length arrays
    set(names "    nullptr,\n")
    set(chunks "    nullptr,\n")
    set(counts "    0,\n")
  endif()
  set(content "// Generated at build time by cmake/Embed.cmake. Do not edit.
#include <cstddef>

namespace clretw::gen {

extern const char* const kBuiltinManifestNames[];
extern const char* const kBuiltinManifestChunks[];
extern const std::size_t kBuiltinManifestChunkCounts[];
extern const std::size_t kBuiltinManifestCount;

// Manifest i is the concatenation of its kBuiltinManifestChunkCounts[i] chunks, in order.
const char* const kBuiltinManifestNames[] = {
${names}};
const char* const kBuiltinManifestChunks[] = {
${chunks}};
const std::size_t kBuiltinManifestChunkCounts[] = {
${counts}};
const std::size_t kBuiltinManifestCount = ${count};

}  // namespace clretw::gen
")
  _write_if_changed("${content}")
  return()
endif()

if(DEFINED FIXUPS)
  _raw(fixups "${FIXUPS}")
  _write_if_changed("// Generated at build time by cmake/Embed.cmake. Do not edit.
namespace clretw::gen {

extern const char* const kClrFixupsText;
const char* const kClrFixupsText = ${fixups};

}  // namespace clretw::gen
")
  return()
endif()

set(names "")
set(texts "")
list(LENGTH TEMPLATES count)
foreach(t IN LISTS TEMPLATES)
  get_filename_component(name "${t}" NAME)
  _raw(raw "${t}")
  string(APPEND names "    \"${name}\",\n")
  string(APPEND texts "    ${raw},\n")
endforeach()

set(content "// Generated at build time by cmake/Embed.cmake. Do not edit.
#include <cstddef>

namespace clretw::gen {

extern const char* const kTemplateNames[];
extern const char* const kTemplateTexts[];
extern const std::size_t kTemplateCount;

const char* const kTemplateNames[] = {
${names}};
const char* const kTemplateTexts[] = {
${texts}};
const std::size_t kTemplateCount = ${count};

}  // namespace clretw::gen
")
_write_if_changed("${content}")
