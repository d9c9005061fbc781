# clretw_generate(<target> NAMESPACE <ns> OUTPUT_DIR <dir> MANIFESTS <file>... [FLAGS <arg>...])
#
# Generates decoders for the manifests at build time with clretw-gen and adds a
# static library <target> with them, linked to the decode core (clretw::core).
# Include "<ns path>/events.h", e.g. <mycompany/events/events.h> for NAMESPACE
# mycompany::events. The decoders are generated again whenever a manifest or the
# generator changes (the generator carries its templates and fix-ups inside it).
# FLAGS are passed to `clretw-gen generate`, e.g. FLAGS --no-fixups.
#
# Works the same inside clretw's own build and from an installed clretw package
# (find_package(clretw)): both provide the executable target clretw::clretw-gen.
function(clretw_generate target)
  cmake_parse_arguments(ARG "" "NAMESPACE;OUTPUT_DIR" "MANIFESTS;FLAGS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "clretw_generate(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_NAMESPACE OR NOT ARG_MANIFESTS)
    message(FATAL_ERROR "clretw_generate(${target}): NAMESPACE and MANIFESTS are required")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/${target}")
  endif()
  if(NOT TARGET clretw::clretw-gen)
    message(FATAL_ERROR "clretw_generate(${target}): the generator clretw-gen is not available "
                        "(clretw was built or installed with CLRETW_GENERATOR=OFF)")
  endif()
  set(manifests "")
  foreach(m IN LISTS ARG_MANIFESTS)
    get_filename_component(m "${m}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND manifests "${m}")
  endforeach()
  string(REPLACE "::" "/" ns_path "${ARG_NAMESPACE}")
  set(out "${ARG_OUTPUT_DIR}/${ns_path}")
  add_custom_command(
    OUTPUT "${out}/events.h" "${out}/all.cpp"
    COMMAND clretw::clretw-gen generate ${manifests} -o "${ARG_OUTPUT_DIR}" -n "${ARG_NAMESPACE}" -q ${ARG_FLAGS}
    # clretw-gen leaves files whose content did not change untouched; the outputs must look new.
    COMMAND ${CMAKE_COMMAND} -E touch "${out}/events.h" "${out}/all.cpp"
    DEPENDS clretw::clretw-gen "$<TARGET_FILE:clretw::clretw-gen>" ${manifests}
    COMMENT "clretw-gen: ${ARG_NAMESPACE} from ${ARG_MANIFESTS}"
    VERBATIM)
  add_library(${target} STATIC "${out}/all.cpp")
  target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${ARG_OUTPUT_DIR}>")
  target_link_libraries(${target} PUBLIC clretw::core)
  target_compile_features(${target} PUBLIC cxx_std_20)
endfunction()
