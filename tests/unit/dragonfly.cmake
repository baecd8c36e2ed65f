# Dragonfly follow-along (issue 24): the manager's steering decisions and the INFO parser.
br_test(unit_dragonfly_steer
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/dragonfly_steer_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/dragonfly_labels_test.cpp
  LIBS br_operator_decide
  LABELS "unit;dragonfly")
br_test(unit_redis_info
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/redis_info_test.cpp
  LIBS br_io_redis
  LABELS "unit;dragonfly")
