# The operator-generated webhook CA (issue 23): its pure decisions (kube/core/operator_ca_plan)
# and io/crypto/x509_inspect on real certificates. operator_ca_plan.cpp is compiled in directly.
br_test(unit_operator_ca
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/operator_ca_test.cpp
          ${PROJECT_SOURCE_DIR}/actors/operator/kube/core/operator_ca_plan.cpp
  LIBS br_io_crypto br_io_codec nlohmann_json::nlohmann_json
  LABELS "unit;webhook")
