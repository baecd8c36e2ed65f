// The real kubectl against the API simulator: apply, get -o yaml, get -w, patch, status, delete.
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <fstream>
#include <thread>

#include "io/kube/client.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/kube_sim/simulator.hpp"
#include "tests/support/kube_sim/test_support.hpp"

using namespace br::kube;
using namespace br::kube_sim::test;
using namespace std::chrono_literals;

namespace {

const char* kubectl_path = "/usr/bin/kubectl";

struct kubectl_fixture {
  br::kube_sim::simulator sim;
  temp_dir dir;
  std::string kubeconfig;
  std::unique_ptr<client> c;

  kubectl_fixture() {
    sim.start();
    kubeconfig = sim.write_kubeconfig(dir.path.string());
    c = std::make_unique<client>(sim_config(sim));
  }

  std::vector<std::string> args(std::vector<std::string> a) const {
    a.insert(a.begin(), {"--kubeconfig", kubeconfig, "--cache-dir", (dir.path / "cache").string(),
                         "--request-timeout", "20s"});
    return a;
  }
  std::map<std::string, std::string> env() const {
    return {{"HOME", dir.path.string()}, {"KUBECONFIG", kubeconfig}};
  }
  std::unique_ptr<br::test::child_process> spawn(std::vector<std::string> a) const {
    return std::make_unique<br::test::child_process>(kubectl_path, args(std::move(a)), env());
  }
  /// Runs kubectl to completion (60 s safety bound); returns exit code and output.
  std::pair<int, std::string> run(std::vector<std::string> a) const {
    auto p = spawn(std::move(a));
    auto code = p->wait_exit(60s);
    BOOST_REQUIRE_MESSAGE(code.has_value(), "kubectl did not finish: " + p->output());
    return {*code, p->output()};
  }
  void apply_fixtures() {
    auto crd = run({"apply", "-f", fixture("test_crd.yaml")});
    BOOST_REQUIRE_MESSAGE(crd.first == 0, crd.second);
    auto obj = run({"apply", "-f", fixture("test_mfg.yaml")});
    BOOST_REQUIRE_MESSAGE(obj.first == 0, obj.second);
  }
  json get_orders() {
    auto r = c->get(mfg_ref, "default", "orders");
    BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string{} : r.error().describe()));
    return *r;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kubectl, kubectl_fixture)

BOOST_AUTO_TEST_CASE(apply_crd_and_custom_object) {
  auto crd = run({"apply", "-f", fixture("test_crd.yaml")});
  BOOST_TEST(crd.first == 0);
  BOOST_TEST(crd.second.find("customresourcedefinition.apiextensions.k8s.io/mysqlfailovergroups.shipstream.io created") !=
             std::string::npos, crd.second);
  auto obj = run({"apply", "-f", fixture("test_mfg.yaml")});
  BOOST_TEST(obj.first == 0);
  BOOST_TEST(obj.second.find("mysqlfailovergroup.shipstream.io/orders created") != std::string::npos, obj.second);
  json o = get_orders();
  BOOST_TEST(o["spec"]["replicas"] == 3);
  BOOST_TEST(o["metadata"]["labels"]["app"] == "orders");
  // A second apply with a change is a (merge) patch computed by kubectl.
  const auto changed = dir.path / "changed.yaml";
  std::ifstream in{fixture("test_mfg.yaml")};
  std::string text{std::istreambuf_iterator<char>{in}, {}};
  text.replace(text.find("note: first"), 11, "note: second");
  std::ofstream{changed} << text;
  auto again = run({"apply", "-f", changed.string()});
  BOOST_TEST(again.first == 0);
  BOOST_TEST(again.second.find("configured") != std::string::npos, again.second);
  BOOST_TEST(get_orders()["spec"]["note"] == "second");
  // The schema is enforced for kubectl too.
  text.replace(text.find("replicas: 3"), 11, "replicas: \"three\"");
  std::ofstream{changed, std::ios::trunc} << text;
  auto bad = run({"apply", "-f", changed.string()});
  BOOST_TEST(bad.first != 0);
  BOOST_TEST(bad.second.find("spec.replicas") != std::string::npos, bad.second);
  // kubectl asks for fieldValidation=Strict: an unknown field is rejected, not pruned.
  text.replace(text.find("replicas: \"three\""), 17, "replicas: 3\n  bogusField: 1");
  std::ofstream{changed, std::ios::trunc} << text;
  auto unknown = run({"apply", "-f", changed.string()});
  BOOST_TEST(unknown.first != 0);
  BOOST_TEST(unknown.second.find("unknown field \"spec.bogusField\"") != std::string::npos, unknown.second);
}

