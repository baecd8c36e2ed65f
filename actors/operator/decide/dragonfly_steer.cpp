// The Dragonfly manager's steering decisions (see dragonfly_steer.hpp).
#include "actors/operator/decide/dragonfly_steer.hpp"

#include <algorithm>
#include <tuple>

namespace br::dragonfly {
namespace {


const site_observation* find(const steer_input& in, const std::string& site) {
  for (const auto& s : in.sites)
    if (s.site == site) return &s;
  return nullptr;
}

bool follows(const site_observation& r, const site_observation& m) {
  return r.info.role == server_role::replica && r.info.master_host == m.host &&
         r.info.master_port == static_cast<int64_t>(m.port);
}

// Nothing to lose: no keys (known, not assumed) and no replicas. The offset is no evidence: a
// Valkey master that never had a replica keeps master_repl_offset 0 whatever it holds.
bool never_wrote(const site_observation& s) {
  return s.info.keys == 0 && s.info.connected_replicas <= 0;
}

site_verdict classify(const site_observation& s, const std::string& master) {
  site_verdict v;
  v.site = s.site;
  if (!s.reachable) {
    v.cls = site_class::unreachable;
    v.why = "no answer";
    return v;
  }
  const auto& i = s.info;
  if (i.role == server_role::unknown) {
    v.cls = site_class::unknown;
    v.why = "INFO replication has no role";
    return v;
  }
  if (i.role == server_role::replica) {
    v.cls = site_class::replica;
    v.ready = i.link_up && i.last_io_seconds_ago >= 0 && !i.sync_in_progress && !i.loading;
    v.why = "replica of " + i.master_host + ":" + std::to_string(i.master_port) +
            (i.link_up ? ", link up" : ", link down") + (i.sync_in_progress ? ", syncing" : "") +
            (i.loading ? ", loading" : "") + ", offset " + std::to_string(i.replica_offset);
    return v;
  }
  if (s.site == master) {
    v.cls = site_class::master;
    v.ready = true;
    v.why = "master, offset " + std::to_string(i.master_repl_offset) + ", " +
            std::to_string(i.connected_replicas) + " replicas";
    return v;
  }
  if (never_wrote(s)) {
    v.cls = site_class::unconfigured;
    v.why = "a master that never took writes (offset 0, no replicas): safe to attach";
    return v;
  }
  v.cls = site_class::stale_master;
  v.why = "a master other than " + (master.empty() ? std::string("the expected one") : master) +
          " holding writes (offset " + std::to_string(i.master_repl_offset) + ", " +
          std::to_string(i.connected_replicas) + " replicas): left for a person";
  return v;
}

action act(action_kind k, const std::string& site) {
  action a;
  a.kind = k;
  a.site = site;
  return a;
}

action replicaof(const std::string& site, const site_observation& master) {
  action a = act(action_kind::replicaof, site);
  a.host = master.host;
  a.port = master.port;
  return a;
}

action event(const char* type, const char* reason, std::string message, const std::string& site = "") {
  action a = act(action_kind::event, site);
  a.event_type = type;
  a.reason = reason;
  a.message = std::move(message);
  return a;
}

// The reachable replica to promote when the master is lost: one that followed it first, not in a
// full sync or loading, the highest offset (the most sessions), then MySQL's active site, then
// declared order. The move to MySQL's active site comes later by rule 3, with a catch-up. Null
// when none.
const site_observation* promotion_candidate(const steer_input& in, const site_observation& old) {
  const site_observation* best = nullptr;
  auto rank = [&](const site_observation& s) {
    return std::make_tuple(follows(s, old) ? 1 : 0, s.info.sync_in_progress || s.info.loading ? 0 : 1,
                           s.info.replica_offset, s.site == in.mysql_active ? 1 : 0);
  };
  for (const auto& s : in.sites) {
    if (s.site == old.site || !s.reachable || s.info.role != server_role::replica) continue;
    if (!best || rank(s) > rank(*best)) best = &s;
  }
  return best;
}

// The recorded master answers as a replica of another reachable master (a REPLTAKEOVER whose
// answer was lost, a takeover done by hand): that one is the master now. Null when not.
const site_observation* handed_over_to(const steer_input& in, const site_observation& m) {
  if (!m.reachable || m.info.role != server_role::replica) return nullptr;
  for (const auto& s : in.sites)
    if (s.site != m.site && s.reachable && s.info.role == server_role::master && follows(m, s)) return &s;
  return nullptr;
}

// The recorded master came back empty (restarted without its data) while a replica that followed
// it still holds data.
bool restarted_empty(const steer_input& in, const site_observation& m) {
  if (!m.reachable || m.info.role != server_role::master || !never_wrote(m)) return false;
  for (const auto& s : in.sites)
    if (s.site != m.site && s.reachable && follows(s, m) && (s.info.replica_offset > 0 || s.info.keys > 0))
      return true;
  return false;
}

// Before any master is recorded: MySQL's active site when it answers as a master; else the one
// master that holds data (replicas follow it) when there is exactly one; else MySQL's active site.
std::string first_master(const steer_input& in) {
  const auto* a = find(in, in.mysql_active);
  if (a && a->reachable && a->info.role == server_role::master) return a->site;
  const site_observation* only = nullptr;
  for (const auto& s : in.sites) {
    if (!s.reachable || s.info.role != server_role::master || never_wrote(s)) continue;
    if (only) return in.mysql_active;
    only = &s;
  }
  return only ? only->site : in.mysql_active;
}

}  // namespace

std::string_view to_string(site_class c) {
  switch (c) {
    case site_class::master: return "master";
    case site_class::replica: return "replica";
    case site_class::stale_master: return "stale-master";
    case site_class::unconfigured: return "unconfigured";
    case site_class::unreachable: return "unreachable";
    case site_class::unknown: return "unknown";
  }
  return "unknown";
}

steer_plan plan_steering(const steer_input& in) {
  steer_plan p;
  std::string observed_master = in.master_site.empty() ? first_master(in) : in.master_site;
  const site_observation* heir = nullptr;
  if (const auto* rec = in.master_site.empty() ? nullptr : find(in, in.master_site); rec)
    if ((heir = handed_over_to(in, *rec))) observed_master = heir->site;
  for (const auto& s : in.sites) p.sites.push_back(classify(s, observed_master));
  std::string master = in.master_site;
  std::vector<action> acts;
  bool moved = false;  // the master changes in this plan: it is not serving as one yet

  if (heir) {
    master = heir->site;
    moved = true;
    acts.push_back(act(action_kind::label_master, master));
    acts.push_back(event("Normal", "DragonflyMasterChosen",
                         in.master_site + " follows " + master + ": " + master + " is the cache master"));
  } else if (master.empty()) {
    const auto* a = find(in, observed_master);
    if (a && a->reachable && a->info.role == server_role::master) {
      master = a->site;
      moved = true;
      acts.push_back(act(action_kind::label_master, master));
      acts.push_back(event("Normal", "DragonflyMasterChosen",
                           master + (master == in.mysql_active ? " (MySQL's active site)"
                                                               : " (the only master holding data)") +
                               " is the cache master"));
    }
  } else if (const auto* m = find(in, master); m) {
    // MySQL already left the master's site: an unreachable master there is not waited for.
    const bool gone = !m->reachable && (in.master_unreachable_polls >= in.lost_after_polls ||
                                        (!in.mysql_active.empty() && master != in.mysql_active));
    const bool emptied = restarted_empty(in, *m);
    if (gone || emptied) {
      if (const auto* c = promotion_candidate(in, *m); c) {
        acts.push_back(act(action_kind::promote, c->site));
        acts.push_back(act(action_kind::label_master, c->site));
        acts.push_back(event("Warning", "DragonflyMasterLost",
                             "the cache master " + master +
                                 (!gone ? std::string(" restarted empty")
                                  : in.master_unreachable_polls >= in.lost_after_polls
                                      ? " is unreachable for " + std::to_string(in.master_unreachable_polls) + " polls"
                                      : " is unreachable and MySQL's active site is " + in.mysql_active) +
                                 "; promoted the replica " + c->site + " (REPLICAOF NO ONE; sessions after its last sync are lost)"));
        master = c->site;
        moved = true;
      }
    } else if (m->reachable && m->info.role == server_role::master && master != in.mysql_active) {
      const auto* t = find(in, in.mysql_active);
      if (t && t->reachable && follows(*t, *m) && classify(*t, observed_master).ready) {
        action kill = act(action_kind::client_kill, m->site);
        kill.best_effort = true;
        if (in.takeover_supported) {
          acts.push_back(act(action_kind::takeover, t->site));
        } else {
          acts.push_back(act(action_kind::strip_traffic, m->site));
          acts.push_back(act(action_kind::pause_writes, m->site));
          acts.push_back(kill);
          action w = act(action_kind::wait_sync, t->site);
          w.host = m->site;
          acts.push_back(std::move(w));
          acts.push_back(act(action_kind::promote, t->site));
        }
        acts.push_back(act(action_kind::label_master, t->site));
        if (in.takeover_supported) acts.push_back(kill);
        action follow = replicaof(m->site, *t);
        follow.best_effort = true;
        acts.push_back(std::move(follow));
        if (!in.takeover_supported) {
          action unpause = act(action_kind::unpause_writes, m->site);
          unpause.best_effort = true;
          acts.push_back(std::move(unpause));
        }
        acts.push_back(event("Normal", "DragonflyMasterMoved",
                             "the cache master moves from " + m->site + " to " + t->site +
                                 " (MySQL's active site) by " +
                                 (in.takeover_supported
                                      ? std::string("REPLTAKEOVER")
                                      : std::string("REPLICAOF NO ONE once it reached ") + m->site +
                                            "'s offset with " + m->site + "'s traffic stopped")));
        master = t->site;
        moved = true;
      }
    }
  }

  // Attach the others to the master; steer traffic off stale masters.
  const site_observation* mo = master.empty() ? nullptr : find(in, master);
  const std::string old_master = in.master_site;
  for (const auto& v : p.sites) {
    if (v.site == master) continue;
    const auto* s = find(in, v.site);
    // A master demoted in this plan is handled above; the observed master class only exists for it.
    if (moved && v.site == old_master) continue;
    switch (v.cls) {
      case site_class::replica:
        if (mo && !follows(*s, *mo)) acts.push_back(replicaof(v.site, *mo));
        break;
      case site_class::unconfigured:
        if (mo) acts.push_back(replicaof(v.site, *mo));
        break;
      case site_class::stale_master:
        if (mo && std::find(in.rejoinable.begin(), in.rejoinable.end(), v.site) != in.rejoinable.end()) {
          acts.push_back(replicaof(v.site, *mo));  // demoted by us after its replica had everything
          break;
        }
        acts.push_back(act(action_kind::strip_traffic, v.site));
        acts.push_back(event("Warning", "DragonflyStaleMaster", v.site + ": " + v.why, v.site));
        break;
      default:
        break;
    }
  }
  p.master_site = master;

  // Phase, from what was observed (a master chosen in this plan is not serving yet).
  bool stale = false, unreachable = false, replicas_ready = true;
  for (const auto& v : p.sites) {
    stale |= v.cls == site_class::stale_master;
    unreachable |= v.cls == site_class::unreachable;
    if (v.site == master) continue;
    if (v.cls == site_class::unconfigured) replicas_ready = false;
    if (v.cls == site_class::replica && (!v.ready || !mo || !follows(*find(in, v.site), *mo))) replicas_ready = false;
  }
  const site_verdict* mv = nullptr;
  for (const auto& v : p.sites)
    if (v.site == master) mv = &v;
  // The serving master's traffic is asserted every poll (idempotent): a switch that failed or was
  // undone by hand is repaired by the next poll, not only when the master changes.
  const bool labelled = std::any_of(acts.begin(), acts.end(), [](const action& a) { return a.kind == action_kind::label_master; });
  if (mv && !moved && mv->cls == site_class::master && !labelled) acts.push_back(act(action_kind::label_master, master));
  if (!mv || moved || mv->cls != site_class::master) {
    p.phase = "ConfiguringReplication";
    p.phase_reason = master.empty() ? "no cache master on " + in.mysql_active
                                    : "the cache master " + master + " is not serving yet";
  } else if (stale || unreachable) {
    p.phase = "Degraded";
    p.phase_reason = stale ? "a stale master holds writes" : "a site's cache server does not answer";
  } else if (!replicas_ready) {
    p.phase = "ConfiguringReplication";
    p.phase_reason = "a replica is not in sync yet";
  } else {
    p.phase = "Ready";
  }
  if (!in.paused) p.actions = std::move(acts);
  return p;
}

}  // namespace br::dragonfly
