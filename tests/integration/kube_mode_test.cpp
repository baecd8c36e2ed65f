// Kubernetes mode against the API simulator: group source (create/edit/delete, invalid objects,
// missing Secrets) and the status writer (coalescing, 500s delay status but not failover).
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <thread>

#include "actors/operator/kube/core/kube_credentials.hpp"
#include "actors/common/registry.hpp"
#include "actors/operator/kube/group_source.hpp"
#include "actors/operator/kube/core/kube_state_store.hpp"
#include "actors/operator/api/operator_api.hpp"
#include "actors/operator/kube/core/status_writer.hpp"
#include "actors/operator/group/durable_state_json.hpp"
#include "config/failover_group.hpp"
#include "io/kube/retry.hpp"
#include "io/log/log.hpp"
#include "tests/support/kube_sim/chart_rbac.hpp"
#include "tests/support/kube_sim/simulator.hpp"
#include "tests/support/kube_sim/test_support.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/recording_platform.hpp"
#include "tests/support/eventually.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

/// A loopback port nothing listens on (bound, then closed): MySQL connections are refused.
int closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  int port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

json site(const std::string& name, const std::string& role = "primary-candidate") {
  json s = {{"name", name},
            {"role", role},
            {"zone", "zone-" + name},
            {"storage", {{"size", "10Gi"}}}};
  if (role != "read-only") {
    s["lbIP"] = "10.0.0." + std::to_string(name.size() + name[0] % 50);
    s["taintNodeSelector"] = json::object();  // group_object fills in the site label
  }
  return s;
}

json group_object(const std::string& name, json sites) {
  for (auto& s : sites)  // a selector may only pick its own site's nodes
    if (s.contains("taintNodeSelector"))
      s["taintNodeSelector"] = {{"shipstream.io/site." + name, s.value("name", "")}};
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlFailoverGroup"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"credentials", {{"operatorSecret", name + "-operator"}}},
            {"dns", {{"hostname", name + ".example.com"}}},
            {"pollInterval", "200ms"},
            {"failureThreshold", 2},
            {"recoveryThreshold", 1},
            {"promotionPolicy", "Fast"},
            {"sites", std::move(sites)}}}};
}

/// path -> node of the registry tree (what GET /debug/actors serves).
void flatten(const json& node, std::map<std::string, json>& out) {
  out[node["path"].get<std::string>()] = node;
  for (const auto& c : node["children"]) flatten(c, out);
}

struct kube_fixture {
  br::kube_sim::simulator sim;
  std::shared_ptr<kube::client> c;   // the test's own client (unrestricted)
  std::shared_ptr<kube::client> op;  // the operator's: the chart's RBAC is enforced on it
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  registry_actor registry;
  caf::actor root;
  std::shared_ptr<group_table> groups = std::make_shared<group_table>();
  int dead_port = closed_port();

  kube_fixture() {
    log::set_level(log::level::warn);
    sim.start();
    // The operator runs as the chart's ServiceAccount: a request its RBAC does not grant is
    // refused with 403 (checked after each test: no denials).
    sim.set_rbac(br::kube_sim::chart_operator_rbac(
        std::string(std::getenv("BR_SOURCE_DIR")) + "/charts/bloodraven", {"operator-0"}));
    kube::client_options co;
    co.identity = "test";
    co.timeout = 3s;
    c = std::make_shared<kube::client>(br::kube_sim::test::sim_config(sim), co);
    co.identity = "operator-0";
    op = std::make_shared<kube::client>(br::kube_sim::test::sim_config(sim), co);
    auto crd = br::kube_sim::test::yaml_to_json(YAML::LoadFile(
        std::string(std::getenv("BR_SOURCE_DIR")) +
        "/charts/bloodraven/crds/shipstream.io_mysqlfailovergroups.yaml"));
    auto made = c->create(kube::resources::crds, "", crd);
    BOOST_REQUIRE_MESSAGE(made.ok(), (made.ok() ? std::string{} : made.error().describe()));
    registry = spawn_registry(sys);
  }

