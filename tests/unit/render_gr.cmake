# Group Replication mode rendered for Kubernetes (issue 22): members' my.cnf, headless site
# Services with the group port, -readers, the sidecar's GR settings, the GR grants.
br_test(unit_render_gr
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/render_gr_test.cpp
  LIBS br_config_render
  LABELS "unit;kube;gr")
