// needs_rollout: which edits roll which sites, and what never causes a rollout.
#include <boost/test/unit_test.hpp>

#include "config/render/names.hpp"
#include "config/render/rollout.hpp"
#include "tests/unit/render_test_util.hpp"

using namespace br::render;
using namespace render_test;

namespace {

using reasons = std::vector<std::string>;

std::map<std::string, json> deployments(const json& doc, const render_options& o = {}) {
  std::map<std::string, json> out;
  auto r = render(doc, o);
  for (const auto* d : of_kind(r.objects, "Deployment"))
    out[(*d)["metadata"]["labels"]["shipstream.io/site"]] = *d;
  return out;
}

/// What the API server adds to an applied Deployment and what the operator patches live.
json as_live(json d) {
  d["metadata"]["resourceVersion"] = "4711";
  d["metadata"]["uid"] = "dep-uid";
  d["metadata"]["generation"] = 3;
  d["metadata"]["creationTimestamp"] = "2025-01-01T00:00:00Z";
  d["metadata"]["labels"]["shipstream.io/role"] = "primary";
  d["spec"]["revisionHistoryLimit"] = 10;
  d["spec"]["progressDeadlineSeconds"] = 600;
  auto& pod = d["spec"]["template"]["spec"];
  pod["restartPolicy"] = "Always";
  pod["dnsPolicy"] = "ClusterFirst";
  for (auto& c : pod["containers"]) {
    c["terminationMessagePath"] = "/dev/termination-log";
    c["imagePullPolicy"] = "IfNotPresent";
  }
  d["spec"]["template"]["metadata"]["labels"]["shipstream.io/role"] = "primary";
  d["spec"]["template"]["metadata"]["labels"]["shipstream.io/healthy"] = "yes";
  d["status"] = {{"readyReplicas", 1}, {"observedGeneration", 3}};
  return d;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(render_rollout)

BOOST_AUTO_TEST_CASE(which_edits_roll_which_sites) {
  struct row {
    const char* what;
    std::function<void(json&)> edit;
    std::function<void(render_options&)> opts;
    std::map<std::string, reasons> want;  // sites not listed: no rollout
  };
  auto none = [](render_options&) {};
  auto all = [](reasons r) {
    return std::map<std::string, reasons>{{"iad", r}, {"pdx", r}, {"sea", r}};
  };
  const row rows[] = {
      {"no edit", [](json&) {}, none, {}},
      {"failoverCooldown", [](json& d) { d["spec"]["failoverCooldown"] = "10m"; }, none, {}},
      {"pollInterval", [](json& d) { d["spec"]["pollInterval"] = "5s"; }, none, {}},
      {"thresholds", [](json& d) { d["spec"]["failureThreshold"] = 5; }, none, {}},
      {"dns",
       [](json& d) {
         d["spec"]["dns"] = {{"hostname", "x.example.com"}, {"ttl", 5}};
       },
       none,
       {}},
      {"lbIP", [](json& d) { d["spec"]["sites"][0]["lbIP"] = "10.1.1.1"; }, none, {}},
      {"taintNodeSelector",
       [](json& d) {
         d["spec"]["sites"][1]["taintNodeSelector"]["node-pool"] = "db";
       },
       none,
       {}},
      {"splitBrainPolicy",
       [](json& d) { d["spec"]["splitBrainPolicy"]["preferSite"] = "pdx"; },
       none,
       {}},
      {"replication lag limit",
       [](json& d) { d["spec"]["replication"]["maxLagSeconds"] = 60; },
       none,
       {}},
      {"mysql image", [](json& d) { d["spec"]["image"] = "mysql:9.8"; }, none, all({"spec"})},
      {"sidecar lease", [](json& d) { d["spec"]["sidecar"]["leaseTimeout"] = "40s"; }, none,
       all({"spec"})},
      {"secret name", [](json& d) { d["spec"]["secretName"] = "other"; }, none, all({"spec"})},
      {"zone of one site",
       [](json& d) { d["spec"]["sites"][2]["zone"] = "us-west-2c"; },
       none,
       {{"sea", {"spec"}}}},
      {"group mysqlConf", [](json& d) { d["spec"]["mysqlConf"]["max_connections"] = "700"; }, none,
       all({"config"})},
      {"site mysqlConf",
       [](json& d) { d["spec"]["sites"][1]["mysqlConf"]["wait_timeout"] = "9"; },
       none,
       {{"pdx", {"config"}}}},
      {"spec sidecarImage", [](json& d) { d["spec"]["sidecarImage"] = "reg/sidecar:9"; }, none,
       all({"sidecar-image"})},
      {"operator default sidecar image", [](json&) {},
       [](render_options& o) { o.default_sidecar_image = "reg/sidecar:new"; },
       all({"sidecar-image"})},
      {"image and my.cnf together",
       [](json& d) {
         d["spec"]["image"] = "mysql:9.8";
         d["spec"]["mysqlConf"]["max_connections"] = "700";
       },
       none, all({"spec", "config"})},
      {"site removed: peers change",
       [](json& d) { d["spec"]["sites"].erase(2); },
       none,
       {{"iad", {"spec"}}, {"pdx", {"spec"}}}},
  };
  auto before = deployments(base_doc());
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      auto doc = base_doc();
      r.edit(doc);
      render_options o;
      r.opts(o);
      auto after = deployments(doc, o);
      for (const auto& [site, desired] : after) {
        auto d = needs_rollout(as_live(before.at(site)), desired);
        auto it = r.want.find(site);
        reasons want = it == r.want.end() ? reasons{} : it->second;
        BOOST_TEST(d.reasons == want, site << ": " << json(d.reasons).dump());
        BOOST_TEST(d.needed == !want.empty(), site);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(absent_and_obsolete_workloads) {
  auto desired = deployments(base_doc()).at("iad");
  auto absent = needs_rollout(json(nullptr), desired);
  BOOST_TEST(absent.needed);
  BOOST_TEST(absent.reasons == reasons{"absent"});

  auto old_version = as_live(desired);
  old_version["metadata"]["annotations"][std::string{annotation_reconciler_version}] = "0";
  BOOST_TEST(needs_rollout(old_version, desired).reasons == reasons{"reconciler-version"});

  // Created by something that did not record a spec hash: rolled once to take ownership.
  auto unannotated = as_live(desired);
  unannotated["metadata"]["annotations"].erase(std::string{annotation_spec_hash});
  BOOST_TEST(needs_rollout(unannotated, desired).reasons == reasons{"spec"});
}

BOOST_AUTO_TEST_CASE(spec_hash_ignores_live_labels_but_not_the_template) {
  auto d = deployments(base_doc()).at("iad");
  auto h = workload_spec_hash(d);
  BOOST_TEST(h == d["metadata"]["annotations"][std::string{annotation_spec_hash}]);
  auto relabelled = d;
  auto& labels = relabelled["spec"]["template"]["metadata"]["labels"];
  labels["shipstream.io/role"] = "primary";
  labels["shipstream.io/healthy"] = "yes";
  BOOST_TEST(workload_spec_hash(relabelled) == h);
  auto changed = d;
  changed["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = 61;
  BOOST_TEST(workload_spec_hash(changed) != h);
  auto other_label = d;
  other_label["spec"]["template"]["metadata"]["labels"]["team"] = "x";
  BOOST_TEST(workload_spec_hash(other_label) != h);
}

BOOST_AUTO_TEST_SUITE_END()
