// The Group Replication status webhook as deployed (issue 23 acceptance 3): the real bloodraven
// binary serves POST /validate-status over TLS (--webhook-listen, certificate files); the API
// simulator calls it like an API server (a ValidatingWebhookConfiguration for
// mysqlfailovergroups/status, the Service routed to the operator's port, caBundle verified); the
// real kubectl patches status as the operator's ServiceAccount and as another user (impersonated:
// kubectl --as).
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <thread>

#include "io/codec/base64.hpp"
#include "io/crypto/x509_inspect.hpp"
#include "io/http/client.hpp"
#include "io/kube/client.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/kube_sim/chart_rbac.hpp"
#include "tests/support/kube_sim/simulator.hpp"
#include "tests/support/kube_sim/test_support.hpp"
#include "tests/support/test_certs.hpp"

using namespace std::chrono_literals;
using nlohmann::json;
using namespace br::kube_sim::test;

namespace {

const std::string op_user = "system:serviceaccount:bloodraven-system:bloodraven";
const std::string U = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
const std::string V = "4a22fb58-82db-22f2-af44-d91bb0530673";
const std::string service_host = "bloodraven-webhook.bloodraven-system.svc";
const std::string hook_name = "status.mysqlfailovergroups.shipstream.io";

struct webhook_fixture {
  br::kube_sim::simulator sim;
  temp_dir dir;
  std::string kubeconfig;
  std::unique_ptr<br::kube::client> c;
  br::test::test_certs certs{{service_host}};
  std::unique_ptr<br::test::child_process> op;
  std::uint16_t webhook_port = 0;

