// read_switch_state / ensure_switch / refresh_heartbeat / promote_with_switch over a connection.
#include "io/mysql/dead_mans_switch.hpp"

#include <charconv>
#include <thread>

#include "io/mysql/fencing.hpp"
#include "io/mysql/mysql8_dialect.hpp"

namespace br::mysql {

namespace {

constexpr unsigned er_option_prevents_statement = 1290;  // read_only / super_read_only refusal
constexpr unsigned er_no_such_table = 1146;
constexpr unsigned er_table_access_denied = 1142;

bool is_super_read_only_refusal(const mysql_error& e) {
  return e.kind == error_kind::server_error && e.code == er_option_prevents_statement &&
         e.message.find("super-read-only") != std::string::npos;
}

result<void> exec_void(connection& conn, const std::string& sql) {
  auto r = conn.exec(sql);
  if (!r) return r.error();
  return {};
}

result<void> session_binlog_off(connection& conn) {
  if (conn.options().disable_session_binlog) return {};
  return exec_void(conn, "SET SESSION sql_log_bin = 0");
}

std::optional<long long> to_int(const std::optional<std::string>& v) {
  if (!v) return std::nullopt;
  long long n = 0;
  auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  if (ec != std::errc{} || p != v->data() + v->size()) return std::nullopt;
  return n;
}

result<bool> flag(const query_result& r, std::string_view column) {
  auto n = to_int(r.get(0, column));
  if (!n) return make_error(error_kind::other, "switch state: bad " + std::string(column));
  return *n != 0;
}

std::string quoted_literal(const connection& conn, std::string_view text) {
  return conn.quoter()(text);  // the quoter adds the quotes
}

/// Definer exists and holds SYSTEM_VARIABLES_ADMIN or SUPER; nullopt when mysql.* is not
/// readable by this account.
result<std::optional<bool>> definer_can_fence(connection& conn, std::string_view definer) {
  auto acct = split_definer(definer);
  if (!acct) return std::optional<bool>{false};
  const std::string who = "User = " + quoted_literal(conn, acct->user) +
                          " AND Host = " + quoted_literal(conn, acct->host);
  const std::string sql =
      "SELECT (SELECT COUNT(*) FROM mysql.user WHERE " + who +
      ") AS present, (SELECT COUNT(*) FROM mysql.user WHERE " + who +
      " AND Super_priv = 'Y') + (SELECT COUNT(*) FROM mysql.global_grants WHERE " + who +
      " AND PRIV = 'SYSTEM_VARIABLES_ADMIN') AS can_set";
  auto r = conn.query(sql);
  if (!r) {
    if (r.error().kind == error_kind::server_error && r.error().code == er_table_access_denied)
      return std::optional<bool>{};
    return r.error();
  }
  auto present = flag(*r, "present");
  auto can_set = flag(*r, "can_set");
  if (!present) return present.error();
  if (!can_set) return can_set.error();
  return std::optional<bool>{*present && *can_set};
}

bool needs_event(const switch_state& s, std::chrono::milliseconds lease) {
  return s.status != event_status::enabled || s.event_lease != lease ||
         s.definer_can_fence == false;
}

bool needs_table(const switch_state& s) {
  return !s.heartbeat_table || !s.heartbeat_age;
}

/// The DDL of ensure_switch on a server that accepts privileged writes.
result<void> install(connection& conn, const switch_state& s, std::chrono::milliseconds lease) {
  if (needs_table(s)) {
    if (auto r = exec_void(conn, create_heartbeat_table_sql()); !r) return r;
    if (auto r = exec_void(conn, seed_heartbeat_sql()); !r) return r;
  }
  if (needs_event(s, lease)) {
    // DROP + CREATE (not ALTER): also replaces a replicated SLAVESIDE_DISABLED copy and moves the
    // definer to this account. The gap is one round trip, far below the 1 s event period.
    if (auto r = exec_void(conn, drop_event_sql()); !r) return r;
    if (auto r = exec_void(conn, create_event_sql(lease)); !r) return r;
  }
  return {};
}

}  // namespace

std::string_view to_string(heartbeat_outcome o) {
  return o == heartbeat_outcome::refreshed ? "refreshed" : "fenced";
}

switch_arming switch_state::arming(std::chrono::milliseconds wanted_lease) const {
  return assess_switch(scheduler, status, definer_can_fence, event_lease, wanted_lease);
}

result<switch_state> read_switch_state(connection& conn) {
  const std::string where = "WHERE EVENT_SCHEMA = '" + std::string(switch_schema) +
                            "' AND EVENT_NAME = '" + std::string(switch_event_name) + "'";
  const std::string sql =
      "SELECT @@GLOBAL.event_scheduler AS scheduler, @@GLOBAL.super_read_only AS sro, "
      "@@GLOBAL.read_only AS ro, "
      "(SELECT STATUS FROM information_schema.EVENTS " + where + ") AS status, "
      "(SELECT EVENT_COMMENT FROM information_schema.EVENTS " + where + ") AS comment, "
      "(SELECT DEFINER FROM information_schema.EVENTS " + where + ") AS definer, "
      "(SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = '" +
      std::string(switch_schema) + "' AND TABLE_NAME = '" + std::string(heartbeat_table_name) +
      "') AS hb_table";
  auto r = conn.query(sql);
  if (!r) return r.error();
  if (r->rows.size() != 1) return make_error(error_kind::other, "switch state: expected one row");
  switch_state s;
  s.scheduler = parse_scheduler_state(r->get(0, "scheduler"));
  s.status = parse_event_status(r->get(0, "status"));
  auto sro = flag(*r, "sro");
  auto ro = flag(*r, "ro");
  auto tbl = flag(*r, "hb_table");
  if (!sro) return sro.error();
  if (!ro) return ro.error();
  if (!tbl) return tbl.error();
  // super_read_only ON with read_only OFF is a SET still waiting for its lock, not a fence
  // (as in parse_probe_row).
  s.super_read_only = *sro && *ro;
  s.read_only = *ro;
  s.heartbeat_table = *tbl;
  if (s.status != event_status::missing) {
    s.event_lease = parse_switch_comment(r->get(0, "comment").value_or(""));
    s.definer = r->get(0, "definer").value_or("");
    auto can = definer_can_fence(conn, s.definer);
    if (!can) return can.error();
    s.definer_can_fence = *can;
  }
  if (s.heartbeat_table) {
    auto hb = conn.query("SELECT TIMESTAMPDIFF(MICROSECOND, at, UTC_TIMESTAMP(6)) AS age FROM " +
                         heartbeat_table_sql_name() + " WHERE id = 1");
    if (!hb) {
      // Dropped between the two statements: report it as missing.
      if (hb.error().kind != error_kind::server_error || hb.error().code != er_no_such_table)
        return hb.error();
      s.heartbeat_table = false;
    } else if (!hb->rows.empty()) {
      auto age = to_int(hb->get(0, "age"));
      if (!age) return make_error(error_kind::other, "switch state: bad heartbeat age");
      s.heartbeat_age = std::chrono::microseconds{*age};
    }
  }
  return s;
}

result<ensure_report> ensure_switch(connection& conn, std::chrono::milliseconds lease) {
  if (lease.count() <= 0) return make_error(error_kind::other, "ensure_switch: lease must be > 0");
  if (auto r = session_binlog_off(conn); !r) return r.error();
  ensure_report rep;
  // A fenced server's own (older) switch may fence it again while super_read_only is OFF for the
  // DDL; that makes the DDL fail with 1290, so a few attempts are made.
  constexpr int attempts = 3;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    auto st = read_switch_state(conn);
    if (!st) return st.error();
    if (!needs_table(*st) && !needs_event(*st, lease)) {
      rep.state = std::move(st).value();
      return rep;
    }
    const bool fenced = st->super_read_only;
    if (fenced) {
      if (auto r = exec_void(conn, "SET GLOBAL super_read_only = OFF"); !r) return r.error();
      rep.unfenced_for_ddl = true;
    }
    auto done = install(conn, *st, lease);
    if (fenced) {
      // Back to fenced whatever happened; a failure here leaves read_only=ON (no application
      // writes) and is reported above the DDL's own outcome. Bounded like every fence (a
      // privileged session may hold a lock meanwhile).
      if (auto r = fence(conn, mysql8()); !r) return r.error();
    }
    if (done) {
      rep.changed = true;
      continue;  // re-read: the loop returns once nothing is left to do
    }
    if (!is_super_read_only_refusal(done.error())) return done.error();
  }
  auto st = read_switch_state(conn);
  if (!st) return st.error();
  if (needs_table(*st) || needs_event(*st, lease))
    return make_error(error_kind::other,
                      "ensure_switch: switch still not installed after " +
                          std::to_string(attempts) + " attempts");
  rep.state = std::move(st).value();
  return rep;
}

