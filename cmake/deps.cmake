# Third-party dependencies, all from Debian packages (see tools/install-deps.sh).
find_package(Threads REQUIRED)

# Debian's CAF 0.17 ships no CMake config: define imported targets ourselves.
find_path(CAF_INCLUDE_DIR caf/all.hpp REQUIRED)
find_library(CAF_CORE_LIB caf_core REQUIRED)
add_library(caf_core_imp INTERFACE)
target_include_directories(caf_core_imp SYSTEM INTERFACE ${CAF_INCLUDE_DIR})
target_link_libraries(caf_core_imp INTERFACE ${CAF_CORE_LIB} Threads::Threads)
add_library(CAF::core ALIAS caf_core_imp)

find_package(PkgConfig REQUIRED)
pkg_check_modules(MARIADB REQUIRED IMPORTED_TARGET libmariadb)
find_package(CURL REQUIRED)
find_package(OpenSSL 3 REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(Boost 1.74 REQUIRED COMPONENTS unit_test_framework)
find_package(prometheus-cpp CONFIG REQUIRED)
