# How a group comes into being (issue 19, acceptance 2): bloodraven --standalone bootstraps fresh
# sandbox servers 71-73 (seed promoted, others cloned and replicating), never clones a divergent
# site, and does not clone twice across an operator killed mid-CLONE; auto-clone of a wiped replica
# and reclone of a divergent one through the CLI, fenced throughout. Long: label bootstrap.
br_test(integration_bootstrap
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/bootstrap_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_actors_common br_io_http br_io_mysql nlohmann_json::nlohmann_json
  LABELS "integration;mysql;process;bootstrap" DEPENDS bloodraven TIMEOUT 1500)
# Not RUN_SERIAL: its instances (71-73) are its own, and at 7-9 min it would hold up the default
# run; it tolerates another test beside it (generous waits, timings only printed).