  ~kube_fixture() {
    if (root) {
      self->request(root, 20s, stop_atom::value).receive([](bool) {}, [](caf::error&) {});
    }
    for (const auto& d : sim.denials())
      BOOST_ERROR("operator request refused by the chart's RBAC: " << d.method << " " << d.path << ": "
                                                                   << d.message);
    groups->drop_handles();
    self->send_exit(registry, caf::exit_reason::user_shutdown);
    sim.stop();
  }

  group_source_options source_options(site_io_actor io = {}) {
    group_source_options o;
    o.client = op;
    o.groups = groups;
    o.site_io = io;
    o.instance = "operator-0";
    auto port = dead_port;
    o.site_address = [port](const std::string&, const std::string&, const std::string&) {
      return config::address_spec{"127.0.0.1", port};
    };
    o.credential_retry = 300ms;
    o.status_backoff_initial = 100ms;
    o.status_backoff_max = 400ms;
    o.status_coalesce = 50ms;
    o.reflector.backoff_initial = 50ms;
    o.reflector.backoff_max = 500ms;
    return o;
  }

  void start_source(group_source_options o) {
    root = spawn_supervisor(sys, "root", restart_policy{}, {group_source_child(std::move(o))});
  }

  void put_secret(const std::string& name) {
    json s = {{"apiVersion", "v1"},
              {"kind", "Secret"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"data", {{"username", base64_encode("bloodraven")}, {"password", base64_encode("pw")}}}};
    auto r = c->create(kube::resources::secrets, "default", s);
    BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string{} : r.error().describe()));
  }

  json create(const json& obj) {
    auto r = c->create(mfg_resource, "default", obj);
    BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string{} : r.error().describe()));
    return *r;
  }

  json get(const std::string& name) {
    auto r = c->get(mfg_resource, "default", name);
    BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string{} : r.error().describe()));
    return *r;
  }

  std::map<std::string, json> actors() {
    std::map<std::string, json> out;
    self->request(registry, 5s, tree_atom::value)
        .receive(
            [&](const std::string& text) {
              const auto tree = json::parse(text);
              for (const auto& n : tree["actors"]) flatten(n, out);
            },
            [](caf::error&) {});
    return out;
  }

  bool alive(const std::string& path) {
    auto a = actors();
    auto it = a.find(path);
    return it != a.end() && it->second["alive"].get<bool>();
  }

  static bool eventually(const std::function<bool()>& cond, std::chrono::milliseconds within) {
    return br::test::eventually(cond, within, 50ms);
  }

  std::vector<json> events_for(const std::string& name, const std::string& reason) {
    std::vector<json> out;
    auto r = c->list(kube::resources::events, "default");
    if (!r) return out;
    for (const auto& e : (*r)["items"])
      if (e["involvedObject"].value("name", "") == name && e.value("reason", "") == reason)
        out.push_back(e);
    return out;
  }

  static json ready_condition(const json& obj) {
    for (const auto& cnd : obj.value("status", json::object()).value("conditions", json::array()))
      if (cnd.value("type", "") == "Ready") return cnd;
    return nullptr;
  }
};

const std::string group_path = "root/group_source/group:orders.default";

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_mode, kube_fixture)

