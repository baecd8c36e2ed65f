// site_io: a dispatcher actor that gives every MySQL target (host:port) its own lane: a bounded
// queue and one detached worker (io/mysql calls with hard deadlines). One hung server holds only
// its own lane; a command that waited past its deadline, or one decided under an ended
// leadership, is answered without touching the server.
#include "actors/operator/group/site_io.hpp"

#include <caf/all.hpp>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>

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

std::string lane_key(const mysql_target& t) {
  return t.host + ":" + std::to_string(t.port);
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

prometheus::Gauge& lanes_gauge() {
  static auto& family = prometheus::BuildGauge()
                            .Name("bloodraven_site_io_lanes")
                            .Help("Open site_io lanes (one worker thread per MySQL target).")
                            .Register(*metrics::process_registry());
  return family.Add({});
}

// -- worker --------------------------------------------------------------------------------------

struct cached_connection {
  std::unique_ptr<mysql::connection> conn;
  milliseconds timeout{0};
};

struct worker_state {
  /// One session per account on the lane's target (user@host:port), reused across commands: a
  /// probe is then a single round trip instead of a TCP + auth handshake.
  std::map<std::string, cached_connection> cache;
  static inline const char* name = "site_io_lane";
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

site_io_worker_actor::behavior_type lane_worker(
    site_io_worker_actor::stateful_pointer<worker_state> self,
    std::shared_ptr<const std::atomic<uint64_t>> floor) {
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
        return run_on(self->state, cmd);
      },
  };
}

// -- dispatcher ----------------------------------------------------------------------------------

struct pending_command {
  mysql_command cmd;
  caf::typed_response_promise<mysql_outcome> rp;
};

struct lane {
  site_io_worker_actor worker;  ///< spawned when the lane first has work
  std::deque<pending_command> queue;
  bool busy = false;    ///< a command is with the worker (or a wedged worker is still alive)
  bool wedged = false;  ///< the worker was given up; the lane waits for it to be gone
  bool overloaded = false;  ///< logged once per episode
  time_point idle_since{};
};

