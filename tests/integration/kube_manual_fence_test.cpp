// Manual fence in Kubernetes mode (issue 20, acceptance 6). The API simulator with a SIMULATED
// kubelet (tests/integration/kubelet_sim.hpp: no pod runs; labels are what the router writes),
// three real MySQL 9.7 sites (sandbox instances 95 primary `a`, 96-97 its replicas `b`, `c`), the
// operator in this process under the chart's RBAC, and tools/kubectl-bloodraven through real
// kubectl. Fencing the replica takes it out of the -replicas Service (its pod no longer matches
// the Service's selector), keeps it super_read_only, shows it in status and Events; fencing the
// active primary is refused in one line by the plugin and, written by hand, by the operator
// (FenceRejected, nothing changes); unfencing brings the replica back. Then the planned-failover
// annotation (issue 20): a bad one is refused with InvalidAnnotation and changes nothing; a good
// one stays on the object while the request runs and is removed when it has ended. A request
// inside the anti-flap cooldown (onCooldown: defer) waits as Deferred until `promote --cancel`
// removes its annotation: Failed/Cancelled, nothing else changes.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <algorithm>
#include <set>

#include "actors/operator/decide/planned_failover.hpp"
#include "actors/operator/kube/core/status_writer.hpp"
#include "io/kube/retry.hpp"
#include "io/log/log.hpp"
#include "io/mysql/mysql8_dialect.hpp"
#include "io/mysql/probe.hpp"
#include "tests/integration/kube_operator_fixture.hpp"
#include "tests/integration/kubelet_sim.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/kube_sim/harness/cluster.hpp"
#include "tests/support/kube_sim/test_support.hpp"
#include "tests/support/mysql_sandbox.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;
using br::test::eventually;

namespace {

constexpr int inst_a = 95, inst_b = 96, inst_c = 97;  // this test's sandbox instances
const std::string group = "mf";
const std::string ns = "default";
const std::string annotation = "bloodraven.shipstream.io/fenced-sites";

const test::mysql_sandbox& sandbox() {
  static const test::mysql_sandbox sb;
  return sb;
}

json site(const std::string& name) {
  return {{"name", name},
          {"role", "primary-candidate"},
          {"zone", "zone-" + name},
          {"lbIP", std::string("192.0.2.") + (name == "a" ? "95" : name == "b" ? "96" : "97")},
          {"taintNodeSelector", {{"shipstream.io/site." + group, name}}},
          {"storage", {{"size", "1Gi"}}}};
}

json group_object() {
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlFailoverGroup"},
          {"metadata", {{"name", group}, {"namespace", ns}}},
          {"spec",
           {{"credentials", {{"operatorSecret", group + "-operator"}}},
            {"dns", {{"hostname", group + ".example.com"}, {"ttl", 30}}},
            {"pollInterval", "250ms"},
            {"failureThreshold", 2},
            {"recoveryThreshold", 1},
            {"promotionPolicy", "Fast"},
            {"plannedFailover", {{"onCooldown", "defer"}}},
            {"replication", {{"user", "repl"}, {"password", "replpw"}, {"tls", true}}},
            {"sites", json::array({site("a"), site("b"), site("c")})}}}};
}

struct fence_fixture : test::kube_operator_fixture {
  fence_fixture() : kube_operator_fixture(ns, {inst_a, inst_b, inst_c}) {}

  void must(const std::string& error) { BOOST_TEST_REQUIRE(error.empty(), error); }

  void start_operator() {
    auto o = br::kube_sim::test::fast_group_source(cluster.client(br::kube_sim::test::operator_identity), op.io);
    o.operator_namespace = "bloodraven-system";
    o.site_address = [](const std::string&, const std::string&, const std::string& s) {
      return config::address_spec{"127.0.0.1",
                                  sandbox().port(s == "a" ? inst_a : s == "b" ? inst_b : inst_c)};
    };
    o.sidecar_address = [](const std::string&, const std::string&, const std::string&) {
      return std::string{};
    };
    op.start(sys, o);
  }

