// Group Replication quorum loss and guarded recovery in Kubernetes mode (issue 23, acceptance 1)
// on the API simulator with a SIMULATED kubelet (pods are created, nothing runs in them) and
// three real MySQL 9.7 members (sandbox instances 221-223 only). The operator runs under the
// chart's RBAC; requests go through tools/kubectl-bloodraven and real kubectl. In order:
//  1. the operator bootstraps the group (3 ONLINE);
//  2. kill -9 of both SECONDARIES: status.groupReplication.phase Blocked, Ready=False QuorumLost,
//     one QuorumLost Event; for 15 s nothing is done: the survivor's own state, view, member
//     table, group_replication_force_members and bootstrap_group stay as they were;
//  3. `group recover --yes`: force_members on the survivor, writes go through on it again,
//     observedViewMax starts again from 1; the killed members restarted rejoin ONLINE and hold
//     every row;
//  4. total outage: one secondary killed (a row is written without it), then the other two; all
//     restarted except the one behind: Blocked, `group recover` refused by the plugin (the
//     operator's published plan) and the annotation written by hand refused by the operator
//     (QuorumRecoveryRefused); the last one restarted: the plan is a re-bootstrap from a member
//     whose transactions include everyone's, `group recover` runs it, the others rejoin, no row
//     is lost.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <thread>

#include "actors/operator/kube/core/status_writer.hpp"
#include "actors/operator/kube/group_source.hpp"
#include "io/kube/retry.hpp"
#include "io/log/log.hpp"
#include "io/mysql/connection.hpp"
#include "tests/integration/kube_gr_fixture.hpp"
#include "tests/integration/kube_gr_routes.hpp"
#include "tests/integration/kubelet_sim.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/kube_sim/harness/cluster.hpp"
#include "tests/support/kube_sim/test_support.hpp"
#include "tests/support/mysql_sandbox.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

// Reserved for this test; BR_GR_QUORUM_FIRST_INSTANCE=N runs it on N..N+2 instead.
std::vector<int> quorum_instances() {
  const char* v = std::getenv("BR_GR_QUORUM_FIRST_INSTANCE");
  const int first = v && *v ? std::atoi(v) : 221;
  return {first, first + 1, first + 2};
}
const std::string recover_annotation = "bloodraven.shipstream.io/force-quorum-recovery";

const test::mysql_sandbox& sandbox() { return test::gr_sandbox(); }

struct quorum_fixture : test::kube_gr_fixture {
  quorum_fixture() : kube_gr_fixture(quorum_instances(), "grq") {}

  /// tools/kubectl-bloodraven through real kubectl: exit code and output.
  std::pair<int, std::string> plugin(std::vector<std::string> a) {
    a.insert(a.begin(), {"--kubeconfig", kubeconfig, "--cache-dir", (dir.path / "cache").string(),
                         "--request-timeout", "20s", "-n", ns});
    br::test::child_process p(br::kube_sim::test::source_path("tools/kubectl-bloodraven"), a,
                              {{"HOME", dir.path.string()}, {"KUBECONFIG", kubeconfig}});
    auto code = p.wait_exit(60s);
    BOOST_REQUIRE_MESSAGE(code.has_value(), "plugin did not finish: " + p.output());
    return {*code, p.output()};
  }

  void annotate(const std::string& key, const std::string& value) {
    auto r = kube::update_with_retry(*c, mfg_resource, ns, group, [&](json& obj) {
      obj["metadata"]["annotations"][key] = value;
      return true;
    });
    BOOST_TEST_REQUIRE(r.ok(), "annotate: " << (r.ok() ? "" : r.error().describe()));
  }

  bool annotation_gone(const std::string& key) {
    auto md = object().value("metadata", json::object());
    return !md.value("annotations", json::object()).contains(key);
  }

  /// The member's own Group Replication variables and state (root, through the socket).
  std::string gr_self(const std::string& site) {
    return sandbox().sql(
        instance_of(site),
        "SELECT @@group_replication_force_members, @@group_replication_bootstrap_group,"
        " (SELECT MEMBER_STATE FROM performance_schema.replication_group_members"
        "   WHERE MEMBER_ID = @@server_uuid),"
        " (SELECT GROUP_CONCAT(MEMBER_STATE ORDER BY MEMBER_ID)"
        "   FROM performance_schema.replication_group_members),"
        " (SELECT VIEW_ID FROM performance_schema.replication_group_member_stats"
        "   WHERE MEMBER_ID = @@server_uuid)");
  }

};

double secs(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_gr_quorum, quorum_fixture)

