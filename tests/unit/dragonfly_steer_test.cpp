// The Dragonfly manager's steering decisions (decide/dragonfly_steer.hpp) as table tests: the
// classes, attaching replicas, the stale master never rejoined, the lost master, the master that
// restarted empty, the move to MySQL's active site (takeover or the REPLICAOF NO ONE fallback),
// the phase, and a paused plan.
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/dragonfly_steer.hpp"

using namespace br::dragonfly;

namespace {

site_observation base(const std::string& site) {
  site_observation s;
  s.site = site;
  s.reachable = true;
  s.host = "df-" + site;
  s.port = 6379;
  return s;
}

/// A master with this offset and replica count.
site_observation M(const std::string& site, int64_t offset, int64_t replicas) {
  auto s = base(site);
  s.info.role = server_role::master;
  s.info.master_repl_offset = offset;
  s.info.connected_replicas = replicas;
  s.info.keys = offset > 0 ? 1 : 0;  // rows with an offset hold data
  return s;
}

/// A master holding `keys` keys whatever its offset (Valkey: 0 until a replica attached once);
/// keys -1: INFO keyspace not read.
site_observation K(const std::string& site, int64_t keys) {
  auto s = M(site, 0, 0);
  s.info.keys = keys;
  return s;
}

/// A replica of `of` at this offset; link up or down.
site_observation R(const std::string& site, const std::string& of, int64_t offset, bool up = true) {
  auto s = base(site);
  s.info.role = server_role::replica;
  s.info.master_host = "df-" + of;
  s.info.master_port = 6379;
  s.info.link_up = up;
  s.info.last_io_seconds_ago = up ? 0 : -1;
  s.info.replica_offset = offset;
  s.info.master_repl_offset = offset;
  s.info.keys = offset > 0 ? 1 : 0;
  return s;
}

/// A replica in a full sync (link down, syncing) from `of`.
site_observation S(const std::string& site, const std::string& of) {
  auto s = R(site, of, 0, false);
  s.info.sync_in_progress = true;
  return s;
}

site_observation X(const std::string& site) {
  auto s = base(site);
  s.reachable = false;
  return s;
}

site_observation U(const std::string& site) { return base(site); }  // answers, no role

std::string describe(const steer_plan& p) {
  std::string out;
  for (const auto& a : p.actions) {
    if (!out.empty()) out += "; ";
    if (a.best_effort) out += "~";
    switch (a.kind) {
      case action_kind::replicaof: out += "replicaof " + a.site + " " + a.host; break;
      case action_kind::takeover: out += "takeover " + a.site; break;
      case action_kind::promote: out += "promote " + a.site; break;
      case action_kind::strip_traffic: out += "strip " + a.site; break;
      case action_kind::wait_sync: out += "wait " + a.site + " " + a.host; break;
      case action_kind::client_kill: out += "kill " + a.site; break;
      case action_kind::pause_writes: out += "pause " + a.site; break;
      case action_kind::unpause_writes: out += "unpause " + a.site; break;
      case action_kind::label_master: out += "label " + a.site; break;
      case action_kind::event: out += "event " + a.reason; break;
    }
  }
  return out;
}

std::string classes(const steer_plan& p) {
  std::string out;
  for (const auto& v : p.sites) {
    if (!out.empty()) out += " ";
    out += std::string(to_string(v.cls)) + (v.ready ? "+" : "");
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(dragonfly_steer)

BOOST_AUTO_TEST_CASE(table) {
  struct row {
    const char* name;
    std::vector<site_observation> sites;
    std::string master, active;
    int unreachable_polls;
    bool takeover;
    std::string actions, new_master, phase, classes;
  };
  const std::vector<row> rows = {
      {"first start: MySQL's active site becomes the master, the fresh others follow it",
       {M("a", 0, 0), M("b", 0, 0), M("c", 0, 0)}, "", "a", 0, false,
       "label a; event DragonflyMasterChosen; replicaof b df-a; replicaof c df-a", "a", "ConfiguringReplication",
       "master+ unconfigured unconfigured"},
      {"no master recorded, the active site's server follows the only master holding data: adopt it",
       {R("a", "b", 10), M("b", 10, 1)}, "", "a", 0, false, "label b; event DragonflyMasterChosen", "b",
       "ConfiguringReplication", "replica+ master+"},
      {"no master recorded and two masters hold data: neither is adopted, both stale",
       {R("a", "b", 10), M("b", 10, 1), M("c", 5, 0)}, "", "a", 0, false,
       "strip b; event DragonflyStaleMaster; strip c; event DragonflyStaleMaster", "", "ConfiguringReplication",
       "replica+ stale-master stale-master"},
      {"steady: nothing to do",
       {M("a", 100, 2), R("b", "a", 100), R("c", "a", 100)}, "a", "a", 0, false, "label a", "a", "Ready",
       "master+ replica+ replica+"},
      {"a replica following another server is pointed at the master",
       {M("a", 100, 1), R("b", "a", 100), R("c", "b", 100)}, "a", "a", 0, false, "replicaof c df-a; label a", "a",
       "ConfiguringReplication", "master+ replica+ replica+"},
      {"a replica of the master with its link down reconnects by itself (no REPLICAOF restarting a sync)",
       {M("a", 100, 1), R("b", "a", 90, false)}, "a", "a", 0, false, "label a", "a", "ConfiguringReplication",
       "master+ replica"},
      {"a stale master (took writes) loses its traffic, is reported, never rejoined",
       {M("a", 100, 1), R("b", "a", 100), M("c", 50, 0)}, "a", "a", 0, false,
       "strip c; event DragonflyStaleMaster; label a", "a", "Degraded", "master+ replica+ stale-master"},
      {"an unconfigured master (offset 0, no replicas) is attached",
       {M("a", 100, 1), R("b", "a", 100), M("c", 0, 0)}, "a", "a", 0, false, "replicaof c df-a; label a", "a",
       "ConfiguringReplication", "master+ replica+ unconfigured"},
      {"the master unreachable for 1 of 3 polls: nothing moves",
       {X("a"), R("b", "a", 90, false), R("c", "a", 100, false)}, "a", "a", 1, false, "", "a",
       "ConfiguringReplication", "unreachable replica replica"},
      {"the master lost (3 polls), MySQL's active site has no replica: the highest offset is promoted",
       {X("a"), R("b", "a", 90, false), R("c", "a", 100, false)}, "a", "a", 3, false,
       "promote c; label c; event DragonflyMasterLost; replicaof b df-c", "c", "ConfiguringReplication",
       "unreachable replica replica"},
      {"the master lost: the most data wins over MySQL's active site (rule 3 moves it there later)",
       {X("a"), R("b", "a", 90, false), R("c", "a", 100, false)}, "a", "b", 3, false,
       "promote c; label c; event DragonflyMasterLost; replicaof b df-c", "c", "ConfiguringReplication",
       "unreachable replica replica"},
      {"MySQL failed over away from the unreachable master's site: promoted at the first poll (the most data)",
       {X("a"), R("b", "a", 90, false), R("c", "a", 100, false)}, "a", "b", 1, false,
       "promote c; label c; event DragonflyMasterLost; replicaof b df-c", "c", "ConfiguringReplication",
       "unreachable replica replica"},
      {"the master lost, equal offsets: MySQL's active site first",
       {X("a"), R("b", "a", 100, false), R("c", "a", 100, false)}, "a", "c", 3, false,
       "promote c; label c; event DragonflyMasterLost; replicaof b df-c", "c", "ConfiguringReplication",
       "unreachable replica replica"},
      {"the master lost and no replica answers: nothing to promote",
       {X("a"), X("b")}, "a", "a", 5, false, "", "a", "ConfiguringReplication", "unreachable unreachable"},
      {"the master restarted empty while a replica holds data: the replica is promoted",
       {M("a", 0, 0), R("b", "a", 100, false)}, "a", "a", 0, false,
       "promote b; label b; event DragonflyMasterLost", "b", "ConfiguringReplication", "master+ replica"},
      {"the next poll: the emptied old master is attached to the new one",
       {M("a", 0, 0), M("b", 100, 0)}, "b", "a", 0, false, "replicaof a df-b; label b", "b", "ConfiguringReplication",
       "unconfigured master+"},
      {"MySQL moved to b, b synced, REPLTAKEOVER supported: takeover, the old master follows",
       {M("a", 100, 1), R("b", "a", 100)}, "a", "b", 0, true,
       "takeover b; label b; ~kill a; ~replicaof a df-b; event DragonflyMasterMoved", "b",
       "ConfiguringReplication", "master+ replica+"},
      {"MySQL moved to b, no REPLTAKEOVER: traffic off the old master, sessions killed, b catches up",
       {M("a", 100, 1), R("b", "a", 100)}, "a", "b", 0, false,
       "strip a; pause a; ~kill a; wait b a; promote b; label b; ~replicaof a df-b; ~unpause a; event DragonflyMasterMoved", "b",
       "ConfiguringReplication", "master+ replica+"},
      {"MySQL moved to b, b streaming but behind, REPLTAKEOVER supported: it waits for b itself",
       {M("a", 100, 1), R("b", "a", 80)}, "a", "b", 0, true,
       "takeover b; label b; ~kill a; ~replicaof a df-b; event DragonflyMasterMoved", "b",
       "ConfiguringReplication", "master+ replica+"},
      {"MySQL moved to b, b's link down (a full sync, a restart): the master stays until b is ready",
       {M("a", 100, 1), R("b", "a", 0, false)}, "a", "b", 0, false, "label a", "a", "ConfiguringReplication",
       "master+ replica"},
      {"MySQL moved to b, b's cache unreachable: the master stays, Degraded",
       {M("a", 100, 0), X("b")}, "a", "b", 0, true, "label a", "a", "Degraded", "master+ unreachable"},
      {"the old master back with writes after a promotion: stale, never rejoined",
       {M("a", 500, 0), R("b", "c", 100), M("c", 100, 1)}, "c", "c", 0, false,
       "strip a; event DragonflyStaleMaster; label c", "c", "Degraded", "stale-master replica+ master+"},
      {"a master holding keys with offset 0 (Valkey without a replica ever) is stale, not attached",
       {M("a", 100, 1), R("b", "a", 100), K("c", 5)}, "a", "a", 0, false,
       "strip c; event DragonflyStaleMaster; label a", "a", "Degraded", "master+ replica+ stale-master"},
      {"a master whose keyspace could not be read is stale, not attached",
       {M("a", 100, 1), R("b", "a", 100), K("c", -1)}, "a", "a", 0, false,
       "strip c; event DragonflyStaleMaster; label a", "a", "Degraded", "master+ replica+ stale-master"},
      {"the master lost: a replica in a full sync is not promoted over one holding the data",
       {X("a"), S("b", "a"), R("c", "a", 100, false)}, "a", "b", 3, false,
       "promote c; label c; event DragonflyMasterLost; replicaof b df-c", "c", "ConfiguringReplication",
       "unreachable replica replica"},
      {"the recorded master answers as a replica of another master (a takeover whose answer was lost)",
       {R("a", "b", 100), M("b", 100, 1)}, "a", "b", 0, false,
       "label b; event DragonflyMasterChosen", "b", "ConfiguringReplication", "replica+ master+"},
      {"a server without a role in INFO is left alone",
       {M("a", 100, 0), U("b")}, "a", "a", 0, false, "label a", "a", "Ready", "master+ unknown"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      steer_input in;
      in.sites = r.sites;
      in.master_site = r.master;
      in.mysql_active = r.active;
      in.master_unreachable_polls = r.unreachable_polls;
      in.takeover_supported = r.takeover;
      auto p = plan_steering(in);
      BOOST_TEST(describe(p) == r.actions);
      BOOST_TEST(p.master_site == r.new_master);
      BOOST_TEST(p.phase == r.phase);
      BOOST_TEST(classes(p) == r.classes);
      in.paused = true;
      auto paused = plan_steering(in);
      BOOST_TEST(paused.actions.empty());
      BOOST_TEST(paused.phase == p.phase);
    }
  }
}

BOOST_AUTO_TEST_CASE(an_old_master_demoted_after_its_sync_is_rejoined_a_stale_one_is_not) {
  steer_input in;
  in.sites = {M("a", 500, 0), M("b", 500, 0)};  // a: the old master, stopped after b caught up
  in.master_site = "b";
  in.mysql_active = "b";
  auto stale = plan_steering(in);
  BOOST_TEST(describe(stale) == "strip a; event DragonflyStaleMaster; label b");
  in.rejoinable = {"a"};
  auto rejoin = plan_steering(in);
  BOOST_TEST(describe(rejoin) == "replicaof a df-b; label b");
  BOOST_TEST(rejoin.phase == "Degraded");  // until it follows
}

BOOST_AUTO_TEST_SUITE_END()
