// Local MySQL worker: probe, fence (super_read_only=ON, kill sessions, confirm), unfence.
#include "actors/sidecar/fencing/mysql_worker.hpp"

#include <caf/all.hpp>

#include <optional>

#include "io/log/log.hpp"
#include "io/mysql/commands.hpp"
#include "io/mysql/dead_mans_switch.hpp"
#include "io/mysql/down_check.hpp"
#include "io/mysql/group_replication.hpp"
#include "io/mysql/mysql8_dialect.hpp"
#include "io/mysql/probe.hpp"
#include "io/mysql/probe_wire.hpp"

namespace br::sidecar {

mysql::connect_options connect_opts(const mysql_worker_options& o, std::chrono::milliseconds budget) {
  mysql::connect_options c;
  c.host = o.host;
  c.port = o.port;
  c.user = o.user;
  c.password = o.password;
  if (!o.tls_ca_file.empty()) {
    c.tls = mysql::tls_mode::verify_identity;
    c.tls_ca_file = o.tls_ca_file;
  }
  using ms = std::chrono::milliseconds;
  if (budget < ms(1000)) budget = ms(1000);  // the C API's resolution is one second
  c.connect_timeout = std::min(budget, ms(2000));
  c.read_timeout = budget;
  c.write_timeout = budget;
  return c;
}

namespace {

using clock = std::chrono::steady_clock;
using ms = std::chrono::milliseconds;

struct worker_state {
  mysql_worker_options opts;
  std::optional<mysql::connection> conn;  // reused by probes
  std::optional<mysql::connection> hb_conn;  // heartbeats (its session runs sql_log_bin=0)
  std::optional<clock::time_point> switch_checked;  // last ensure_switch
  std::string last_arming;  // logged when it changes
  static inline const char* name = "sidecar_mysql_worker";
};

mysql_outcome failure(const mysql::mysql_error& e) {
  mysql_outcome out;
  out.ok = false;
  out.error_kind = std::string(mysql::to_string(e.kind));
  out.error = e.to_string();
  out.error_code = e.code;
  return out;
}

mysql_outcome failure(std::string kind, std::string text) {
  mysql_outcome out;
  out.error_kind = std::move(kind);
  out.error = std::move(text);
  return out;
}



bool connection_level(const mysql::mysql_error& e) {
  return e.kind != mysql::error_kind::server_error && e.kind != mysql::error_kind::other;
}

ms remaining(clock::time_point deadline) {
  auto r = std::chrono::duration_cast<ms>(deadline - clock::now());
  return r < ms(0) ? ms(0) : r;
}

/// One probe on a fresh connection (used to resolve ambiguous writes and to confirm fences).
mysql::result<mysql::probe_result> fresh_probe(const mysql_worker_options& o, ms budget) {
  auto c = mysql::connection::open(connect_opts(o, budget));
  if (!c) return c.error();
  return mysql::probe(*c, mysql::mysql8());
}

mysql_outcome do_probe(worker_state& st) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!st.conn) {
      auto c = mysql::connection::open(connect_opts(st.opts, st.opts.probe_timeout));
      if (!c) {
        auto out = failure(c.error());
        // Gate rule 2 acknowledges a deposing view without a fence only on this kind.
        if (mysql::provably_down(c.error(), st.opts.host, st.opts.port)) out.error_kind = "down";
        return out;
      }
      st.conn.emplace(std::move(c).value());
    }
    auto p = mysql::probe(*st.conn, mysql::mysql8());
    if (!p) {
      auto err = p.error();
      st.conn.reset();
      // A reused connection may have been closed by the server (wait_timeout, restart):
      // retry once on a new one before reporting the failure.
      if (attempt == 0 && connection_level(err)) continue;
      return failure(err);
    }
    mysql_outcome out;
    out.ok = true;
    out.probe = mysql::to_wire(*p);
    if (st.opts.group_replication) {
      auto g = mysql::read_gr_snapshot(*st.conn);
      if (!g) {
        st.conn.reset();
        return failure(g.error());
      }
      out.probe.gr = std::move(*g);
    }
    auto up = st.conn->query(
        "SELECT VARIABLE_VALUE AS uptime FROM performance_schema.global_status "
        "WHERE VARIABLE_NAME = 'Uptime'");
    if (up && !up->rows.empty()) out.value = up->get(0, "uptime").value_or("");
    return out;
  }
  return failure("other", "unreachable");
}

