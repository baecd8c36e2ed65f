// A temporary directory for one test, removed with everything in it when the object goes away.
#pragma once

#include <boost/test/unit_test.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace br::test {

struct temp_dir {
  std::filesystem::path path;
  /// Created as <system temp dir>/<prefix>-XXXXXX.
  explicit temp_dir(const std::string& prefix = "br-test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    BOOST_TEST_REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  /// Writes `text` to <path>/<name> and returns that path.
  std::string write(const std::string& name, const std::string& text) const {
    auto p = (path / name).string();
    std::ofstream(p) << text;
    return p;
  }
};

}  // namespace br::test
