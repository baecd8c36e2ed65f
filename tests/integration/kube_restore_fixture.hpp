// The fixture of the restore suites on the API SIMULATOR (integration_kube_restore,
// integration_kube_restore_in_place): the chart's RBAC, the group source with its coordinators
// over a MOCK site_io (no MySQL runs: `mock_mysql` answers as the sites' servers would), the
// restore controller, and the pieces of a cluster the test plays (a MysqlBackup that Succeeded,
// a ready Deployment, a Job's pod and its termination message).
#pragma once

#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "actors/operator/kube/backup/backup_controller.hpp"
#include "actors/operator/kube/restore/restore_controller.hpp"
#include "actors/operator/kube/restore/restore_in_place_pass.hpp"
#include "io/log/log.hpp"
#include "tests/support/kube_sim/harness/cluster.hpp"
#include "tests/support/kube_sim/test_support.hpp"
#include "tests/support/recording_platform.hpp"

namespace br::test::restore_fixture_detail {

using nlohmann::json;
using namespace std::chrono_literals;
namespace res = br::backup_ctl::resources;


inline const std::string ns = "default";
inline const std::string gtid = "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-23";

inline json site(const std::string& group, const std::string& name) {
  return {{"name", name},
          {"zone", "z-" + name},
          {"lbIP", "192.0.2.1"},
          {"taintNodeSelector", {{"shipstream.io/site." + group, name}}},
          {"storage", {{"size", "1Gi"}}}};
}

/// A group with sites `sites`, an S3 backup profile and PITR, and spec.<field> = `value`.
inline json group_object(const std::string& name, const std::string& field, json value,
                         const std::vector<std::string>& sites = {"a", "b"}) {
  json site_list = json::array();
  for (const auto& s : sites) site_list.push_back(site(name, s));
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlFailoverGroup"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec",
           {{"credentials", {{"operatorSecret", name + "-operator"}}},
            {"dns", {{"hostname", name + ".example.com"}}},
            {"sites", std::move(site_list)},
            {"backup",
             {{"profiles",
               json::array({{{"name", "s3"},
                             {"storage",
                              {{"type", "S3"},
                               {"s3", {{"bucket", "bk"}, {"prefix", "prod"}, {"credentialsSecret", "aws"},
                                       {"endpointURL", "http://s3.test:9000"}, {"forcePathStyle", true}}}}}}})},
              {"pitr", {{"enabled", true}, {"profileName", "s3"}}}}},
            {field, std::move(value)}}}};
}

/// MySQL as the coordinator sees it, per "<group>-<site>" host: fenced and empty until the test
/// says otherwise; a promotion makes the site writable and is counted.
struct mock_mysql {
  std::mutex m;
  std::map<std::string, std::string> gtid;  // host -> gtid_executed
  std::set<std::string> writable;
  std::set<std::string> channel;  // read-only hosts that replicate
  std::vector<std::string> promoted;  // hosts, in order
  std::vector<std::string> clones;    // recipient hosts
  std::set<std::string> stuck;        // hosts whose STOP REPLICA fails (they go on replicating)
  std::map<std::string, int> stops;   // STOP REPLICA asked, per host

  mysql_outcome handle(const mysql_command& cmd) {
    std::lock_guard l{m};
    const auto& h = cmd.target.host;
    if (cmd.op == mysql_op::probe)
      return writable.count(h) ? test::writable_probe(gtid[h]) : test::read_only_probe(gtid[h], channel.count(h) > 0);
    mysql_outcome ok;
    ok.ok = true;
    switch (cmd.op) {
      case mysql_op::promote:
      case mysql_op::promote_switch:
        writable.insert(h);
        promoted.push_back(h);
        ok.value = "armed";
        break;
      case mysql_op::ensure_switch: ok.value = "armed"; break;
      case mysql_op::fence: writable.erase(h); break;
      case mysql_op::stop_replica:
        ++stops[h];
        if (stuck.count(h)) {
          mysql_outcome bad;
          bad.error = "Lock wait timeout (test: stuck)";
          return bad;
        }
        channel.erase(h);
        break;
      case mysql_op::start_replica: channel.insert(h); break;
      case mysql_op::read_gtid: ok.value = gtid[h]; break;
      case mysql_op::show_grants: ok.value = "GRANT ALL PRIVILEGES ON *.* TO `op`@`%`"; break;
      case mysql_op::wait_executed: ok.value = "reached"; break;
      case mysql_op::heartbeat: ok.value = "refreshed"; break;
      case mysql_op::clone:  // a CLONE leaves the recipient with the donor's data and set
        clones.push_back(h);
        channel.insert(h);
        if (gtid.count(cmd.source.host)) gtid[h] = gtid[cmd.source.host];
        break;
      default: break;
    }
    return ok;
  }
  int stops_of(const std::string& host) {
    std::lock_guard l{m};
    return stops[host];
  }
  std::vector<std::string> cloned() {
    std::lock_guard l{m};
    return clones;
  }
  bool is_writable(const std::string& host) {
    std::lock_guard l{m};
    return writable.count(host) > 0;
  }
  size_t promotions() {
    std::lock_guard l{m};
    return promoted.size();
  }
  std::vector<std::string> promoted_hosts() {
    std::lock_guard l{m};
    return promoted;
  }
  void set(const std::string& host, const std::string& g, bool w) {
    std::lock_guard l{m};
    gtid[host] = g;
    if (w) writable.insert(host);
    else writable.erase(host);
  }
};

