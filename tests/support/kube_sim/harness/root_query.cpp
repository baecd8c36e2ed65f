// One value as root over TCP (see root_query.hpp).
#include "tests/support/kube_sim/harness/root_query.hpp"

#include <chrono>

#include "io/mysql/connection.hpp"

namespace br::kube_sim::test {

std::string root_scalar(const std::string& host, const std::string& root_password, const std::string& sql) {
  mysql::connect_options o;
  o.host = host;
  o.port = 3306;
  o.user = "root";
  o.password = root_password;
  o.connect_timeout = std::chrono::seconds(2);
  o.read_timeout = std::chrono::seconds(5);
  o.write_timeout = std::chrono::seconds(5);
  auto conn = mysql::connection::open(o);
  if (!conn) return "";
  auto r = conn->query(sql);
  if (!r || r->rows.empty() || r->rows[0].empty() || !r->rows[0][0]) return "";
  return *r->rows[0][0];
}

}  // namespace br::kube_sim::test