bool is_missing_switch_table(const mysql_error& e) {
  return e.code == 1146;  // ER_NO_SUCH_TABLE
}

result<heartbeat_outcome> refresh_heartbeat(connection& conn, std::chrono::microseconds age) {
  if (auto r = session_binlog_off(conn); !r) return r.error();
  auto r = conn.exec(refresh_heartbeat_sql(age));
  if (r) return heartbeat_outcome::refreshed;
  if (is_super_read_only_refusal(r.error())) return heartbeat_outcome::fenced;
  return r.error();
}

result<heartbeat_outcome> refresh_heartbeat_installing(connection& conn,
                                                       std::chrono::milliseconds lease,
                                                       std::chrono::microseconds age,
                                                       std::optional<ensure_report>* installed) {
  auto r = refresh_heartbeat(conn, age);
  if (r || !is_missing_switch_table(r.error())) return r;
  auto e = ensure_switch(conn, lease);
  if (!e) return e.error();
  if (installed) *installed = std::move(e).value();
  return refresh_heartbeat(conn, age);
}

result<promote_report> promote_with_switch(connection& conn, std::chrono::milliseconds lease,
                                           unsigned retries, promote_test_hooks hooks) {
  auto ensured = ensure_switch(conn, lease);
  if (!ensured) return ensured.error();
  // A semi-sync fence that did not complete leaves offline_mode ON (fence_semisync.cpp): a
  // writable primary must admit its applications and its replicas' receivers.
  if (auto r = exec_void(conn, "SET GLOBAL offline_mode = OFF"); !r) return r.error();
  promote_report rep;
  for (unsigned attempt = 0; attempt <= retries; ++attempt) {
    rep.retries = attempt;
    // read_only stays ON here: only privileged accounts (this one) can write until the end.
    if (auto r = exec_void(conn, "SET GLOBAL super_read_only = OFF"); !r) return r.error();
    if (attempt == 0 && hooks.pause_before_first_heartbeat.count() > 0)
      std::this_thread::sleep_for(hooks.pause_before_first_heartbeat);
    auto hb = refresh_heartbeat(conn);
    if (!hb) return hb.error();
    if (*hb == heartbeat_outcome::fenced) continue;  // the switch fired in between
    if (auto r = exec_void(conn, "SET GLOBAL read_only = OFF"); !r) {
      if (is_super_read_only_refusal(r.error())) continue;
      return r.error();
    }
    // The event may have read the stale row just before our refresh and set super_read_only
    // just after read_only=OFF: check, and retry if it did. (A later fence is the safe failure.)
    auto back = conn.query("SELECT @@GLOBAL.super_read_only AS sro, @@GLOBAL.read_only AS ro");
    if (!back) return back.error();
    auto sro = flag(*back, "sro");
    auto ro = flag(*back, "ro");
    if (!sro) return sro.error();
    if (!ro) return ro.error();
    if (!*sro && !*ro) break;
  }
  auto st = read_switch_state(conn);
  if (!st) return st.error();
  rep.state = std::move(st).value();
  rep.writable = rep.state.writable();
  return rep;
}

}  // namespace br::mysql
