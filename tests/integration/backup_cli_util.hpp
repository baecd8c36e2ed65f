// Helpers of the backup/restore integration tests on sandbox MySQL 9.7: root sessions, one
// statement or value, the compact gtid_executed, and running the bloodraven binary up to its
// final BLOODRAVEN_*_COMPLETE / _FAILED line.
#pragma once

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/mysql/connection.hpp"
#include "messages/gtid_set.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/mysql_sandbox.hpp"

namespace br::test::backup_cli {

inline mysql_sandbox& sandbox() {
  static mysql_sandbox s;
  return s;
}

/// The instance number in environment variable `var`, else `fallback`.
inline int instance_from_env(const char* var, int fallback) {
  const char* v = std::getenv(var);
  return v && *v ? std::atoi(v) : fallback;
}

/// Sandbox instances started and reset to fresh servers for one test, stopped when it ends.
struct fresh_instances {
  std::vector<int> ids;
  explicit fresh_instances(std::vector<int> i) : ids(std::move(i)) {
    for (int id : ids) sandbox().must({"up-ids", std::to_string(id)});
    for (int id : ids) sandbox().reset(id);
  }
  ~fresh_instances() {
    for (int id : ids) sandbox().run({"stop", std::to_string(id)});
  }
  fresh_instances(const fresh_instances&) = delete;
  fresh_instances& operator=(const fresh_instances&) = delete;
};

inline mysql::connection open_root(int i) {
  auto o = sandbox().options(i, "root");
  o.read_timeout = std::chrono::seconds(120);
  o.write_timeout = std::chrono::seconds(120);
  auto c = mysql::connection::open(o);
  BOOST_TEST_REQUIRE(c.ok(), (c.ok() ? "" : c.error().to_string()));
  return std::move(*c);
}

inline void exec(mysql::connection& c, const std::string& sql) {
  auto r = c.exec(sql);
  BOOST_TEST_REQUIRE(r.ok(), sql << ": " << (r.ok() ? "" : r.error().to_string()));
}

inline std::string scalar(mysql::connection& c, const std::string& sql) {
  auto r = c.query(sql);
  BOOST_TEST_REQUIRE(r.ok(), sql << ": " << (r.ok() ? "" : r.error().to_string()));
  BOOST_TEST_REQUIRE(!r->rows.empty());
  return r->rows[0][0].value_or("");
}

inline std::vector<std::string> column(mysql::connection& c, const std::string& sql) {
  auto r = c.query(sql);
  BOOST_TEST_REQUIRE(r.ok(), sql << ": " << (r.ok() ? "" : r.error().to_string()));
  std::vector<std::string> out;
  for (const auto& row : r->rows) out.push_back(row[0].value_or(""));
  return out;
}

inline std::string gtids(mysql::connection& c) {
  return gtid_set::parse(scalar(c, "SELECT @@GLOBAL.gtid_executed"))->to_compact_string();
}

inline int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// Runs the bloodraven binary; the JSON of its final COMPLETE/FAILED line and whether it was
/// COMPLETE (the exit code must agree). Fails the test on a missing line.
inline std::pair<bool, nlohmann::json> run_cli(const std::vector<std::string>& args,
                                               const std::map<std::string, std::string>& env) {
  child_process p(binary_path("bloodraven"), args, env);
  auto rc = p.wait_exit(std::chrono::seconds(600));
  BOOST_TEST_REQUIRE(rc.has_value(), "bloodraven " << args[0] << " did not exit in 600 s");
  const auto& out = p.output();
  for (const char* kind : {"_COMPLETE ", "_FAILED "}) {
    auto at = out.rfind(kind);
    if (at == std::string::npos) continue;
    auto start = at + std::string(kind).size();
    auto end = out.find('\n', start);
    auto j = nlohmann::json::parse(out.substr(start, end == std::string::npos ? std::string::npos : end - start),
                                   nullptr, false);
    BOOST_TEST_REQUIRE(!j.is_discarded(), out);
    bool ok = std::string(kind) == "_COMPLETE ";
    BOOST_TEST((*rc == 0) == ok, "exit " << *rc);
    return {ok, j};
  }
  BOOST_FAIL("no COMPLETE/FAILED line in: " << out);
  return {false, {}};
}

}  // namespace br::test::backup_cli