  webhook_fixture() {
    sim.start();
    kubeconfig = sim.write_kubeconfig(dir.path.string());
    c = std::make_unique<br::kube::client>(sim_config(sim));
    auto crd = yaml_to_json(YAML::LoadFile(std::string(std::getenv("BR_SOURCE_DIR")) +
                                           "/charts/bloodraven/crds/shipstream.io_mysqlfailovergroups.yaml"));
    BOOST_TEST_REQUIRE(c->create(br::kube::resources::crds, "", crd).ok());
    BOOST_TEST_REQUIRE(c->create(br::kube::resources::namespaces, "",
                                 json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "db"}}}})
                           .ok());
    create_group("gr", true, json{{"bootstrapped", true}, {"groupName", U}});
    create_group("fresh", true, json{{"bootstrapped", false}});
    create_group("plain", false, json{{"bootstrapped", true}, {"groupName", U}});
  }

  void create_group(const std::string& name, bool gr, const json& gr_status) {
    json g = load_example();
    g["metadata"] = {{"name", name}, {"namespace", "db"}};
    if (!gr) g["spec"].erase("replication");
    auto r = c->create(mfg_ref, "db", g);
    BOOST_TEST_REQUIRE(r.ok(), (r.ok() ? std::string{} : r.error().describe()));
    json st = *r;
    st["status"] = {{"phase", "Running"}, {"groupReplication", gr_status}};
    auto s = c->update_status(mfg_ref, st);
    BOOST_TEST_REQUIRE(s.ok(), (s.ok() ? std::string{} : s.error().describe()));
  }

  static json load_example() {
    return yaml_to_json(YAML::LoadFile(std::string(std::getenv("BR_SOURCE_DIR")) +
                                       "/deploy/examples/gr-group.yaml"));
  }

  /// Starts an operator (POD_NAME `pod`) with its webhook listener on a free port and `extra`
  /// flags, routes the Service to it and returns it with its port.
  std::pair<std::unique_ptr<br::test::child_process>, std::uint16_t> launch(
      const std::string& pod, std::vector<std::string> extra) {
    auto started = spawn(pod, std::move(extra));
    await_webhook(*started.first, started.second);
    return started;
  }

  /// launch() in two halves, for operators that start together.
  std::pair<std::unique_ptr<br::test::child_process>, std::uint16_t> spawn(
      const std::string& pod, std::vector<std::string> extra) const {
    const auto port = br::test::free_port();
    std::vector<std::string> args{"--kubeconfig", kubeconfig, "--listen", "127.0.0.1:0",
                                  "--metrics-listen", "", "--leader-elect", "false",
                                  "--namespace", "bloodraven-system",
                                  // no group lives there: this operator only serves the webhook
                                  "--watch-namespaces", "idle",
                                  "--webhook-listen", "127.0.0.1:" + std::to_string(port)};
    args.insert(args.end(), extra.begin(), extra.end());
    auto p = std::make_unique<br::test::child_process>(
        br::test::binary_path("bloodraven"), args, std::map<std::string, std::string>{{"POD_NAME", pod}});
    return {std::move(p), port};
  }
  void await_webhook(br::test::child_process& p, std::uint16_t port) {
    auto line = p.wait_for_line("\"server\":\"webhook\"", 60s);
    BOOST_TEST_REQUIRE(line.has_value(), p.output());
    BOOST_TEST_REQUIRE(line->find("http server listening") != std::string::npos, *line);
    sim.route_service("bloodraven-system", "bloodraven-webhook", 443, "127.0.0.1:" + std::to_string(port));
  }

  /// The operator with the test's certificate files.
  void start_operator() {
    std::tie(op, webhook_port) =
        launch("op-a", {"--webhook-cert-file", certs.cert_file, "--webhook-key-file", certs.key_file});
  }

  /// The chart's registration (charts/bloodraven/templates/webhook.yaml); `ca_pem`: the caBundle
  /// (nullopt: the test certificates' CA; "": none, as the chart renders it for the operator's CA).
  void register_webhook(const std::string& failure_policy = "Fail",
                        std::optional<std::string> ca_pem = std::nullopt) {
    if (!ca_pem) ca_pem = certs.ca.cert_pem;
    json vwc = {
        {"apiVersion", "admissionregistration.k8s.io/v1"},
        {"kind", "ValidatingWebhookConfiguration"},
        {"metadata", {{"name", "bloodraven-status"}}},
        {"webhooks",
         json::array({{{"name", hook_name},
                       {"admissionReviewVersions", {"v1"}},
                       {"sideEffects", "None"},
                       {"failurePolicy", failure_policy},
                       {"timeoutSeconds", 5},
                       {"clientConfig",
                        {{"service",
                          {{"namespace", "bloodraven-system"},
                           {"name", "bloodraven-webhook"},
                           {"path", "/validate-status"},
                           {"port", 443}}},
                         {"caBundle", br::base64_encode(*ca_pem)}}},
                       {"rules",
                        json::array({{{"apiGroups", {"shipstream.io"}},
                                      {"apiVersions", {"v1alpha1"}},
                                      {"operations", {"UPDATE"}},
                                      {"resources", {"mysqlfailovergroups/status"}},
                                      {"scope", "Namespaced"}}})}}})}};
    if (ca_pem->empty()) vwc["webhooks"][0]["clientConfig"].erase("caBundle");
    const std::string path = (dir.path / "vwc.json").string();
    br::test::test_certs::write(path, vwc.dump());
    // A fresh object each time: the simulator applies kubectl's strategic merge patch as a JSON
    // merge patch, which would replace the webhooks list by the changed fields alone.
    auto d = kubectl({"delete", "validatingwebhookconfiguration", "bloodraven-status", "--ignore-not-found"});
    BOOST_TEST_REQUIRE(d.first == 0, d.second);
    auto r = kubectl({"create", "-f", path});
    BOOST_TEST_REQUIRE(r.first == 0, r.second);
  }

  /// Runs kubectl as `user` (impersonated, as `kubectl --as`; "" = the simulator's admin).
  std::pair<int, std::string> kubectl(std::vector<std::string> a, const std::string& user = "") const {
    a.insert(a.begin(), {"--kubeconfig", kubeconfig, "--cache-dir", (dir.path / "cache").string(),
                         "--request-timeout", "20s"});
    if (user == op_user) a.insert(a.end(), {"--as=" + user, "--as-group=system:serviceaccounts"});
    else if (!user.empty()) a.push_back("--as=" + user);
    br::test::child_process p("/usr/bin/kubectl", a,
                              {{"HOME", dir.path.string()}, {"KUBECONFIG", kubeconfig}});
    auto code = p.wait_exit(60s);
    BOOST_REQUIRE_MESSAGE(code.has_value(), "kubectl did not finish: " + p.output());
    return {*code, p.output()};
  }

  /// kubectl patch --subresource=status of group `name` with merge patch `status` as `user`.
  std::pair<int, std::string> patch_status(const std::string& name, const json& status,
                                           const std::string& user) const {
    return kubectl({"patch", "mysqlfailovergroup", name, "-n", "db", "--subresource=status",
                    "--type=merge", "-p", json{{"status", status}}.dump()},
                   user);
  }

  json status_of(const std::string& name) const {
    auto r = c->get(mfg_ref, "db", name);
    BOOST_REQUIRE(r.ok());
    return (*r)["status"];
  }
};

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::string denied = "admission webhook \"" + hook_name + "\" denied the request: ";

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_status_webhook, webhook_fixture)