BOOST_AUTO_TEST_CASE(get_yaml) {
  apply_fixtures();
  const json o = get_orders();
  auto out = run({"get", "mysqlfailovergroup", "orders", "-o", "yaml"});
  BOOST_TEST(out.first == 0);
  BOOST_TEST(out.second.find("kind: MysqlFailoverGroup") != std::string::npos, out.second);
  BOOST_TEST(out.second.find("replicas: 3") != std::string::npos);
  const std::string rv_line = "resourceVersion: \"" + o["metadata"]["resourceVersion"].get<std::string>() + "\"";
  BOOST_TEST(out.second.find(rv_line) != std::string::npos, out.second);
  BOOST_TEST(out.second.find("uid: " + o["metadata"]["uid"].get<std::string>()) != std::string::npos);
  auto shortname = run({"get", "mfg", "-l", "app=orders", "-o", "name"});
  BOOST_TEST(shortname.first == 0);
  BOOST_TEST(shortname.second.find("mysqlfailovergroup.shipstream.io/orders") != std::string::npos, shortname.second);
}

BOOST_AUTO_TEST_CASE(get_watch_sees_later_change) {
  apply_fixtures();
  auto w = spawn({"get", "mysqlfailovergroup", "orders", "-w", "-o", "json"});
  BOOST_REQUIRE_MESSAGE(w->wait_for_line("\"note\": \"first\"", 30s).has_value(), w->output());
  // Change the object only once kubectl's watch stream is open (it prints its GET first).
  for (int i = 0; i < 300 && sim.open_watches() == 0; ++i) std::this_thread::sleep_for(100ms);
  BOOST_REQUIRE(sim.open_watches() == 1u);
  BOOST_REQUIRE(c->merge_patch(mfg_ref, "default", "orders", {{"spec", {{"note", "changed-by-test"}}}}).ok());
  BOOST_TEST(w->wait_for_line("changed-by-test", 30s).has_value(), w->output());
  w->signal(SIGTERM);
  BOOST_TEST(w->wait_exit(10s).has_value());
}

BOOST_AUTO_TEST_CASE(patch_merge) {
  apply_fixtures();
  const json before = get_orders();
  auto out = run({"patch", "mysqlfailovergroup", "orders", "--type=merge", "-p", R"({"spec":{"replicas":5}})"});
  BOOST_TEST(out.first == 0, out.second);
  BOOST_TEST(out.second.find("patched") != std::string::npos, out.second);
  const json after = get_orders();
  BOOST_TEST(after["spec"]["replicas"] == 5);
  BOOST_TEST(after["spec"]["note"] == "first");
  BOOST_TEST(after["metadata"]["generation"].get<int>() == before["metadata"]["generation"].get<int>() + 1);
}

BOOST_AUTO_TEST_CASE(patch_status_subresource) {
  apply_fixtures();
  const json before = get_orders();
  auto out = run({"patch", "mysqlfailovergroup", "orders", "--subresource=status", "--type=merge", "-p",
                  R"({"status":{"phase":"Ready"},"spec":{"replicas":9}})"});
  BOOST_TEST(out.first == 0, out.second);
  const json after = get_orders();
  BOOST_TEST(after["status"]["phase"] == "Ready");
  BOOST_TEST(after["spec"] == before["spec"]);  // the status endpoint never changes spec
  BOOST_TEST(after["metadata"]["generation"] == before["metadata"]["generation"]);
}

BOOST_AUTO_TEST_CASE(delete_is_held_by_finalizer_until_removed) {
  apply_fixtures();
  auto del = spawn({"delete", "mysqlfailovergroup", "orders", "--timeout=60s"});
  BOOST_REQUIRE_MESSAGE(del->wait_for_line("deleted", 30s).has_value(), del->output());
  // kubectl now waits for the object to disappear; the finalizer keeps it.
  BOOST_TEST(!del->wait_exit(1500ms).has_value(), del->output());
  const json held = get_orders();
  BOOST_TEST(held["metadata"].contains("deletionTimestamp"));
  BOOST_REQUIRE(c->json_patch(mfg_ref, "default", "orders",
                              json::array({{{"op", "remove"}, {"path", "/metadata/finalizers"}}})).ok());
  auto code = del->wait_exit(30s);
  BOOST_REQUIRE(code.has_value());
  BOOST_TEST(*code == 0, del->output());
  BOOST_TEST(c->get(mfg_ref, "default", "orders").error().not_found());
  auto gone = run({"get", "mysqlfailovergroup", "orders"});
  BOOST_TEST(gone.first != 0);
  BOOST_TEST(gone.second.find("NotFound") != std::string::npos, gone.second);
}

BOOST_AUTO_TEST_SUITE_END()
