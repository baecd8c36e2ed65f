// DST world model: three sites (mysqld + sidecar) and one operator in discrete simulated time,
// whose decisions are the project's real pure functions (fencing rules, debounce, evaluate, gate).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "actors/operator/decide/semisync_in_step.hpp"
#include "actors/sidecar/fencing/fencing_rules.hpp"
#include "messages/decisions.hpp"
#include "messages/gtid_set.hpp"
#include "tests/dst/checker.hpp"
#include "tests/dst/faults.hpp"

namespace br::dst {

using sim_time = std::chrono::steady_clock::time_point;
using std::chrono::seconds;

constexpr int n_sites = 3;

struct sim_config {
  gate_policy policy = gate_policy::safe;
  bool dead_mans_switch = true;  ///< docs/safety.md rule 7
  int64_t steps = 200;           ///< ticks of one second
  /// false (as implemented, sidecar::lease_anchor): the sidecar writes the server's NOW() minus the
  /// age of its freshest lease contact (rule 6 applied to rule 7), so the switch never outlives the
  /// sidecar's own lease. true: the first implementation, NOW() itself, which lets the switch fire
  /// up to 2 x leaseTimeout after the last contact, after rule 3's wait (a broken configuration the
  /// long run must catch: BR_DST_HB_NOW=1).
  bool heartbeat_at_now = false;
  seconds lease{6};
  /// The leaseTimeout the operator's gate assumes; a value below `lease` is a deliberately
  /// mis-configured gate (self-check: rule 3 must then be caught waiting too little).
  seconds gate_lease{6};
  seconds peer_check{1};
  seconds fence_timeout{1};
  seconds request_timeout{1};  ///< bound on message delay
  seconds gate_timeout{40};
  uint32_t failure_threshold = 3;
  uint32_t recovery_threshold = 1;
  /// Semi-synchronous replication (world_semisync.cpp): 0 = off, the original model whose check
  /// is S1 on writability. K > 0: writes, relay logs, replication links and acknowledgements
  /// (AFTER_SYNC, wait count K, no timeout) are modelled, gate rule 4 and the no-loss candidate
  /// are used, and the checks are "no site acknowledges a write the newest primary lacks" and
  /// "every acknowledged write is on a primary when it is promoted" (a writable but blocked old
  /// primary is allowed).
  uint32_t semisync_k = 0;
  /// Self-check: the operator counts one site too few for rule 4 and the candidate (K + 1).
  bool semisync_one_too_few = false;
};

struct mysqld_model {
  bool alive = true;
  bool writable = false;  ///< accepts application writes (super_read_only and read_only OFF)
  sim_time heartbeat{};   ///< rule 7 row, in this server's clock; persists across restarts
  seconds clock_offset{0};  ///< this server's clock minus simulated time (clocks are not synced)
  // Semi-sync model only:
  gtid_set executed;  ///< its binary log (a primary's commits waiting for acknowledgements too)
  gtid_set relay;     ///< received, not applied yet (discarded by a restart: relay_log_recovery)
  int source = -1;    ///< replication source (site index)
  bool receiving = false;      ///< the receiver (IO thread) runs; off after a restart
  int64_t started_tick = -1000;  ///< when mysqld last started (the operator reads its uptime)
  uint64_t next_gno = 1;       ///< its own transaction counter
  /// Own commits waiting: gno -> the sites that acknowledged it (one bit each: the source counts
  /// a replica once, however often it receives the transaction again after a restart).
  std::map<uint64_t, uint32_t> pending;
};

/// A view answer in flight to a sidecar (delayed by at most requestTimeout).
struct in_flight {
  int to = 0;
  int from = -1;  ///< -1: the operator; else the peer site's index
  sidecar_view view;
  sim_time sent{};
  int64_t deliver_tick = 0;
};

struct sidecar_model {
  bool alive = true;
  bool hung = false;
  int64_t hung_until = 0;
  sidecar_view view;       ///< cache
  sidecar_view persisted;  ///< the local view file
  sim_time window_start{};
  sim_time last_operator_contact{};
  std::vector<sidecar::peer_observation> peers;
  bool fenced = false;
};

struct operator_model {
  bool alive = true;
  topology_view view;  ///< durable (S6): survives restarts
  std::string candidate;
  // Executor state of the running failover (volatile: rebuilt after a restart).
  bool fenced_old = false;
  bool old_acked = false;
  std::map<std::string, mono_time> acks;
  sim_time gate_started{};
  std::array<debounce_state, n_sites> debounce{};
  // Semi-sync facts, durable like the view (kept in the group's status): which sites hold
  // everything they received from the active primary (decide/semisync_in_step).
  std::array<in_step_record, n_sites> in_step{};
};

/// Links: operator<->sidecar, operator<->mysqld, sidecar<->own mysqld, sidecar<->sidecar.
/// mysql_mysql (semi-sync model only): a replica's receiver reaching its source.
enum class link_kind : uint8_t { op_sidecar, op_mysql, sidecar_mysql, sidecar_sidecar, mysql_mysql };

struct run_stats {
  int64_t promotions = 0;
  int64_t failovers_started = 0;
  int64_t switch_fences = 0;
  int64_t acked = 0;          ///< semi-sync: acknowledged writes
  int64_t rule4_opens = 0;    ///< semi-sync: promotions through gate rule 4
  int64_t clones = 0;         ///< semi-sync: diverged sites recloned
  int64_t late_acks = 0;      ///< semi-sync: an old primary completing a held commit (K >= 2)
};

class world {
 public:
  world(uint64_t seed, const sim_config& cfg);