BOOST_AUTO_TEST_CASE(status_transitions_and_identities_through_kubectl) {
  // Control: without the webhook another user may rewrite a GR group's status.
  auto before = patch_status("gr", {{"phase", "Degraded"}}, "alice");
  BOOST_TEST(before.first == 0, before.second);
  BOOST_TEST(status_of("gr")["phase"] == "Degraded");

  start_operator();
  register_webhook();

  // bootstrapped true -> false: denied, also for the operator's own identity.
  auto back = patch_status("gr", {{"groupReplication", {{"bootstrapped", false}}}}, op_user);
  BOOST_TEST(back.first != 0, back.second);
  BOOST_TEST(has(back.second, denied + "status.groupReplication.bootstrapped may not go from true "
                                       "back to false"),
             back.second);
  BOOST_TEST(status_of("gr")["groupReplication"]["bootstrapped"] == true);

  // groupName changed or removed: denied for the operator.
  auto renamed = patch_status("gr", {{"groupReplication", {{"groupName", V}}}}, op_user);
  BOOST_TEST(renamed.first != 0, renamed.second);
  BOOST_TEST(has(renamed.second, denied + "status.groupReplication.groupName may not change from \"" +
                                     U + "\" to \"" + V + "\""),
             renamed.second);
  auto removed = patch_status("gr", {{"groupReplication", {{"groupName", nullptr}}}}, op_user);
  BOOST_TEST(removed.first != 0, removed.second);
  BOOST_TEST(has(removed.second, "groupName \"" + U + "\" may not be removed"), removed.second);
  BOOST_TEST(status_of("gr")["groupReplication"]["groupName"] == U);

  // Another identity: any change of a GR group's status is denied, even a legal transition.
  auto alice = patch_status("gr", {{"phase", "Running"}}, "alice");
  BOOST_TEST(alice.first != 0, alice.second);
  BOOST_TEST(has(alice.second, denied + "only the operator (" + op_user + ") may change the status of "
                                        "a Group Replication group; user \"alice\" may not"),
             alice.second);
  auto alice_boot = patch_status("fresh", {{"groupReplication", {{"bootstrapped", true}, {"groupName", U}}}},
                                 "alice");
  BOOST_TEST(alice_boot.first != 0, alice_boot.second);
  BOOST_TEST(status_of("gr")["phase"] == "Degraded");
  // kubectl's default identity (the simulator's admin) is another identity too.
  auto admin = patch_status("gr", {{"phase", "Running"}}, "");
  BOOST_TEST(admin.first != 0, admin.second);
  BOOST_TEST(has(admin.second, "user \"kube-sim:admin\" may not"), admin.second);

  // The operator's legal writes pass: other fields, false -> true with a first group name.
  auto phase = patch_status("gr", {{"phase", "Running"}}, op_user);
  BOOST_TEST(phase.first == 0, phase.second);
  BOOST_TEST(status_of("gr")["phase"] == "Running");
  auto boot = patch_status("fresh", {{"groupReplication", {{"bootstrapped", true}, {"groupName", V}}}},
                           op_user);
  BOOST_TEST(boot.first == 0, boot.second);
  BOOST_TEST(status_of("fresh")["groupReplication"]["bootstrapped"] == true);
  BOOST_TEST(status_of("fresh")["groupReplication"]["groupName"] == V);

  // Async groups are unaffected: anyone, any transition.
  auto plain = patch_status("plain", {{"phase", "Degraded"}, {"groupReplication", {{"bootstrapped", false}, {"groupName", V}}}},
                            "alice");
  BOOST_TEST(plain.first == 0, plain.second);
  BOOST_TEST(status_of("plain")["groupReplication"]["groupName"] == V);

  // The webhook judged them: its log names the denials.
  BOOST_TEST(op->wait_for_line("status webhook denied a write", 10s).has_value(), op->output());
}

