# Helm chart, CRDs and alert rules: helm lint/template, schema + CEL validation, promtool.
# Not a C++ test: registered with add_test directly (br_test is for Boost.Test binaries).
add_executable(br_render_dump ${CMAKE_CURRENT_LIST_DIR}/render_dump.cpp)
target_link_libraries(br_render_dump PRIVATE br_config_render br_warnings)
# The chart's RBAC as the API simulator enforces it, compared with helm's rendering.
add_executable(br_chart_rbac_dump ${CMAKE_CURRENT_LIST_DIR}/rbac_dump.cpp)
target_link_libraries(br_chart_rbac_dump PRIVATE br_kube_sim br_warnings)
add_test(NAME chart_helm
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/chart_test.sh ${PROJECT_SOURCE_DIR}
          $<TARGET_FILE:br_render_dump> ${PROJECT_BINARY_DIR}/chart-cache
          $<TARGET_FILE:br_chart_rbac_dump>)
set_tests_properties(chart_helm PROPERTIES LABELS "chart" TIMEOUT 600
  ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
