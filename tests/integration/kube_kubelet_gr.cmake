# Group Replication in Kubernetes mode on the process kubelet (issue 22, acceptance 5): 3 sites from
# empty PVCs (real mysqld 9.7 + sidecar pods, the rendered my.cnf and init container), writes through
# -primary, kill -9 of the primary -> the group's election followed, labels moved, the old member
# back. Root; labels kubelet;gr; DISABLED in plain ctest. Run: tools/kubelet-tests.sh
# integration_kube_kubelet_gr, or BR_SOURCE_DIR=$PWD BR_BINARY_DIR=$PWD/build build/tests/integration_kube_kubelet_gr
br_test(integration_kube_kubelet_gr
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_kubelet_gr_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
  LIBS br_ts_kube_harness br_process_kubelet br_actors_operator br_kube_sim br_io_mysql yaml-cpp
  LABELS "integration;kube;mysql;process;kubelet;gr" RUN_SERIAL DEPENDS bloodraven-sidecar TIMEOUT 1200)
if(TARGET integration_kube_kubelet_gr)
  set_tests_properties(integration_kube_kubelet_gr PROPERTIES DISABLED TRUE)
endif()