BOOST_AUTO_TEST_CASE(webhook_down_with_failure_policy_fail_refuses_writes) {
  start_operator();
  register_webhook("Fail");
  BOOST_TEST_REQUIRE(patch_status("gr", {{"phase", "Degraded"}}, op_user).first == 0);
  op->signal(SIGTERM);
  BOOST_TEST_REQUIRE(op->wait_exit(30s).has_value(), op->output());
  // Down: every status write of a group is refused, async ones too (the rule matches them all).
  auto refused = patch_status("gr", {{"phase", "Running"}}, op_user);
  BOOST_TEST(refused.first != 0, refused.second);
  BOOST_TEST(has(refused.second, "failed calling webhook \"" + hook_name + "\""), refused.second);
  auto refused_async = patch_status("plain", {{"phase", "Running"}}, "alice");
  BOOST_TEST(refused_async.first != 0, refused_async.second);
  BOOST_TEST(status_of("gr")["phase"] == "Degraded");
  // failurePolicy Ignore: the same write passes while the webhook is down.
  register_webhook("Ignore");
  auto ignored = patch_status("gr", {{"phase", "Running"}}, op_user);
  BOOST_TEST(ignored.first == 0, ignored.second);
  BOOST_TEST(status_of("gr")["phase"] == "Running");
}

BOOST_AUTO_TEST_CASE(a_caBundle_of_another_ca_fails_the_call) {
  start_operator();
  br::test::test_certs other{{service_host}};
  register_webhook("Fail", other.ca.cert_pem);  // a CA that did not sign the operator's certificate
  auto refused = patch_status("gr", {{"phase", "Degraded"}}, op_user);
  BOOST_TEST(refused.first != 0, refused.second);
  BOOST_TEST(has(refused.second, "failed calling webhook"), refused.second);
  BOOST_TEST(status_of("gr")["phase"] == "Running");
}

BOOST_AUTO_TEST_CASE(malformed_reviews_are_refused_and_the_webhook_keeps_serving) {
  start_operator();
  const std::string port = std::to_string(webhook_port);
  auto post = [&](std::string body) {
    br::http::client_request req;
    req.method = "POST";
    req.url = "https://" + service_host + ":" + port + "/validate-status";
    req.connect_to = {service_host + ":" + port + ":127.0.0.1:" + port};
    req.ca_pem = certs.ca.cert_pem;
    req.headers = {{"Content-Type", "application/json"}};
    req.body = std::move(body);
    req.timeout = 20s;
    return br::http::perform(req);
  };
  auto deep = post(std::string(100000, '[') + std::string(100000, ']'));
  BOOST_TEST(deep.status == 400, deep.body);
  BOOST_TEST(has(deep.body, "nesting deeper than 64"), deep.body);
  auto big = post(std::string(5u << 20, ' '));
  BOOST_TEST(big.status == 413, big.body);
  auto garbage = post("{\"apiVersion\":");
  BOOST_TEST(garbage.status == 400, garbage.body);
  auto not_review = post(R"({"apiVersion":"v1","kind":"Pod"})");
  BOOST_TEST(not_review.status == 400, not_review.body);
  // Still serving: a real review through the API server path is judged.
  register_webhook();
  auto alice = patch_status("gr", {{"phase", "Failed"}}, "alice");
  BOOST_TEST(alice.first != 0, alice.second);
  BOOST_TEST(has(alice.second, denied), alice.second);
}

