// Replication commands over an open connection (wait_for_executed opens its own).
#include "io/mysql/replication.hpp"

#include <algorithm>

namespace br::mysql {

std::string_view to_string(wait_outcome o) {
  return o == wait_outcome::reached ? "reached" : "timed_out";
}

result<gtid_set> read_gtid_executed(connection& conn, const dialect& d) {
  auto r = conn.query(d.gtid_executed_sql());
  if (!r) return r.error();
  if (r->rows.size() != 1 || r->rows[0].size() != 1)
    return make_error(error_kind::other, "gtid_executed query returned an unexpected shape");
  gtid_parse_error perr;
  auto set = gtid_set::parse(r->rows[0][0].value_or(""), &perr);
  if (!set)
    return make_error(error_kind::other, "gtid_executed does not parse: " + perr.to_string());
  return *set;
}

result<wait_outcome> wait_for_executed(const connect_options& opts, const dialect& d,
                                       const gtid_set& set, std::chrono::seconds timeout) {
  timeout = std::max(timeout, std::chrono::seconds{1});
  connect_options o = opts;
  const auto margin =
      std::max<std::chrono::milliseconds>(std::chrono::seconds{5}, opts.read_timeout);
  o.read_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(timeout) + margin;
  auto conn = connection::open(o);
  if (!conn) return conn.error();
  auto r = conn->query(d.wait_for_executed_sql(set, timeout, conn->quoter()));
  if (!r) return r.error();
  if (r->rows.size() != 1 || r->rows[0].size() != 1 || !r->rows[0][0])
    return make_error(error_kind::other, "WAIT_FOR_EXECUTED_GTID_SET returned no value");
  const std::string& v = *r->rows[0][0];
  if (v == "0") return wait_outcome::reached;
  if (v == "1") return wait_outcome::timed_out;
  return make_error(error_kind::other, "WAIT_FOR_EXECUTED_GTID_SET returned '" + v + "'");
}

namespace {
result<void> run(connection& conn, const std::string& sql) {
  auto r = conn.exec(sql);
  if (!r) return r.error();
  return {};
}
}  // namespace

result<void> stop_replica(connection& conn, const dialect& d, std::string_view channel,
                          replica_threads which) {
  return run(conn, d.stop_replica_sql(channel, which, conn.quoter()));
}

result<void> start_replica(connection& conn, const dialect& d, std::string_view channel,
                           replica_threads which) {
  return run(conn, d.start_replica_sql(channel, which, conn.quoter()));
}

result<void> reset_replica_all(connection& conn, const dialect& d, std::string_view channel) {
  return run(conn, d.reset_replica_all_sql(channel, conn.quoter()));
}

result<void> change_source(connection& conn, const dialect& d, const replication_source& src,
                           std::string_view channel) {
  auto r = conn.exec_secret(d.change_source_sql(src, channel, conn.quoter()), {src.password});
  if (!r) return r.error();
  return {};
}

}  // namespace br::mysql