  /// Runs until the first S1 violation or the end; returns the violation (found=false if none).
  violation run();

  const run_stats& stats() const { return stats_; }

  static const std::array<std::string, n_sites>& names();
  /// A site's index by name; n_sites when no site has that name.
  static int index_of(const std::string& name);

 private:
  sim_time now() const { return base_ + seconds(tick_); }
  /// Rule 7 compares the heartbeat with the server's own clock on both sides.
  sim_time server_now(int x) const { return now() + mysql_[x].clock_offset; }
  bool up(link_kind k, int a, int b = 0) const;
  void log(std::string what) { trace_.add(tick_, std::move(what)); }
  bool check_s1();  // true = violation recorded

  void faults();
  void sidecar_boot(int x);
  void sidecar_tick(int x);
  void deliver(const in_flight& m);
  bool pull_operator_now(int x);  // rule 1's single refresh; true if it got an answer
  void fence_mysql(int x, const std::string& why);
  /// The sidecar's answer to a pushed view (fencing_monitor's push handler, simplified).
  bool push(int x);
  void operator_tick();
  void operator_poll();
  void operator_failover_step();
  void dead_mans_switch();

  // Semi-synchronous replication (world_semisync.cpp).
  bool semisync() const { return cfg_.semisync_k > 0; }
  int64_t started_at(int x) const { return 1'000'000 + mysql_[x].started_tick; }  // unix-like s
  void semisync_init();
  void mysqld_crashed(int x);
  void mysqld_restarted(int x);
  void replication_tick();          // writes, receivers, acknowledgements, appliers
  bool check_ack(int site, const gtid_set& write);  // true = violation recorded
  void semisync_poll();             // in-step judgement from the active primary's set
  void semisync_receivers();        // start/repoint/reclone replicas of the active site
  /// Stops receivers from the old primary, judges rule 4 and the candidate; -1 = no candidate.
  int semisync_failover_facts(int old, const std::vector<int>& usable, bool& cannot_ack);
  bool semisync_promote(int cand);  // drains, checks no acked write is missing; true = violation
  void record(const std::string& what, std::vector<std::string> sites);

  sidecar_view served_view() const;

  std::mt19937_64 rng_;
  sim_config cfg_;
  fault_rates rates_;
  sim_time base_;
  int64_t tick_ = 0;
  std::array<mysqld_model, n_sites> mysql_;
  std::array<sidecar_model, n_sites> sc_;
  operator_model op_;
  std::map<std::array<int, 3>, bool> links_;
  std::vector<in_flight> flight_;
  trace_log trace_;
  violation bad_;
  run_stats stats_;
  gtid_set acked_;        ///< every acknowledged write (semi-sync)
  int newest_primary_ = 0;  ///< the site promoted last (semi-sync)
};

}  // namespace br::dst
