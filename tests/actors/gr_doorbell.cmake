# The Group Replication doorbell (issue 22, change detection) in virtual time. Operator side: the
# real /sidecar/report route waking the real pollers of the group; refused reports wake nothing;
# the per-poller wake gate.
br_test(actors_gr_doorbell
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/gr_doorbell_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/recording_platform.cpp
  LIBS br_actors_operator
  LABELS "actors;gr")
# Sidecar side: the gr_watcher posts one signed gr-observed report per distinct snapshot, paced.
br_test(actors_gr_watcher
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/gr_watcher_test.cpp
  LIBS br_actors_sidecar
  LABELS "actors;gr")
