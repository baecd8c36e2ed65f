// DST world model: processes, links and faults; every decision is delegated to the real functions.
#include "tests/dst/world.hpp"

#include <algorithm>

#include "actors/operator/decide/debounce.hpp"
#include "actors/operator/decide/evaluate.hpp"
#include "actors/operator/decide/promotion_gate.hpp"

namespace br::dst {

namespace {

constexpr int operator_actor = n_sites;  // actor index of the operator in the shuffled tick order

sidecar_view present(const topology_view& v) {
  sidecar_view s;
  s.present = true;
  s.view = v;
  return s;
}

std::string show(const topology_view& v) {
  return "{epoch " + std::to_string(v.epoch) + " active '" + v.active_site + "' deposing '" +
         v.deposing + "'}";
}

}  // namespace

const std::array<std::string, n_sites>& world::names() {
  static const std::array<std::string, n_sites> n{"A", "B", "C"};
  return n;
}

int world::index_of(const std::string& name) {
  auto& n = names();
  return static_cast<int>(std::find(n.begin(), n.end(), name) - n.begin());
}

world::world(uint64_t seed, const sim_config& cfg)
    : rng_(seed), cfg_(cfg), base_(sim_time{} + std::chrono::hours(1000)) {
  rates_ = draw_rates(rng_);
  topology_view v;
  v.epoch = 1;
  v.active_site = names()[0];
  op_.view = v;
  for (int x = 0; x < n_sites; ++x) {
    mysql_[x].writable = x == 0;
    mysql_[x].clock_offset = seconds(std::uniform_int_distribution<int64_t>(-3600, 3600)(rng_));
    mysql_[x].heartbeat = server_now(x);
    auto& s = sc_[x];
    s.view = s.persisted = present(v);
    s.window_start = s.last_operator_contact = now();
    for (int p = 0; p < n_sites; ++p)
      if (p != x) s.peers.push_back({names()[p], sidecar::peer_view_kind::unknown, 0, {}});
    op_.debounce[x].state = x == 0 ? site_state::writable : site_state::read_only;
  }
  if (semisync()) semisync_init();
}

bool world::up(link_kind k, int a, int b) const {
  auto it = links_.find({static_cast<int>(k), std::min(a, b), std::max(a, b)});
  return it == links_.end() || it->second;
}

bool world::check_s1() {
  if (bad_.found) return true;
  // Semi-sync: a writable old primary that cannot collect acknowledgements is allowed; its checks
  // run where writes are acknowledged and sites promoted (world_semisync.cpp).
  if (semisync()) return false;
  std::vector<std::string> w;
  for (int x = 0; x < n_sites; ++x)
    if (mysql_[x].alive && mysql_[x].writable) w.push_back(names()[x]);
  if (w.size() < 2) return false;
  bad_.found = true;
  bad_.tick = tick_;
  bad_.writers = w;
  log("S1 VIOLATED: writable " + w[0] + "," + w[1]);
  bad_.trace = trace_.dump();
  return true;
}

// -- faults ----------------------------------------------------------------------------------------

void world::faults() {
  auto flip = [&](link_kind k, int a, int b, const std::string& label) {
    if (!chance(rng_, rates_.link_flip)) return;
    auto& l = links_.try_emplace({static_cast<int>(k), std::min(a, b), std::max(a, b)}, true)
                  .first->second;
    l = !l;
    log(label + (l ? " healed" : " partitioned"));
  };
  for (int x = 0; x < n_sites; ++x) {
    auto& n = names()[x];
    flip(link_kind::op_sidecar, x, 0, "O<->sidecar " + n);
    flip(link_kind::op_mysql, x, 0, "O<->mysqld " + n);
    flip(link_kind::sidecar_mysql, x, 0, "sidecar " + n + "<->mysqld " + n);
    for (int p = x + 1; p < n_sites; ++p)
      flip(link_kind::sidecar_sidecar, x, p, "sidecar " + n + "<->sidecar " + names()[p]);
    if (semisync())
      for (int p = x + 1; p < n_sites; ++p)
        flip(link_kind::mysql_mysql, x, p, "mysqld " + n + "<->mysqld " + names()[p]);
  }
  for (int x = 0; x < n_sites; ++x) {
    auto& n = names()[x];
    if (chance(rng_, rates_.crash)) {
      auto& m = mysql_[x];
      m.alive = !m.alive;
      m.writable = false;  // S5: a (re)started mysqld boots fenced
      if (m.alive)
        mysqld_restarted(x);
      else
        mysqld_crashed(x);
      log("mysqld " + n + (m.alive ? " restarted (fenced)" : " crashed"));
    }
    if (chance(rng_, rates_.crash)) {
      if (sc_[x].alive) {
        sc_[x].alive = false;
        std::erase_if(flight_, [&](const in_flight& f) { return f.to == x; });
        log("sidecar " + n + " crashed");
      } else {
        log("sidecar " + n + " restarted");
        sidecar_boot(x);
      }
    }
    auto& s = sc_[x];
    if (s.alive && !s.hung && chance(rng_, rates_.hang)) {
      s.hung = true;
      s.hung_until =
          tick_ + std::uniform_int_distribution<int64_t>(1, 3 * cfg_.lease.count())(rng_);
      log("sidecar " + n + " hung until t=" + std::to_string(s.hung_until));
    } else if (s.hung && tick_ >= s.hung_until) {
      s.hung = false;
      log("sidecar " + n + " resumed");
    }
  }
  if (chance(rng_, rates_.crash)) {
    op_.alive = !op_.alive;
    if (op_.alive) {
      // Durable: the view and epoch (S6). Volatile: debounce and the executor's gate facts.
      op_.debounce = {};
      op_.fenced_old = op_.old_acked = false;
      op_.acks.clear();
      op_.gate_started = now();
    }
    log(op_.alive ? "operator restarted, view " + show(op_.view) : "operator crashed");
  }
}

// -- sidecar ---------------------------------------------------------------------------------------

sidecar_view world::served_view() const { return present(op_.view); }

void world::fence_mysql(int x, const std::string& why) {
  if (!mysql_[x].writable) return;
  mysql_[x].writable = false;
  mysql_[x].pending.clear();  // the fence kills the sessions waiting: none is acknowledged
  log("mysqld " + names()[x] + " fenced: " + why);
}

void world::sidecar_boot(int x) {
  auto& s = sc_[x];
  auto file = s.persisted;
  s = sidecar_model{};
  s.view = s.persisted = file;  // a restart keeps the view file
  for (int p = 0; p < n_sites; ++p)
    if (p != x) s.peers.push_back({names()[p], sidecar::peer_view_kind::unknown, 0, {}});
  s.window_start = now();
  bool reach = mysql_[x].alive && up(link_kind::sidecar_mysql, x);
  // Rule 3 (boot): fence first ...
  if (reach && mysql_[x].writable) {
    fence_mysql(x, "sidecar boot guard");
    s.fenced = true;
  }
  // ... ask the operator, unfence only on a view naming this site.
  if (!op_.alive || !up(link_kind::op_sidecar, x)) return;
  auto v = served_view();
  if (sidecar::should_adopt(s.view, v.view, view_source::boot)) s.view = s.persisted = v;
  s.last_operator_contact = now();
  if (reach && v.view.active_site == names()[x] && !mysql_[x].writable) {
    mysql_[x].writable = true;
    mysql_[x].heartbeat = server_now(x);
    log("mysqld " + names()[x] + " unfenced by boot guard (operator view " + show(v.view) + ")");
  }
}

void world::deliver(const in_flight& m) {
  auto& s = sc_[m.to];
  if (m.from < 0) {
    if (m.view.present && sidecar::should_adopt(s.view, m.view.view, view_source::operator_poll))
      s.view = s.persisted = m.view;
    s.last_operator_contact = std::max(s.last_operator_contact, m.sent);  // rule 6: send time
    return;
  }
  auto& p = *std::find_if(s.peers.begin(), s.peers.end(),
                          [&](auto& o) { return o.address == names()[m.from]; });
  if (!m.view.present) {
    p.kind = sidecar::peer_view_kind::no_view;
    return;
  }
  p.kind = sidecar::peer_view_kind::view;
  p.epoch = m.view.view.epoch;
  p.last_view_sent = std::max(p.last_view_sent, m.sent);
  if (sidecar::should_adopt(s.view, m.view.view, view_source::peer)) s.view = s.persisted = m.view;
}

bool world::pull_operator_now(int x) {
  if (op_.alive && up(link_kind::op_sidecar, x)) {
    deliver({x, -1, served_view(), now(), tick_});
    return true;
  }
  for (int p = 0; p < n_sites; ++p)
    if (p != x && sc_[p].alive && !sc_[p].hung && up(link_kind::sidecar_sidecar, x, p)) {
      deliver({x, p, sc_[p].view, now(), tick_});
      return true;
    }
  return false;
}

void world::sidecar_tick(int x) {
  auto& s = sc_[x];
  auto& m = mysql_[x];
  bool reach = m.alive && up(link_kind::sidecar_mysql, x);
  // Answers that were delayed by up to requestTimeout arrive now.
  std::vector<in_flight> due;
  std::erase_if(flight_, [&](const in_flight& f) {
    if (f.to != x || f.deliver_tick > tick_) return false;
    due.push_back(f);
    return true;
  });
  for (auto& f : due) deliver(f);
  auto send = [&](int from, const sidecar_view& v) {
    in_flight f{x, from, v, now(), tick_ + (chance(rng_, rates_.delay) ? 1 : 0)};
    if (f.deliver_tick == tick_)
      deliver(f);
    else
      flight_.push_back(f);
  };
  if (op_.alive && up(link_kind::op_sidecar, x)) send(-1, served_view());
  for (int p = 0; p < n_sites; ++p)
    if (p != x && sc_[p].alive && !sc_[p].hung && up(link_kind::sidecar_sidecar, x, p))
      send(p, sc_[p].view);

  sidecar::fencing_input in;
  in.my_site = names()[x];
  in.view = s.view;
  in.mysql_reachable = reach;
  in.mysql_writable = reach && m.writable;
  in.now = now();
  in.window_start = s.window_start;
  in.last_operator_contact = s.last_operator_contact;
  in.peers = s.peers;
  in.lease_timeout = cfg_.lease;
  in.fenced = s.fenced;
  auto d = sidecar::decide_fencing(in);
  if (d.rearm) {
    s.fenced = false;
    s.window_start = now();
  }
  if (d.action == sidecar::fencing_action::refresh_view) {
    pull_operator_now(x);  // nobody answering leaves the cached view as the freshest
    in.view = s.view;
    in.last_operator_contact = s.last_operator_contact;
    in.peers = s.peers;
    in.fenced = s.fenced;
    in.window_start = s.window_start;
    in.refreshed = true;
    d = sidecar::decide_fencing(in);
  }
  if (d.action == sidecar::fencing_action::fence) {
    fence_mysql(x, "sidecar rule " + std::string(sidecar::to_string(d.reason)) + " (view " +
                       show(s.view.view) + ")");
    s.fenced = true;
    return;
  }
  // Rule 7: the sidecar's heartbeat, dated at the lease's last renewal (a fenced server refuses
  // the write).
  if (reach && m.writable) {
    in.fenced = s.fenced;
    in.window_start = s.window_start;
    m.heartbeat = cfg_.heartbeat_at_now ? server_now(x)
                                        : server_now(x) - (now() - sidecar::lease_anchor(in));
  }
}

bool world::push(int x) {
  auto& s = sc_[x];
  if (!s.alive || s.hung || !up(link_kind::op_sidecar, x)) return false;
  auto offered = served_view();
  if (sidecar::should_adopt(s.view, offered.view, view_source::push)) s.view = s.persisted = offered;
  if (s.view.view.epoch > offered.view.epoch) return false;  // stale push: no ack
  if (offered.view.active_site == names()[x]) return true;   // names us: ack, MySQL untouched
  auto& m = mysql_[x];
  if (!up(link_kind::sidecar_mysql, x)) return false;  // probe times out: state unknown, no ack
  if (!m.alive) return true;                           // refused: S5 boots it fenced
  if (m.writable) {
    fence_mysql(x, "sidecar fences before acking pushed view " + show(offered.view));
    s.fenced = true;
  }
  return true;
}

// -- operator --------------------------------------------------------------------------------------

void world::operator_poll() {
  for (int x = 0; x < n_sites; ++x) {
    auto& m = mysql_[x];
    auto r = !(m.alive && up(link_kind::op_mysql, x))
                 ? poll_result::failed
                 : (m.writable ? poll_result::writable : poll_result::read_only);
    op_.debounce[x] =
        debounce(op_.debounce[x], r, cfg_.failure_threshold, cfg_.recovery_threshold).next;
    // Rule 7: the operator vouches for the site it holds active and is not deposing.
    if (r == poll_result::writable && op_.view.deposing.empty() &&
        op_.view.active_site == names()[x])
      m.heartbeat = server_now(x);
  }
  if (semisync()) semisync_poll();
}

void world::operator_tick() {
  operator_poll();
  if (!op_.view.deposing.empty()) {
    operator_failover_step();
    return;
  }
  if (semisync()) semisync_receivers();
  std::vector<site_observation> obs;
  std::vector<std::string> prio(names().begin(), names().end());
  for (int x = 0; x < n_sites; ++x)
    obs.push_back({names()[x], site_role::primary_candidate, op_.debounce[x].state});
  auto ev = evaluate(obs, prio);
  if (ev.verdict == group_verdict::split_brain || ev.verdict == group_verdict::fence) {
    for (auto& w : ev.verdict == group_verdict::fence ? ev.fence : ev.writable) {
      int x = index_of(w);
      if (w != op_.view.active_site && mysql_[x].alive && up(link_kind::op_mysql, x))
        fence_mysql(x, "operator fences " + w + " (" + ev.message + ")");
    }
    return;
  }
  if (ev.verdict != group_verdict::failover || op_.view.active_site.empty()) return;
  std::vector<std::string> cands;
  for (auto& c : ev.candidates)
    if (c != op_.view.active_site) cands.push_back(c);
  if (cands.empty()) return;
  auto old = op_.view.active_site;
  op_.candidate = cands.front();
  op_.view = topology_view{op_.view.epoch + 1, "", old, 0, {}};  // persisted before it is served
  op_.fenced_old = op_.old_acked = false;
  op_.acks.clear();
  op_.gate_started = now();
  ++stats_.failovers_started;
  log("operator starts failover " + old + "->" + op_.candidate + ", view " + show(op_.view));
}

void world::operator_failover_step() {
  auto& names_ = names();
  int old = index_of(op_.view.deposing);
  if (!op_.fenced_old && mysql_[old].alive && up(link_kind::op_mysql, old)) {
    fence_mysql(old, "operator SQL fence of the old primary");
    op_.fenced_old = true;  // rule 1: acknowledged
  }
  for (int x = 0; x < n_sites; ++x) {
    if (x == old ? op_.old_acked : op_.acks.contains(names_[x])) continue;
    if (!push(x)) continue;
    if (x == old)
      op_.old_acked = true;
    else
      op_.acks[names_[x]] = now();
  }
  auto usable = [&](int x) {
    return x != old && mysql_[x].alive && up(link_kind::op_mysql, x) &&
           op_.debounce[x].state == site_state::read_only && !mysql_[x].writable;
  };
  int cand = index_of(op_.candidate);
  bool cannot_ack = false;
  int no_loss = -1;
  if (semisync()) {
    std::vector<int> eligible;
    if (cand < n_sites && usable(cand)) eligible.push_back(cand);
    for (int x = 0; x < n_sites; ++x)
      if (x != cand && usable(x)) eligible.push_back(x);
    no_loss = semisync_failover_facts(old, eligible, cannot_ack);
  }
  gate_input g;
  g.semisync_cannot_ack = cannot_ack;
  g.operator_fenced_old_primary = op_.fenced_old;
  g.old_primary_sidecar_acked = op_.old_acked;
  g.old_primary_unreachable = op_.debounce[old].state == site_state::unreachable;
  for (int x = 0; x < n_sites; ++x)
    if (x != old) g.other_sites.push_back(names_[x]);
  g.peer_acks = op_.acks;
  g.policy = cfg_.policy;
  g.started = op_.gate_started;
  g.now = now();
  g.lease_timeout = cfg_.gate_lease;
  g.peer_check_interval = cfg_.peer_check;
  g.fence_timeout = cfg_.fence_timeout;
  g.request_timeout = cfg_.request_timeout;
  g.gate_timeout = cfg_.gate_timeout;
  auto d = promotion_gate(g);
  if (d.verdict == gate_verdict::timed_out) {
    log("operator: gate timed out (" + d.reason + "); alert, retry the wait");
    op_.gate_started = now();
    return;
  }
  if (d.verdict != gate_verdict::open) return;
  if (semisync()) {
    // Every promotion needs the no-loss candidate, whichever rule opened the gate.
    if (no_loss < 0) return;
    if (semisync_promote(no_loss)) return;
    cand = no_loss;
    if (d.rule == gate_rule::semisync_stopped) ++stats_.rule4_opens;
  } else if (cand >= n_sites || !usable(cand)) {
    cand = -1;
    for (int x = 0; x < n_sites; ++x)
      if (usable(x)) cand = x;
    if (cand < 0) return;
  }
  op_.view = topology_view{op_.view.epoch + 1, names_[cand], "", 0, {}};
  // Rule 7 promotion: super_read_only=OFF, heartbeat refresh, read_only=OFF.
  mysql_[cand].heartbeat = server_now(cand);
  mysql_[cand].writable = true;
  ++stats_.promotions;
  log("operator promotes " + names_[cand] + " (gate " + to_string(d.rule) + "), view " +
      show(op_.view));
  for (int x = 0; x < n_sites; ++x) push(x);
}

// -- the in-database switch and the loop -----------------------------------------------------------

void world::record(const std::string& what, std::vector<std::string> sites) {
  if (bad_.found) return;
  bad_.found = true;
  bad_.tick = tick_;
  bad_.writers = std::move(sites);
  bad_.what = what;
  log("VIOLATED: " + what);
  bad_.trace = trace_.dump();
}

void world::dead_mans_switch() {
  if (!cfg_.dead_mans_switch) return;
  for (int x = 0; x < n_sites; ++x) {
    auto& m = mysql_[x];
    if (m.alive && m.writable && server_now(x) - m.heartbeat > cfg_.lease) {
      fence_mysql(x, "in-database dead man's switch (heartbeat stale)");
      ++stats_.switch_fences;
    }
  }
}

violation world::run() {
  std::array<int, n_sites + 1> order{};
  for (int i = 0; i <= n_sites; ++i) order[i] = i;
  for (tick_ = 1; tick_ <= cfg_.steps; ++tick_) {
    faults();
    if (semisync()) replication_tick();
    if (check_s1()) return bad_;
    std::shuffle(order.begin(), order.end(), rng_);
    for (int a : order) {
      if (a == operator_actor) {
        if (op_.alive) operator_tick();
      } else if (sc_[a].alive && !sc_[a].hung) {
        sidecar_tick(a);
      }
      if (check_s1()) return bad_;
    }
    dead_mans_switch();
    if (check_s1()) return bad_;
  }
  return bad_;
}

}  // namespace br::dst
