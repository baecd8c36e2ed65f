# Binlog archiver pure parts: binlog file summary (synthetic files), manifest, archive plan (unit).
br_test(unit_binlog
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/binlog_file_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/binlog_manifest_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/archive_plan_test.cpp
  LIBS br_actors_sidecar br_io_binlog LABELS unit)
