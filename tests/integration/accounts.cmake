# The rendered MySQL accounts on real MySQL 9.7 (review finding 9): each component's statements
# run as its account, each privilege revoked in turn breaks its statement. Its own sandbox
# instance (BR_ACCOUNTS_INSTANCE, default 141): started when it does not answer, stopped after.
# Not in the default run (label accounts): about 6 s with the instance running, 70 s from a
# stopped one on a loaded host. Run: BR_ACCOUNTS_INSTANCE=141 build/tests/integration_accounts
br_test(integration_accounts
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/accounts_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_io_mysql br_config_render br_operator_decide LABELS "integration;mysql;accounts" RUN_SERIAL TIMEOUT 300)
if(TARGET integration_accounts)
  set_tests_properties(integration_accounts PROPERTIES DISABLED TRUE)
endif()
