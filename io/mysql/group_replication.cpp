// Group Replication on one member: snapshot query and parser, settings, start/bootstrap/stop and
// set_as_primary.
#include "io/mysql/group_replication.hpp"

#include <algorithm>
#include <charconv>
#include <thread>

#include "io/mysql/sql_text.hpp"
#include "messages/gr_tls.hpp"

namespace br::mysql {

std::string gr_snapshot_sql() {
  // global_variables, not @@group_replication_group_name: without the plugin that variable does
  // not exist and the whole statement would fail.
  return "SELECT @@server_uuid AS self_id,"
         " (SELECT VARIABLE_VALUE FROM performance_schema.global_variables"
         "   WHERE VARIABLE_NAME = 'group_replication_group_name') AS group_name,"
         " (SELECT COUNT(*) FROM performance_schema.global_variables"
         "   WHERE VARIABLE_NAME = 'group_replication_group_name') AS plugin_loaded,"
         " (SELECT VIEW_ID FROM performance_schema.replication_group_member_stats"
         "   WHERE MEMBER_ID = @@server_uuid LIMIT 1) AS view_id,"
         " m.MEMBER_ID AS member_id, m.MEMBER_HOST AS member_host, m.MEMBER_PORT AS member_port,"
         " m.MEMBER_STATE AS member_state, m.MEMBER_ROLE AS member_role,"
         " m.MEMBER_VERSION AS member_version"
         " FROM (SELECT 1 AS one) AS o"
         " LEFT JOIN performance_schema.replication_group_members AS m ON 1 = 1"
         " ORDER BY m.MEMBER_ID";
}

result<gr_snapshot> parse_gr_snapshot(const query_result& r) {
  for (const char* col : {"self_id", "group_name", "plugin_loaded", "view_id", "member_id",
                          "member_host", "member_port", "member_state", "member_role",
                          "member_version"})
    if (r.column_index(col) < 0)
      return make_error(error_kind::other,
                        std::string{"group replication snapshot has no column '"} + col + "'");
  if (r.rows.empty())
    return make_error(error_kind::other, "group replication snapshot returned no row");
  gr_snapshot s;
  s.member_id = r.get(0, "self_id").value_or("");
  s.group_name = r.get(0, "group_name").value_or("");
  s.plugin_loaded = r.get(0, "plugin_loaded").value_or("0") != "0";
  s.view_id = r.get(0, "view_id").value_or("");
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    auto id = r.get(i, "member_id");
    if (!id) continue;  // the LEFT JOIN's row for an empty table
    gr_member_row m;
    m.member_id = *id;
    m.host = r.get(i, "member_host").value_or("");
    auto port = r.get(i, "member_port").value_or("0");
    if (port.empty()) port = "0";
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), m.port);
    if (ec != std::errc{} || end != port.data() + port.size())
      return make_error(error_kind::other, "MEMBER_PORT is not a port: '" + port + "'");
    m.state = r.get(i, "member_state").value_or("");
    m.role = r.get(i, "member_role").value_or("");
    m.version = r.get(i, "member_version").value_or("");
    if (m.member_id == s.member_id) s.self_state = m.state;
    s.rows.push_back(std::move(m));
  }
  return s;
}

result<gr_snapshot> read_gr_snapshot(connection& conn) {
  auto r = conn.query(gr_snapshot_sql());
  if (!r) return r.error();
  return parse_gr_snapshot(*r);
}