template <class R>
inline std::string why(const R& r) {
  return r.ok() ? std::string{} : r.error().describe();
}

struct restore_fixture {
  br::kube_sim::test::sim_cluster cluster;  // the chart's RBAC for the operator's identity
  std::shared_ptr<kube::client> c = cluster.client("test");
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  br::kube_sim::test::operator_actors op;
  std::shared_ptr<mock_mysql> mock = std::make_shared<mock_mysql>();
  ticking_actor controller;
  std::chrono::milliseconds fencing_deadline{std::chrono::minutes(5)};

  restore_fixture() {
    log::set_level(log::level::warn);
    must(cluster.install_crds());  // with the DNSEndpoint CRD: the bootstrap steers DNS
    must(cluster.create(kube::resources::crds, "",
                        br::kube_sim::test::yaml_to_json(YAML::LoadFile(br::kube_sim::test::source_path(
                            "charts/bloodraven/crds/shipstream.io_mysqlbackups.yaml")))));
  }

  void start(const std::vector<std::string>& groups, bool reconcile = false) {
    for (const auto& g : groups) must(cluster.create_operator_secret(ns, g + "-operator", "op", "pw"));
    start_operator(reconcile);
    start_controller();
  }

  /// The group source (its coordinators over `mock`); `reconcile` false: the test plays the
  /// target's Deployment, true: the reconciler applies the rendered objects and writes the pod
  /// labels (a kubelet simulation must then make the pods).
  void start_operator(bool reconcile) {
    op.spawn(sys, false);
    auto m = mock;
    op.io = caf::actor_cast<site_io_actor>(sys.spawn([m](caf::event_based_actor* s) {
      s->set_default_handler(caf::print_and_drop);
      return caf::behavior{[m](const mysql_command& cmd) -> mysql_outcome { return m->handle(cmd); }};
    }));
    auto o = br::kube_sim::test::fast_group_source(cluster.client(br::kube_sim::test::operator_identity), op.io);
    o.reconcile = reconcile;
    o.site_address = [](const std::string&, const std::string& g, const std::string& s) {
      return config::address_spec{g + "-" + s, 3306};
    };
    o.sidecar_address = {};
    op.start(sys, o);
  }

  /// The restore controller, its in-place requests going to the running group source.
  void start_controller() {
    restore_ctl::controller_options ro;
    ro.client = cluster.client(br::kube_sim::test::operator_identity);
    ro.interval = 150ms;
    ro.fencing_deadline = fencing_deadline;
    ro.render.image = "bloodraven:test";
    ro.render.site_address = [](const std::string& n, const std::string& g, const std::string& s) {
      return "mysql-" + g + "-" + s + "." + n + ".svc:3306";
    };
    group_source_actor source;
    self->request(op.root, 5s, child_atom::value, std::string("group_source"))
        .receive([&](caf::actor& a) { source = caf::actor_cast<group_source_actor>(a); },
                 [](caf::error&) {});
    BOOST_TEST_REQUIRE(static_cast<bool>(source));
    ro.ask_group = restore_ctl::ask_through(sys, source, 5s);
    controller = restore_ctl::spawn_restore_controller(sys, ro);
  }

  /// The operator process ends (controller, group source, coordinators, site_io); what it wrote
  /// to the API stays.
  void stop_operator() {
    if (controller) {
      caf::anon_send_exit(controller, caf::exit_reason::user_shutdown);
      self->wait_for(controller);
      controller = nullptr;
    }
    op.stop(self);
    op = {};
  }

  ~restore_fixture() {
    if (controller) {
      caf::anon_send_exit(controller, caf::exit_reason::user_shutdown);
      self->wait_for(controller);
    }
    op.stop(self);
    auto denied = cluster.denials();
    BOOST_TEST(denied.empty(), "operator requests refused by the chart's RBAC:\n" << denied);
  }

