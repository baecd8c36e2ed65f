# Warning and sanitizer flags applied to our own targets only.
add_library(br_warnings INTERFACE)
target_compile_options(br_warnings INTERFACE -Wall -Wextra -Werror)

if(BR_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# br_library(name FOLDER dir LIBS ...): one static library from every .cpp directly in a folder.
# New files are picked up at build time (CONFIGURE_DEPENDS), so adding a file needs no CMake edit.
function(br_library name)
  cmake_parse_arguments(L "" "FOLDER" "LIBS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${L_FOLDER}/*.cpp)
  list(FILTER srcs EXCLUDE REGEX ".*/main\\.cpp$")
  if(srcs)
    add_library(${name} STATIC ${srcs})
    target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
    target_link_libraries(${name} PUBLIC ${L_LIBS} PRIVATE br_warnings)
  else()
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${PROJECT_SOURCE_DIR})
    target_link_libraries(${name} INTERFACE ${L_LIBS})
  endif()
endfunction()