  json mfg() {
    auto got = c->get(mfg_resource, ns, group);
    return got ? *got : json(nullptr);
  }
  json status() {
    auto g = mfg();
    return g.is_object() ? g.value("status", json::object()) : json::object();
  }
  json site_status(const std::string& s) {
    for (const auto& x : status().value("sites", json::array()))
      if (x.value("name", "") == s) return x;
    return json::object();
  }
  std::string condition_reason(const std::string& type) {
    for (const auto& cnd : status().value("conditions", json::array()))
      if (cnd.value("type", "") == type) return cnd.value("reason", "");
    return "";
  }

  /// The sites whose pods the -replicas Service's selector picks (its endpoints).
  std::set<std::string> replicas_endpoints() {
    std::set<std::string> out;
    auto svc = c->get(kube::resources::services, ns, "mysql-" + group + "-replicas");
    if (!svc) return out;
    std::string selector;
    for (const auto& [k, v] : (*svc)["spec"]["selector"].items())
      selector += (selector.empty() ? "" : ",") + k + "=" + v.get<std::string>();
    kube::list_options lo;
    lo.label_selector = selector;
    auto pods = c->list(kube::resources::pods, ns, lo);
    if (!pods) return out;
    for (const auto& p : (*pods)["items"])
      out.insert(p["metadata"]["labels"].value("shipstream.io/site", "?"));
    return out;
  }

  /// The messages of the group's Events with this reason.
  std::vector<std::string> event_messages(const std::string& reason) {
    std::vector<std::string> out;
    auto r = c->list(kube::resources::events, ns);
    if (r)
      for (const auto& e : (*r)["items"])
        if (e["involvedObject"].value("name", "") == group && e.value("reason", "") == reason)
          out.push_back(e.value("message", ""));
    return out;
  }

  size_t events(const std::string& reason) {
    auto r = c->list(kube::resources::events, ns);
    size_t n = 0;
    if (r)
      for (const auto& e : (*r)["items"])
        if (e["involvedObject"].value("name", "") == group && e.value("reason", "") == reason) ++n;
    return n;
  }

  std::optional<mysql::probe_result> probe(int i) {
    auto conn = mysql::connection::open(sandbox().options(i, "bloodraven"));
    if (!conn.ok()) return std::nullopt;
    auto p = mysql::probe(*conn, mysql::mysql8());
    if (!p.ok()) return std::nullopt;
    return *p;
  }

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

