// The Group Replication doorbell in Kubernetes mode on the API simulator (issue 22, acceptance 5):
// each member's ServiceAccount is bound by the operator-rendered Role/RoleBinding
// (config/render/member_rbac) and the simulator enforces exactly that policy on the sidecar's
// identity. Sidecar a can set the gr-observed annotation on its own Pod and is Forbidden on pod
// b, on any other verb and resource; a Role rendered before a's pod is known grants nothing; the
// running gr_watcher rings it on each change of the member's view.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <chrono>
#include <thread>

#include "actors/sidecar/runtime/gr_watcher.hpp"
#include "actors/sidecar/runtime/pod_doorbell.hpp"
#include "config/render/member_rbac.hpp"
#include "messages/type_ids.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/kube_sim/rbac.hpp"
#include "tests/support/kube_sim/simulator.hpp"
#include "tests/support/kube_sim/test_support.hpp"

using namespace std::chrono_literals;
using nlohmann::json;
namespace res = br::kube::resources;

namespace {

const std::string ns = "shop";
const std::string pod_a = "mysql-orders-a-7d9f8c6b5-x2k4q";
const std::string pod_b = "mysql-orders-b-6c8d7b5a4-p9r3s";

br::config::failover_group group() {
  br::config::failover_group g;
  g.metadata.name = "orders";
  g.metadata.namespace_name = ns;
  g.metadata.uid = "0f1e2d3c-uid";
  return g;
}

json pod(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", {{"containers", json::array({{{"name", "mysql"}, {"image", "mysql:9.7"}}})}}}};
}

template <class R>
std::string why(const R& r) {
  return r ? std::string{} : r.error().describe();
}

struct sim_fixture {
  br::kube_sim::simulator sim;
  std::shared_ptr<br::kube::client> admin;  // the tests' own, unrestricted identity
  std::shared_ptr<br::kube::client> sidecar_a;