BOOST_AUTO_TEST_CASE(create_edit_delete_starts_updates_and_stops_the_supervisor) {
  put_secret("orders-operator");
  start_source(source_options());
  create(group_object("orders", json::array({site("iad"), site("pdx")})));

  BOOST_REQUIRE(eventually([&] { return alive(group_path + "/poller:pdx"); }, 20s));
  auto before = actors();
  BOOST_TEST(before[group_path]["kind"].get<std::string>() == "supervisor");
  BOOST_TEST(before[group_path]["parent"].get<std::string>() == "root/group_source");
  BOOST_TEST(before.count(group_path + "/poller:iad") == 1u);
  BOOST_TEST(before.count(group_path + "/poller:sea") == 0u);
  const auto first_id = before[group_path]["id"].get<uint64_t>();
  // The coordinator's status reaches the CR through the status writer (epoch is ours).
  BOOST_TEST(eventually([&] { return get("orders").value("status", json::object()).contains("epoch"); }, 20s));
  BOOST_TEST(alive("root/group_source/status:orders.default"));

  // Edit: a third site. The supervisor restarts with the new spec (a new incarnation).
  // The operator writes status concurrently, so a plain read-modify-write can meet a 409 (as a
  // user's kubectl edit would): re-read and retry, as clients must.
  auto put = kube::update_with_retry(*c, mfg_resource, "default", "orders", [&](json& obj) {
    obj["spec"]["sites"].push_back(site("sea", "read-only"));
    return true;
  });
  BOOST_REQUIRE(put.ok());
  BOOST_REQUIRE(eventually([&] { return alive(group_path + "/poller:sea"); }, 20s));
  auto after = actors();
  BOOST_TEST(after[group_path]["alive"].get<bool>());
  BOOST_TEST(after[group_path]["id"].get<uint64_t>() != first_id);

  // A status-only change (our own writes) must not restart it.
  const auto second_id = after[group_path]["id"].get<uint64_t>();
  std::this_thread::sleep_for(1s);
  BOOST_TEST(actors()[group_path]["id"].get<uint64_t>() == second_id);

  // Delete: stopped, children too.
  auto del = c->remove(mfg_resource, "default", "orders");
  BOOST_REQUIRE(del.ok());
  BOOST_REQUIRE(eventually([&] { return !alive(group_path); }, 20s));
  auto gone = actors();
  BOOST_TEST(!gone[group_path + "/coordinator"]["alive"].get<bool>());
  BOOST_TEST(!gone[group_path + "/poller:sea"]["alive"].get<bool>());
  BOOST_TEST(eventually([&] { return !alive("root/group_source/status:orders.default"); }, 10s));
  BOOST_TEST(alive("root/group_source"));
}

BOOST_AUTO_TEST_CASE(invalid_object_gets_event_and_condition_with_field_paths_and_is_not_started) {
  put_secret("broken-operator");
  start_source(source_options());
  auto sites = json::array({site("iad"), site("iad")});  // duplicate name: CEL in a real cluster
  auto obj = group_object("broken", sites);
  obj["spec"]["splitBrainPolicy"] = {{"sitePriorities", json::array({"nowhere"})}};
  create(obj);

  // What the operator's own validation says, computed independently of the group source.
  auto expected = config::load_group_json(get("broken").dump(), config::run_mode::kubernetes);
  BOOST_REQUIRE(expected.errors.size() >= 2u);

  BOOST_REQUIRE(eventually([&] { return !ready_condition(get("broken")).is_null(); }, 20s));
  auto cond = ready_condition(get("broken"));
  BOOST_TEST(cond["status"].get<std::string>() == "False");
  BOOST_TEST(cond["reason"].get<std::string>() == "InvalidSpec");
  const auto msg = cond["message"].get<std::string>();
  for (const auto& e : expected.errors) BOOST_TEST(msg.find(e.path) != std::string::npos, e.path);
  BOOST_TEST(msg.find("spec.sites[1].name") != std::string::npos);

  BOOST_REQUIRE(eventually([&] { return !events_for("broken", "InvalidSpec").empty(); }, 10s));
  auto ev = events_for("broken", "InvalidSpec").front();
  BOOST_TEST(ev["type"].get<std::string>() == "Warning");
  for (const auto& e : expected.errors)
    BOOST_TEST(ev["message"].get<std::string>().find(e.path) != std::string::npos, e.path);

  auto a = actors();
  BOOST_TEST(a.count("root/group_source/group:broken.default") == 0u);

  // Fixed: it starts and the InvalidSpec condition goes.
  auto fixed = kube::update_with_retry(*c, mfg_resource, "default", "broken", [&](json& obj) {
    obj["spec"]["sites"][1]["name"] = "pdx";
    obj["spec"]["sites"][1]["taintNodeSelector"] = {{"shipstream.io/site.broken", "pdx"}};
    obj["spec"].erase("splitBrainPolicy");
    return true;
  });
  BOOST_REQUIRE(fixed.ok());
  BOOST_REQUIRE(eventually([&] { return alive("root/group_source/group:broken.default"); }, 20s));
  BOOST_TEST(eventually(
      [&] {
        auto cnd = ready_condition(get("broken"));
        return cnd.is_null() || cnd.value("reason", "") != "InvalidSpec";
      },
      20s));
}

