# The Kubernetes backup controller's pure decisions and renders (issue 21): source choice,
# retention, MysqlBackup phases and cleanup, CronJob plans, /pitr-cutoff, trigger-backup's object.
br_test(unit_backup_controller
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/backup_controller_test.cpp
  LIBS br_actors_operator
  LABELS "unit;backup;kube")