BOOST_AUTO_TEST_CASE(only_system_masters_may_impersonate_the_operator) {
  start_operator();
  register_webhook();
  // An RBAC-enforced identity (not in system:masters) allowed to patch status still cannot
  // pass itself off as the operator: the impersonation is refused before anything else.
  br::kube_sim::rbac_enforcement e;
  e.identities = {"mallory"};
  e.user = "system:serviceaccount:db:mallory";
  e.policy.cluster.push_back({{"shipstream.io"}, {"mysqlfailovergroups/status"}, {"patch", "get"}, {}});
  sim.set_rbac(e);
  br::http::client_request req;
  req.method = "PATCH";
  req.url = sim.url() + "/apis/shipstream.io/v1alpha1/namespaces/db/mysqlfailovergroups/gr/status";
  req.headers = {{"Content-Type", "application/merge-patch+json"},
                 {br::kube_sim::identity_header, "mallory"},
                 {"Impersonate-User", op_user}};
  req.body = json{{"status", {{"phase", "Failed"}}}}.dump();
  auto as_op = br::http::perform(req);
  BOOST_TEST(as_op.status == 403, as_op.body);
  BOOST_TEST(has(as_op.body, "cannot impersonate"), as_op.body);
  // Without the impersonation the same identity is judged as itself by the webhook.
  req.headers.pop_back();
  auto as_self = br::http::perform(req);
  BOOST_TEST(as_self.status == 403, as_self.body);
  const auto msg = json::parse(as_self.body, nullptr, false).value("message", std::string{});
  BOOST_TEST(has(msg, "user \"system:serviceaccount:db:mallory\" may not"), as_self.body);
  BOOST_TEST(status_of("gr")["phase"] == "Running");
}

// ---- The operator's own CA (webhook.certificate=operator) ----

namespace {

const std::vector<std::string> service_names{"bloodraven-webhook", "bloodraven-webhook.bloodraven-system",
                                             "bloodraven-webhook.bloodraven-system.svc"};

/// The flags the chart passes with webhook.certificate=operator (release "bloodraven"), the files
/// in `files`, a pass every second.
std::vector<std::string> operator_ca_flags(const std::filesystem::path& files) {
  return {"--webhook-ca-secret", "bloodraven-webhook-ca", "--webhook-service", "bloodraven-webhook",
          "--webhook-configuration", "bloodraven-status", "--webhook-ca-interval", "1s",
          "--webhook-cert-file", (files / "tls.crt").string(), "--webhook-key-file",
          (files / "tls.key").string()};
}

std::string file_text(const std::filesystem::path& p) {
  std::ifstream in{p};
  std::stringstream b;
  b << in.rdbuf();
  return b.str();
}

bool eventually(const std::function<bool()>& pred, std::chrono::seconds within = 30s) {
  const auto until = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < until) {
    if (pred()) return true;
    std::this_thread::sleep_for(200ms);
  }
  return pred();
}

}  // namespace

struct operator_ca_fixture : webhook_fixture {
  operator_ca_fixture() {
    // The operator as the chart's RBAC allows it with webhook.certificate=operator.
    br::kube_sim::chart_release rel;
    rel.webhook_certificate = "operator";
    sim.set_rbac(br::kube_sim::chart_operator_rbac(
        std::string(std::getenv("BR_SOURCE_DIR")) + "/charts/bloodraven", {"op-a", "op-b"}, rel));
    BOOST_TEST_REQUIRE(c->create(br::kube::resources::namespaces, "",
                                 json{{"apiVersion", "v1"}, {"kind", "Namespace"},
                                      {"metadata", {{"name", "bloodraven-system"}}}})
                           .ok());
  }

  /// The CA Secret's decoded item `key` ("" when the Secret or the key is absent).
  std::string secret_item(const std::string& key) const {
    auto r = c->get(br::kube::resources::secrets, "bloodraven-system", "bloodraven-webhook-ca");
    if (!r.ok() || !(*r)["data"].contains(key)) return {};
    return br::base64_decode((*r)["data"][key].get<std::string>()).value_or("");
  }

  /// The registered webhook's caBundle, decoded ("" when none).
  std::string ca_bundle() const {
    auto r = c->get({"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", false}, "",
                    "bloodraven-status");
    if (!r.ok()) return {};
    const auto cc = (*r)["webhooks"][0]["clientConfig"];
    return cc.contains("caBundle") ? br::base64_decode(cc["caBundle"].get<std::string>()).value_or("") : "";
  }

  /// No request of the operators to the Secret or the webhook configuration was refused by RBAC.
  void check_rbac() const {
    for (const auto& d : sim.denials())
      BOOST_TEST((d.attributes.resource != "secrets" &&
                  d.attributes.resource != "validatingwebhookconfigurations"),
                 d.identity + " " + d.method + " " + d.path + ": " + d.message);
  }

