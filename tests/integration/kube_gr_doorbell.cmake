# The Group Replication doorbell in Kubernetes mode on the API simulator (no MySQL): the
# operator-rendered member Role/RoleBinding enforced on the sidecar's identity (own Pod only), and
# the gr_watcher setting the gr-observed annotation on its own Pod.
br_test(integration_kube_gr_doorbell
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_gr_doorbell_test.cpp
  LIBS br_kube_sim br_actors_sidecar br_config_render br_io_kube yaml-cpp
  LABELS "integration;kube;gr" TIMEOUT 300)
