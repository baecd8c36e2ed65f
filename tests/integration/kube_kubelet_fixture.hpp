// The operator on the process kubelet, for the Kubernetes end-to-end suites (label kubelet): the
// API simulator under the chart's RBAC, the process kubelet (tests/support/process_kubelet/) with
// the chart's operator Service standing for this process, the operator's group source and status
// API in this process, and what the suites look at (group status, MySQL as root over TCP).
// Needs root (the kubelet). Used by the kube_kubelet_*e2e*, _backup, _gr and _api_tls suites.
#pragma once

#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "actors/operator/api/operator_api.hpp"
#include "actors/operator/kube/core/generated_credentials.hpp"
#include "actors/operator/kube/core/kube_credentials.hpp"
#include "actors/operator/kube/core/status_writer.hpp"
#include "actors/operator/kube/group_source.hpp"
#include "io/http/server.hpp"
#include "io/log/log.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/kube_sim/harness/cluster.hpp"
#include "tests/support/kube_sim/harness/root_query.hpp"
#include "tests/support/kube_sim/test_support.hpp"
#include "tests/support/process_kubelet/kubelet.hpp"
#include "tests/support/temp_dir.hpp"

namespace br::test::kubelet_e2e {

using nlohmann::json;
using namespace std::chrono_literals;
namespace kl = br::test::kubelet;

/// The operator's log lines, kept for failure messages (the last 30000 characters shown).
struct log_capture {
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::string& text() {
    static std::string t;
    return t;
  }
  static void sink(const std::string& line) {
    std::lock_guard<std::mutex> g(mutex());
    text() += line;
    text() += '\n';
  }
  static std::string tail() {
    std::lock_guard<std::mutex> g(mutex());
    const auto& t = text();
    return t.size() > 30000 ? t.substr(t.size() - 30000) : t;
  }
};

inline bool eventually(const std::function<bool()>& pred, std::chrono::seconds timeout) {
  return br::test::eventually(pred, timeout, 250ms);
}

/// A group of primary-candidate sites on 1 Gi PVCs in "default" with the suites' polling and
/// sidecar timings; site i's lbIP is `lb_prefix` followed by i (from 1). No node carries the
/// sites' taints here. The caller adds to spec what its test is about.
inline json kubelet_group_object(const std::string& group, const std::vector<std::string>& sites,
                                 const std::string& lb_prefix) {
  json list = json::array();
  for (const auto& s : sites)
    list.push_back({{"name", s},
                    {"role", "primary-candidate"},
                    {"zone", "zone-" + s},
                    {"taintNodeSelector", {{"shipstream.io/site." + group, s}}},
                    {"lbIP", lb_prefix + std::to_string(list.size() + 1)},
                    {"storage", {{"size", "1Gi"}}}});
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlFailoverGroup"},
          {"metadata", {{"name", group}, {"namespace", "default"}}},
          {"spec",
           {{"credentials", {{"operatorSecret", group + "-operator"}}},
            {"dns", {{"hostname", group + ".example.com"}, {"ttl", 30}}},
            // 3 missed polls of 500 ms: two (of 250 ms) were missed by a healthy primary while
            // a lost PVC's replacement initialised beside it, and it was failed over for that.
            {"pollInterval", "500ms"},
            {"failureThreshold", 3},
            {"recoveryThreshold", 1},
            {"cloneTimeout", 300},
            // A 4 s lease let the new primary's in-database dead man's switch fire on a starved
            // host (another MySQL suite beside it); 8 s keeps the scenarios about their paths.
            {"sidecar", {{"leaseTimeout", "8s"}, {"peerCheckInterval", "1s"}, {"fenceTimeout", "5s"}}},
            {"sites", list}}}};
}

