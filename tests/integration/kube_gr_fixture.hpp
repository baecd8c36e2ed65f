// A Group Replication group in Kubernetes mode for integration tests: the API simulator under the
// chart's RBAC, a SIMULATED kubelet (tests/integration/kubelet_sim.hpp), the operator in process
// (its MySQL addresses overridden to the sandbox) and three real MySQL 9.7 members on the sandbox
// instances the test owns. Status accessors read the group object as kubectl would.
#pragma once

#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "actors/operator/kube/core/status_writer.hpp"
#include "actors/operator/kube/group_source.hpp"
#include "io/log/log.hpp"
#include "io/mysql/connection.hpp"
#include "tests/integration/kube_operator_fixture.hpp"
#include "tests/integration/kubelet_sim.hpp"
#include "tests/support/kube_sim/harness/cluster.hpp"
#include "tests/support/kube_sim/test_support.hpp"
#include "tests/support/mysql_sandbox.hpp"

namespace br::test {

inline const mysql_sandbox& gr_sandbox() {
  static const mysql_sandbox sb;
  return sb;
}

struct kube_gr_fixture : kube_operator_fixture {
  using json = nlohmann::json;

  const std::vector<int> instances;  ///< the sandbox instances this test owns, one per site
  const std::vector<std::string> sites;  ///< one per instance (default a, b, c)
  const std::string group;
  const std::string ns = "default";
  /// spec.tls (issue 26): members_up gives every server a sandbox certificate and
  /// require_secure_transport, the group gets `tls: {}`, and the operator's sessions verify
  /// against `tls_ca_dir`/<ns>/<group>/ca.crt (the test writes the sandbox CA there: SIMULATED,
  /// the group TLS controller does not run).
  bool tls = false;
  std::string tls_ca_dir;

  kube_gr_fixture(std::vector<int> ids, std::string name,
                  std::vector<std::string> site_names = {"a", "b", "c"})
      : kube_operator_fixture("default", ids, {"gr-stop", "stop", "gr-off"}),
        instances(std::move(ids)),
        sites(std::move(site_names)),
        group(std::move(name)) {}

  int instance_of(const std::string& site) const {
    for (std::size_t i = 0; i < sites.size(); ++i)
      if (sites[i] == site) return instances[i];
    return 0;
  }

  /// The member's group communication address: its MySQL listener (the MySQL stack).
  std::string address(int i) const { return "127.0.0.1:" + std::to_string(gr_sandbox().port(i)); }

  json group_object() const {
    json s = json::array();
    for (const auto& name : sites)
      s.push_back({{"name", name},
                   {"zone", "zone-" + name},
                   {"lbIP", "192.0.2." + std::to_string(instance_of(name) % 200)},
                   {"taintNodeSelector", {{"shipstream.io/site." + group, name}}},
                   {"storage", {{"size", "1Gi"}}},
                   {"groupReplication", {{"localAddress", address(instance_of(name))}}}});
    json o = {{"apiVersion", "shipstream.io/v1alpha1"},
            {"kind", "MysqlFailoverGroup"},
            {"metadata", {{"name", group}, {"namespace", ns}}},
            {"spec",
             {{"credentials", {{"operatorSecret", group + "-operator"}}},
              {"dns", {{"hostname", group + ".example.com"}, {"ttl", 30}}},
              {"pollInterval", "500ms"},
              {"replication",
               {{"user", "repl"}, {"password", "replpw"}, {"mode", "groupReplication"}}},
              {"sites", s}}}};
    if (tls) o["spec"]["tls"] = json::object();
    return o;
  }