std::vector<std::string> gr_settings_sql(const gr_settings& s, const sql_quoter& q) {
  std::vector<std::string> out = {
      // Never left ON by anyone: a START with it ON makes a second group (surprise 12).
      "SET GLOBAL group_replication_bootstrap_group = OFF",
      "SET GLOBAL group_replication_start_on_boot = OFF",
      "SET GLOBAL group_replication_single_primary_mode = ON",
      // Group communication over MySQL connections (8.0.27+): authenticated as the recovery
      // account given on START (it needs GROUP_REPLICATION_STREAM), the local address is the
      // member's MySQL host:port, and the XCom IP allowlist (by default only the subnets of the
      // member's own interfaces) does not apply, so members on other nodes are not refused.
      "SET GLOBAL group_replication_communication_stack = 'MYSQL'",
      "SET GLOBAL group_replication_group_name = " + q(s.group_name),
      "SET GLOBAL group_replication_local_address = " + q(s.local_address),
      "SET GLOBAL group_replication_group_seeds = " + q(s.group_seeds),
      "SET GLOBAL group_replication_consistency = " + q(s.consistency),
      "SET GLOBAL group_replication_exit_state_action = " + q(s.exit_state_action),
      "SET GLOBAL group_replication_autorejoin_tries = " + std::to_string(s.auto_rejoin_tries),
  };
  // The group communication and the recovery channel (and a clone for recovery): spec.tls
  // verifies them, spec.replication.tls only encrypts them.
  for (const auto& t : gr_tls_settings(s.recovery_ssl, s.ssl_ca))
    out.push_back("SET GLOBAL " + t.variable + " = " + (t.quoted ? q(t.value) : t.value));
  return out;
}

std::string gr_start_sql(const std::string& user, const std::string& password,
                         const sql_quoter& q) {
  if (user.empty()) return "START GROUP_REPLICATION";
  return "START GROUP_REPLICATION USER = " + q(user) + ", PASSWORD = " + q(password);
}

namespace {

// The member must be OFFLINE (or have no row yet); `alone`: and list nobody else.
result<gr_snapshot> require_offline(connection& conn, bool alone, const char* what) {
  auto snap = read_gr_snapshot(conn);
  if (!snap) return snap.error();
  if (!snap->plugin_loaded)
    return make_error(error_kind::other,
                      std::string{what} + " refused: the group_replication plugin is not loaded");
  if (!snap->self_state.empty() && snap->self_state != "OFFLINE")
    return make_error(error_kind::other, std::string{what} + " refused: the member is " +
                                             snap->self_state + ", not OFFLINE");
  if (alone && snap->rows.size() > 1)
    return make_error(error_kind::other,
                      std::string{what} + " refused: the member lists " +
                          std::to_string(snap->rows.size()) + " members (it knows a group)");
  return snap;
}

result<void> apply_settings(connection& conn, const gr_settings& s) {
  for (const auto& sql : gr_settings_sql(s, conn.quoter())) {
    auto r = conn.exec(sql);
    if (!r) return r.error();
  }
  return {};
}

result<std::string> own_state(connection& conn) {
  auto snap = read_gr_snapshot(conn);
  if (!snap) return snap.error();
  return snap->self_state;
}

}  // namespace

result<std::string> gr_start(connection& conn, const gr_settings& s, const std::string& user,
                             const std::string& password) {
  auto snap = require_offline(conn, false, "START GROUP_REPLICATION");
  if (!snap) return snap.error();
  if (auto r = apply_settings(conn, s); !r) return r.error();
  auto r = conn.exec_secret(gr_start_sql(user, password, conn.quoter()), {password});
  if (!r) return r.error();
  return own_state(conn);
}

result<std::string> gr_bootstrap(connection& conn, const gr_settings& s, const std::string& user,
                                 const std::string& password) {
  auto snap = require_offline(conn, true, "bootstrap");
  if (!snap) return snap.error();
  if (auto r = apply_settings(conn, s); !r) return r.error();
  if (auto r = conn.exec("SET GLOBAL group_replication_bootstrap_group = ON"); !r)
    return r.error();
  auto started = conn.exec_secret(gr_start_sql(user, password, conn.quoter()), {password});
  // Always switched off again, whatever START did: a later START must never bootstrap.
  auto off = conn.exec("SET GLOBAL group_replication_bootstrap_group = OFF");
  if (!started) return started.error();
  if (!off) return off.error();
  return own_state(conn);
}

result<void> gr_stop(connection& conn) {
  auto r = conn.exec("STOP GROUP_REPLICATION");
  if (!r) return r.error();
  return {};
}

result<void> gr_set_primary(connection& conn, const std::string& member_id,
                            std::chrono::seconds timeout) {
  auto r = conn.query("SELECT group_replication_set_as_primary(" + conn.quoter()(member_id) + ", " +
                      std::to_string(timeout.count()) + ")");
  if (!r) return r.error();
  return {};
}