BOOST_AUTO_TEST_CASE(missing_secret_is_reported_and_the_group_starts_once_it_exists) {
  // A PVC of the group: its datadir holds accounts already, so the operator must not invent
  // passwords (a new group gets generated ones: see the next test).
  auto pvc = c->create(kube::resources::pvcs, "default",
                       {{"apiVersion", "v1"},
                        {"kind", "PersistentVolumeClaim"},
                        {"metadata",
                         {{"name", "mysql-nosecret-iad-data"},
                          {"namespace", "default"},
                          {"labels", {{"shipstream.io/failover-group", "nosecret"}}}}},
                        {"spec", {{"accessModes", {"ReadWriteOnce"}}}}});
  BOOST_REQUIRE(pvc.ok());
  start_source(source_options());
  create(group_object("nosecret", json::array({site("iad"), site("pdx")})));
  BOOST_REQUIRE(eventually([&] { return !ready_condition(get("nosecret")).is_null(); }, 20s));
  auto cond = ready_condition(get("nosecret"));
  BOOST_TEST(cond["reason"].get<std::string>() == "SecretNotFound");
  BOOST_TEST(cond["message"].get<std::string>().find("nosecret-operator") != std::string::npos);
  BOOST_TEST(eventually([&] { return !events_for("nosecret", "SecretNotFound").empty(); }, 10s));
  BOOST_TEST(!alive("root/group_source/group:nosecret.default"));

  put_secret("nosecret-operator");
  BOOST_TEST(eventually([&] { return alive("root/group_source/group:nosecret.default"); }, 20s));
}

BOOST_AUTO_TEST_CASE(a_new_group_gets_generated_credentials_that_are_never_overwritten) {
  start_source(source_options());
  create(group_object("fresh", json::array({site("iad"), site("pdx")})));
  const auto uid = get("fresh")["metadata"].value("uid", "");
  json secret;
  BOOST_REQUIRE(eventually(
      [&] {
        auto s = c->get(kube::resources::secrets, "default", "fresh-operator");
        if (s) secret = *s;
        return s.ok();
      },
      20s));
  BOOST_TEST(secret["metadata"]["ownerReferences"][0].value("uid", "") == uid);
  for (const char* key : {"username", "password", "MYSQL_ROOT_PASSWORD"})
    BOOST_TEST(secret["data"].contains(key), key);
  BOOST_TEST(eventually([&] { return alive("root/group_source/group:fresh.default"); }, 20s));
  BOOST_TEST(eventually([&] { return !events_for("fresh", "CredentialsGenerated").empty(); }, 10s));
  // An edit (a new resolution) finds the Secret and leaves it as it is.
  auto edited = kube::update_with_retry(*c, mfg_resource, "default", "fresh", [](json& obj) {
    obj["spec"]["failureThreshold"] = 4;
    return true;
  });
  BOOST_REQUIRE(edited.ok());
  BOOST_TEST(eventually([&] { return alive("root/group_source/group:fresh.default"); }, 20s));
  std::this_thread::sleep_for(500ms);
  auto again = c->get(kube::resources::secrets, "default", "fresh-operator");
  BOOST_REQUIRE(again.ok());
  BOOST_TEST((*again)["data"] == secret["data"]);
  // Each of the group's two Secrets (operator credentials, keys) created exactly once.
  size_t creates = 0, token_creates = 0, others = 0;
  for (const auto& w : sim.writes()) {
    if (w.path.find("/secrets") == std::string::npos) continue;
    if (w.verb != "POST") {
      ++others;
      continue;
    }
    auto name = w.object["metadata"].value("name", "");
    if (name == "fresh-operator") ++creates;
    if (name == "mysql-fresh-keys") ++token_creates;
  }
  BOOST_TEST(creates == 1u);
  BOOST_TEST(token_creates == 1u);
  BOOST_TEST(others == 0u);
}

