# spec.backup.pitr rendered into the site pods: the archiver's settings, volume, max_binlog_size.
br_test(unit_render_pitr
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/render_pitr_test.cpp
  LIBS br_config_render
  LABELS "unit;backup")