struct operator_on_kubelet {
  const std::string group;
  const std::string ns = "default";
  const std::vector<std::string> sites;
  // The operator ("operator-0") runs as the chart's ServiceAccount: what its RBAC does not
  // grant is refused with 403 (checked at the end: no denials).
  br::kube_sim::test::sim_cluster cluster;
  br::kube_sim::simulator& sim = cluster.sim;
  std::shared_ptr<kube::client> c = cluster.client("test");  // the test's own client
  std::unique_ptr<kl::process_kubelet> kubelet;
  uint16_t op_port = br::test::free_port();
  std::unique_ptr<caf::actor_system_config> cfg;
  std::unique_ptr<caf::actor_system> sys;
  std::unique_ptr<caf::scoped_actor> self;
  br::kube_sim::test::operator_actors op;
  std::shared_ptr<group_table> groups = std::make_shared<group_table>();
  std::unique_ptr<http::server> api;
  br::test::temp_dir dir{"br-kubelet-e2e"};
  std::map<std::string, std::string> creds;  // the generated operator Secret
  /// The APIs over mutual TLS (issue 26), set before start(): the operator's API served with
  /// these files (client certificates required), its calls to the sidecars over HTTPS, the pods
  /// rendered with their site's API Secret (render_options::api_tls). Off: plain HTTP.
  config::api_tls_settings api_tls;
  /// Containers whose log tails are printed at the end of a test: (Deployment, container).
  std::vector<std::pair<std::string, std::string>> shown_logs;

  /// `more_host_services`: other Services standing for processes on the host.
  operator_on_kubelet(std::string g, std::vector<std::string> s,
                      std::vector<kl::options::host_service> more_host_services = {})
      : group(std::move(g)), sites(std::move(s)) {
    log::set_level(std::getenv("BR_TEST_DEBUG") ? log::level::debug : log::level::info);
    log::set_sink(log_capture::sink);
    auto o = kl::options::from_test_env();
    o.ns = ns;
    // The chart's operator Service, standing for this process: sidecars reach its API there.
    o.host_services.push_back({"bloodraven", ns, 8082, op_port});
    for (auto& h : more_host_services) o.host_services.push_back(std::move(h));
    kubelet = std::make_unique<kl::process_kubelet>(cluster.client("process-kubelet"), o);
    for (const auto& site : sites)
      for (const char* cn : {"init-datadir", "mysql", "sidecar"}) shown_logs.emplace_back(dep(site), cn);
  }

  ~operator_on_kubelet() {
    if (sys) {
      op.stop(*self);
      groups->drop_handles();
      if (api) api->stop();
    }
    if (boost::unit_test::framework::current_test_case().p_name.get().size()) {
      for (const auto& [d, cn] : shown_logs) {
        auto log = kubelet->container_log(d, cn);
        if (log.size() > 6000) log = log.substr(log.size() - 6000);
        BOOST_TEST_MESSAGE("---- " << d << "/" << cn << " log tail ----\n" << log);
      }
    }
    kubelet->stop();
    auto denied = cluster.denials();
    BOOST_TEST(denied.empty(), "operator requests refused by the chart's RBAC:\n" << denied);
    self.reset();
    sys.reset();
    log::set_sink(nullptr);
    log::set_level(log::level::warn);
  }

  std::string dep(const std::string& site) const { return "mysql-" + group + "-" + site; }
  std::string pvc(const std::string& site) const { return dep(site) + "-data"; }
  std::string primary_service() const { return "mysql-" + group + "-primary." + ns + ".svc.cluster.local"; }

