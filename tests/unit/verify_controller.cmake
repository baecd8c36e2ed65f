# The Kubernetes verification controller's pure decisions and renders (issue 21, verification):
# backup choice, MysqlBackupVerification phases, Job args, retention, CronJob plans,
# trigger-verification's object, and the MysqlBackupVerification CRD against what the
# controller writes.
br_test(unit_verify_controller
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/verify_controller_test.cpp
  LIBS br_actors_operator
  LABELS "unit;backup;kube")