BOOST_AUTO_TEST_CASE(kubectl_apply_of_broken_groups_is_rejected_by_the_schema_or_reported_by_the_operator) {
  put_secret("cel-operator");
  start_source(source_options());
  br::kube_sim::test::temp_dir dir;
  const auto kubeconfig = sim.write_kubeconfig(dir.path.string());
  int n = 0;
  // The real kubectl, as a user would apply a manifest (JSON is YAML).
  auto apply = [&](const json& obj) -> std::pair<int, std::string> {
    auto file = dir.path / ("group-" + std::to_string(++n) + ".json");
    std::ofstream{file} << obj.dump(2);
    test::child_process p("/usr/bin/kubectl",
                          {"--kubeconfig", kubeconfig, "--cache-dir", (dir.path / "cache").string(),
                           "--request-timeout", "20s", "apply", "-f", file.string()},
                          {{"HOME", dir.path.string()}, {"KUBECONFIG", kubeconfig}});
    auto code = p.wait_exit(60s);
    BOOST_REQUIRE_MESSAGE(code.has_value(), "kubectl did not finish: " + p.output());
    return {*code, p.output()};
  };
  auto exists = [&](const std::string& name) { return c->get(mfg_resource, "default", name).ok(); };

  // Structural schema (the simulator checks types, required members and enums): rejected, with
  // the field path, and nothing stored.
  struct schema_case {
    std::string name, path, what;
    std::function<void(json&)> mutate;
  };
  std::vector<schema_case> cases = {
      {"bad-type", "spec.failureThreshold", "Invalid value",
       [](json& o) { o["spec"]["failureThreshold"] = "three"; }},
      {"bad-enum", "spec.sites[0].role", "Unsupported value",
       [](json& o) { o["spec"]["sites"][0]["role"] = "boss"; }},
      {"no-dns", "spec.dns", "Required value", [](json& o) { o["spec"].erase("dns"); }},
  };
  for (const auto& k : cases) {
    auto obj = group_object(k.name, json::array({site("iad"), site("pdx")}));
    k.mutate(obj);
    auto [code, out] = apply(obj);
    BOOST_TEST_CONTEXT(k.name << ": " << out) {
      BOOST_TEST(code != 0);
      BOOST_TEST(out.find(k.path) != std::string::npos);
      BOOST_TEST(out.find(k.what) != std::string::npos);
      BOOST_TEST(!exists(k.name));
    }
  }

  // A rule only CEL expresses (at least two primary-candidates): the simulator evaluates no CEL,
  // so kubectl's apply is stored, and the operator's own validation reports it with the path.
  auto cel = group_object("cel", json::array({site("iad"), site("pdx", "dr-only")}));
  auto [code, out] = apply(cel);
  BOOST_TEST_REQUIRE(code == 0, out);
  BOOST_REQUIRE(eventually([&] { return !ready_condition(get("cel")).is_null(); }, 20s));
  auto cond = ready_condition(get("cel"));
  BOOST_TEST(cond["reason"].get<std::string>() == "InvalidSpec");
  BOOST_TEST(cond["message"].get<std::string>().find("spec.sites: at least two sites must have role primary-candidate") !=
             std::string::npos, cond["message"]);
  BOOST_REQUIRE(eventually([&] { return !events_for("cel", "InvalidSpec").empty(); }, 10s));
  BOOST_TEST(events_for("cel", "InvalidSpec").front()["message"].get<std::string>().find("spec.sites") !=
             std::string::npos);
  BOOST_TEST(!alive("root/group_source/group:cel.default"));
  // The schema-rejected objects never reached the operator.
  for (const auto& k : cases) BOOST_TEST(events_for(k.name, "InvalidSpec").empty(), k.name);
}

