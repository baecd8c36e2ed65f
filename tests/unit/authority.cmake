# Signed authority (docs/safety.md "Threat model"): Ed25519 signatures and keys directories,
# what a sidecar accepts and signs, the operator's view push and epoch recovery, JSON shape
# limits (unit).
br_test(unit_authority
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/authority_test.cpp
  LIBS br_actors_common LABELS unit)
br_test(unit_signed_answers
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/signed_answers_test.cpp
  LIBS br_sidecar_fencing br_operator_group LABELS unit)
br_test(unit_view_push
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/view_push_test.cpp
  LIBS br_operator_group LABELS unit)
br_test(unit_epoch_floor
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/epoch_floor_test.cpp
  LIBS br_operator_decide LABELS unit)
br_test(unit_json_limits
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/json_limits_test.cpp
  LIBS br_io_codec LABELS unit)
