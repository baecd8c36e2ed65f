// Chaos harness: root over the unix socket with MariaDB Connector/C (see site_sql.hpp).
#include "tests/chaos/site_sql.hpp"

#include <mysql.h>

namespace br::chaos {

void site_sql::close() {
  if (h_) mysql_close(h_);
  h_ = nullptr;
}

bool site_sql::connect() {
  if (h_) return true;
  h_ = mysql_init(nullptr);
  if (!h_) {
    error_ = "mysql_init failed";
    return false;
  }
  unsigned timeout = 2;
  mysql_optionsv(h_, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
  mysql_optionsv(h_, MYSQL_OPT_READ_TIMEOUT, &timeout);
  mysql_optionsv(h_, MYSQL_OPT_WRITE_TIMEOUT, &timeout);
  unsigned proto = MYSQL_PROTOCOL_SOCKET;
  mysql_optionsv(h_, MYSQL_OPT_PROTOCOL, &proto);
  if (!mysql_real_connect(h_, "localhost", "root", nullptr, nullptr, 0, socket_.c_str(), 0)) {
    error_ = mysql_error(h_);
    close();
    return false;
  }
  return true;
}

std::optional<std::vector<std::vector<std::optional<std::string>>>> site_sql::query(
    const std::string& sql) {
  if (!connect()) return std::nullopt;
  if (mysql_real_query(h_, sql.data(), sql.size()) != 0) {
    error_ = mysql_error(h_);
    close();  // a timeout leaves the session unusable; the next call reconnects
    return std::nullopt;
  }
  std::vector<std::vector<std::optional<std::string>>> rows;
  MYSQL_RES* res = mysql_store_result(h_);
  if (!res) {
    if (mysql_field_count(h_) != 0) {
      error_ = mysql_error(h_);
      close();
      return std::nullopt;
    }
    return rows;
  }
  unsigned n = mysql_num_fields(res);
  while (MYSQL_ROW row = mysql_fetch_row(res)) {
    unsigned long* len = mysql_fetch_lengths(res);
    std::vector<std::optional<std::string>> r;
    for (unsigned i = 0; i < n; ++i)
      r.push_back(row[i] ? std::optional<std::string>(std::string(row[i], len[i])) : std::nullopt);
    rows.push_back(std::move(r));
  }
  mysql_free_result(res);
  return rows;
}

std::optional<std::string> site_sql::scalar(const std::string& sql) {
  auto r = query(sql);
  if (!r) return std::nullopt;
  if (r->empty() || r->front().empty() || !r->front().front()) return std::string();
  return *r->front().front();
}

}  // namespace br::chaos
