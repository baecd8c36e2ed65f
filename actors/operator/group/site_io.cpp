// site_io: a dispatcher actor that gives every site's MySQL target its own lane (a bounded
// queue, one command at a time) over an elastic pool of detached workers (io/mysql calls with hard
// deadlines). One hung server holds only its own lane and one worker; a command that waited past
// its deadline, or one decided under an ended leadership, is answered without touching the
// server.
#include "actors/operator/group/site_io.hpp"

#include <caf/all.hpp>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "io/log/log.hpp"
#include "io/metrics/metrics.hpp"
#include "io/mysql/commands.hpp"
#include "io/mysql/connection.hpp"
#include "io/mysql/dead_mans_switch.hpp"
#include "io/mysql/group_replication.hpp"
#include "io/mysql/mysql8_dialect.hpp"
#include "io/mysql/probe.hpp"
#include "io/mysql/probe_wire.hpp"
#include "io/mysql/semisync.hpp"

namespace br {

namespace site_io_detail {

std::string outcome_kind(std::string_view io_kind) {
  if (io_kind == "refused" || io_kind == "timeout" || io_kind == "lost_connection" ||
      io_kind == "auth" || io_kind == "server_error")
    return std::string(io_kind);
  return "other";
}

std::string lane_key(const mysql_target& t) {
  return t.site + "@" + t.host + ":" + std::to_string(t.port);
}

start_verdict judge_start(const mysql_command& cmd, uint64_t floor,
                          caf::actor_clock::time_point now) {
  if (cmd.leader_generation < floor) return start_verdict::stale_generation;
  if (cmd.deadline != caf::actor_clock::time_point{} && now >= cmd.deadline)
    return start_verdict::abandoned;
  return start_verdict::run;
}

mysql_outcome not_run(start_verdict v, const mysql_command& cmd, uint64_t floor,
                      caf::actor_clock::time_point now) {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  mysql_outcome out;
  auto what = to_string(cmd.op) + " on " + lane_key(cmd.target);
  switch (v) {
    case start_verdict::abandoned:
      out.error_kind = "abandoned";
      out.error = "site_io: " + what + " not run: its deadline passed " +
                  std::to_string(duration_cast<milliseconds>(now - cmd.deadline).count()) +
                  " ms before it could start (the target's lane was busy)";
      break;
    case start_verdict::stale_generation:
      out.error_kind = "stale_generation";
      out.error = "site_io: " + what + " refused: decided under leadership generation " +
                  std::to_string(cmd.leader_generation) + ", which has ended (floor " +
                  std::to_string(floor) + ")";
      break;
    case start_verdict::run:
      out.error_kind = "other";
      out.error = "site_io: " + what + " not run";
      break;
  }
  return out;
}

mysql_outcome overload(const mysql_command& cmd, const std::string& why) {
  mysql_outcome out;
  out.error_kind = "overload";
  out.error = "site_io: " + to_string(cmd.op) + " on " + lane_key(cmd.target) + " not run: " + why;
  return out;
}

}  // namespace site_io_detail

namespace {

using namespace std::chrono;
using namespace site_io_detail;
using time_point = caf::actor_clock::time_point;

// -- metrics -------------------------------------------------------------------------------------

prometheus::Counter& not_run_total(const std::string& reason) {
  static auto& family = prometheus::BuildCounter()
                            .Name("bloodraven_site_io_not_run_total")
                            .Help("MySQL commands site_io answered without running them, by "
                                  "reason (abandoned | overload | stale_generation).")
                            .Register(*metrics::process_registry());
  return family.Add({{"reason", reason}});
}

prometheus::Counter& wedged_total() {
  static auto& family = prometheus::BuildCounter()
                            .Name("bloodraven_site_io_wedged_workers_total")
                            .Help("site_io workers given up after outliving their command's "
                                  "deadline by far (blocked in a MySQL call).")
                            .Register(*metrics::process_registry());
  return family.Add({});
}

prometheus::Gauge& workers_gauge() {
  static auto& family = prometheus::BuildGauge()
                            .Name("bloodraven_site_io_workers")
                            .Help("Live site_io worker threads (running, idle or given up).")
                            .Register(*metrics::process_registry());
  return family.Add({});
}

// -- worker --------------------------------------------------------------------------------------

struct cached_connection {
  std::unique_ptr<mysql::connection> conn;
  milliseconds timeout{0};
  time_point last_used{};
};

struct worker_state {
  /// One session per target and account (user@host:port), reused across commands: a probe is
  /// then a single round trip instead of a TCP + auth handshake. The dispatcher gives a target
  /// back to the worker that served it last whenever that one is idle, so a target's session
  /// normally lives in one worker; a session unused for idle_after is closed.
  std::map<std::string, cached_connection> cache;
  caf::timespan idle_after{std::chrono::minutes(2)};
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
  if (t.tls_verify || !t.tls_ca_file.empty()) {  // spec.tls: verified (no CA file: refused)
    o.tls = mysql::tls_mode::verify_identity;
    o.tls_ca_file = t.tls_ca_file;
    o.tls_cert_file = t.tls_cert_file;
    o.tls_key_file = t.tls_key_file;
  }
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

/// Kills the target's application sessions (the operator's own account spared); the count goes
/// to out.value. True when it failed (`out` then says why), as fail_if.
bool kill_apps_failed(mysql::connection& conn, const mysql::dialect& d, const mysql_command& cmd,
                      mysql_outcome& out, worker_state& st, const std::string& key) {
  mysql::kill_policy policy;
  policy.protected_users.insert(cmd.target.user);
  auto r = mysql::kill_application_sessions(conn, d, policy);
  if (fail_if(r, out, st, key)) return true;
  out.value = std::to_string(r->killed);
  return false;
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
    req.donor = {cmd.source.host, cmd.source.port, cmd.source.user, cmd.source.password,
                 cmd.source_ssl_ca};
    req.deadline = steady_clock::now() + cmd.timeout;
    auto r = mysql::clone_instance(options_for(cmd.target, seconds(5)), d, req);
    if (!r.ok()) return failure(r.error());
    out.ok = true;
    out.value = r->state;
    return out;
  }
  if (cmd.op == mysql_op::gr_bootstrap || cmd.op == mysql_op::gr_start ||
      cmd.op == mysql_op::gr_stop || cmd.op == mysql_op::gr_set_primary ||
      cmd.op == mysql_op::gr_force_members) {
    st.cache.erase(key);  // the member's state changes under any cached session
    auto r = mysql::run_gr_command(options_for(cmd.target, seconds(5)), cmd.op, cmd.gr, cmd.source,
                                   cmd.member_id, timeout);
    if (!r.ok()) return failure(r.error());
    out.ok = true;
    out.value = *r;
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
    case mysql_op::kill_sessions:
      if (kill_apps_failed(conn, d, cmd, out, st, key)) return out;
      break;
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
      src.ssl_ca = cmd.source_ssl_ca;
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
    case mysql_op::read_purged: {
      auto r = conn.query("SELECT @@global.gtid_purged AS gtid_purged");
      if (fail_if(r, out, st, key)) return out;
      auto v = r->rows.empty() ? std::nullopt : r->get(0, "gtid_purged");
      out.value = v ? *v : "";
      out.value.erase(std::remove(out.value.begin(), out.value.end(), '\n'), out.value.end());
      break;
    }
    case mysql_op::show_grants: {
      // The session's own account: SHOW GRANTS FOR another user needs SELECT on mysql.*.
      auto r = conn.query("SHOW GRANTS");
      if (fail_if(r, out, st, key)) return out;
      for (const auto& row : r->rows)
        if (!row.empty() && row[0]) out.value += (out.value.empty() ? "" : "\n") + *row[0];
      break;
    }
    case mysql_op::read_clone_state: {
      auto r = conn.query(d.clone_status_sql());
      if (fail_if(r, out, st, key)) return out;
      if (!r->rows.empty()) out.value = r->get(0, "state").value_or("");
      break;
    }
    case mysql_op::read_user_tables: {
      auto r = conn.query(
          "SELECT NAME FROM information_schema.INNODB_TABLES WHERE NAME NOT LIKE 'mysql/%' AND "
          "NAME NOT LIKE 'sys/%' AND NAME NOT LIKE 'bloodraven/%' ORDER BY NAME LIMIT 5");
      if (fail_if(r, out, st, key)) return out;
      for (const auto& row : r->rows)
        if (!row.empty() && row[0]) out.value += (out.value.empty() ? "" : ",") + *row[0];
      break;
    }
    case mysql_op::gr_probe: {
      auto r = mysql::probe(conn, d);
      if (fail_if(r, out, st, key)) return out;
      out.probe = mysql::to_wire(*r);
      auto g = mysql::read_gr_snapshot(conn);
      if (fail_if(g, out, st, key)) return out;
      out.probe.gr = std::move(*g);
      break;
    }
    case mysql_op::stop_io_thread: {
      // Probe first: a server without a running receiver is left alone (STOP on a server without
      // a channel is an error); the answer is always a probe taken after any stop.
      auto r = mysql::probe(conn, d);
      if (fail_if(r, out, st, key)) return out;
      if (r->channel.configured && r->channel.io != mysql::thread_state::off) {
        auto s = mysql::stop_replica(conn, d, "", mysql::replica_threads::io_thread);
        if (fail_if(s, out, st, key)) return out;
        r = mysql::probe(conn, d);
        if (fail_if(r, out, st, key)) return out;
      }
      out.probe = mysql::to_wire(*r);
      break;
    }
    case mysql_op::semisync_source: {
      auto r = mysql::semisync_source_on(conn, cmd.semisync_k);
      if (fail_if(r, out, st, key)) return out;
      break;
    }
    case mysql_op::semisync_replica: {
      // Application sessions first: a commit still waiting for acknowledgements would be
      // answered OK when the source side goes OFF (a write the active primary lacks); killed,
      // its client sees an error (review V5 H2). The count goes to `value`.
      if (kill_apps_failed(conn, d, cmd, out, st, key)) return out;
      auto r = mysql::semisync_as_replica(conn);
      if (fail_if(r, out, st, key)) return out;
      break;
    }
    case mysql_op::wait_executed:
    case mysql_op::clone:
    case mysql_op::gr_bootstrap:
    case mysql_op::gr_start:
    case mysql_op::gr_stop:
    case mysql_op::gr_set_primary:
    case mysql_op::gr_force_members:
      break;  // handled above
  }
  out.ok = true;
  return out;
}

/// Closes sessions nobody used for idle_after (targets now served by another worker, or gone).
void evict_idle_sessions(worker_state& st, time_point now) {
  for (auto it = st.cache.begin(); it != st.cache.end();)
    it = now - it->second.last_used >= st.idle_after ? st.cache.erase(it) : std::next(it);
}

site_io_worker_actor::behavior_type site_io_worker(
    site_io_worker_actor::stateful_pointer<worker_state> self,
    std::shared_ptr<const std::atomic<uint64_t>> floor, caf::timespan idle_after) {
  self->state.idle_after = idle_after;
  return {
      [=](mysql_command& cmd) -> mysql_outcome {
        // Checked again here, right before the server is touched: the command may have waited
        // in this mailbox after the dispatcher let it go.
        auto f = floor->load();
        auto now = self->clock().now();
        auto v = judge_start(cmd, f, now);
        if (v != start_verdict::run) {
          not_run_total(v == start_verdict::abandoned ? "abandoned" : "stale_generation")
              .Increment();
          return not_run(v, cmd, f, now);
        }
        auto& st = self->state;
        evict_idle_sessions(st, now);
        auto out = run_on(st, cmd);
        if (auto it = st.cache.find(target_key(cmd.target)); it != st.cache.end())
          it->second.last_used = self->clock().now();
        return out;
      },
  };
}

// -- dispatcher ----------------------------------------------------------------------------------

struct pending_command {
  mysql_command cmd;
  caf::typed_response_promise<mysql_outcome> rp;
};

/// One target's commands: run one at a time, in arrival order.
struct lane {
  std::deque<pending_command> queue;
  bool busy = false;   ///< a command is with a worker (or its wedged worker is still alive)
  bool ready = false;  ///< listed in dispatcher_state::ready (has work, waits for a worker)
  time_point ready_since{};
  bool overloaded = false;  ///< logged once per episode
  caf::actor_addr last_worker;  ///< served its last command (holds its cached session)
  time_point idle_since{};
};

struct dispatcher_state {
  site_io_config cfg;
  std::map<std::string, lane> lanes;
  /// Lanes with work and no worker (every worker busy), first come first served.
  std::deque<std::string> ready;
  /// Idle workers, most recently used last, with the time they became idle.
  std::vector<std::pair<site_io_worker_actor, time_point>> idle;
  /// Workers alive: running a command, idle, or wedged and not gone yet.
  size_t live = 0;
  /// Wedged workers (killed, monitored) -> their lane.
  std::map<caf::actor_addr, std::string> wedged;
  std::shared_ptr<std::atomic<uint64_t>> floor = std::make_shared<std::atomic<uint64_t>>(0);
  time_point last_reap{};
  bool tick_pending = false;  ///< a (tick) is on its way to grow the pool for a waiting lane
  static inline const char* name = "site_io";
};

using dispatcher_ptr = site_io_actor::stateful_pointer<dispatcher_state>;

void pump(dispatcher_ptr self, const std::string& key);

void drop(const pending_command& job, start_verdict v, uint64_t floor, time_point now) {
  not_run_total(v == start_verdict::abandoned ? "abandoned" : "stale_generation").Increment();
  auto out = not_run(v, job.cmd, floor, now);
  nlohmann::json f = {{"site", job.cmd.target.site},
                      {"target", lane_key(job.cmd.target)},
                      {"op", to_string(job.cmd.op)},
                      {"reason", out.error_kind}};
  log::info("MySQL command dropped unexecuted", f);
  auto rp = job.rp;
  rp.deliver(std::move(out));
}

void set_gauges(dispatcher_ptr self) {
  workers_gauge().Set(static_cast<double>(self->state.live));
}

/// Ends an idle worker (it holds no call, so it is gone at once).
void close_worker(dispatcher_ptr self, const site_io_worker_actor& w) {
  self->unlink_from(w);
  self->send_exit(w, caf::exit_reason::user_shutdown);
  --self->state.live;
  set_gauges(self);
}

bool idle(const lane& l) {
  return !l.busy && l.queue.empty();
}

/// Closes workers and forgets lanes idle for idle_after (looked at most once a second, on
/// arrivals).
void reap_idle(dispatcher_ptr self, time_point now) {
  auto& st = self->state;
  if (now - st.last_reap < seconds(1)) return;
  st.last_reap = now;
  std::vector<std::pair<site_io_worker_actor, time_point>> keep;
  for (auto& [w, since] : st.idle) {
    if (now - since >= st.cfg.idle_after)
      close_worker(self, w);
    else
      keep.emplace_back(w, since);
  }
  st.idle.swap(keep);
  for (auto it = st.lanes.begin(); it != st.lanes.end();)
    it = idle(it->second) && now - it->second.idle_since >= st.cfg.idle_after
             ? st.lanes.erase(it)
             : std::next(it);
}

/// At the lane limit: forgets the least recently used idle lane. False when none is idle.
bool make_room(dispatcher_ptr self) {
  auto& st = self->state;
  auto lru = st.lanes.end();
  for (auto it = st.lanes.begin(); it != st.lanes.end(); ++it)
    if (idle(it->second) &&
        (lru == st.lanes.end() || it->second.idle_since < lru->second.idle_since))
      lru = it;
  if (lru == st.lanes.end()) return false;
  st.lanes.erase(lru);
  return true;
}

/// Answers every waiting command of the lane whose deadline passed (or whose leadership ended).
void purge(dispatcher_ptr self, lane& l, time_point now) {
  auto f = self->state.floor->load();
  std::deque<pending_command> keep;
  for (auto& job : l.queue) {
    auto v = judge_start(job.cmd, f, now);
    if (v == start_verdict::run)
      keep.push_back(std::move(job));
    else
      drop(job, v, f, now);
  }
  l.queue.swap(keep);
}

size_t cap(size_t configured) {
  return std::max<size_t>(configured, 1);
}

/// Whether a lane that has waited `waited` for a worker can have one now: an idle one, or a new
/// one below min_workers, or (below max_workers) a new one once it has waited grow_after.
bool worker_for(dispatcher_ptr self, caf::timespan waited) {
  auto& st = self->state;
  if (!st.idle.empty()) return true;
  if (st.live < std::min(cap(st.cfg.min_workers), cap(st.cfg.max_workers))) return true;
  return st.live < cap(st.cfg.max_workers) && waited >= st.cfg.grow_after;
}

/// A worker for a lane (worker_for() said there is one): the one that served it last when idle
/// (its session is cached there), else the most recently idle one, else a new one.
site_io_worker_actor take_worker(dispatcher_ptr self, const lane& l) {
  auto& st = self->state;
  if (!st.idle.empty()) {
    auto it = std::find_if(st.idle.begin(), st.idle.end(),
                           [&](const auto& e) { return e.first.address() == l.last_worker; });
    if (it == st.idle.end()) it = std::prev(st.idle.end());
    auto w = it->first;
    st.idle.erase(it);
    return w;
  }
  ++st.live;
  set_gauges(self);
  return self->spawn<caf::detached + caf::linked>(
      site_io_worker, std::shared_ptr<const std::atomic<uint64_t>>(st.floor), st.cfg.idle_after);
}

/// Lanes that waited for a worker get the free ones, in the order they started waiting; when the
/// first one must wait for the pool to grow, a (tick) comes back when it has waited grow_after.
void serve_ready(dispatcher_ptr self) {
  auto& st = self->state;
  auto now = self->clock().now();
  while (!st.ready.empty()) {
    auto key = st.ready.front();
    auto it = st.lanes.find(key);
    if (it == st.lanes.end() || !it->second.ready) {
      st.ready.pop_front();
      continue;
    }
    if (!worker_for(self, now - it->second.ready_since)) break;
    st.ready.pop_front();
    pump(self, key);
  }
  if (st.ready.empty() || st.tick_pending || st.live >= cap(st.cfg.max_workers)) return;
  auto it = st.lanes.find(st.ready.front());
  if (it == st.lanes.end()) return;
  auto due = it->second.ready_since + st.cfg.grow_after;
  st.tick_pending = true;
  self->delayed_send(self, std::max<caf::timespan>(due - now, milliseconds(1)), tick_atom::value);
}

/// The lane's command is answered: the worker is idle again, the lane may run its next command
/// (behind lanes that were already waiting for a worker).
void command_done(dispatcher_ptr self, const std::string& key, site_io_worker_actor w) {
  auto& st = self->state;
  auto now = self->clock().now();
  st.idle.emplace_back(std::move(w), now);
  if (auto it = st.lanes.find(key); it != st.lanes.end()) {
    auto& l = it->second;
    l.busy = false;
    l.idle_since = now;
    if (!l.queue.empty() && !l.ready) {
      // Behind the lanes already waiting; it gets this (idle) worker back unless one of them
      // takes it first.
      l.ready = true;
      l.ready_since = now;
      st.ready.push_back(key);
    }
  }
  serve_ready(self);
}

/// The worker outlived its limit (or died): the caller has its answer; the worker is killed and
/// its lane stays busy until it is gone (it ends when its blocking call returns), so a hung
/// target never holds two workers.
void give_up_worker(dispatcher_ptr self, const std::string& key, site_io_worker_actor w) {
  auto& st = self->state;
  st.wedged[w.address()] = key;
  wedged_total().Increment();
  size_t waiting = 0;
  if (auto it = st.lanes.find(key); it != st.lanes.end()) waiting = it->second.queue.size();
  log::error("site_io worker given up: no answer long after its deadline",
             {{"target", key}, {"waiting", waiting}});
  self->unlink_from(w);
  self->monitor(w);
  self->send_exit(w, caf::exit_reason::kill);
}

void start(dispatcher_ptr self, const std::string& key, lane& l, site_io_worker_actor w,
           pending_command job) {
  l.busy = true;
  l.last_worker = w.address();
  auto rp = job.rp;
  // The worker enforces the command's own deadline; this outer limit only guards against a
  // worker that never answers at all.
  auto limit = job.cmd.timeout * 3 + self->state.cfg.wedged_after;
  self->request(w, limit, std::move(job.cmd))
      .then(
          [=](mysql_outcome& out) mutable {
            rp.deliver(std::move(out));
            command_done(self, key, w);
          },
          [=](caf::error& err) mutable {
            mysql_outcome out;
            out.error_kind = "timeout";
            out.error = "site_io worker for " + key + ": " + self->system().render(err);
            rp.deliver(std::move(out));
            give_up_worker(self, key, w);
          });
}

/// Starts the lane's next commands while it is not busy; a lane that finds no worker waits in the
/// ready list.
void pump(dispatcher_ptr self, const std::string& key) {
  auto& st = self->state;
  auto it = st.lanes.find(key);
  if (it == st.lanes.end()) return;
  auto& l = it->second;
  // A lane taken from the ready list keeps counting its wait from when it started waiting.
  auto since = l.ready ? l.ready_since : self->clock().now();
  l.ready = false;
  while (!l.busy && !l.queue.empty()) {
    auto now = self->clock().now();
    auto f = st.floor->load();
    if (auto v = judge_start(l.queue.front().cmd, f, now); v != start_verdict::run) {
      drop(l.queue.front(), v, f, now);
      l.queue.pop_front();
      continue;
    }
    if (!worker_for(self, now - since)) {
      l.ready = true;
      l.ready_since = since;
      st.ready.push_back(key);
      serve_ready(self);  // arms the tick that lets the pool grow for it
      break;
    }
    auto w = take_worker(self, l);
    auto job = std::move(l.queue.front());
    l.queue.pop_front();
    start(self, key, l, std::move(w), std::move(job));
  }
  if (l.queue.size() < st.cfg.lane_queue / 2) l.overloaded = false;
}

caf::result<mysql_outcome> admit(dispatcher_ptr self, mysql_command& cmd) {
  auto& st = self->state;
  auto now = self->clock().now();
  if (cmd.deadline == time_point{}) cmd.deadline = now + cmd.timeout + seconds(1);
  reap_idle(self, now);
  auto f = st.floor->load();
  if (auto v = judge_start(cmd, f, now); v != start_verdict::run) {
    not_run_total(v == start_verdict::abandoned ? "abandoned" : "stale_generation").Increment();
    return not_run(v, cmd, f, now);
  }
  auto key = lane_key(cmd.target);
  auto it = st.lanes.find(key);
  if (it == st.lanes.end()) {
    if (st.lanes.size() >= std::max<size_t>(st.cfg.max_lanes, 1) && !make_room(self)) {
      not_run_total("overload").Increment();
      log::warn("site_io: every target's lane is busy; command refused",
                {{"target", key}, {"lanes", st.lanes.size()}});
      return overload(cmd, "commands of " + std::to_string(st.lanes.size()) +
                               " other targets are pending");
    }
    it = st.lanes.emplace(key, lane{}).first;
    it->second.idle_since = now;
  }
  auto& l = it->second;
  auto limit = std::max<size_t>(st.cfg.lane_queue, 1);
  if (l.queue.size() >= limit) purge(self, l, now);
  if (l.queue.size() >= limit) {
    not_run_total("overload").Increment();
    if (!l.overloaded) {
      l.overloaded = true;
      log::warn("site_io: target's queue full; commands refused until it drains",
                {{"target", key}, {"site", cmd.target.site}, {"waiting", l.queue.size()}});
    }
    return overload(cmd, std::to_string(l.queue.size()) + " commands already wait for it");
  }
  auto rp = self->make_response_promise<mysql_outcome>();
  l.queue.push_back({std::move(cmd), rp});
  if (!l.busy && !l.ready) pump(self, key);  // a waiting lane keeps its place in the ready list
  return rp;
}

void raise_floor(dispatcher_ptr self, uint64_t g) {
  auto& st = self->state;
  if (g <= st.floor->load()) return;
  st.floor->store(g);
  auto now = self->clock().now();
  size_t dropped = 0;
  for (auto& [key, l] : st.lanes) {
    auto before = l.queue.size();
    purge(self, l, now);
    dropped += before - l.queue.size();
  }
  log::warn("site_io: leadership ended; commands of older generations are refused",
            {{"floor", g}, {"dropped", dropped}});
}

site_io_actor::behavior_type dispatcher(dispatcher_ptr self, site_io_config cfg) {
  self->state.cfg = cfg;
  self->set_down_handler([=](caf::down_msg& dm) {
    auto& st = self->state;
    auto w = st.wedged.find(dm.source);
    if (w == st.wedged.end()) return;
    auto key = w->second;
    st.wedged.erase(w);
    --st.live;
    set_gauges(self);
    if (auto it = st.lanes.find(key); it != st.lanes.end()) {
      auto& l = it->second;
      l.busy = false;
      l.idle_since = self->clock().now();
      if (!l.queue.empty() && !l.ready) {
        l.ready = true;
        l.ready_since = l.idle_since;
        st.ready.push_back(key);
      }
    }
    serve_ready(self);
  });
  return {
      [=](mysql_command& cmd) -> caf::result<mysql_outcome> { return admit(self, cmd); },
      [=](leader_floor_atom, uint64_t g) { raise_floor(self, g); },
      [=](tick_atom) {
        self->state.tick_pending = false;
        serve_ready(self);
      },
  };
}

}  // namespace

site_io_actor spawn_site_io(caf::actor_system& sys, site_io_config cfg) {
  return sys.spawn(dispatcher, cfg);
}

}  // namespace br