  /// Fresh empty servers with the plugin loaded (OFFLINE); the operator account may run the
  /// group's commands (in a cluster the rendered init script grants it).
  void members_up() {
    std::vector<std::string> up{"up-ids"}, conf{"gr-config"};
    for (int i : instances) {
      gr_sandbox().run({"gr-stop", std::to_string(i)});
      up.push_back(std::to_string(i));
      conf.push_back(std::to_string(i));
    }
    gr_sandbox().must(up);
    gr_sandbox().must(conf);
    for (int i : instances) {
      if (tls) {
        gr_sandbox().must({"tls-cert", std::to_string(i)});
        gr_sandbox().must({"tls-config", std::to_string(i)});
      }
      gr_sandbox().reset(i);
      gr_sandbox().must({"sql", std::to_string(i),
                         "SET GLOBAL super_read_only=OFF; SET sql_log_bin=0; GRANT "
                         "GROUP_REPLICATION_ADMIN ON *.* TO 'bloodraven'@'%'; SET GLOBAL "
                         "super_read_only=ON"});
    }
  }

  /// CRDs, the operator Secret, the kubelet, the operator, then the group object.
  void start_group() {
    auto crds = cluster.install_crds();
    BOOST_TEST_REQUIRE(crds.empty(), crds);
    auto secret =
        cluster.create_operator_secret(ns, group + "-operator", "bloodraven", "bloodravenpw");
    BOOST_TEST_REQUIRE(secret.empty(), secret);
    kubelet->start();
    auto o = br::kube_sim::test::fast_group_source(
        cluster.client(br::kube_sim::test::operator_identity), op.io);
    std::vector<int> ids = instances;
    std::vector<std::string> names = sites;
    o.site_address = [ids, names](const std::string&, const std::string&, const std::string& s) {
      uint16_t port = 0;
      for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == s) port = gr_sandbox().port(ids[i]);
      return config::address_spec{"127.0.0.1", port};
    };
    o.sidecar_address = [](const std::string&, const std::string&, const std::string&) {
      return std::string{};
    };
    if (tls) o.tls_ca_dir = tls_ca_dir;
    op.start(sys, o);
    auto made = c->create(mfg_resource, ns, group_object());
    BOOST_TEST_REQUIRE(made.ok(), (made.ok() ? "" : made.error().describe()));
  }

  json object() {
    auto g = c->get(mfg_resource, ns, group);
    return g ? *g : json::object();
  }
  json status() { return object().value("status", json::object()); }
  json gr() { return status().value("groupReplication", json::object()); }
  std::string phase() { return gr().value("phase", ""); }

  std::string condition(const std::string& type) {
    for (const auto& cond : status().value("conditions", json::array()))
      if (cond.value("type", "") == type)
        return cond.value("status", "") + "/" + cond.value("reason", "");
    return "";
  }

  /// The number of Events of `reason` on the group (counts summed).
  size_t events(const std::string& reason) {
    auto r = c->list(kube::resources::events, ns);
    size_t n = 0;
    if (r)
      for (const auto& e : (*r)["items"])
        if (e["involvedObject"].value("name", "") == group && e.value("reason", "") == reason)
          n += e.value("count", 1);
    return n;
  }

  /// Row `v` written on the member as root over TCP (bounded by the session's timeouts); the
  /// id is `v`, so a retry of a write that did commit adds nothing.
  bool writes(const std::string& site, int v, const std::string& table = "q.t") {
    auto conn = mysql::connection::open(gr_sandbox().options(instance_of(site), "root"));
    if (!conn.ok()) return false;
    const auto n = std::to_string(v);
    return conn->exec("INSERT IGNORE INTO " + table + " (id, v) VALUES (" + n + ", " + n + ")").ok();
  }

  std::string rows(const std::string& site, const std::string& table = "q.t") {
    return gr_sandbox().sql(instance_of(site),
                            "SELECT COUNT(*), COALESCE(SUM(v), 0) FROM " + table);
  }

  /// status.groupReplication agrees on a view whose ONLINE members are exactly `want`.
  bool online(const std::set<std::string>& want) {
    auto g = gr();
    std::set<std::string> on;
    for (const auto& m : g.value("members", json::array()))
      if (m.value("state", "") == "ONLINE") on.insert(m.value("name", ""));
    return g.value("viewKnown", false) && on == want;
  }
};

}  // namespace br::test
