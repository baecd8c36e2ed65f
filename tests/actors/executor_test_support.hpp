// Test doubles for the failover executor: a small simulated MySQL fleet behind the site_io
// interface (records every command, can hang a command forever) and a recording coordinator
// (records persisted phases and plan results, can hold or refuse a phase).
#pragma once

#include <caf/all.hpp>
#include <deque>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "messages/interfaces.hpp"
#include "messages/operator.hpp"
#include "messages/mysql.hpp"

namespace br {
/// Boost.Test prints compared values.
inline std::ostream& operator<<(std::ostream& os, plan_phase p) {
  return os << to_string(p);
}
}  // namespace br

namespace br::test {

/// One simulated server.
struct sim_server {
  bool writable = false;
  bool replicating = false;
  std::string gtid;      ///< gtid_executed
  std::string received;  ///< channel's received set
  bool down = false;     ///< every command answers "refused"
  bool applier_stopped = false;  ///< channel configured, SQL thread OFF: nothing gets applied
  bool io_stopped = false;       ///< channel configured, receiver stopped (STOP REPLICA IO_THREAD)
  /// Semi-synchronous replication: the source side as the last semisync_* command left it (K, 0 =
  /// off) and the probe's semi-sync facts (started_at for the in-step check, source_uuid).
  uint32_t semisync_k = 0;
  bool semisync_replica = false;
  int64_t started_at = 1000;
  std::string server_uuid = {};
  std::string source_uuid = {};
  site_semisync semisync = {};
  int sessions = 2;              ///< application sessions a kill finds (then none)
  /// The applier is slow: a wait never reaches its target (even with the applier running).
  bool lagging = false;
  std::string purged = {};  ///< gtid_purged
  std::string clone_state = {};  ///< performance_schema.clone_status STATE ("" = never cloned)
  std::string user_tables = {};  ///< InnoDB tables outside the system schemas ("" = none)
  /// SHOW GRANTS of every account on this server (default: everything the operator needs).
  std::vector<std::string> grants = {"GRANT ALL PRIVILEGES ON *.* TO `any`@`%`"};
};

struct fleet {
  std::map<std::string, sim_server> servers;
  /// "op site" per command, probes included, in arrival order.
  std::vector<std::string> log;
  std::vector<mysql_command> commands;
  /// (site, op) pairs that are never answered.
  std::set<std::pair<std::string, mysql_op>> hang;
  /// (site, op) -> forced outcome (instead of the simulation).
  std::map<std::pair<std::string, mysql_op>, mysql_outcome> forced;
  /// (site, op) -> one-shot outcomes, used (and consumed) before `forced` and the simulation.
  std::map<std::pair<std::string, mysql_op>, std::deque<mysql_outcome>> once;
  /// False: promote "succeeds" but the server stays read-only (confirmation must catch it).
  bool promote_takes_effect = true;
  /// False: start_replica succeeds but the threads never come up.
  bool replica_comes_up = true;
  /// What ensure_switch/promote_switch report ("armed", "scheduler_off", ...).
  std::string switch_arming = "armed";

