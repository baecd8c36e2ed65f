# The real site_io (per-target lanes of detached workers) against fake targets in real time:
# blackholed listeners and closed ports, no MySQL needed.
br_test(actors_site_io
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/site_io_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/group_tls_targets_test.cpp
  LIBS br_actors_operator LABELS actors TIMEOUT 300)