  /// The webhook judges through the API server path: an illegal transition is denied, a legal
  /// write passes.
  void check_judged(const std::string& phase) {
    auto back = patch_status("gr", {{"groupReplication", {{"bootstrapped", false}}}}, op_user);
    BOOST_TEST(back.first != 0, back.second);
    BOOST_TEST(has(back.second, denied + "status.groupReplication.bootstrapped may not go from true "
                                         "back to false"),
               back.second);
    auto ok = patch_status("gr", {{"phase", phase}}, op_user);
    BOOST_TEST(ok.first == 0, ok.second);
    BOOST_TEST(status_of("gr")["phase"] == phase);
  }
};

BOOST_FIXTURE_TEST_CASE(operator_ca_created_caBundle_kept_and_the_secret_reused, operator_ca_fixture) {
  register_webhook("Fail", "");  // as the chart renders it: no caBundle
  auto refused = patch_status("gr", {{"phase", "Degraded"}}, op_user);
  BOOST_TEST(refused.first != 0, "no operator yet: " + refused.second);

  auto [a, port_a] = launch("op-a", operator_ca_flags(dir.path / "op-a"));
  const std::string ca = secret_item("ca.crt");
  const std::string serving = secret_item("tls.crt");
  BOOST_TEST_REQUIRE(!ca.empty(), a->output());
  auto info = br::crypto::inspect_cert(serving);
  BOOST_TEST_REQUIRE(info.has_value());
  BOOST_TEST(info->names == service_names, boost::test_tools::per_element());
  BOOST_TEST(br::crypto::signed_by(serving, ca));
  BOOST_TEST(br::crypto::inspect_cert(ca)->is_ca);
  BOOST_TEST((info->not_after - std::chrono::system_clock::now() > std::chrono::hours{24 * 89}));
  BOOST_TEST(file_text(dir.path / "op-a" / "tls.crt") == serving);
  BOOST_TEST(file_text(dir.path / "op-a" / "tls.key") == secret_item("tls.key"));
  BOOST_TEST_REQUIRE(eventually([&] { return ca_bundle() == ca; }), a->output());
  check_judged("Running");

  // A caBundle of another CA is put back within a few passes.
  br::test::test_certs other{{service_host}};
  auto replaced = c->json_patch(
      {"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", false}, "", "bloodraven-status",
      json::array({{{"op", "replace"}, {"path", "/webhooks/0/clientConfig/caBundle"},
                    {"value", br::base64_encode(other.ca.cert_pem)}}}));
  BOOST_TEST_REQUIRE(replaced.ok());
  BOOST_TEST_REQUIRE(ca_bundle() == other.ca.cert_pem);
  BOOST_TEST_REQUIRE(eventually([&] { return ca_bundle() == ca; }), a->output());
  check_judged("Degraded");

  // A second start (another pod) reuses the Secret: same CA, same certificate.
  a->signal(SIGTERM);
  BOOST_TEST_REQUIRE(a->wait_exit(30s).has_value(), a->output());
  auto [b, port_b] = launch("op-b", operator_ca_flags(dir.path / "op-b"));
  BOOST_TEST(secret_item("ca.crt") == ca);
  BOOST_TEST(secret_item("tls.crt") == serving);
  BOOST_TEST(file_text(dir.path / "op-b" / "tls.crt") == serving);
  BOOST_TEST(ca_bundle() == ca);
  check_judged("Running");
  check_rbac();
}