/// Who the sidecar may kill: every application session except its own account (and the system
/// threads is_application_session always spares).
mysql::kill_policy sidecar_kill_policy(const mysql_worker_options& o) {
  mysql::kill_policy policy;
  policy.protected_users.insert(o.user);  // our own and the operator's monitoring sessions
  return policy;
}

/// The SET of the fence, bounded: three quarters of what is left of FENCE_TIMEOUT, the rest kept
/// for the session kill and the confirming probe. Logs what it had to kill to get through.
mysql::result<void> bounded_fence(worker_state& st, mysql::connection& conn,
                                  clock::time_point deadline, const std::string& reason) {
  mysql::fence_options fo;
  fo.budget = remaining(deadline) * 3 / 4;
  fo.policy = sidecar_kill_policy(st.opts);
  auto f = mysql::fence_bounded(conn, mysql::mysql8(), fo);
  if (!f) return f.error();
  if (f->lock_waits > 0)
    log::warn("SELF-FENCING: the fence waited for locks; their holders were killed",
              {{"reason", reason},
               {"attempts", f->attempts},
               {"killed", f->killed_ids.size()},
               {"spared", f->kept},
               {"elapsedMs", f->elapsed.count()}});
  return {};
}

mysql_outcome do_fence(worker_state& st, const std::string& reason) {
  st.conn.reset();  // the fence uses its own session
  auto deadline = clock::now() + st.opts.fence_timeout;
  auto conn = mysql::connection::open(connect_opts(st.opts, remaining(deadline)));
  if (!conn) return failure(conn.error());
  auto f = bounded_fence(st, *conn, deadline, reason);
  if (!f) {
    if (!connection_level(f.error())) return failure(f.error());
    // Ambiguous: the statement may or may not have run. A probe tells.
    log::warn("SELF-FENCING: fence outcome unknown, checking with a probe",
              {{"reason", reason}, {"error", f.error().to_string()}});
    auto p = fresh_probe(st.opts, std::min(remaining(deadline), ms(5000)));
    if (!p) return failure(p.error());
    if (!p->super_read_only) return failure("other", "fence not applied: " + f.error().to_string());
    auto again = mysql::connection::open(connect_opts(st.opts, remaining(deadline)));
    if (!again) return failure(again.error());
    conn = std::move(again);
  }
  if (reason == "boot") {
    // The boot guard only fences; it unfences moments later when the operator confirms, so killing
    // the sessions of a healthy primary on every sidecar restart would be pure damage.
    auto p = fresh_probe(st.opts, std::max(std::min(remaining(deadline), ms(5000)), ms(1000)));
    if (!p) return failure(p.error());
    mysql_outcome out;
    out.probe = mysql::to_wire(*p);
    out.ok = p->super_read_only;
    out.value = "0";
    return out;
  }
  unsigned killed = 0;
  auto k = mysql::kill_application_sessions(*conn, mysql::mysql8(), sidecar_kill_policy(st.opts));
  if (k) {
    killed = k->killed;
    for (auto& e : k->failures)
      log::warn("SELF-FENCING: a session could not be killed", {{"error", e.to_string()}});
  } else {
    log::warn("SELF-FENCING: killing sessions failed", {{"error", k.error().to_string()}});
  }
  auto p = fresh_probe(st.opts, std::max(std::min(remaining(deadline), ms(5000)), ms(1000)));
  if (!p) return failure(p.error());
  mysql_outcome out;
  out.probe = mysql::to_wire(*p);
  out.ok = p->super_read_only;
  out.value = std::to_string(killed);
  if (!out.ok) {
    out.error_kind = "other";
    out.error = "probe after the fence shows super_read_only=OFF";
  }
  return out;
}