  void annotate(const std::string& value, const std::string& key = annotation) {
    auto r = kube::update_with_retry(*c, mfg_resource, ns, group, [&](json& obj) {
      obj["metadata"]["annotations"][key] = value;
      return true;
    });
    BOOST_TEST_REQUIRE(r.ok(), "annotate: " << (r.ok() ? "" : r.error().describe()));
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_manual_fence, fence_fixture)

BOOST_AUTO_TEST_CASE(a_fenced_replica_leaves_the_replicas_service_and_the_primary_is_refused_then_planned_failover_annotations) {
  for (int i : {inst_a, inst_b, inst_c}) sandbox().reset(i);
  sandbox().replicate(inst_b, inst_a);
  sandbox().replicate(inst_c, inst_a);
  must(cluster.install_crds());
  must(cluster.create_operator_secret(ns, group + "-operator", "bloodraven", "bloodravenpw"));
  kubelet->start();
  start_operator();
  must(cluster.create(mfg_resource, ns, group_object()));

  // The group settles: a active, b behind -replicas.
  BOOST_TEST_REQUIRE(eventually([&] {
    return status().value("activeSite", "") == "a" &&
           replicas_endpoints() == std::set<std::string>{"b", "c"};
  }, 120s), "never settled: " << status().dump() << " replicas " << replicas_endpoints().size());

  // -- the plugin refuses the active primary in one line, and writes nothing ------------------
  auto [rc_a, out_a] = plugin({"fence", "on", "a"});
  BOOST_TEST(rc_a != 0);
  BOOST_TEST(out_a.find("site a is the active primary of mf") != std::string::npos, out_a);
  BOOST_TEST(std::count(out_a.begin(), out_a.end(), '\n') <= 1, out_a);
  BOOST_TEST(!mfg()["metadata"].value("annotations", json::object()).contains(annotation));

  // -- fence the replica through the plugin: it leaves -replicas, stays read-only -------------
  auto [rc_b, out_b] = plugin({"fence", "on", "b"});
  BOOST_TEST_REQUIRE(rc_b == 0, out_b);
  BOOST_TEST(mfg()["metadata"]["annotations"].value(annotation, "") == "b");
  BOOST_TEST_REQUIRE(eventually([&] {
    return site_status("b").value("manuallyFenced", false) &&
           replicas_endpoints() == std::set<std::string>{"c"};
  }, 60s), "b never left -replicas: " << status().dump());
  BOOST_TEST(events("SiteFenced") >= 1u);
  BOOST_TEST(condition_reason("SitesFenced") == "ManuallyFenced");
  BOOST_TEST(status().value("activeSite", "") == "a");
  auto pb = probe(inst_b);
  BOOST_REQUIRE(pb.has_value());
  BOOST_TEST(pb->super_read_only);
  auto [rc_s, out_s] = plugin({"status", group});
  BOOST_TEST(out_s.find("b (fenced)") != std::string::npos, out_s);
  // c is now the only failover candidate left: the plugin refuses to fence it.
  auto [rc_c, out_c] = plugin({"fence", "on", "c"});
  BOOST_TEST(rc_c != 0);
  BOOST_TEST(out_c.find("would leave no failover candidate") != std::string::npos, out_c);
  BOOST_TEST(mfg()["metadata"]["annotations"].value(annotation, "") == "b");

  // -- written by hand, the primary in the annotation is refused by the operator ---------------
  annotate("a,b");
  BOOST_TEST_REQUIRE(eventually([&] { return events("FenceRejected") >= 1u; }, 30s),
                     "no FenceRejected: " << status().dump());
  // The Event is sent at once, the status write is coalesced: wait for it (CI 2026-11-26 read the
  // condition a moment before it was written).
  BOOST_TEST(eventually([&] { return condition_reason("SitesFenced") == "FenceRejected"; }, 10s),
             status().dump());
  BOOST_TEST(!site_status("a").value("manuallyFenced", false));
  BOOST_TEST(site_status("b").value("manuallyFenced", false));  // unchanged: still b only
  BOOST_TEST(status().value("activeSite", "") == "a");
  auto pa = probe(inst_a);
  BOOST_REQUIRE(pa.has_value());
  BOOST_TEST(!pa->read_only);  // the primary still takes writes

  // -- unfence through the plugin: b is back behind -replicas ----------------------------------
  annotate("b");
  auto [rc_off, out_off] = plugin({"fence", "off", "b"});
  BOOST_TEST_REQUIRE(rc_off == 0, out_off);
  BOOST_TEST(!mfg()["metadata"].value("annotations", json::object()).contains(annotation));
  BOOST_TEST_REQUIRE(eventually([&] {
    return !site_status("b").value("manuallyFenced", false) &&
           replicas_endpoints() == std::set<std::string>{"b", "c"};
  }, 60s), "b never came back: " << status().dump());
  BOOST_TEST(events("SiteUnfenced") >= 1u);

  // -- issue 20 acceptance 4: a bad planned-failover annotation gets InvalidAnnotation with the
  // reason (Event, status), is removed, and changes nothing else --------------------------------
  const std::string planned = planned_failover_annotation;
  const auto epoch = status().value("epoch", 0);
  annotate("c:maxLagWait=soon", planned);
  BOOST_TEST_REQUIRE(eventually([&] { return events("PlannedFailoverRejected") >= 1u; }, 30s),
                     "no PlannedFailoverRejected: " << status().dump());
  auto rejected = event_messages("PlannedFailoverRejected");
  BOOST_TEST(rejected.front().find("InvalidAnnotation: ") == 0u, rejected.front());
  BOOST_TEST(rejected.front().find("c:maxLagWait=soon") != std::string::npos, rejected.front());
  BOOST_TEST(rejected.front().find("maxLagWait: ") != std::string::npos, rejected.front());
  json pf;
  eventually([&] {  // the status write follows the Event
    pf = status().value("plannedFailover", json::object());
    return pf.value("reason", "") == "InvalidAnnotation";
  }, 10s);
  BOOST_TEST(pf.value("phase", "") == "Failed", pf.dump());
  BOOST_TEST(pf.value("reason", "") == "InvalidAnnotation", pf.dump());
  BOOST_TEST(pf.value("message", "").find("maxLagWait: ") != std::string::npos, pf.dump());
  BOOST_TEST(eventually([&] {
    return !mfg()["metadata"].value("annotations", json::object()).contains(planned);
  }, 30s), "the bad annotation was never removed");
  // nothing else: no plan (same epoch, same primary), no fence, no steering
  BOOST_TEST(events("PlannedFailoverStarted") == 0u);
  BOOST_TEST(status().value("activeSite", "") == "a");
  BOOST_TEST(status().value("epoch", 0) == epoch);
  BOOST_TEST(replicas_endpoints() == (std::set<std::string>{"b", "c"}));
  for (const auto& s : {"a", "b", "c"}) BOOST_TEST(!site_status(s).value("manuallyFenced", false), s);
  auto pa2 = probe(inst_a), pc2 = probe(inst_c);
  BOOST_REQUIRE(pa2.has_value() && pc2.has_value());
  BOOST_TEST(!pa2->read_only);
  BOOST_TEST(pc2->super_read_only);

  // -- a planned failover to c: its annotation stays while the request runs and is removed when
  // it ends (Succeeded), never before ----------------------------------------------------------
  annotate("c", planned);
  bool seen_while_running = false, gone_while_running = false;
  std::string last;
  BOOST_TEST_REQUIRE(eventually([&] {
    auto g = mfg();  // one read: the annotation and the status together
    if (!g.is_object()) return false;
    const bool present = g["metadata"].value("annotations", json::object()).contains(planned);
    const auto p = g.value("status", json::object()).value("plannedFailover", json::object());
    const auto phase = p.value("phase", "");
    const bool running = p.value("target", "") == "c" && !phase.empty() && phase != "Succeeded" &&
                         phase != "Failed";
    seen_while_running |= running && present;
    gone_while_running |= running && !present;
    last = p.dump();
    return p.value("target", "") == "c" && phase == "Succeeded" && !present;
  }, 120s, 20ms), "the planned failover never ended with its annotation removed: " << last);
  BOOST_TEST(seen_while_running, "the annotation was never seen while the request ran");
  BOOST_TEST(!gone_while_running, "the annotation was removed while the request still ran");
  BOOST_TEST(status().value("activeSite", "") == "c");
  BOOST_TEST(events("PlannedFailoverCompleted") >= 1u);
  BOOST_TEST(condition_reason("PlannedFailover") == "Succeeded");

  // -- inside the cooldown that failover started, onCooldown: defer: a request waits as
  // Deferred (annotation kept, retryAfter set), and `promote --cancel` ends it as Cancelled ----
  const auto epoch_c = status().value("epoch", 0);
  auto [rc_p, out_p] = plugin({"promote", "a"});
  BOOST_TEST_REQUIRE(rc_p == 0, out_p);
  BOOST_TEST_REQUIRE(eventually([&] {
    auto p = status().value("plannedFailover", json::object());
    return p.value("target", "") == "a" && p.value("phase", "") == "Deferred";
  }, 30s), "never Deferred: " << status().dump());
  auto deferred = status().value("plannedFailover", json::object());
  BOOST_TEST(deferred.value("reason", "") == "CooldownActive", deferred.dump());
  BOOST_TEST(!deferred.value("retryAfter", "").empty(), deferred.dump());
  BOOST_TEST(condition_reason("PlannedFailover") == "Deferred");
  BOOST_TEST(events("PlannedFailoverDeferred") >= 1u);
  BOOST_TEST(mfg()["metadata"].value("annotations", json::object()).contains(planned));
  auto [rc_x, out_x] = plugin({"promote", "--cancel"});
  BOOST_TEST_REQUIRE(rc_x == 0, out_x);
  BOOST_TEST_REQUIRE(eventually([&] {
    auto p = status().value("plannedFailover", json::object());
    return p.value("phase", "") == "Failed" && p.value("reason", "") == "Cancelled";
  }, 30s), "never Cancelled: " << status().dump());
  BOOST_TEST(condition_reason("PlannedFailover") == "Cancelled");
  BOOST_TEST(status().value("activeSite", "") == "c");
  BOOST_TEST(status().value("epoch", 0) == epoch_c);
  BOOST_TEST(events("PlannedFailoverStarted") == 1u);  // only the one to c
  // Nothing to cancel any more: the plugin says so in one line.
  auto [rc_n, out_n] = plugin({"promote", "--cancel"});
  BOOST_TEST(rc_n != 0);
  BOOST_TEST(out_n.find("nothing to cancel") != std::string::npos, out_n);
}

BOOST_AUTO_TEST_SUITE_END()
