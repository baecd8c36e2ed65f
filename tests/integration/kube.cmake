# Kubernetes: API simulator library + kube-sim program, io/kube client conformance, kubectl, leader election.
br_library(br_kube_sim FOLDER ${PROJECT_SOURCE_DIR}/tests/support/kube_sim
  LIBS br_io_http br_io_codec Boost::headers nlohmann_json::nlohmann_json Threads::Threads yaml-cpp)
# The Kubernetes integration suites' shared setup (tests/support/kube_sim/harness: simulator under
# the chart's RBAC + clients by identity, CRDs, the group source's test timings and actors, root
# queries for the kubelet suites), compiled once.
add_library(br_ts_kube_harness STATIC ${PROJECT_SOURCE_DIR}/tests/support/kube_sim/harness/cluster.cpp
                                      ${PROJECT_SOURCE_DIR}/tests/support/kube_sim/harness/root_query.cpp)
target_link_libraries(br_ts_kube_harness PUBLIC br_kube_sim br_actors_operator br_io_mysql yaml-cpp
  CAF::core PRIVATE br_warnings)
add_executable(kube-sim ${PROJECT_SOURCE_DIR}/tests/support/kube_sim/main.cpp)
target_link_libraries(kube-sim PRIVATE br_kube_sim br_warnings)
br_test(integration_kube_client
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_client_test.cpp
  LIBS br_kube_sim br_io_kube yaml-cpp
  LABELS "integration;kube" TIMEOUT 300)
br_test(integration_kubectl
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_kubectl_test.cpp ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
  LIBS br_kube_sim br_io_kube yaml-cpp
  LABELS "integration;kube;process" TIMEOUT 300)
br_test(integration_kube_leader
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_leader_test.cpp
          ${PROJECT_SOURCE_DIR}/actors/operator/kube/core/lease_lock.cpp
          ${PROJECT_SOURCE_DIR}/actors/operator/kube/core/leader_elector.cpp
  LIBS br_kube_sim br_io_kube yaml-cpp CAF::core
  LABELS "integration;kube" TIMEOUT 300)
# The Group Replication status webhook as deployed: the bloodraven binary's HTTPS webhook called by
# the API simulator's admission (ValidatingWebhookConfiguration), kubectl as two identities.
br_test(integration_kube_status_webhook
  SOURCES ${PROJECT_SOURCE_DIR}/tests/integration/kube_status_webhook_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
  LIBS br_kube_sim br_io_kube br_io_crypto br_io_codec yaml-cpp
  DEPENDS bloodraven
  LABELS "integration;kube;gr;webhook"
  TIMEOUT 300)
