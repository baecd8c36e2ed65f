# tools/playground end to end (issue 6 acceptance 1) with the test build's binaries; sandbox instances 21-22 only.
add_test(NAME integration_playground COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/playground_test.sh)
set_tests_properties(integration_playground PROPERTIES LABELS "integration;process;mysql" RUN_SERIAL TRUE
  TIMEOUT 900 ENVIRONMENT "${BR_TEST_ENV}")
# The same with `up --tls` (issue 26, acceptance 3): label tls.
add_test(NAME integration_playground_tls COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/playground_test.sh)
set_tests_properties(integration_playground_tls PROPERTIES LABELS "integration;process;mysql;tls" RUN_SERIAL TRUE
  TIMEOUT 900 ENVIRONMENT "${BR_TEST_ENV};BR_PLAYGROUND_TEST_TLS=1")
