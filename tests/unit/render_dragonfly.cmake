# Dragonfly's Kubernetes objects (issue 24, acceptance 5; config/render/dragonfly*): filtered
# operator-owned flags, the per-site StatefulSet/Service/PDB and the active Service (pure).
br_test(unit_render_dragonfly
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/render_dragonfly_test.cpp
  LIBS br_config_render
  LABELS "unit;dragonfly")
