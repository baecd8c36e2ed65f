// DST world, semi-synchronous replication (sim_config::semisync_k > 0): every server's binary log
// and relay log as GTID sets, one client commit per tick on every writable server, receivers over
// their own links, acknowledgements (AFTER_SYNC: a commit is in the binary log before it waits;
// acknowledged once K receivers got it; a fence or crash ends the wait unacknowledged), appliers
// that lag, restarts that discard relay logs (relay_log_recovery) and leave the receiver off
// (skip_replica_start). The operator side uses the real semisync_gate().
//
// Checks: a write acknowledged by any server but the one promoted last that the latter does not
// hold (two sites acknowledging different histories), and a promotion whose drained candidate
// lacks an acknowledged write.
#include <algorithm>
#include <bit>

#include "actors/operator/decide/semisync_gate.hpp"
#include "tests/dst/world.hpp"

namespace br::dst {

namespace {

const std::array<std::string, n_sites>& uuids() {
  static const std::array<std::string, n_sites> u{"aaaaaaaa-0000-0000-0000-000000000001",
                                                  "bbbbbbbb-0000-0000-0000-000000000002",
                                                  "cccccccc-0000-0000-0000-000000000003"};
  return u;
}

gtid_set one(int site, uint64_t gno) {
  gtid_set s;
  s.add(uuids()[site], "", gno, gno);
  return s;
}

}  // namespace

void world::semisync_init() {
  // A is primary; B and C replicate from it, caught up and judged in step.
  for (int x = 1; x < n_sites; ++x) {
    mysql_[x].source = 0;
    mysql_[x].receiving = true;
    op_.in_step[x] = {true, started_at(x), op_.view.epoch};
  }
  newest_primary_ = 0;
}

void world::mysqld_crashed(int x) { mysql_[x].pending.clear(); }

void world::mysqld_restarted(int x) {
  auto& m = mysql_[x];
  m.relay = gtid_set{};  // relay_log_recovery: what was received but not applied is gone
  m.receiving = false;   // skip_replica_start
  m.started_tick = tick_;
}

void world::replication_tick() {
  for (int x = 0; x < n_sites; ++x) {
    auto& m = mysql_[x];
    if (!m.alive || !m.writable) continue;
    auto gno = m.next_gno++;
    m.executed = m.executed.unite(one(x, gno));
    m.pending[gno] = 0;
  }
  std::array<int, n_sites> order{};
  for (int i = 0; i < n_sites; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng_);
  for (int x : order) {
    auto& m = mysql_[x];
    if (!m.alive || !m.receiving || m.source < 0 || m.source == x) continue;
    auto& src = mysql_[m.source];
    if (!src.alive || !up(link_kind::mysql_mysql, x, m.source)) continue;
    auto missing = src.executed.subtract(m.executed.unite(m.relay));
    if (missing.empty()) continue;
    m.relay = m.relay.unite(missing);
    for (auto& [gno, ackers] : src.pending)
      if (missing.contains(one(m.source, gno))) ackers |= 1u << x;
  }
  for (int s = 0; s < n_sites; ++s) {
    auto& pend = mysql_[s].pending;
    for (auto it = pend.begin(); it != pend.end();) {
      if (static_cast<uint32_t>(std::popcount(it->second)) < cfg_.semisync_k) {
        ++it;
        continue;
      }
      auto w = one(s, it->first);
      acked_ = acked_.unite(w);
      ++stats_.acked;
      it = pend.erase(it);
      if (check_ack(s, w)) return;
    }
  }
  for (int x = 0; x < n_sites; ++x) {
    auto& m = mysql_[x];
    if (!m.alive || m.relay.empty() || !chance(rng_, 0.5)) continue;
    m.executed = m.executed.unite(m.relay);
    m.relay = gtid_set{};
  }
}

bool world::check_ack(int site, const gtid_set& w) {
  if (site == newest_primary_) return false;
  // An old primary may still complete a commit that stopped receivers had acknowledged before
  // they stopped and a receiver left running acknowledged after (K >= 2): the candidate held it
  // (a stopped, in-step site received it), so the history stays one. Anything else is two sites
  // acknowledging different histories.
  if (mysql_[newest_primary_].executed.contains(w)) {
    ++stats_.late_acks;
    log(names()[site] + " completed an acknowledgement of " + w.to_compact_string() + ", held by " +
        names()[newest_primary_]);
    return false;
  }
  record("two sites acknowledge writes: " + names()[site] + " acknowledged " +
             w.to_compact_string() + ", which " + names()[newest_primary_] +
             " (promoted later) does not have",
         {names()[site], names()[newest_primary_]});
  return true;
}

void world::semisync_poll() {
  if (!op_.view.deposing.empty()) return;
  int a = index_of(op_.view.active_site);
  if (a >= n_sites || !mysql_[a].alive || !up(link_kind::op_mysql, a)) return;
  auto snapshot = mysql_[a].executed;  // read before the replicas' received sets
  for (int x = 0; x < n_sites; ++x) {
    auto& m = mysql_[x];
    if (x == a || !m.alive || !up(link_kind::op_mysql, x)) continue;
    in_step_facts f;
    f.epoch = op_.view.epoch;
    f.primary_executed = snapshot;
    f.started_at = started_at(x);
    f.uptime_s = static_cast<uint64_t>(tick_ - m.started_tick);
    f.receiving_from_primary = m.receiving && m.source == a;
    f.received = m.executed.unite(m.relay);
    op_.in_step[x] = judge_in_step(op_.in_step[x], f);
  }
}

void world::semisync_receivers() {
  int a = index_of(op_.view.active_site);
  if (a >= n_sites || !mysql_[a].alive || !up(link_kind::op_mysql, a) || !mysql_[a].writable)
    return;
  for (int x = 0; x < n_sites; ++x) {
    auto& m = mysql_[x];
    if (x == a || !m.alive || !up(link_kind::op_mysql, x) || m.writable) continue;
    if (m.receiving && m.source == a) continue;
    if (!mysql_[a].executed.contains(m.executed.unite(m.relay))) {
      // Diverged (an old primary's unacknowledged tail): recovery reclones it from the primary.
      m.executed = mysql_[a].executed;
      m.relay = gtid_set{};
      m.started_tick = tick_;  // a clone restarts mysqld
      ++stats_.clones;
      log("operator reclones " + names()[x] + " from " + names()[a]);
    }
    // CHANGE REPLICATION SOURCE TO another source deletes the relay logs (what was received
    // and not applied); the new source sends what is missing again.
    if (m.source != a) m.relay = gtid_set{};
    m.source = a;
    m.receiving = true;
    log("operator starts the receiver of " + names()[x] + " from " + names()[a]);
  }
}

int world::semisync_failover_facts(int old, const std::vector<int>& eligible, bool& cannot_ack) {
  semisync_gate_input in;
  in.enabled = true;
  in.wait_for_replica_count = cfg_.semisync_k + (cfg_.semisync_one_too_few ? 1 : 0);
  in.old_primary_confirmed = true;
  for (int x = 0; x < n_sites; ++x) {
    if (x == old) continue;
    semisync_site_fact f;
    f.site = names()[x];
    auto& m = mysql_[x];
    if (m.alive && up(link_kind::op_mysql, x)) {
      if (m.receiving && m.source == old) {
        // STOP REPLICA IO_THREAD, confirmed by this probe; it can hang on a read from a
        // half-dead source and time out, leaving the receiver running (review V4).
        if (chance(rng_, 0.2)) {
          log("operator's STOP of the receiver of " + names()[x] + " timed out");
        } else {
          m.receiving = false;
          log("operator stops the receiver of " + names()[x] + " from " + names()[old]);
        }
      }
      f.reached = true;
      f.receiver_stopped = !(m.receiving && m.source == old);
      // Judged against the primary being deposed, active at the epoch before this view's.
      f.in_step = still_in_step(op_.in_step[x], started_at(x), op_.view.epoch - 1);
      f.received = m.executed.unite(m.relay);
    }
    in.others.push_back(std::move(f));
  }
  for (int x : eligible) in.eligible.push_back(names()[x]);
  auto r = semisync_gate(in);
  cannot_ack = r.cannot_ack;
  return r.candidate.empty() ? -1 : index_of(r.candidate);
}

bool world::semisync_promote(int cand) {
  auto& m = mysql_[cand];
  m.executed = m.executed.unite(m.relay);  // drained before it becomes writable
  m.relay = gtid_set{};
  m.receiving = false;
  m.source = -1;
  auto lost = acked_.subtract(m.executed);
  if (!lost.empty()) {
    record("acknowledged writes lost: " + names()[cand] + " promoted without " +
               lost.to_compact_string(),
           {names()[cand]});
    return true;
  }
  newest_primary_ = cand;  // the records are judged again against it (the epoch changes)
  return false;
}

}  // namespace br::dst
