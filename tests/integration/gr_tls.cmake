# Group Replication over verified TLS (issue 26): the operator runs a group of three real MySQL 9.7
# servers with require_secure_transport and spec.tls (sandbox instances 370-372): VERIFY_IDENTITY
# group communication, the recovery channel verifying its donor, a member with another CA's
# certificate refused, then joined through a clone over TLS once it has the group's, then refused
# with a certificate for another host name. Labels gr;tls; DISABLED in plain ctest (about 3.5 min).
# Run: tools/test-layer.sh tls, or
#   BR_SOURCE_DIR=$PWD BR_BINARY_DIR=$PWD/build bash tests/integration/gr_tls_test.sh
add_test(NAME integration_gr_tls COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/gr_tls_test.sh)
set_tests_properties(integration_gr_tls PROPERTIES LABELS "integration;mysql;gr;tls" RUN_SERIAL TRUE
  TIMEOUT 900 ENVIRONMENT "${BR_TEST_ENV}" DISABLED TRUE)

# The same in Kubernetes mode on the API simulator (issue 26): the operator in process bootstraps
# three members (sandbox instances 370-372, sandbox certificates, require_secure_transport) with
# spec.tls; every member runs the verified settings the operator set, every group session is TLS.
# Labels kube;gr;tls; DISABLED in plain ctest (it shares 370-372 with integration_gr_tls). Run:
#   BR_SOURCE_DIR=$PWD build/tests/integration_kube_gr_tls
br_test(integration_kube_gr_tls
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_gr_tls_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_ts_kube_harness br_actors_operator br_kube_sim yaml-cpp
  LABELS "integration;kube;mysql;gr;tls" RUN_SERIAL TIMEOUT 600)
if(TARGET integration_kube_gr_tls)
  set_tests_properties(integration_kube_gr_tls PROPERTIES DISABLED TRUE)
endif()