  size_t count(const std::string& site, mysql_op op) const {
    auto key = to_string(op) + " " + site;
    size_t n = 0;
    for (const auto& l : log) n += l == key ? 1 : 0;
    return n;
  }
  /// The log restricted to commands of the given sites.
  std::vector<std::string> log_for(const std::set<std::string>& sites) const {
    std::vector<std::string> out;
    for (const auto& l : log)
      if (sites.count(l.substr(l.find(' ') + 1))) out.push_back(l);
    return out;
  }
};

struct fleet_state {
  std::vector<caf::typed_response_promise<mysql_outcome>> held;  ///< hung commands stay pending
  static inline const char* name = "sim_site_io";
};

inline mysql_outcome simulate(fleet& f, const mysql_command& cmd) {
  mysql_outcome o;
  auto& s = f.servers[cmd.target.site];
  if (s.down) {
    o.error_kind = "refused";
    o.error = "refused 2003: Can't connect";
    o.error_code = 2003;
    return o;
  }
  o.ok = true;
  switch (cmd.op) {
    case mysql_op::probe:
      o.probe.read_only = o.probe.super_read_only = !s.writable;
      o.probe.gtid_executed = s.gtid;
      o.probe.received_gtid = s.received;
      o.probe.channel_configured = s.replicating || s.applier_stopped;
      o.probe.io_state = o.probe.sql_state = s.replicating ? "ON" : "OFF";
      if (s.applier_stopped) o.probe.sql_state = "OFF";
      if (s.io_stopped) o.probe.io_state = "OFF";
      o.probe.started_at = s.started_at;
      o.probe.uptime_s = 3600;
      o.probe.server_uuid = s.server_uuid;
      o.probe.source_uuid = s.source_uuid;
      o.probe.semisync = s.semisync;
      break;
    case mysql_op::stop_io_thread: {
      s.io_stopped = true;
      auto probe = cmd;
      probe.op = mysql_op::probe;
      o = simulate(f, probe);
      break;
    }
    case mysql_op::semisync_source:
      s.semisync_k = cmd.semisync_k;
      break;
    case mysql_op::semisync_replica:
      s.semisync_k = 0;
      s.semisync_replica = true;
      break;
    case mysql_op::fence:
      s.writable = false;
      break;
    case mysql_op::kill_sessions:
      o.value = std::to_string(s.sessions);
      s.sessions = 0;
      break;
    case mysql_op::promote:
      s.writable = s.writable || f.promote_takes_effect;
      break;
    case mysql_op::read_gtid:
      o.value = s.gtid;
      break;
    case mysql_op::wait_executed:  // the relay log is applied: executed catches up
      if (s.applier_stopped || s.lagging) {
        o.value = "timed_out";
        break;
      }
      s.gtid = cmd.gtid;
      o.value = "reached";
      break;
    case mysql_op::stop_replica:
      s.replicating = false;
      break;
    case mysql_op::reset_replica_all:
      s.received.clear();
      break;
    case mysql_op::change_source:
      break;
    case mysql_op::start_replica:
      s.replicating = f.replica_comes_up;
      s.applier_stopped = false;
      s.io_stopped = false;
      break;
    case mysql_op::heartbeat:
      o.value = s.writable ? "refreshed" : "fenced";
      break;
    case mysql_op::ensure_switch:
      o.value = f.switch_arming;
      break;
    case mysql_op::promote_switch:
      if (cmd.require_armed && f.switch_arming != "armed") {
        o.ok = false;
        o.error_kind = "switch_not_armed";
        o.error = "dead man's switch not armed (" + f.switch_arming + ")";
        o.value = f.switch_arming;
        break;
      }
      s.writable = s.writable || f.promote_takes_effect;
      o.value = f.switch_arming;
      break;
    case mysql_op::clone:
      s.clone_state = "Completed";
      s.gtid = f.servers[cmd.source.site].gtid;
      s.writable = false;  // boots fenced (S5)
      break;
    case mysql_op::read_purged:
      o.value = s.purged;
      break;
    case mysql_op::read_clone_state:
      o.value = s.clone_state;
      break;
    case mysql_op::read_user_tables:
      o.value = s.user_tables;
      break;
    case mysql_op::show_grants:
      for (const auto& g : s.grants) o.value += (o.value.empty() ? "" : "\n") + g;
      break;
    case mysql_op::gr_probe:
    case mysql_op::gr_bootstrap:
    case mysql_op::gr_start:
    case mysql_op::gr_stop:
    case mysql_op::gr_set_primary:
    case mysql_op::gr_force_members:
      o.ok = false;  // the async executor never sends these
      o.error_kind = "other";
      o.error = "group replication command in an async fleet";
      break;
  }
  return o;
}

inline site_io_actor spawn_fleet_io(caf::actor_system& sys, std::shared_ptr<fleet> f) {
  return sys.spawn(
      [f](site_io_actor::stateful_pointer<fleet_state> self) -> site_io_actor::behavior_type {
        return {[=](mysql_command& cmd) -> caf::typed_response_promise<mysql_outcome> {
          f->log.push_back(to_string(cmd.op) + " " + cmd.target.site);
          f->commands.push_back(cmd);
          auto rp = self->make_response_promise<mysql_outcome>();
          auto key = std::make_pair(cmd.target.site, cmd.op);
          if (f->hang.count(key)) {
            self->state.held.push_back(rp);
            return rp;
          }
          if (auto q = f->once.find(key); q != f->once.end() && !q->second.empty()) {
            rp.deliver(q->second.front());
            q->second.pop_front();
          } else if (auto it = f->forced.find(key); it != f->forced.end()) {
            rp.deliver(it->second);
          } else {
            rp.deliver(simulate(*f, cmd));
          }
          return rp;
        },
        [](leader_floor_atom, uint64_t) {}, [](tick_atom) {}};
      });
}

/// What the executor told its coordinator.
struct coord_record {
  std::vector<std::pair<plan_phase, std::string>> phases;  ///< (phase, promotion_gtid)
  std::vector<plan_facts> facts;                            ///< per phase, what was persisted
  std::vector<plan_result> done;
  bool has_hold = false;
  plan_phase hold_at = plan_phase::pending;  ///< record this phase but never answer
  bool has_refuse = false;
  plan_phase refuse_at = plan_phase::pending;  ///< answer false for this phase
  int refuse_times = -1;                       ///< that many times (-1: always)

  std::vector<plan_phase> phase_list() const {
    std::vector<plan_phase> v;
    for (const auto& p : phases) v.push_back(p.first);
    return v;
  }
};

struct coord_state {
  std::vector<caf::typed_response_promise<bool>> held;
  static inline const char* name = "recording_coordinator";
};

inline coordinator_actor spawn_recording_coordinator(caf::actor_system& sys,
                                                     std::shared_ptr<coord_record> rec) {
  return sys.spawn([rec](coordinator_actor::stateful_pointer<coord_state> self)
                       -> coordinator_actor::behavior_type {
    return {
        [=](observe_atom, const site_report&) {},
        [=](view_atom) { return topology_view{}; },
        [=](status_atom) { return config::group_status{}; },
        [=](phase_atom, uint64_t, plan_phase ph,
            const plan_facts& facts) -> caf::typed_response_promise<bool> {
          rec->phases.emplace_back(ph, facts.promotion_gtid);
          rec->facts.push_back(facts);
          auto rp = self->make_response_promise<bool>();
          if (rec->has_hold && rec->hold_at == ph) {
            self->state.held.push_back(rp);
            return rp;
          }
          bool refuse = rec->has_refuse && rec->refuse_at == ph && rec->refuse_times != 0;
          if (refuse && rec->refuse_times > 0) --rec->refuse_times;
          rp.deliver(!refuse);
          return rp;
        },
        [=](plan_done_atom, const plan_result& r) { rec->done.push_back(r); },
        [=](annotate_atom, const std::string&, const std::string&) { return std::string(); },
        [=](switchover_atom, const std::string&) { return std::string("rejected: test"); },
        [=](flush_atom) {},
    };
  });
}

}  // namespace br::test