struct dispatcher_state {
  site_io_config cfg;
  std::map<std::string, lane> lanes;
  /// Wedged workers (killed, monitored) -> their lane.
  std::map<caf::actor_addr, std::string> wedged;
  std::shared_ptr<std::atomic<uint64_t>> floor = std::make_shared<std::atomic<uint64_t>>(0);
  time_point last_reap{};
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

/// Ends a lane's worker (idle: at once; it holds no call).
void close_lane(dispatcher_ptr self, std::map<std::string, lane>::iterator it) {
  if (auto& w = it->second.worker) {
    self->unlink_from(w);
    self->send_exit(w, caf::exit_reason::user_shutdown);
  }
  self->state.lanes.erase(it);
  lanes_gauge().Set(static_cast<double>(self->state.lanes.size()));
}

bool idle(const lane& l) {
  return !l.busy && l.queue.empty();
}

/// Closes lanes idle for idle_after (looked at most once a second, on arrivals).
void reap_idle(dispatcher_ptr self, time_point now) {
  auto& st = self->state;
  if (now - st.last_reap < seconds(1)) return;
  st.last_reap = now;
  for (auto it = st.lanes.begin(); it != st.lanes.end();) {
    auto next = std::next(it);
    if (idle(it->second) && now - it->second.idle_since >= st.cfg.idle_after) close_lane(self, it);
    it = next;
  }
}

/// At the lane limit: closes the least recently used idle lane. False when every lane is busy.
bool make_room(dispatcher_ptr self) {
  auto& st = self->state;
  auto lru = st.lanes.end();
  for (auto it = st.lanes.begin(); it != st.lanes.end(); ++it)
    if (idle(it->second) && (lru == st.lanes.end() || it->second.idle_since < lru->second.idle_since))
      lru = it;
  if (lru == st.lanes.end()) return false;
  close_lane(self, lru);
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

void lane_free(dispatcher_ptr self, const std::string& key) {
  auto it = self->state.lanes.find(key);
  if (it == self->state.lanes.end()) return;
  it->second.busy = false;
  it->second.idle_since = self->clock().now();
  pump(self, key);
}

/// The worker outlived its limit (or died): the caller has its answer; the worker is killed and
/// the lane stays busy until it is gone (it ends when its blocking call returns).
void give_up_worker(dispatcher_ptr self, const std::string& key, site_io_worker_actor w) {
  auto it = self->state.lanes.find(key);
  if (it == self->state.lanes.end()) return;
  auto& l = it->second;
  l.wedged = true;
  l.worker = nullptr;
  self->state.wedged[w.address()] = key;
  wedged_total().Increment();
  log::error("site_io worker given up: no answer long after its deadline",
             {{"target", key}, {"waiting", l.queue.size()}});
  self->unlink_from(w);
  self->monitor(w);
  self->send_exit(w, caf::exit_reason::kill);
}

void pump(dispatcher_ptr self, const std::string& key) {
  auto& st = self->state;
  auto it = st.lanes.find(key);
  if (it == st.lanes.end()) return;
  auto& l = it->second;
  while (!l.busy && !l.queue.empty()) {
    auto job = std::move(l.queue.front());
    l.queue.pop_front();
    auto now = self->clock().now();
    auto f = st.floor->load();
    if (auto v = judge_start(job.cmd, f, now); v != start_verdict::run) {
      drop(job, v, f, now);
      continue;
    }
    if (!l.worker)
      l.worker = self->spawn<caf::detached + caf::linked>(
          lane_worker, std::shared_ptr<const std::atomic<uint64_t>>(st.floor));
    l.busy = true;
    auto w = l.worker;
    auto rp = job.rp;
    // The worker enforces the command's own deadline; this outer limit only guards against a
    // worker that never answers at all.
    auto limit = job.cmd.timeout * 3 + st.cfg.wedged_after;
    self->request(w, limit, std::move(job.cmd))
        .then(
            [=](mysql_outcome& out) mutable {
              rp.deliver(std::move(out));
              lane_free(self, key);
            },
            [=](caf::error& err) mutable {
              mysql_outcome out;
              out.error_kind = "timeout";
              out.error = "site_io worker for " + key + ": " + self->system().render(err);
              rp.deliver(std::move(out));
              give_up_worker(self, key, w);
            });
  }
  if (l.queue.size() < self->state.cfg.lane_queue / 2) l.overloaded = false;
}

caf::result<mysql_outcome> admit(dispatcher_ptr self, mysql_command& cmd) {
  auto& st = self->state;
  auto now = self->clock().now();
  if (cmd.deadline == time_point{})
    cmd.deadline = now + cmd.timeout + seconds(1);
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
      log::warn("site_io: every lane is busy; command refused",
                {{"target", key}, {"lanes", st.lanes.size()}});
      return overload(cmd, "every one of the " + std::to_string(st.lanes.size()) +
                               " lanes is busy");
    }
    it = st.lanes.emplace(key, lane{}).first;
    it->second.idle_since = now;
    lanes_gauge().Set(static_cast<double>(st.lanes.size()));
  }
  auto& l = it->second;
  auto limit = std::max<size_t>(st.cfg.lane_queue, 1);
  if (l.queue.size() >= limit) purge(self, l, now);
  if (l.queue.size() >= limit) {
    not_run_total("overload").Increment();
    if (!l.overloaded) {
      l.overloaded = true;
      log::warn("site_io: lane full; commands refused until it drains",
                {{"target", key}, {"site", cmd.target.site}, {"waiting", l.queue.size()}});
    }
    return overload(cmd, std::to_string(l.queue.size()) + " commands already wait for it");
  }
  auto rp = self->make_response_promise<mysql_outcome>();
  l.queue.push_back({std::move(cmd), rp});
  pump(self, key);
  return rp;
}

void raise_floor(dispatcher_ptr self, uint64_t g) {
  auto& st = self->state;
  if (g <= st.floor->load()) return;
  st.floor->store(g);
  auto now = self->clock().now();
  size_t waiting = 0;
  for (auto& [key, l] : st.lanes) {
    waiting += l.queue.size();
    purge(self, l, now);
    waiting -= l.queue.size();
  }
  log::warn("site_io: leadership ended; commands of older generations are refused",
            {{"floor", g}, {"dropped", waiting}});
}

site_io_actor::behavior_type dispatcher(dispatcher_ptr self, site_io_config cfg) {
  self->state.cfg = cfg;
  self->set_down_handler([=](caf::down_msg& dm) {
    auto& st = self->state;
    auto w = st.wedged.find(dm.source);
    if (w == st.wedged.end()) return;
    auto key = w->second;
    st.wedged.erase(w);
    auto it = st.lanes.find(key);
    if (it == st.lanes.end()) return;
    it->second.wedged = false;
    lane_free(self, key);
  });
  return {
      [=](mysql_command& cmd) -> caf::result<mysql_outcome> { return admit(self, cmd); },
      [=](leader_floor_atom, uint64_t g) { raise_floor(self, g); },
  };
}

}  // namespace

site_io_actor spawn_site_io(caf::actor_system& sys, site_io_config cfg) {
  return sys.spawn(dispatcher, cfg);
}

}  // namespace br
