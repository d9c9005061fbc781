# clretw_generate(<target> NAMESPACE <ns> OUTPUT_DIR <dir> MANIFESTS <file>... [FLAGS <arg>...])
#
# Generates decoders for the manifests at build time with clretw-gen and adds
# a static library <target> with them (linked to the decode core, clretw::core). Include
# "<ns path>/events.h", e.g. <clretw/main/events.h> for NAMESPACE clretw::main.
function(clretw_generate target)
  cmake_parse_arguments(ARG "" "NAMESPACE;OUTPUT_DIR" "MANIFESTS;FLAGS" ${ARGN})
  string(REPLACE "::" "/" ns_path "${ARG_NAMESPACE}")
  set(out "${ARG_OUTPUT_DIR}/${ns_path}")
  file(GLOB templates CONFIGURE_DEPENDS "${CLRETW_SOURCE_DIR}/templates/*.mustache")
  add_custom_command(
    OUTPUT "${out}/events.h" "${out}/all.cpp"
    COMMAND clretw-gen generate ${ARG_MANIFESTS} -o "${ARG_OUTPUT_DIR}" -n "${ARG_NAMESPACE}" -q ${ARG_FLAGS}
    COMMAND ${CMAKE_COMMAND} -E touch "${out}/events.h" "${out}/all.cpp"
    DEPENDS clretw-gen ${ARG_MANIFESTS} ${templates} "${CLRETW_SOURCE_DIR}/manifest/clr-fixups.xml"
    COMMENT "clretw-gen: ${ARG_NAMESPACE} from ${ARG_MANIFESTS}"
    VERBATIM)
  add_library(${target} STATIC "${out}/all.cpp")
  target_include_directories(${target} PUBLIC "${ARG_OUTPUT_DIR}")
  target_link_libraries(${target} PUBLIC clretw::core)
endfunction()