namespace {

/// SET group_replication_force_members = '' on `conn`, else on up to 3 fresh short sessions.
result<void> reset_force_members(const connect_options& opts, connection& conn) {
  constexpr const char* reset = "SET GLOBAL group_replication_force_members = ''";
  auto r = conn.exec(reset);
  if (r) return {};
  auto fresh = opts;
  fresh.connect_timeout = fresh.read_timeout = fresh.write_timeout = std::chrono::seconds(5);
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto c = connection::open(fresh);
    if (c && c->exec(reset)) return {};
  }
  return r.error();
}

}  // namespace

result<std::string> gr_force_members(const connect_options& opts, connection& conn,
                                     const std::string& address,
                                     std::chrono::steady_clock::time_point deadline) {
  if (address.empty()) {
    if (auto r = reset_force_members(opts, conn); !r) return r.error();
    return own_state(conn);
  }
  auto snap = read_gr_snapshot(conn);
  if (!snap) return snap.error();
  if (snap->self_state != "ONLINE")
    return make_error(error_kind::other, "force_members refused: the member is " +
                                             (snap->self_state.empty() ? std::string{"not in a group"}
                                                                       : snap->self_state) +
                                             ", not ONLINE");
  if (in_quorate_view(*snap))
    return make_error(error_kind::other,
                      "force_members refused: the member is in a majority view (nothing to force)");
  auto forced = conn.exec("SET GLOBAL group_replication_force_members = " + conn.quoter()(address));
  result<void> waited{};
  if (forced) {
    while (true) {
      auto now = read_gr_snapshot(conn);
      if (now && in_majority_view(*now)) break;
      if (!now && now.error().kind != error_kind::server_error) {
        waited = now.error();
        break;
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        waited = make_error(error_kind::timeout, "no majority view after force_members");
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  // Always cleared, whatever happened: the manual requires it before any later START.
  auto reset = reset_force_members(opts, conn);
  if (!forced) return forced.error();
  if (!waited) return waited.error();
  if (!reset) return reset.error();
  return own_state(conn);
}

result<std::string> run_gr_command(connect_options opts, mysql_op op, const gr_settings& s,
                                   const mysql_target& recovery, const std::string& member_id,
                                   std::chrono::milliseconds timeout) {
  opts.read_timeout = opts.write_timeout = timeout;
  auto conn = connection::open(opts);
  if (!conn) return conn.error();
  switch (op) {
    case mysql_op::gr_bootstrap: {
      auto r = gr_bootstrap(*conn, s, recovery.user, recovery.password);
      if (!r) {
        // The session may be dead (START timed out or the connection dropped), so its own SET OFF
        // may not have run while the START can still complete on the server: switch the flag off
        // again on fresh sessions, so no later START can make a second group.
        auto fresh = opts;
        fresh.connect_timeout = fresh.read_timeout = fresh.write_timeout = std::chrono::seconds(5);
        for (int attempt = 0; attempt < 3; ++attempt) {
          auto c = connection::open(fresh);
          if (c && c->exec("SET GLOBAL group_replication_bootstrap_group = OFF")) break;
        }
      }
      return r;
    }
    case mysql_op::gr_start: return gr_start(*conn, s, recovery.user, recovery.password);
    case mysql_op::gr_stop: {
      auto r = gr_stop(*conn);
      if (!r) return r.error();
      return std::string{};
    }
    case mysql_op::gr_set_primary: {
      auto secs = std::chrono::duration_cast<std::chrono::seconds>(timeout);
      // The server's own wait ends before the session's deadline.
      auto r = gr_set_primary(*conn, member_id, std::max(std::chrono::seconds(1), secs / 2));
      if (!r) return r.error();
      return std::string{};
    }
    case mysql_op::gr_force_members:
      // The SET waits for the forced view; the whole command ends before the session deadline.
      return gr_force_members(opts, *conn, s.local_address,
                              std::chrono::steady_clock::now() + timeout * 3 / 4);
    default:
      return make_error(error_kind::other, "not a group replication command: " + to_string(op));
  }
}

}  // namespace br::mysql
