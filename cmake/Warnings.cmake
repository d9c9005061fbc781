# Compiler warnings and sanitizers for clretw's own targets.
function(clretw_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(CLRETW_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

if(CLRETW_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
