// Pods a user can run: resources, labels, tolerations, affinity, security contexts and Service
// templates. One table row per rule, each with its exact field path (acceptance: broken specs
// are rejected with the field path), plus quantity parsing and the canonical JSON round trip.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <functional>

#include "config/failover_group.hpp"
#include "config/group_validate.hpp"
#include "config/yaml_json.hpp"
#include "tests/unit/config_spec_test_util.hpp"

using namespace br::config;
using config_spec_test::find_error;
using json = nlohmann::json;

namespace {

std::string dump(const field_errors& errs) {
  return errs.empty() ? "(none)" : to_string(errs);
}

json base() {
  field_errors errs;
  auto j = yaml_to_json(config_spec_test::kube_base_yaml, errs);
  BOOST_TEST_REQUIRE(errs.empty(), dump(errs));
  return j;
}

field_errors load(const json& doc) {
  auto res = parse_group(doc);
  auto more = validate(res.group, run_mode::kubernetes);
  res.errors.insert(res.errors.end(), more.begin(), more.end());
  return res.errors;
}

struct row {
  const char* rule;
  const char* pointer;  // JSON pointer set to `value`
  json value;
  const char* path;      // "" means: must validate cleanly
  const char* fragment;  // expected in the message
};

json res(json requests, json limits = json::object()) {
  json r = json::object();
  if (!requests.empty()) r["requests"] = requests;
  if (!limits.empty()) r["limits"] = limits;
  return r;
}

json svc(json spec, json metadata = json::object()) {
  json t = {{"spec", spec}};
  if (!metadata.empty()) t["metadata"] = metadata;
  return t;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(config_spec_pods)

BOOST_AUTO_TEST_CASE(every_pod_rule_reports_its_path) {
  const row rows[] = {
      // Resources: names, quantities, sign, request <= limit; group, site and sidecar paths.
      {"resources ok", "/spec/resources",
       res({{"cpu", "500m"}, {"memory", "1Gi"}}, {{"cpu", "2"}, {"memory", "1Gi"}}), "", ""},
      {"exponent quantity", "/spec/resources", res({{"memory", "1e3"}, {"cpu", ".5"}}), "", ""},
      {"extended resource", "/spec/resources", res({{"example.com/fpga", "1"}}), "", ""},
      {"hugepages", "/spec/resources", res({{"hugepages-2Mi", "64Mi"}}), "", ""},
      {"unknown resource name", "/spec/resources", res({{"gpu", "1"}}), "spec.resources.requests[gpu]",
       "unknown resource \"gpu\""},
      {"kubernetes.io resource", "/spec/resources", res({{"kubernetes.io/foo", "1"}}),
       "spec.resources.requests[kubernetes.io/foo]", "unknown resource"},
      {"unknown unit", "/spec/resources", res({}, {{"memory", "1GB"}}),
       "spec.resources.limits[memory]", "invalid quantity \"1GB\""},
      {"unit with space", "/spec/resources", res({{"memory", "1 Gi"}}),
       "spec.resources.requests[memory]", "invalid quantity"},
      {"empty quantity", "/spec/resources", res({{"cpu", ""}}), "spec.resources.requests[cpu]",
       "invalid quantity"},
      {"negative limit", "/spec/resources", res({}, {{"cpu", "-1"}}), "spec.resources.limits[cpu]",
       "must not be negative, got \"-1\""},
      {"negative request", "/spec/sidecarResources", res({{"memory", "-64Mi"}}),
       "spec.sidecarResources.requests[memory]", "must not be negative"},
      {"request above limit", "/spec/resources", res({{"memory", "2Gi"}}, {{"memory", "1000Mi"}}),
       "spec.resources.requests[memory]", "request \"2Gi\" is greater than the limit \"1000Mi\""},
      {"fractional extended", "/spec/resources", res({{"example.com/fpga", "500m"}}),
       "spec.resources.requests[example.com/fpga]", "whole numbers"},
      {"site resources", "/spec/sites/1/resources", res({}, {{"cpu", "1x"}}),
       "spec.sites[1].resources.limits[cpu]", "invalid quantity \"1x\""},
      {"resources claims", "/spec/resources", {{"claims", json::array()}}, "spec.resources.claims",
       "does not support yet"},
      {"resources unknown member", "/spec/resources", {{"request", {{"cpu", "1"}}}},
       "spec.resources.request", "unknown field"},
      // Pod labels and annotations: syntax, and never the operator's own keys.
      {"pod labels ok", "/spec/podLabels", {{"team", "payments"}, {"example.com/tier", "db"}}, "",
       ""},
      {"pod label operator key", "/spec/podLabels", {{"shipstream.io/role", "primary"}},
       "spec.podLabels[shipstream.io/role]", "reserved: the operator sets this label"},
      {"pod label app name", "/spec/podLabels", {{"app.kubernetes.io/name", "x"}},
       "spec.podLabels[app.kubernetes.io/name]", "reserved"},
      {"pod label bad value", "/spec/podLabels", {{"team", "a b"}}, "spec.podLabels[team]",
       "invalid label value"},
      {"pod label bad key", "/spec/podLabels", {{"-team", "a"}}, "spec.podLabels[-team]",
       "invalid key"},
      {"pod annotation operator key", "/spec/podAnnotations",
       {{"bloodraven.shipstream.io/reconciler-version", "9"}},
       "spec.podAnnotations[bloodraven.shipstream.io/reconciler-version]", "reserved"},
      {"pod annotation free value", "/spec/podAnnotations", {{"note", "any text: ok"}}, "", ""},
      // Tolerations.
      {"toleration ok", "/spec/tolerations",
       json::array({{{"key", "dedicated"}, {"operator", "Equal"}, {"value", "db"},
                     {"effect", "NoExecute"}, {"tolerationSeconds", 30}}}),
       "", ""},
      {"toleration exists with value", "/spec/tolerations",
       json::array({{{"key", "k"}, {"operator", "Exists"}, {"value", "v"}}}),
       "spec.tolerations[0].value", "must be empty when operator is \"Exists\""},
      {"toleration bad operator", "/spec/tolerations", json::array({{{"key", "k"}, {"operator", "In"}}}),
       "spec.tolerations[0].operator", "unsupported value \"In\""},
      {"toleration bad effect", "/spec/tolerations", json::array({{{"key", "k"}, {"effect", "Evict"}}}),
       "spec.tolerations[0].effect", "unsupported value \"Evict\""},
      {"toleration seconds without NoExecute", "/spec/tolerations",
       json::array({{{"key", "k"}, {"tolerationSeconds", 5}}}),
       "spec.tolerations[0].tolerationSeconds", "only allowed with effect \"NoExecute\""},
      {"toleration empty key", "/spec/tolerations", json::array({{{"value", "v"}}}),
       "spec.tolerations[0].key", "required unless operator is \"Exists\""},
      {"tolerations not array", "/spec/tolerations", {{"key", "k"}}, "spec.tolerations",
       "expected array"},
      // Affinity, priority class, security contexts: passed through, shape-checked.
      {"affinity ok", "/spec/affinity", {{"nodeAffinity", json::object()}}, "", ""},
      {"affinity not object", "/spec/affinity", json::array(), "spec.affinity", "expected object"},
      {"affinity unknown member", "/spec/affinity", {{"nodeAffinty", json::object()}},
       "spec.affinity.nodeAffinty", "unknown field"},
      {"priorityClassName bad", "/spec/priorityClassName", "High_Prio", "spec.priorityClassName",
       "expected a DNS subdomain"},
      {"priorityClassName ok", "/spec/priorityClassName", "db-critical", "", ""},
      {"podSecurityContext not object", "/spec/podSecurityContext", "root",
       "spec.podSecurityContext", "expected object"},
      {"containerSecurityContext not object", "/spec/containerSecurityContext", 1,
       "spec.containerSecurityContext", "expected object"},
      {"podSecurityContext ok", "/spec/podSecurityContext", {{"runAsUser", 1001}}, "", ""},
      // Service templates: primary, replica and per-site.
      {"primary LoadBalancer", "/spec/primaryServiceTemplate",
       svc({{"type", "LoadBalancer"}, {"externalTrafficPolicy", "Local"}},
           {{"annotations", {{"service.beta.kubernetes.io/aws-load-balancer-internal", "true"}}}}),
       "", ""},
      {"bad service type", "/spec/primaryServiceTemplate", svc({{"type", "ExternalName"}}),
       "spec.primaryServiceTemplate.spec.type", "unsupported value \"ExternalName\""},
      {"externalTrafficPolicy on ClusterIP", "/spec/replicaServiceTemplate",
       svc({{"externalTrafficPolicy", "Local"}}),
       "spec.replicaServiceTemplate.spec.externalTrafficPolicy",
       "only allowed for type LoadBalancer or NodePort"},
      {"bad externalTrafficPolicy", "/spec/replicaServiceTemplate",
       svc({{"type", "NodePort"}, {"externalTrafficPolicy", "Global"}}),
       "spec.replicaServiceTemplate.spec.externalTrafficPolicy", "unsupported value \"Global\""},
      {"extra port ok", "/spec/replicaServiceTemplate",
       svc({{"ports", json::array({{{"name", "exporter"}, {"port", 9104}}})}}), "", ""},
      {"port collides with mysql", "/spec/primaryServiceTemplate",
       svc({{"ports", json::array({{{"name", "other"}, {"port", 3306}}})}}),
       "spec.primaryServiceTemplate.spec.ports[0].port", "collides with the operator's port 3306"},
      {"port named mysql", "/spec/primaryServiceTemplate",
       svc({{"ports", json::array({{{"name", "mysql"}, {"port", 3307}}})}}),
       "spec.primaryServiceTemplate.spec.ports[0].name", "reserved"},
      {"site port collides with sidecar", "/spec/sites/0/serviceTemplate",
       svc({{"ports", json::array({{{"name", "x"}, {"port", 8080}}})}}),
       "spec.sites[0].serviceTemplate.spec.ports[0].port", "collides with the operator's port 8080"},
      {"duplicate port", "/spec/primaryServiceTemplate",
       svc({{"ports", json::array({{{"name", "a"}, {"port", 9000}}, {{"name", "b"}, {"port", 9000}}})}}),
       "spec.primaryServiceTemplate.spec.ports[1].port", "duplicate port 9000"},
      {"port out of range", "/spec/primaryServiceTemplate",
       svc({{"ports", json::array({{{"name", "a"}, {"port", 70000}}})}}),
       "spec.primaryServiceTemplate.spec.ports[0].port", "between 1 and 65535"},
      {"nodePort on ClusterIP", "/spec/primaryServiceTemplate",
       svc({{"ports", json::array({{{"name", "a"}, {"port", 9000}, {"nodePort", 30001}}})}}),
       "spec.primaryServiceTemplate.spec.ports[0].nodePort", "only allowed for type"},
      {"bad protocol", "/spec/primaryServiceTemplate",
       svc({{"ports", json::array({{{"name", "a"}, {"port", 9000}, {"protocol", "HTTP"}}})}}),
       "spec.primaryServiceTemplate.spec.ports[0].protocol", "unsupported value \"HTTP\""},
      {"service label operator key", "/spec/primaryServiceTemplate",
       svc(json::object(), {{"labels", {{"shipstream.io/failover-group", "x"}}}}),
       "spec.primaryServiceTemplate.metadata.labels[shipstream.io/failover-group]", "reserved"},
      {"service template unknown member", "/spec/primaryServiceTemplate",
       svc({{"clusterIP", "None"}}), "spec.primaryServiceTemplate.spec.clusterIP", "unknown field"},
      {"group serviceTemplate", "/spec/serviceTemplate", svc(json::object()), "spec.serviceTemplate",
       "does not support yet"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT("rule: " << r.rule) {
      json doc = base();
      doc[json::json_pointer{r.pointer}] = r.value;
      auto errs = load(doc);
      if (std::string{r.path}.empty()) {
        BOOST_TEST(errs.empty(), dump(errs));
        continue;
      }
      BOOST_TEST(find_error(errs, r.path, r.fragment),
                 "missing " << r.path << ": " << r.fragment << "\ngot: " << dump(errs));
      BOOST_TEST(errs.size() == 1u, dump(errs));
    }
  }
}

BOOST_AUTO_TEST_CASE(quantities_parse_strictly) {
  struct q {
    const char* text;
    std::optional<long double> value;
  };
  const q rows[] = {{"1", 1},           {"500m", 0.5},      {"1Gi", 1073741824.0L},
                    {"1e3", 1000},      {"1E-3", 0.001},    {"1.5k", 1500},
                    {".5", 0.5},        {"2.", 2},          {"-1", -1},
                    {"+2M", 2e6},       {"100n", 1e-7L},    {"", std::nullopt},
                    {"1GB", std::nullopt}, {"Gi", std::nullopt}, {"1 Gi", std::nullopt},
                    {"1e", std::nullopt}, {"1.2.3", std::nullopt}, {"0x10", std::nullopt},
                    {"1mi", std::nullopt}, {".", std::nullopt}};
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.text) {
      auto got = parse_quantity(r.text);
      BOOST_TEST(got.has_value() == r.value.has_value());
      if (got && r.value) BOOST_TEST(std::fabs(static_cast<double>(*got - *r.value)) < 1e-9);
    }
  }
}

BOOST_AUTO_TEST_CASE(pod_fields_round_trip) {
  json doc = base();
  auto& s = doc["spec"];
  s["resources"] = res({{"cpu", "1"}}, {{"memory", "2Gi"}});
  s["sidecarResources"] = res({{"cpu", "50m"}});
  s["sites"][0]["resources"] = res({{"cpu", "2"}});
  s["sites"][0]["serviceTemplate"] = svc({{"type", "NodePort"}});
  s["podLabels"] = {{"team", "db"}};
  s["podAnnotations"] = {{"note", "x"}};
  s["tolerations"] = json::array({{{"operator", "Exists"}}});
  s["affinity"] = {{"podAntiAffinity", json::object()}};
  s["priorityClassName"] = "high";
  s["podSecurityContext"] = {{"runAsUser", 1000}};
  s["containerSecurityContext"] = {{"readOnlyRootFilesystem", false}};
  s["primaryServiceTemplate"] = svc({{"type", "LoadBalancer"}}, {{"labels", {{"a", "b"}}}});
  s["replicaServiceTemplate"] =
      svc({{"ports", json::array({{{"name", "x"}, {"port", 9104}, {"targetPort", 9104}}})}});
  auto res1 = parse_group(doc);
  BOOST_TEST_REQUIRE(res1.ok(), dump(res1.errors));
  BOOST_TEST(validate(res1.group, run_mode::kubernetes).empty());
  auto again = parse_group(to_json(res1.group));
  BOOST_TEST_REQUIRE(again.ok(), dump(again.errors));
  BOOST_TEST((again.group == res1.group));
  BOOST_TEST(res1.group.spec.sites[0].resources->requests.at("cpu") == "2");
  BOOST_TEST(res1.group.spec.primary_service_template->type == "LoadBalancer");
}

BOOST_AUTO_TEST_SUITE_END()
