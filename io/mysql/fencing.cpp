// promote, the session filter and the session kills over an open connection (the fence itself
// is in fence_bounded.cpp).
#include "io/mysql/fencing.hpp"

#include <charconv>

namespace br::mysql {

result<void> promote(connection& conn, const dialect& d) {
  for (const auto& sql : d.promote_sql()) {
    auto r = conn.exec(sql);
    if (!r) return r.error();
  }
  return {};
}

bool is_application_session(const session_info& s, uint64_t own_id, const kill_policy& policy) {
  if (s.id == own_id) return false;
  if (!s.user || s.user->empty() || *s.user == "system user" || *s.user == "event_scheduler")
    return false;
  if (s.command == "Binlog Dump" || s.command == "Binlog Dump GTID" || s.command == "Daemon")
    return false;
  return policy.protected_users.count(*s.user) == 0;
}

namespace {

/// Runs `list_sql` (columns as list_sessions_columns) and KILLs the application sessions in it.
result<kill_report> kill_listed(connection& conn, const dialect& d, const std::string& list_sql,
                                const kill_policy& policy) {
  auto listed = conn.query(list_sql);
  if (!listed) return listed.error();
  const session_columns& c = d.list_sessions_columns();
  const int id_col = listed->column_index(c.id);
  if (id_col < 0) return make_error(error_kind::other, "session list has no id column");
  kill_report report;
  const uint64_t own = conn.id();
  for (size_t i = 0; i < listed->rows.size(); ++i) {
    session_info s;
    const auto& id_text = listed->rows[i][static_cast<size_t>(id_col)];
    if (!id_text) continue;
    auto [p, ec] = std::from_chars(id_text->data(), id_text->data() + id_text->size(), s.id);
    if (ec != std::errc{}) continue;
    s.user = listed->get(i, c.user);
    s.host = listed->get(i, c.host).value_or("");
    s.command = listed->get(i, c.command).value_or("");
    if (!is_application_session(s, own, policy)) {
      ++report.kept;
      continue;
    }
    auto k = conn.exec(d.kill_sql(s.id));
    if (k) {
      ++report.killed;
      report.killed_ids.push_back(s.id);
    } else if (k.error().code == 1094) {  // ER_NO_SUCH_THREAD: it ended on its own
      ++report.already_gone;
    } else if (k.error().kind == error_kind::server_error) {
      report.failures.push_back(k.error());
      report.failed_ids.push_back(s.id);
    } else {
      return k.error();
    }
  }
  return report;
}

}  // namespace

result<kill_report> kill_application_sessions(connection& conn, const dialect& d,
                                              const kill_policy& policy) {
  return kill_listed(conn, d, d.list_sessions_sql(), policy);
}

result<kill_report> kill_lock_holders(connection& conn, const dialect& d,
                                      const kill_policy& policy) {
  return kill_listed(conn, d, d.list_lock_holders_sql(), policy);
}

}  // namespace br::mysql
