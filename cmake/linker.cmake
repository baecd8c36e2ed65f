# Linker (BR_LINKER, empty by default = the compiler's default, GNU ld; tools/build.sh picks mold,
# else lld, when installed). ~80 test executables link the ASan-instrumented, debug-info-heavy
# static libraries: GNU ld took up to ~27 s per executable on this 2-core host.
set(BR_LINKER "" CACHE STRING "Linker for -fuse-ld= (mold, lld, gold; empty: compiler default)")
if(BR_LINKER)
  add_link_options(-fuse-ld=${BR_LINKER})
endif()
