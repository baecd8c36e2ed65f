# Group Replication's pure decisions (issue 22 groundwork, decide/gr_view): the cross-validated view,
# the exactly-once bootstrap and the provisioning gate. gr_view.cpp is compiled in directly (it needs
# nothing but the standard library; br_operator_decide also holds it through its folder glob).
br_test(unit_gr
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/gr_view_test.cpp
          ${PROJECT_SOURCE_DIR}/actors/operator/decide/gr_view.cpp
  LABELS "unit;gr")
# io/mysql/group_replication's pure parts: the member snapshot parser and the START statements.
br_test(unit_gr_sql
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/gr_sql_test.cpp
  LIBS br_io_mysql
  LABELS "unit;gr")
# gr_step: Group Replication's engine rules as table tests (decide/gr_step.hpp).
br_test(unit_gr_step
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/gr_step_test.cpp
  LIBS br_operator_decide
  LABELS "unit;gr")
# The sidecar's Group Replication checks (/ready, /gr/primary, /gr/replica, /gr/reader).
br_test(unit_gr_health
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/gr_health_test.cpp
          ${PROJECT_SOURCE_DIR}/actors/sidecar/runtime/gr_health.cpp
  LABELS "unit;gr")
# Quorum arithmetic and the guarded recovery choice (decide/gr_quorum.hpp, issue 23).
br_test(unit_gr_quorum
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/gr_quorum_test.cpp
  LIBS br_operator_decide
  LABELS "unit;gr")
# The Group Replication doorbell's pure rules: the sidecar's change detector and report pacing
# (actors/sidecar/runtime/gr_change), the poller's wake gate (decide/wake_gate).
br_test(unit_gr_doorbell
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/gr_doorbell_test.cpp
          ${PROJECT_SOURCE_DIR}/actors/sidecar/runtime/gr_change.cpp
          ${PROJECT_SOURCE_DIR}/actors/operator/decide/wake_gate.cpp
  LIBS nlohmann_json::nlohmann_json
  LABELS "unit;gr")
# The status admission webhook's rules (decide/gr_status_admission.hpp, issue 23 acceptance 3).
br_test(unit_gr_status_admission
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/gr_status_admission_test.cpp
          ${PROJECT_SOURCE_DIR}/actors/operator/decide/gr_status_admission.cpp
  LIBS nlohmann_json::nlohmann_json
  LABELS "unit;gr;webhook")
# The Group Replication ordered update (decide/gr_rollout.hpp, issue 23): which member restarts
# next, the switchover before the primary, the refusals (quorum, not ONLINE, RECOVERING).
br_test(unit_gr_rollout
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/gr_rollout_test.cpp
  LIBS br_operator_decide
  LABELS "unit;gr")
# The backup source in Group Replication mode (decide/gr_backup_source.hpp, issue 23): an ONLINE
# SECONDARY holding the most transactions, the PRIMARY only without one or when requested.
br_test(unit_gr_backup_source
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/gr_backup_source_test.cpp
  LIBS br_operator_decide
  LABELS "unit;gr;backup")
