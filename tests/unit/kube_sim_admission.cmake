# The API simulator's validating admission (tests/support/kube_sim/admission_webhooks.hpp): rule
# matching, the AdmissionReview sent, answers and failures under failurePolicy.
br_test(unit_kube_sim_admission
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_sim_admission_test.cpp
  LIBS br_kube_sim
  LABELS "unit;webhook")
