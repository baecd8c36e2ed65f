# Precompiled headers (BR_PCH, OFF by default; tools/build.sh turns it on): nlohmann/json (parsed
# by about 2 in 3 translation units) and the common std headers, compiled once per configuration
# and force-included everywhere; the suites' PCH adds Boost.Test. Two PCHs because the flags must
# match exactly: br_pch (libraries and programs), br_pch_test (test executables).
# Measured per TU (CPU s, Debug+ASan, 2026-11-26): config_spec_test 24.2 -> 14.1, supervisor.cpp
# 34.6 -> 25.1, failover_group.cpp 19.6 -> 14.4, a small TU without json 3.5 -> 4.7. CAF
# (caf/all.hpp) is deliberately NOT in it: with CAF precompiled, every TU also emitted CAF's header
# code (a 0.7 MB object became 13.6 MB) and no TU got faster.
# Every file still includes what it uses: the default configuration (BR_PCH=OFF) checks that.
# An unusable PCH is an error (-Winvalid-pch with -Werror), never a silent slowdown.
option(BR_PCH "Precompile nlohmann/json, std and Boost.Test headers (faster cold builds)" OFF)

set(BR_PCH_HEADERS <nlohmann/json.hpp>
  <algorithm> <chrono> <cstdint> <functional> <map> <memory> <optional> <set> <string>
  <string_view> <vector>)

# Called once at the end of the top-level CMakeLists.txt, after every target exists.
function(br_apply_pch)
  if(NOT BR_PCH)
    return()
  endif()
  set(host_src ${PROJECT_BINARY_DIR}/br_pch_host.cpp)
  file(CONFIGURE OUTPUT ${host_src} CONTENT "// PCH host (cmake/pch.cmake)\n")
  add_library(br_pch OBJECT ${host_src})
  target_link_libraries(br_pch PRIVATE nlohmann_json::nlohmann_json br_warnings)
  target_precompile_headers(br_pch PRIVATE ${BR_PCH_HEADERS})
  if(TARGET br_test_support)
    # The suites' flags (br_test_support's). br_test_support itself (test_main.cpp) gets no PCH:
    # it defines BOOST_TEST_MODULE before including Boost.Test, which then generates main().
    add_library(br_pch_test OBJECT ${host_src})
    target_link_libraries(br_pch_test PRIVATE Boost::unit_test_framework
      nlohmann_json::nlohmann_json br_warnings)
    target_compile_definitions(br_pch_test PRIVATE BOOST_TEST_DYN_LINK)
    target_precompile_headers(br_pch_test PRIVATE ${BR_PCH_HEADERS} <boost/test/unit_test.hpp>)
  endif()
  br_collect_targets(${PROJECT_SOURCE_DIR} targets)
  foreach(t ${targets})
    get_target_property(type ${t} TYPE)
    if(NOT type MATCHES "^(STATIC_LIBRARY|EXECUTABLE|OBJECT_LIBRARY)$" OR t MATCHES "^br_pch"
       OR t STREQUAL br_test_support)
      continue()
    endif()
    get_target_property(libs ${t} LINK_LIBRARIES)
    if(libs AND "br_test_support" IN_LIST libs)
      target_precompile_headers(${t} REUSE_FROM br_pch_test)
    else()
      target_precompile_headers(${t} REUSE_FROM br_pch)
    endif()
  endforeach()
endfunction()

function(br_collect_targets dir out)
  get_property(here DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    br_collect_targets(${sub} more)
    list(APPEND here ${more})
  endforeach()
  set(${out} ${here} PARENT_SCOPE)
endfunction()
