# Compiler cache (BR_CCACHE_DIR, empty by default; tools/build.sh sets it when ccache is installed).
# The settings travel with the compile command, so a later plain `ninja -C <dir>` uses the same
# cache. They make hits possible across clone paths: paths under the source tree are rewritten
# relative to the build directory (base_dir), the build directory itself is not hashed (hash_dir
# off), and the PCH settings ccache needs (sloppiness, see cmake/pch.cmake) are on. Depend mode:
# a miss costs no extra preprocessor run (the compiler's -MD output lists the headers). The
# cache's size cap lives in its ccache.conf (tools/build.sh).
set(BR_CCACHE_DIR "" CACHE PATH "ccache directory shared by builds of any clone (empty: no ccache)")

if(BR_CCACHE_DIR)
  find_program(BR_CCACHE_PROGRAM ccache)
  if(NOT BR_CCACHE_PROGRAM)
    message(FATAL_ERROR "BR_CCACHE_DIR is set but ccache is not installed (tools/install-deps.sh)")
  endif()
  # base_dir: the closest directory holding both the sources and the build (for the PCH paths).
  set(br_ccache_base ${PROJECT_SOURCE_DIR})
  while(NOT br_ccache_base STREQUAL "/")
    string(FIND "${PROJECT_BINARY_DIR}/" "${br_ccache_base}/" at)
    if(at EQUAL 0)
      break()
    endif()
    get_filename_component(br_ccache_base ${br_ccache_base} DIRECTORY)
  endwhile()
  if(br_ccache_base STREQUAL "/")  # never "/": it would rewrite the system headers' paths too
    set(br_ccache_base ${PROJECT_SOURCE_DIR})
  endif()
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env
    CCACHE_DIR=${BR_CCACHE_DIR}
    CCACHE_BASEDIR=${br_ccache_base}
    CCACHE_NOHASHDIR=1
    CCACHE_DEPEND=1
    CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
    ${BR_CCACHE_PROGRAM})
endif()
