# Issue 18 acceptance 3: four blackholed sites in one group beside a healthy group on real MySQL 9.7
# (sandbox instances 63 and 64 only), both on one real site_io.
br_test(integration_site_io_blackhole
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/site_io_blackhole_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_actors_operator LABELS "integration;mysql" RUN_SERIAL TIMEOUT 600)