BOOST_FIXTURE_TEST_CASE(operator_ca_reissues_a_due_certificate_from_the_same_ca, operator_ca_fixture) {
  // A Secret from an earlier run whose serving certificate is due (valid from an hour ago to now).
  auto old_ca = br::crypto::make_ca("bloodraven-webhook-ca-ca", std::chrono::hours{24 * 3650});
  BOOST_TEST_REQUIRE(old_ca.has_value());
  auto due = br::crypto::issue_server_cert(*old_ca, service_names, std::chrono::hours{0});
  BOOST_TEST_REQUIRE(due.has_value());
  json secret = {{"apiVersion", "v1"}, {"kind", "Secret"},
                 {"metadata", {{"name", "bloodraven-webhook-ca"}, {"namespace", "bloodraven-system"}}},
                 {"type", "kubernetes.io/tls"},
                 {"data", {{"ca.crt", br::base64_encode(old_ca->cert_pem)}, {"ca.key", br::base64_encode(old_ca->key_pem)},
                           {"tls.crt", br::base64_encode(due->cert_pem)}, {"tls.key", br::base64_encode(due->key_pem)}}}};
  BOOST_TEST_REQUIRE(c->create(br::kube::resources::secrets, "bloodraven-system", secret).ok());
  register_webhook("Fail", "");

  auto [a, port_a] = launch("op-a", operator_ca_flags(dir.path / "op-a"));
  BOOST_TEST(secret_item("ca.crt") == old_ca->cert_pem, "the CA is kept");
  const std::string serving = secret_item("tls.crt");
  BOOST_TEST(serving != due->cert_pem, "the due certificate is replaced");
  BOOST_TEST(br::crypto::signed_by(serving, old_ca->cert_pem));
  auto info = br::crypto::inspect_cert(serving);
  BOOST_TEST_REQUIRE(info.has_value());
  BOOST_TEST((info->not_after - std::chrono::system_clock::now() > std::chrono::hours{24 * 89}));
  BOOST_TEST(a->output().find("the serving certificate is due for renewal") != std::string::npos, a->output());
  BOOST_TEST_REQUIRE(eventually([&] { return ca_bundle() == old_ca->cert_pem; }), a->output());
  check_judged("Degraded");

  // While it runs: the certificate in the Secret falls due again -> a later pass re-issues it
  // from the same CA, rewrites the files, and the listener loads them.
  auto due_again = br::crypto::issue_server_cert(*old_ca, service_names, std::chrono::hours{0});
  BOOST_TEST_REQUIRE(due_again.has_value());
  auto cur = c->get(br::kube::resources::secrets, "bloodraven-system", "bloodraven-webhook-ca");
  BOOST_TEST_REQUIRE(cur.ok());
  json upd = *cur;
  upd["data"]["tls.crt"] = br::base64_encode(due_again->cert_pem);
  upd["data"]["tls.key"] = br::base64_encode(due_again->key_pem);
  BOOST_TEST_REQUIRE(c->update(br::kube::resources::secrets, upd).ok());
  BOOST_TEST_REQUIRE(eventually([&] {
    const auto now = secret_item("tls.crt");
    return !now.empty() && now != due_again->cert_pem && now != serving &&
           file_text(dir.path / "op-a" / "tls.crt") == now;
  }), a->output());
  BOOST_TEST(secret_item("ca.crt") == old_ca->cert_pem, "still the same CA");
  check_judged("Running");
  // The listener loads a changed pair for the next connection (the calls above made some).
  BOOST_TEST(a->wait_for_line("tls certificate reloaded", 10s).has_value(), a->output());
  check_rbac();
}

BOOST_FIXTURE_TEST_CASE(two_operators_starting_together_end_with_one_ca, operator_ca_fixture) {
  register_webhook("Fail", "");
  // Both start at once against no Secret; each serves what the Secret holds in the end.
  auto [a, port_a] = spawn("op-a", operator_ca_flags(dir.path / "op-a"));
  auto [b, port_b] = spawn("op-b", operator_ca_flags(dir.path / "op-b"));
  await_webhook(*a, port_a);
  await_webhook(*b, port_b);
  const std::string ca = secret_item("ca.crt");
  BOOST_TEST_REQUIRE(!ca.empty());
  BOOST_TEST(br::crypto::signed_by(file_text(dir.path / "op-a" / "tls.crt"), ca));
  BOOST_TEST(br::crypto::signed_by(file_text(dir.path / "op-b" / "tls.crt"), ca));
  BOOST_TEST_REQUIRE(eventually([&] { return ca_bundle() == ca; }), a->output() + b->output());
  // Each replica answers the API server with that CA (the Service routed to one, then the other).
  check_judged("Degraded");
  sim.route_service("bloodraven-system", "bloodraven-webhook", 443, "127.0.0.1:" + std::to_string(port_a));
  check_judged("Running");
  check_rbac();
}

BOOST_AUTO_TEST_SUITE_END()