  void must(const std::string& error) { BOOST_TEST_REQUIRE(error.empty(), error); }

  json get(const kube::resource_ref& r, const std::string& name) {
    auto got = c->get(r, ns, name);
    return got ? *got : json(nullptr);
  }
  json status(const std::string& group) {
    auto g = get(kube::resources::mysqlfailovergroups, group);
    return g.is_object() ? g.value("status", json::object()) : json::object();
  }
  json restore(const std::string& group) { return status(group).value("restore", json::object()); }

  std::vector<json> events(const std::string& name, const std::string& reason) {
    std::vector<json> out;
    auto r = c->list(kube::resources::events, ns);
    if (!r) return out;
    for (const auto& e : (*r)["items"])
      if (e["involvedObject"].value("name", "") == name && e.value("reason", "") == reason)
        out.push_back(e);
    return out;
  }

  void succeeded_backup(const std::string& name, const std::string& group) {
    must(cluster.create(res::mysqlbackups, ns,
                        {{"apiVersion", "shipstream.io/v1alpha1"},
                         {"kind", "MysqlBackup"},
                         {"metadata", {{"name", name}}},
                         {"spec", {{"failoverGroupRef", {{"name", group}}}, {"profileName", "s3"}}}}));
    auto s = c->merge_patch(res::mysqlbackups, ns, name,
                            {{"status", {{"phase", "Succeeded"}, {"startTime", "2026-01-01T00:00:00Z"},
                                         {"completionTime", "2026-01-01T00:01:00Z"}, {"sizeBytes", 1048576},
                                         {"location", "s3://bk/prod/" + name + "/"}}}},
                            "status");
    BOOST_TEST_REQUIRE(s.ok(), why(s));
  }

  /// The target's Deployment, rolled out and ready (what kubelet and the Deployment controller
  /// would report).
  void ready_deployment(const std::string& group, const std::string& s) {
    const std::string name = "mysql-" + group + "-" + s;
    must(cluster.create(kube::resources::deployments, ns,
                        {{"apiVersion", "apps/v1"},
                         {"kind", "Deployment"},
                         {"metadata", {{"name", name}, {"namespace", ns}}},
                         {"spec",
                          {{"selector", {{"matchLabels", {{"app", name}}}}},
                           {"template",
                            {{"metadata", {{"labels", {{"app", name}}}}},
                             {"spec", {{"containers", json::array({{{"name", "mysql"}, {"image", "mysql:9.7"}}})}}}}}}}}));
    auto p = c->merge_patch(kube::resources::deployments, ns, name,
                            {{"status", {{"readyReplicas", 1}, {"replicas", 1}, {"observedGeneration", 1}}}},
                            "status");
    BOOST_TEST_REQUIRE(p.ok(), why(p));
  }

  /// The Job controller and kubelet, played: the Job's pod ended with `message` in its
  /// termination log, and the Job is Complete (or Failed).
  void finish_job(const std::string& group, const std::string& job, bool ok, const std::string& message,
                  const std::string& component = "restore") {
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata",
                 {{"name", job + "-x1"},
                  {"namespace", ns},
                  {"labels", {{"shipstream.io/restore", group}, {"app.kubernetes.io/component", component},
                              {"job-name", job}}}}},  // as the Job controller labels its pods
                {"spec", {{"containers", json::array({{{"name", "restore"}, {"image", "bloodraven:test"}}})}}}};
    must(cluster.create(kube::resources::pods, ns, pod));
    auto p = c->merge_patch(
        kube::resources::pods, ns, job + "-x1",
        {{"status",
          {{"phase", ok ? "Succeeded" : "Failed"},
           {"containerStatuses",
            json::array({{{"name", "restore"},
                          {"state", {{"terminated", {{"exitCode", ok ? 0 : 1}, {"message", message},
                                                     {"finishedAt", "2026-01-01T00:11:00Z"}}}}}}})}}}},
        "status");
    BOOST_TEST_REQUIRE(p.ok(), why(p));
    json st = ok ? json{{"succeeded", 1}, {"conditions", json::array({{{"type", "Complete"}, {"status", "True"}}})}}
                 : json{{"failed", 1},
                        {"conditions", json::array({{{"type", "Failed"}, {"status", "True"},
                                                     {"reason", "BackoffLimitExceeded"}}})}};
    auto j = c->merge_patch(res::jobs, ns, job, {{"status", st}}, "status");
    BOOST_TEST_REQUIRE(j.ok(), why(j));
  }
};


}  // namespace br::test::restore_fixture_detail
