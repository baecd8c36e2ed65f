// Broken group files (tests/unit/broken_specs/*.yaml) are rejected with every expected field path.
// Each file lists the paths it must produce in "# expect: <path>" lines.
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/failover_group.hpp"

namespace fs = std::filesystem;

BOOST_AUTO_TEST_CASE(every_broken_file_reports_all_expected_paths) {
  const char* root = std::getenv("BR_SOURCE_DIR");
  BOOST_REQUIRE(root);
  int files = 0;
  for (auto& entry : fs::directory_iterator(fs::path(root) / "tests/unit/broken_specs")) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    std::ifstream in(entry.path());
    std::stringstream buf;
    buf << in.rdbuf();
    auto text = buf.str();
    std::vector<std::string> expected;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("# expect: ", 0) == 0) expected.push_back(line.substr(10));
    BOOST_TEST_CONTEXT(entry.path().filename().string()) {
      BOOST_REQUIRE(expected.size() >= 2u);
      auto res = br::config::load_group_yaml(text, br::config::run_mode::standalone);
      BOOST_TEST(!res.ok());
      std::string all;
      for (auto& e : res.errors) all += e.to_string() + "\n";
      for (auto& path : expected) {
        bool found = false;
        for (auto& e : res.errors)
          if (e.path == path) found = true;
        BOOST_TEST(found, "missing error for " << path << "; got:\n" << all);
      }
    }
  }
  BOOST_TEST(files >= 4);
}
