// Table tests of the group supervisor lifecycle decisions (actors/operator/kube/group_lifecycle.hpp).
#include <boost/test/unit_test.hpp>

#include <vector>

#include "actors/operator/kube/group_lifecycle.hpp"

using namespace br;

namespace {

const char* name(resolved_action a) {
  switch (a) {
    case resolved_action::ignore: return "ignore";
    case resolved_action::forget: return "forget";
    case resolved_action::stop: return "stop";
    case resolved_action::stop_then_apply: return "stop_then_apply";
    case resolved_action::finalize: return "finalize";
    case resolved_action::report_invalid: return "report_invalid";
    case resolved_action::report_problem: return "report_problem";
    case resolved_action::keep_running: return "keep_running";
    case resolved_action::restart: return "restart";
    case resolved_action::start_when_down: return "start_when_down";
    case resolved_action::start: return "start";
  }
  return "?";
}

const char* name(down_action a) {
  switch (a) {
    case down_action::finish_source_stop: return "finish_source_stop";
    case down_action::finalize: return "finalize";
    case down_action::forget: return "forget";
    case down_action::start_pending: return "start_pending";
    case down_action::restart_later: return "restart_later";
    case down_action::none: return "none";
  }
  return "?";
}

tracked_group none() { return {}; }
tracked_group running(bool same = true) { return {true, "u1", true, false, false, same}; }
tracked_group idle() { return {true, "u1", false, false, false, false}; }
tracked_group stopping() { return {true, "u1", false, true, false, false}; }
tracked_group finalizing() { return {true, "u1", false, false, true, false}; }

resolved_group obj(const char* uid = "u1") { return {false, false, uid, true, false}; }
resolved_group deleted() { return {true, false, "u1", true, false}; }
resolved_group terminating() { return {false, true, "u1", true, false}; }
resolved_group invalid() { return {false, false, "u1", false, false}; }
resolved_group no_creds() { return {false, false, "u1", true, true}; }

}  // namespace

BOOST_AUTO_TEST_CASE(resolved_objects_table) {
  struct row {
    const char* name;
    tracked_group g;
    resolved_group d;
    bool source_stopping;
    const char* action;
    bool drop;
  };
  std::vector<row> rows = {
      {"source stopping: nothing", running(), obj(), true, "ignore", false},
      {"deleted, unknown", none(), deleted(), false, "ignore", false},
      {"deleted, running", running(), deleted(), false, "stop", false},
      {"deleted, finalizer under way", finalizing(), deleted(), false, "ignore", false},
      {"deleted, idle", idle(), deleted(), false, "forget", false},
      {"terminating", running(), terminating(), false, "finalize", false},
      {"recreated while the old runs", running(), obj("u2"), false, "stop_then_apply", false},
      {"recreated, old idle: fresh start", idle(), obj("u2"), false, "start", true},
      {"recreated, old stopping: fresh start", stopping(), obj("u2"), false, "start", true},
      {"invalid spec", running(), invalid(), false, "report_invalid", false},
      {"credentials missing", none(), no_creds(), false, "report_problem", false},
      {"new group", none(), obj(), false, "start", false},
      {"unchanged", running(true), obj(), false, "keep_running", false},
      {"changed", running(false), obj(), false, "restart", false},
      {"stop in flight", stopping(), obj(), false, "start_when_down", false},
      {"empty uid never counts as recreated", running(true), obj(""), false, "keep_running",
       false},
  };
  for (const auto& r : rows) {
    auto dec = decide_resolved(r.g, r.d, r.source_stopping);
    BOOST_TEST(std::string(name(dec.action)) == r.action, r.name);
    BOOST_TEST(dec.drop_stale_entry == r.drop, r.name);
  }
}

BOOST_AUTO_TEST_CASE(supervisor_down_table) {
  struct row {
    const char* name;
    supervisor_down d;
    const char* action;
  };
  std::vector<row> rows = {
      {"source stopping wins", {true, true, true, true, false}, "finish_source_stop"},
      {"finalizing", {false, true, true, false, true}, "finalize"},
      {"deleted", {false, false, true, true, true}, "forget"},
      {"restart with the pending spec", {false, false, false, true, true}, "start_pending"},
      {"crashed on its own", {false, false, false, false, false}, "restart_later"},
      {"stopped as asked", {false, false, false, false, true}, "none"},
  };
  for (const auto& r : rows)
    BOOST_TEST(std::string(name(decide_down(r.d))) == r.action, r.name);
}

// Setting (or bumping) spec.restoreInPlace does not restart the group's supervisor: its
// coordinator is the one asked to freeze the group; any other change does.
BOOST_AUTO_TEST_CASE(spec_restore_in_place_does_not_restart_the_group) {
  config::group_spec running;
  running.sites.resize(2);
  running.sites[0].name = "a";
  running.sites[1].name = "b";
  auto wanted = running;
  wanted.restore_in_place = config::restore_in_place_spec{};
  wanted.restore_in_place->confirm = "2026-11-26T15:00:00Z";
  BOOST_TEST(same_running_spec(running, wanted));
  auto bumped = wanted;
  bumped.restore_in_place->confirm = "2026-11-26T16:00:00Z";
  BOOST_TEST(same_running_spec(wanted, bumped));
  bumped.sites[1].name = "c";
  BOOST_TEST(!same_running_spec(wanted, bumped));
}