  /// `pods_of_a`: the pod names the operator knew when it rendered a's Role.
  explicit sim_fixture(std::vector<std::string> pods_of_a = {pod_a}) {
    sim.start();
    br::kube::client_options co;
    co.identity = "test";
    co.timeout = 3s;
    admin = std::make_shared<br::kube::client>(br::kube_sim::test::sim_config(sim), co);
    co.identity = "sidecar-a";
    sidecar_a = std::make_shared<br::kube::client>(br::kube_sim::test::sim_config(sim), co);
    auto made = admin->create(res::namespaces, "",
                              {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
    BOOST_TEST_REQUIRE(made.ok(), why(made));
    for (const auto& p : {pod_a, pod_b}) {
      auto r = admin->create(res::pods, ns, pod(p));
      BOOST_TEST_REQUIRE(r.ok(), why(r));
    }
    auto objs = br::render::render_member_rbac(group(), "a", pods_of_a, 9);
    auto b = br::render::render_member_rbac(group(), "b", {pod_b}, 9);
    objs.insert(objs.end(), b.begin(), b.end());
    auto sa = br::render::member_identity_name("orders", "a");
    sim.set_rbac(br::kube_sim::rbac_enforcement{
        {"sidecar-a"}, br::kube_sim::service_account_user(ns, sa),
        br::kube_sim::policy_for_service_account(objs, ns, sa)});
  }
  ~sim_fixture() { sim.stop(); }

  std::string annotation(const std::string& p) {
    auto got = admin->get(res::pods, ns, p);
    if (!got) return "<" + got.error().describe() + ">";
    return got->value("/metadata/annotations"_json_pointer, json::object())
        .value(br::render::gr_observed_annotation, "");
  }
};


/// Site a's local MySQL worker, answering every probe with `read()`.
template <class Read>
br::local_mysql_actor spawn_member(caf::actor_system& sys, Read read) {
  return sys.spawn([read](br::local_mysql_actor::pointer) -> br::local_mysql_actor::behavior_type {
    return {[read](br::probe_atom) { return read(); },
            [](br::self_fence_atom, const std::string&) { return br::mysql_outcome{}; },
            [](br::unfence_atom) { return br::mysql_outcome{}; },
            [](br::heartbeat_atom, int64_t) { return br::mysql_outcome{}; }};
  });
}

/// Site a's watcher ringing its own pod through the sidecar's client (no operator address).
br::sidecar::gr_watcher_options watcher_options(const sim_fixture& f) {
  br::sidecar::gr_watcher_options o;
  o.site = "a";
  o.pod_namespace = ns;
  o.group = "orders";
  o.interval = 50ms;
  o.pod.client = f.sidecar_a;
  o.pod.pod_namespace = ns;
  o.pod.pod_name = pod_a;
  return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kube_gr_doorbell)

BOOST_AUTO_TEST_CASE(the_rendered_role_lets_a_sidecar_patch_its_own_pod_and_nothing_else) {
  sim_fixture f;
  auto own = br::sidecar::ring_pod_doorbell(*f.sidecar_a, ns, pod_a, "1700:3/00ab", 3s);
  BOOST_TEST(own.ok(), why(own));
  BOOST_TEST(f.annotation(pod_a) == "1700:3/00ab");
  // Another member's pod: 403 from the API server's authoriser, and nothing changed.
  auto other = br::sidecar::ring_pod_doorbell(*f.sidecar_a, ns, pod_b, "forged", 3s);
  BOOST_TEST_REQUIRE(!other.ok());
  BOOST_TEST(other.error().status == 403, other.error().describe());
  BOOST_TEST(f.annotation(pod_b) == "");
  // Nothing but get and patch of its own pod.
  BOOST_TEST(f.sidecar_a->get(res::pods, ns, pod_a).ok());
  BOOST_TEST(f.sidecar_a->get(res::pods, ns, pod_b).error().status == 403);
  BOOST_TEST(f.sidecar_a->list(res::pods, ns).error().status == 403);
  BOOST_TEST(f.sidecar_a->remove(res::pods, ns, pod_a).error().status == 403);
  BOOST_TEST(f.sidecar_a->get(res::secrets, ns, "mysql-orders-keys").error().status == 403);
  BOOST_TEST(f.sidecar_a->create(res::pods, ns, pod("mysql-orders-a-extra")).error().status == 403);
  auto status = f.sidecar_a->merge_patch(res::pods, ns, pod_a, {{"status", {{"phase", "Failed"}}}},
                                         "status", 3s);
  BOOST_TEST(status.error().status == 403);  // pods/status is another resource
  BOOST_TEST(f.sim.denials().size() >= 7u);
}

BOOST_AUTO_TEST_CASE(a_role_rendered_before_the_pod_is_known_grants_nothing) {
  // No resourceNames must never mean "every pod": the Role then has no rule at all.
  sim_fixture f(std::vector<std::string>{});
  auto own = br::sidecar::ring_pod_doorbell(*f.sidecar_a, ns, pod_a, "x", 3s);
  BOOST_TEST_REQUIRE(!own.ok());
  BOOST_TEST(own.error().status == 403);
  auto role = br::render::render_member_rbac(group(), "a", {}, 9).at(1);
  BOOST_TEST(role["kind"] == "Role");
  BOOST_TEST(role["rules"].empty(), role.dump());
}

BOOST_AUTO_TEST_CASE(the_watcher_rings_its_own_pod_on_each_change) {
  sim_fixture f;
  caf::actor_system_config cfg;
  br::add_message_types(cfg);
  cfg.set("scheduler.max-threads", 2);
  caf::actor_system sys{cfg};
  auto current = std::make_shared<std::mutex>();
  auto out = std::make_shared<br::mysql_outcome>();
  auto set_view = [&](const std::string& view) {
    br::mysql_outcome o;
    o.ok = true;
    o.probe.gr = {true, "a", "g1", "ONLINE", view, {{"a", "h", 3306, "ONLINE", "PRIMARY", "9.7.4"}}};
    std::lock_guard<std::mutex> lk(*current);
    *out = o;
  };
  set_view("1700:1");
  auto mysql = spawn_member(sys, [current, out] {
    std::lock_guard<std::mutex> lk(*current);
    return *out;
  });
  auto h = std::make_shared<br::sidecar::sidecar_handles>();
  h->set_mysql(mysql);
  auto w = sys.spawn(br::sidecar::gr_watcher, watcher_options(f), h);
  auto token = [](const std::string& view) {
    br::mysql_outcome x;
    x.ok = true;
    x.probe.gr = {true, "a", "g1", "ONLINE", view, {{"a", "h", 3306, "ONLINE", "PRIMARY", "9.7.4"}}};
    return br::sidecar::gr_observation_token(br::sidecar::observe_gr(x));
  };
  BOOST_TEST(br::test::eventually([&] { return f.annotation(pod_a) == token("1700:1"); }, 10s, 20ms),
             f.annotation(pod_a));
  set_view("1700:2");
  BOOST_TEST(br::test::eventually([&] { return f.annotation(pod_a) == token("1700:2"); }, 10s, 20ms),
             f.annotation(pod_a));
  BOOST_TEST(f.annotation(pod_b) == "");
  caf::anon_send_exit(w, caf::exit_reason::kill);
  caf::anon_send_exit(mysql, caf::exit_reason::kill);
}

BOOST_AUTO_TEST_CASE(a_forbidden_patch_is_retried_until_the_role_names_the_pod) {
  // A new pod's sidecar rings before the operator's next pass has put its name in the Role: the
  // patch is Forbidden and must be tried again (with backoff) with no new change of the view.
  sim_fixture f(std::vector<std::string>{});
  caf::actor_system_config cfg;
  br::add_message_types(cfg);
  cfg.set("scheduler.max-threads", 2);
  caf::actor_system sys{cfg};
  br::mysql_outcome view;
  view.ok = true;
  view.probe.gr = {true, "a", "g1", "ONLINE", "1700:1", {{"a", "h", 3306, "ONLINE", "PRIMARY", "9.7.4"}}};
  auto mysql = spawn_member(sys, [view] { return view; });
  auto h = std::make_shared<br::sidecar::sidecar_handles>();
  h->set_mysql(mysql);
  auto w = sys.spawn(br::sidecar::gr_watcher, watcher_options(f), h);
  BOOST_TEST_REQUIRE(br::test::eventually([&] { return !f.sim.denials().empty(); }, 10s, 20ms));
  BOOST_TEST(f.annotation(pod_a) == "");
  // The operator's next pass names the pod in a's Role.
  auto sa = br::render::member_identity_name("orders", "a");
  f.sim.set_rbac(br::kube_sim::rbac_enforcement{
      {"sidecar-a"}, br::kube_sim::service_account_user(ns, sa),
      br::kube_sim::policy_for_service_account(br::render::render_member_rbac(group(), "a", {pod_a}, 9),
                                               ns, sa)});
  auto want = br::sidecar::gr_observation_token(br::sidecar::observe_gr(view));
  BOOST_TEST(br::test::eventually([&] { return f.annotation(pod_a) == want; }, 40s, 50ms),
             f.annotation(pod_a));
  caf::anon_send_exit(w, caf::exit_reason::kill);
  caf::anon_send_exit(mysql, caf::exit_reason::kill);
}

BOOST_AUTO_TEST_CASE(the_retry_backoff_doubles_and_is_bounded) {
  using br::sidecar::pod_doorbell_retry_delay;
  BOOST_TEST(pod_doorbell_retry_delay(1).count() == 500);
  BOOST_TEST(pod_doorbell_retry_delay(2).count() == 1000);
  BOOST_TEST(pod_doorbell_retry_delay(4).count() == 4000);
  BOOST_TEST(pod_doorbell_retry_delay(7).count() == 30000);  // 32 s capped
  BOOST_TEST(pod_doorbell_retry_delay(1000).count() == 30000);
}

BOOST_AUTO_TEST_SUITE_END()