BOOST_AUTO_TEST_CASE(quorum_loss_blocks_and_only_a_request_recovers) {
  members_up();
  start_group();

  // -- 1. bootstrapped: 3 ONLINE -------------------------------------------------------------
  const std::set<std::string> all(sites.begin(), sites.end());
  BOOST_TEST_REQUIRE(test::eventually([&] {
    return online(all) && !gr().value("primaryMember", "").empty() &&
           status().value("activeSite", "") == gr().value("primaryMember", "");
  }, 180s, 250ms), "no 3-member group: " << status().dump());
  BOOST_TEST(phase() == "Running");
  const std::string primary = gr().value("primaryMember", "");
  std::vector<std::string> secondaries;
  for (const auto& s : sites)
    if (s != primary) secondaries.push_back(s);
  sandbox().must({"sql", std::to_string(instance_of(primary)),
                  "CREATE DATABASE q; CREATE TABLE q.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)"});
  BOOST_TEST_REQUIRE(writes(primary, 1));

  // -- 2. kill -9 of both secondaries: Blocked, one Event, nothing done ---------------------
  const auto lost_events = events("QuorumLost");
  const auto t_kill = std::chrono::steady_clock::now();
  for (const auto& s : secondaries) sandbox().kill9(instance_of(s));
  BOOST_TEST_MESSAGE("both killed " << secs(t_kill) << " s");
  BOOST_TEST_REQUIRE(test::eventually([&] { return phase() == "Blocked"; }, 60s, 250ms),
                     "never Blocked: " << status().dump());
  BOOST_TEST_MESSAGE("Blocked " << secs(t_kill) << " s after the kill");
  BOOST_TEST(condition("Ready") == "False/QuorumLost", status().dump());
  BOOST_TEST(test::eventually([&] { return events("QuorumLost") == lost_events + 1; }, 20s, 250ms));
  // Until the survivor's own failure detection marks both UNREACHABLE its table still shows a
  // majority, and the plan is refused (forcing would split a group that may still have quorum).
  BOOST_TEST_REQUIRE(test::eventually([&] {
    return gr().value("recoveryPlan", json::object()).value("kind", "") == "forceMembers";
  }, 60s, 250ms), status().dump());
  BOOST_TEST_MESSAGE("plan forceMembers " << secs(t_kill) << " s after the kill");
  auto plan = gr().value("recoveryPlan", json::object());
  BOOST_TEST(plan.value("kind", "") == "forceMembers", plan.dump());
  BOOST_TEST(plan.value("survivor", "") == primary, plan.dump());
  // The survivor as the group left it: no force_members, bootstrap_group OFF, itself ONLINE in
  // a view of 3 with 2 UNREACHABLE, the same view id, sampled for 15 s.
  const std::string before = gr_self(primary);
  BOOST_TEST(before.rfind("\t0\tONLINE\t", 0) == 0u, before);
  BOOST_TEST(std::count(before.begin(), before.end(), ',') == 2, before);
  for (int i = 0; i < 15; ++i) {
    std::this_thread::sleep_for(1s);
    BOOST_TEST_REQUIRE(gr_self(primary) == before);
    BOOST_TEST_REQUIRE(phase() == "Blocked");
  }
  BOOST_TEST(events("QuorumLost") == lost_events + 1);  // once per episode, not per poll
  BOOST_TEST(events("QuorumRecoveryStarted") == 0u);

  // A request confirming another plan than the one published is refused; nothing is forced.
  {
    const auto refused = events("QuorumRecoveryRefused");
    annotate(recover_annotation, "req-0@0000000000000000");
    BOOST_TEST(test::eventually([&] { return events("QuorumRecoveryRefused") == refused + 1; }, 30s, 250ms),
               status().dump());
    BOOST_TEST(gr().value("lastRecovery", json::object()).value("message", "").find("the plan changed") !=
                   std::string::npos,
               status().dump());
    BOOST_TEST(gr_self(primary) == before);
    BOOST_TEST(phase() == "Blocked");
  }

  // -- 3. group recover: force_members on the survivor; writes again; the others rejoin ------
  auto [rc, out] = plugin({"group", "recover", group, "--yes", "--id", "req-1"});
  BOOST_TEST_REQUIRE(rc == 0, out);
  BOOST_TEST(out.find("group_replication_force_members") != std::string::npos, out);
  BOOST_TEST(out.find("Split-brain risk") != std::string::npos, out);
  BOOST_TEST(out.find("plan digest: " + plan.value("digest", "?")) != std::string::npos, out);
  BOOST_TEST_MESSAGE("group recover printed:\n" << out);
  const auto t_req = std::chrono::steady_clock::now();
  BOOST_TEST_REQUIRE(test::eventually([&] { return writes(primary, 2); }, 60s, 500ms),
                     "no write on the survivor: " << status().dump());
  BOOST_TEST_MESSAGE("first write on the survivor " << secs(t_req) << " s after the request");
  BOOST_TEST(test::eventually([&] { return events("QuorumRecovered") == 1u; }, 30s, 250ms),
             status().dump());
  BOOST_TEST(annotation_gone(recover_annotation));  // consumed
  BOOST_TEST(gr_self(primary).rfind("\t0\tONLINE\tONLINE\t", 0) == 0u, gr_self(primary));  // reset to ''
  BOOST_TEST_REQUIRE(test::eventually([&] { return phase() == "Running"; }, 30s, 250ms),
                     status().dump());
  BOOST_TEST(gr().value("observedViewMax", 0) == 1);
  const auto t_back = std::chrono::steady_clock::now();
  for (const auto& s : secondaries) sandbox().start(instance_of(s));
  BOOST_TEST_REQUIRE(test::eventually([&] { return online(all); }, 180s, 500ms),
                     "the killed members did not rejoin: " << status().dump());
  BOOST_TEST_MESSAGE("both back ONLINE " << secs(t_back) << " s after their servers started");
  BOOST_TEST(gr().value("observedViewMax", 0) == 3);
  BOOST_TEST_REQUIRE(writes(primary, 3));
  for (const auto& s : sites)
    BOOST_TEST(test::eventually([&] { return rows(s) == "3\t6"; }, 30s, 250ms), s << ": " << rows(s));

  // -- 4. total outage -----------------------------------------------------------------------
  // The primary may have moved; the member killed first misses a row the others hold.
  const std::string p2 = gr().value("primaryMember", "");
  std::string behind, other;
  for (const auto& s : sites)
    if (s != p2) (behind.empty() ? behind : other) = s;
  sandbox().kill9(instance_of(behind));
  BOOST_TEST_REQUIRE(test::eventually([&] { return writes(p2, 4); }, 60s, 500ms));
  BOOST_TEST_REQUIRE(test::eventually([&] { return rows(other) == "4\t10"; }, 30s, 250ms));
  sandbox().kill9(instance_of(p2));
  sandbox().kill9(instance_of(other));
  sandbox().start(instance_of(p2));
  sandbox().start(instance_of(other));
  // Blocked, the plan refused because the member left down cannot be read (the others answer).
  BOOST_TEST_REQUIRE(test::eventually([&] {
    auto p = gr().value("recoveryPlan", json::object());
    return phase() == "Blocked" && p.value("kind", "") == "blocked" &&
           p.value("reason", "").find("ONLINE and " + behind + " cannot be read") != std::string::npos;
  }, 90s, 500ms), "not Blocked with a refused plan: " << status().dump());
  // The plugin refuses from the published plan; the operator refuses the annotation itself.
  auto [rc_r, out_r] = plugin({"group", "recover", group, "--yes"});
  BOOST_TEST(rc_r != 0, out_r);
  BOOST_TEST(out_r.find("would refuse") != std::string::npos, out_r);
  const auto refused = events("QuorumRecoveryRefused");
  annotate(recover_annotation, "req-2@0000000000000000");
  BOOST_TEST(test::eventually([&] { return events("QuorumRecoveryRefused") == refused + 1; }, 30s, 250ms),
             status().dump());
  BOOST_TEST(gr().value("lastRecovery", json::object()).value("result", "") == "QuorumRecoveryRefused");
  for (const auto& s : {p2, other})
    BOOST_TEST(gr_self(s).find("OFFLINE") != std::string::npos, s << ": " << gr_self(s));
  // Every member reachable again: a re-bootstrap from one whose transactions include everyone's.
  sandbox().start(instance_of(behind));
  BOOST_TEST_REQUIRE(test::eventually([&] {
    return gr().value("recoveryPlan", json::object()).value("kind", "") == "rebootstrap";
  }, 60s, 500ms), status().dump());
  const std::string seed = gr()["recoveryPlan"].value("survivor", "");
  BOOST_TEST(seed != behind);
  auto [rc_b, out_b] = plugin({"group", "recover", group, "--yes", "--id", "req-3"});
  BOOST_TEST_REQUIRE(rc_b == 0, out_b);
  BOOST_TEST(out_b.find("bootstrap the group again on " + seed) != std::string::npos, out_b);
  const auto t_boot = std::chrono::steady_clock::now();
  BOOST_TEST_REQUIRE(test::eventually([&] { return online(all); }, 180s, 500ms),
                     "no group after the re-bootstrap: " << status().dump());
  BOOST_TEST_MESSAGE("re-bootstrap: 3 ONLINE " << secs(t_boot) << " s after the request");
  BOOST_TEST(events("QuorumRecovered") == 2u);
  BOOST_TEST(phase() == "Running");
  const std::string p3 = gr().value("primaryMember", "");
  BOOST_TEST_REQUIRE(test::eventually([&] { return writes(p3, 5); }, 30s, 500ms));
  for (const auto& s : sites)
    BOOST_TEST(test::eventually([&] { return rows(s) == "5\t15"; }, 30s, 250ms), s << ": " << rows(s));
}

BOOST_AUTO_TEST_SUITE_END()
