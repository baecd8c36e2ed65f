// site_io: a dispatcher actor that hands mysql_commands to idle detached workers (io/mysql calls).
#include "actors/operator/group/site_io.hpp"

#include <caf/all.hpp>

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "io/mysql/commands.hpp"
#include "io/mysql/connection.hpp"
#include "io/mysql/dead_mans_switch.hpp"
#include "io/mysql/mysql8_dialect.hpp"
#include "io/mysql/probe.hpp"
#include "io/mysql/probe_wire.hpp"

namespace br {

namespace site_io_detail {
std::string outcome_kind(std::string_view io_kind) {
  if (io_kind == "refused" || io_kind == "timeout" || io_kind == "lost_connection" ||
      io_kind == "auth" || io_kind == "server_error")
    return std::string(io_kind);
  return "other";
}
}  // namespace site_io_detail

namespace {

using namespace std::chrono;

// -- worker --------------------------------------------------------------------------------------

struct cached_connection {
  std::unique_ptr<mysql::connection> conn;
  milliseconds timeout{0};
};

struct worker_state {
  /// One session per target (user@host:port), reused across commands: a probe is then a single
  /// round trip instead of a TCP + auth handshake.
  std::map<std::string, cached_connection> cache;
  static inline const char* name = "site_io_worker";
};

std::string target_key(const mysql_target& t) {
  return t.user + "@" + t.host + ":" + std::to_string(t.port);
}

mysql::connect_options options_for(const mysql_target& t, milliseconds timeout) {
  mysql::connect_options o;
  o.host = t.host;
  o.port = t.port;
  o.user = t.user;
  o.password = t.password;
  o.connect_timeout = timeout;
  o.read_timeout = timeout;
  o.write_timeout = timeout;
  return o;
}

mysql_outcome failure(const mysql::mysql_error& e) {
  mysql_outcome out;
  out.ok = false;
  out.error_kind = site_io_detail::outcome_kind(mysql::to_string(e.kind));
  out.error = e.to_string();  // io/mysql redacts secrets from messages
  out.error_code = e.code;
  return out;
}

/// A connection-level failure leaves the session unusable (or its state unknown): drop it.
bool connection_level(const mysql::mysql_error& e) {
  return e.kind != mysql::error_kind::server_error && e.kind != mysql::error_kind::other;
}


template <class T>
bool fail_if(const mysql::result<T>& r, mysql_outcome& out, worker_state& st,
             const std::string& key) {
  if (r.ok()) return false;
  out = failure(r.error());
  if (connection_level(r.error())) st.cache.erase(key);
  return true;
}

mysql_outcome run_on(worker_state& st, const mysql_command& cmd) {
  const auto& d = mysql::mysql8();
  auto timeout = duration_cast<milliseconds>(cmd.timeout);
  auto key = target_key(cmd.target);
  mysql_outcome out;
  // Commands that manage their own sessions.
  if (cmd.op == mysql_op::wait_executed) {
    auto set = gtid_set::parse(cmd.gtid);
    if (!set) {
      out.error_kind = "other";
      out.error = "wait_executed: unparsable GTID set";
      return out;
    }
    auto secs = duration_cast<seconds>(cmd.timeout);
    auto r = mysql::wait_for_executed(options_for(cmd.target, seconds(5)), d, *set, secs);
    if (!r.ok()) return failure(r.error());
    out.ok = true;
    out.value = std::string(mysql::to_string(*r));
    return out;
  }
  if (cmd.op == mysql_op::clone) {
    st.cache.erase(key);  // the recipient restarts: any cached session dies with it
    mysql::clone_request req;
    req.donor = {cmd.source.host, cmd.source.port, cmd.source.user, cmd.source.password};
    req.deadline = steady_clock::now() + cmd.timeout;
    auto r = mysql::clone_instance(options_for(cmd.target, seconds(5)), d, req);
    if (!r.ok()) return failure(r.error());
    out.ok = true;
    out.value = r->state;
    return out;
  }
  // Everything else runs on the cached session for the target.
  auto it = st.cache.find(key);
  if (it != st.cache.end() && it->second.timeout != timeout) {
    st.cache.erase(it);  // deadlines are fixed at connect time
    it = st.cache.end();
  }
  if (it == st.cache.end()) {
    auto c = mysql::connection::open(options_for(cmd.target, timeout));
    if (!c.ok()) return failure(c.error());
    cached_connection cc{std::make_unique<mysql::connection>(std::move(*c)), timeout};
    it = st.cache.emplace(key, std::move(cc)).first;
  }
  auto& conn = *it->second.conn;
  switch (cmd.op) {
    case mysql_op::probe: {
      auto r = mysql::probe(conn, d);
      if (fail_if(r, out, st, key)) return out;
      out.probe = mysql::to_wire(*r);
      break;
    }
    case mysql_op::fence: {
      auto r = mysql::fence(conn, d);
      if (fail_if(r, out, st, key)) return out;
      break;
    }
    case mysql_op::kill_sessions: {
      mysql::kill_policy policy;
      policy.protected_users.insert(cmd.target.user);
      auto r = mysql::kill_application_sessions(conn, d, policy);
      if (fail_if(r, out, st, key)) return out;
      out.value = std::to_string(r->killed);
      break;
    }
    case mysql_op::promote: {
      auto r = mysql::promote(conn, d);
      if (fail_if(r, out, st, key)) return out;
      break;
    }
    case mysql_op::read_gtid: {
      auto r = mysql::read_gtid_executed(conn, d);
      if (fail_if(r, out, st, key)) return out;
      out.value = r->to_string();
      break;
    }
    case mysql_op::stop_replica: {
      auto r = mysql::stop_replica(conn, d);
      if (fail_if(r, out, st, key)) return out;
      break;
    }
    case mysql_op::reset_replica_all: {
      auto r = mysql::reset_replica_all(conn, d);
      if (fail_if(r, out, st, key)) return out;
      break;
    }
    case mysql_op::change_source: {
      mysql::replication_source src;
      src.host = cmd.source.host;
      src.port = cmd.source.port;
      src.user = cmd.source.user;
      src.password = cmd.source.password;
      src.ssl = cmd.source_ssl;
      auto r = mysql::change_source(conn, d, src);
      if (fail_if(r, out, st, key)) return out;
      break;
    }
    case mysql_op::start_replica: {
      auto r = mysql::start_replica(conn, d);
      if (fail_if(r, out, st, key)) return out;
      break;
    }
    case mysql_op::heartbeat: {
      // The first vouch for a server without the switch (adopted at first start) installs it.
      auto r = mysql::refresh_heartbeat_installing(conn, duration_cast<milliseconds>(cmd.lease),
                                                   microseconds{0});
      if (fail_if(r, out, st, key)) return out;
      out.value = std::string(mysql::to_string(*r));
      break;
    }
    case mysql_op::ensure_switch: {
      auto lease = duration_cast<milliseconds>(cmd.lease);
      auto r = mysql::ensure_switch(conn, lease);
      if (fail_if(r, out, st, key)) return out;
      out.value = std::string(mysql::to_string(r->state.arming(lease)));
      break;
    }
    case mysql_op::promote_switch: {
      auto lease = duration_cast<milliseconds>(cmd.lease);
      if (cmd.require_armed) {
        auto e = mysql::ensure_switch(conn, lease);
        if (fail_if(e, out, st, key)) return out;
        auto arming = e->state.arming(lease);
        if (arming != mysql::switch_arming::armed) {
          out.error_kind = "switch_not_armed";
          out.error = "dead man's switch not armed (" + std::string(mysql::to_string(arming)) +
                      "): policy Safe does not promote onto this server";
          out.value = std::string(mysql::to_string(arming));
          return out;
        }
      }
      auto r = mysql::promote_with_switch(conn, lease, 3);
      if (fail_if(r, out, st, key)) return out;
      out.value = std::string(mysql::to_string(r->state.arming(lease)));
      if (!r->writable) {
        out.error_kind = "other";
        out.error = "still read-only after promotion through the dead man's switch (" +
                    std::to_string(r->retries) + " retries)";
        return out;
      }
      break;
    }
    case mysql_op::wait_executed:
    case mysql_op::clone:
      break;  // handled above
  }
  out.ok = true;
  return out;
}

site_io_actor::behavior_type worker(site_io_actor::stateful_pointer<worker_state> self) {
  return {
      [=](mysql_command& cmd) -> mysql_outcome { return run_on(self->state, cmd); },
  };
}

// -- dispatcher ----------------------------------------------------------------------------------

struct pending_command {
  mysql_command cmd;
  caf::typed_response_promise<mysql_outcome> rp;
};

struct dispatcher_state {
  std::vector<site_io_actor> idle;
  std::deque<pending_command> queue;
  static inline const char* name = "site_io";
};

using dispatcher_ptr = site_io_actor::stateful_pointer<dispatcher_state>;

void dispatch(dispatcher_ptr self) {
  auto& st = self->state;
  while (!st.idle.empty() && !st.queue.empty()) {
    auto w = st.idle.back();
    st.idle.pop_back();
    auto job = std::move(st.queue.front());
    st.queue.pop_front();
    auto rp = job.rp;
    // The worker enforces the command's own deadline; this outer limit only guards against a
    // worker that never answers at all.
    auto limit = job.cmd.timeout * 3 + std::chrono::seconds(10);
    self->request(w, limit, std::move(job.cmd))
        .then(
            [=](mysql_outcome& out) mutable {
              rp.deliver(std::move(out));
              self->state.idle.push_back(w);
              dispatch(self);
            },
            [=](caf::error& err) mutable {
              mysql_outcome out;
              out.error_kind = "timeout";
              out.error = "site_io worker: " + self->system().render(err);
              rp.deliver(std::move(out));
              self->state.idle.push_back(w);
              dispatch(self);
            });
  }
}

site_io_actor::behavior_type dispatcher(dispatcher_ptr self, site_io_config cfg) {
  auto n = cfg.workers == 0 ? size_t{1} : cfg.workers;
  for (size_t i = 0; i < n; ++i)
    self->state.idle.push_back(self->spawn<caf::detached + caf::linked>(worker));
  return {
      [=](mysql_command& cmd) -> caf::result<mysql_outcome> {
        auto rp = self->make_response_promise<mysql_outcome>();
        self->state.queue.push_back({std::move(cmd), rp});
        dispatch(self);
        return rp;
      },
  };
}

}  // namespace

site_io_actor spawn_site_io(caf::actor_system& sys, site_io_config cfg) {
  return sys.spawn(dispatcher, cfg);
}

}  // namespace br