  /// The kubelet, this thread's view of the cluster DNS, then the actor system (its threads
  /// inherit that view), the operator's API on every address (the pods reach it through the
  /// "bloodraven" host Service) and the group source.
  void start() {
    BOOST_TEST_REQUIRE(kubelet->start(), "kubelet: " << kubelet->error());
    std::string err;
    BOOST_TEST_REQUIRE(kl::use_cluster_dns(kubelet->hosts_file(), err), err);
    cfg = std::make_unique<caf::actor_system_config>();
    sys = std::make_unique<caf::actor_system>(*cfg);
    self = std::make_unique<caf::scoped_actor>(*sys);
    op.spawn(*sys);
    operator_api_options ao;
    ao.groups = groups;
    ao.client_certificates = api_tls.on();
    http::router r;
    install_operator_routes(r, *sys, ao);
    http::server_options so;
    so.address = "0.0.0.0";
    so.port = op_port;
    if (api_tls.on()) {
      so.tls_cert_file = api_tls.cert_file;
      so.tls_key_file = api_tls.key_file;
      so.tls_client_ca_file = api_tls.ca_file;
      so.tls_require_client_cert = api_tls.require_client_cert;
    }
    api = std::make_unique<http::server>(so, r);
    BOOST_TEST_REQUIRE(api->start() == op_port);

    auto o = br::kube_sim::test::fast_group_source(cluster.client(br::kube_sim::test::operator_identity), op.io);
    o.groups = groups;
    o.api_tls = api_tls;
    o.render.api_tls = api_tls.on();
    o.reconcile_interval = 1s;
    o.reconcile_busy_interval = 500ms;
    op.start(*sys, o);
  }

  json status() {
    auto g = c->get(mfg_resource, ns, group);
    return g ? (*g).value("status", json::object()) : json::object();
  }
  std::string active() { return status().value("activeSite", ""); }
  json site_status(const std::string& s) {
    for (const auto& e : status().value("sites", json::array()))
      if (e.value("name", "") == s) return e;
    return json::object();
  }

  std::string pod_ip(const std::string& s) { return kubelet->pod_ip(dep(s)); }

  /// One value as root over TCP ("" when it cannot be had); the root password is the generated
  /// Secret's. Only for looking, and for faults.
  std::string q(const std::string& host, const std::string& sql) {
    if (creds.empty()) {
      auto s = c->get(kube::resources::secrets, ns, group + "-operator");
      if (!s) return "";
      creds = secret_data(*s);
    }
    return br::kube_sim::test::root_scalar(host, creds["MYSQL_ROOT_PASSWORD"], sql);
  }
  std::string qs(const std::string& s, const std::string& sql) { return q(pod_ip(s), sql); }

  /// Replicating from `source`'s Service name with both threads on.
  bool replicating_ok(const std::string& s, const std::string& source) {
    const auto row = qs(s, "SELECT CONCAT(c.HOST, ' ', s.SERVICE_STATE, ' ', a.SERVICE_STATE) FROM "
                           "performance_schema.replication_connection_configuration c JOIN "
                           "performance_schema.replication_connection_status s USING (CHANNEL_NAME) JOIN "
                           "performance_schema.replication_applier_status a USING (CHANNEL_NAME)");
    return row.starts_with(dep(source) + ".") && row.ends_with(" ON ON");
  }

  /// Create the group and start the operator; returns once status.bootstrap is Done (the active
  /// site found, every other site replicating from it).
  std::string bootstrap(const json& group_object, std::chrono::seconds timeout,
                        const std::function<std::string()>& describe) {
    auto made = c->create(mfg_resource, ns, group_object);
    BOOST_TEST_REQUIRE(made.ok(), "create the group: " << (made.ok() ? "" : made.error().describe()));
    start();
    BOOST_TEST_REQUIRE(eventually([&] { return status().value("bootstrap", json::object()).value("phase", "") == "Done"; },
                                  timeout),
                       "no bootstrap: " << describe());
    const std::string first = active();
    BOOST_TEST_REQUIRE(!first.empty(), describe());
    for (const auto& s : sites)
      if (s != first)
        BOOST_TEST_REQUIRE(eventually([&] { return replicating_ok(s, first); }, 60s),
                           s << " not replicating: " << describe());
    return first;
  }

  void phase(const char* what, std::chrono::steady_clock::time_point since) {
    BOOST_TEST_MESSAGE(what << ": " << std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count()
                            << " s");
  }
};

}  // namespace br::test::kubelet_e2e
