# The dashboard in headless Chromium (node + DevTools protocol) against bloodraven --standalone on
# sandbox MySQL instances 14 and 15 only.
br_test(browser_dashboard
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/dashboard_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_io_http br_io_mysql nlohmann_json::nlohmann_json
  LABELS "browser;integration;mysql" DEPENDS bloodraven RUN_SERIAL TIMEOUT 900)