/// Notes an ensure_switch report: logs the arming state when it changes, restarts the minute.
void note_switch(worker_state& st, const mysql::ensure_report& e) {
  auto arming = std::string(mysql::to_string(e.state.arming(st.opts.lease)));
  if (arming != st.last_arming) {
    st.last_arming = arming;
    if (arming == "armed")
      log::info("dead man's switch armed", {{"changed", e.changed}});
    else
      log::warn("dead man's switch NOT armed: a hung sidecar would leave this server writable",
                {{"arming", arming}});
  }
  st.switch_checked = clock::now();
}

mysql_outcome do_heartbeat(worker_state& st, int64_t age_us) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!st.hb_conn) {
      auto c = mysql::connection::open(connect_opts(st.opts, st.opts.probe_timeout));
      if (!c) return failure(c.error());
      st.hb_conn.emplace(std::move(c).value());
    }
    // The switch is (re)checked once a minute: re-created when dropped or changed.
    if (!st.switch_checked || clock::now() - *st.switch_checked >= std::chrono::minutes(1)) {
      auto e = mysql::ensure_switch(*st.hb_conn, st.opts.lease);
      if (!e) {
        st.hb_conn.reset();
        if (attempt == 0 && connection_level(e.error())) continue;
        return failure(e.error());
      }
      note_switch(st, *e);
    }
    std::optional<mysql::ensure_report> installed;
    auto r = mysql::refresh_heartbeat_installing(*st.hb_conn, st.opts.lease,
                                                 std::chrono::microseconds(age_us), &installed);
    if (installed) note_switch(st, *installed);
    if (!r) {
      auto err = r.error();
      st.hb_conn.reset();
      if (attempt == 0 && connection_level(err)) continue;
      return failure(err);
    }
    mysql_outcome out;
    out.ok = true;
    out.value = std::string(mysql::to_string(*r));
    return out;
  }
  return failure("other", "unreachable");
}

mysql_outcome do_unfence(worker_state& st) {
  st.conn.reset();
  auto conn = mysql::connection::open(connect_opts(st.opts, st.opts.fence_timeout));
  if (!conn) return failure(conn.error());
  if (st.opts.dead_mans_switch) {
    // The operator's view names this site: it vouches now, so the heartbeat is fresh (rule 7);
    // unfencing without it would let the switch fence again within a second.
    auto r = mysql::promote_with_switch(*conn, st.opts.lease, 3);
    if (!r) return failure(r.error());
    st.switch_checked = clock::now();
  } else if (auto r = mysql::promote(*conn, mysql::mysql8()); !r) {
    return failure(r.error());
  }
  auto p = mysql::probe(*conn, mysql::mysql8());
  if (!p) return failure(p.error());
  mysql_outcome out;
  out.ok = p->writable();
  out.probe = mysql::to_wire(*p);
  if (!out.ok) out.error = "still read-only after unfence";
  return out;
}

local_mysql_actor::behavior_type worker(local_mysql_actor::stateful_pointer<worker_state> self,
                                        mysql_worker_options opts) {
  self->state.opts = std::move(opts);
  return {
      [=](probe_atom) { return do_probe(self->state); },
      [=](self_fence_atom, const std::string& reason) { return do_fence(self->state, reason); },
      [=](unfence_atom) { return do_unfence(self->state); },
      [=](heartbeat_atom, int64_t age_us) { return do_heartbeat(self->state, age_us); },
  };
}

}  // namespace

local_mysql_actor spawn_mysql_worker(caf::actor_system& sys, mysql_worker_options opts) {
  return sys.spawn<caf::detached>(worker, std::move(opts));
}

}  // namespace br::sidecar