BOOST_AUTO_TEST_CASE(hundred_identical_updates_cause_at_most_one_write) {
  create(group_object("burst", json::array({site("iad"), site("pdx")})));
  status_writer_options so;
  so.client = op;
  so.ns = "default";
  so.name = "burst";
  so.path = "test/status";
  auto writer = spawn_kube_status_writer(sys, so);
  auto count_status_writes = [&] {
    size_t n = 0;
    for (const auto& w : sim.writes())
      if (w.path.find("/mysqlfailovergroups/burst/status") != std::string::npos) ++n;
    return n;
  };
  json status = {{"activeSite", "iad"}, {"epoch", 3}, {"sites", json::array()}};
  for (int i = 0; i < 100; ++i) self->send(writer, status_atom::value, std::string("burst"), status.get<config::group_status>());
  BOOST_REQUIRE(eventually([&] { return get("burst").value("status", json::object()).value("epoch", 0) == 3; }, 10s));
  std::this_thread::sleep_for(1s);  // anything still queued would have been written by now
  BOOST_TEST(count_status_writes() == 1u);

  // The same status again (a fresh value, equal to the last): no write.
  self->send(writer, status_atom::value, std::string("burst"),
             json::parse(R"({"sites":[],"epoch":3,"activeSite":"iad"})").get<config::group_status>());
  std::this_thread::sleep_for(500ms);
  BOOST_TEST(count_status_writes() == 1u);

  // A real change is written once more.
  status["epoch"] = 4;
  self->send(writer, status_atom::value, std::string("burst"), status.get<config::group_status>());
  BOOST_TEST(eventually([&] { return get("burst")["status"].value("epoch", 0) == 4; }, 10s));
  // The simulator logs a write just after storing it: a read can see the object first.
  BOOST_TEST(eventually([&] { return count_status_writes() == 2u; }, 2s));
  BOOST_TEST(count_status_writes() == 2u);

  // A fresh writer (operator restart) finds the status already there: no write at all.
  auto second = spawn_kube_status_writer(sys, so);
  self->send(second, status_atom::value, std::string("burst"), status.get<config::group_status>());
  std::this_thread::sleep_for(1s);
  BOOST_TEST(count_status_writes() == 2u);
  self->send_exit(writer, caf::exit_reason::user_shutdown);
  self->send_exit(second, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_CASE(status_500s_delay_status_but_not_polling_or_failover) {
  put_secret("flaky-operator");
  // Mock MySQL: iad writable for its first probes, then refused; pdx a healthy replica that
  // becomes writable once promoted.
  struct mock_mysql {
    std::atomic<int> pdx_probes{0};
    std::atomic<bool> promoted{false};
  };
  auto mock = std::make_shared<mock_mysql>();
  const std::string gtid = "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-10";
  auto io = caf::actor_cast<site_io_actor>(sys.spawn([mock, gtid](caf::event_based_actor* self) {
    auto iad_probes = std::make_shared<int>(0);
    self->set_default_handler(caf::print_and_drop);
    return caf::behavior{[=](const mysql_command& cmd) -> mysql_outcome {
      const auto& site = cmd.target.site;
      if (cmd.op == mysql_op::probe) {
        if (site == "iad") return ++*iad_probes <= 8 ? test::writable_probe(gtid) : test::failed_probe();
        ++mock->pdx_probes;
        return mock->promoted ? test::writable_probe(gtid) : test::read_only_probe(gtid, true);
      }
      if (site == "pdx" && (cmd.op == mysql_op::promote || cmd.op == mysql_op::promote_switch))
        mock->promoted = true;
      mysql_outcome ok;
      ok.ok = true;
      if (cmd.op == mysql_op::read_gtid) ok.value = gtid;
      if (cmd.op == mysql_op::wait_executed) ok.value = "reached";
      return ok;
    }};
  }));

  // Every status write of this group fails with 500 from the start.
  std::atomic<int> refused{0};
  sim.set_failure_rule([&](const std::string& method, const std::string& path, const std::string&) {
    if (method != "GET" && path.find("/mysqlfailovergroups/flaky/status") != std::string::npos) {
      ++refused;
      return 500;
    }
    return 0;
  });
  start_source(source_options(io));
  create(group_object("flaky", json::array({site("iad"), site("pdx")})));

  // Failover proceeds: the durable state (ConfigMap) records a view that deposes iad.
  auto durable = [&]() -> durable_state {
    auto cm = c->get(kube::resources::configmaps, "default", state_configmap_name("flaky"));
    if (!cm) return {};
    auto d = durable_state_from_json(json::parse((*cm)["data"].value(state_configmap_key, "{}")));
    return d ? *d : durable_state{};
  };
  BOOST_REQUIRE(eventually(
      [&] {
        auto d = durable();
        return d.view.epoch >= 2 && d.view.active_site != "iad" && d.last_failover_ms > 0;
      },
      30s));
  auto d = durable();
  BOOST_TEST(d.last_failover_target == "pdx");
  // ... while every status write failed and the CR shows nothing of it.
  BOOST_TEST(refused.load() >= 2);
  BOOST_TEST(!get("flaky").value("status", json::object()).contains("epoch"));
  // The anti-flap annotations do not depend on the status path.
  BOOST_TEST(eventually(
      [&] {
        auto ann = get("flaky")["metadata"].value("annotations", json::object());
        return ann.value(annotation_last_failover_target, "") == "pdx";
      },
      10s));

  // The API server recovers: the status catches up with the durable view.
  sim.set_failure_rule({});
  BOOST_TEST(eventually(
      [&] {
        auto st = get("flaky").value("status", json::object());
        return st.value("epoch", uint64_t{0}) == durable().view.epoch &&
               st.value("lastFailoverTarget", "") == "pdx";
      },
      20s));
  self->request(root, 20s, stop_atom::value).receive([](bool) {}, [](caf::error&) {});
  root = nullptr;
  self->send_exit(io, caf::exit_reason::user_shutdown);
  BOOST_TEST(mock->promoted.load());
  BOOST_TEST(mock->pdx_probes.load() > 5);
}

BOOST_AUTO_TEST_CASE(the_reclone_annotation_is_taken_once_cleared_and_answered_with_an_event) {
  // `kubectl bloodraven reclone` writes the annotation; the operator removes it and hands it to the
  // group's coordinator, whose verdict is an Event. Here every site is unreachable, so there is no
  // active primary: a request is refused (nothing to clone from), and so is one for an unknown site.
  const std::string key = "bloodraven.shipstream.io/reclone-site";
  put_secret("orders-operator");
  start_source(source_options());
  create(group_object("orders", json::array({site("iad"), site("pdx")})));
  BOOST_REQUIRE(eventually([&] { return alive(group_path); }, 20s));

  auto annotate = [&](const std::string& value) {
    auto r = c->merge_patch(mfg_resource, "default", "orders",
                            {{"metadata", {{"annotations", {{key, value}}}}}});
    BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string{} : r.error().describe()));
  };
  auto annotation = [&] {
    return get("orders")["metadata"].value("annotations", json::object()).value(key, std::string{});
  };
  auto rejected_with = [&](const std::string& text) {
    for (const auto& e : events_for("orders", "RecloneRejected"))
      if (e.value("message", "").find(text) != std::string::npos) return true;
    return false;
  };

  annotate("pdx:confirm=orders");
  BOOST_TEST(eventually([&] { return rejected_with("no active primary to clone pdx from"); }, 20s));
  BOOST_TEST(eventually([&] { return annotation().empty(); }, 10s));

  annotate("ord:confirm=orders");
  BOOST_TEST(eventually([&] { return rejected_with("unknown site \"ord\""); }, 20s));
  BOOST_TEST(eventually([&] { return annotation().empty(); }, 10s));

  // Taken once: status writes keep the object moving, yet no request is answered twice.
  std::this_thread::sleep_for(2s);
  BOOST_TEST(events_for("orders", "RecloneRejected").size() == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
