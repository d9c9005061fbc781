# Compiler warnings and sanitizers for clretw's own targets.
function(clretw_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  # GCC 12 at -O3 reports -Wrestrict/-Wstringop-overflow inside libstdc++'s std::string
  # and std::vector for ordinary concatenation and insertion (GCC bugs 105329, 105651);
  # they are false positives, and absent at the -O2 the tests build with.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
     AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE $<$<CONFIG:Release>:-Wno-restrict -Wno-stringop-overflow>)
  endif()
  if(CLRETW_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

if(CLRETW_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
