// Shared helpers for the render tests: the base group, object lookup and label-selector matching.
#pragma once

#include <boost/test/unit_test.hpp>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "config/failover_group.hpp"
#include "config/group_validate.hpp"
#include "config/render/group_objects.hpp"
#include "config/yaml_json.hpp"
#include "tests/unit/config_spec_test_util.hpp"

namespace render_test {

using json = nlohmann::json;

/// The config tests' valid Kubernetes group (iad, pdx candidates; sea reader) as JSON, with a uid.
inline json base_doc() {
  br::config::field_errors errs;
  auto doc = br::config::yaml_to_json(config_spec_test::kube_base_yaml, errs);
  BOOST_TEST_REQUIRE(errs.empty(), br::config::to_string(errs));
  doc["metadata"]["uid"] = "0f1e2d3c-uid";
  return doc;
}

/// Parses and validates; the document must be a valid group.
inline br::config::failover_group group_of(const json& doc) {
  auto res = br::config::parse_group(doc);
  auto more = br::config::validate(res.group, br::config::run_mode::kubernetes);
  res.errors.insert(res.errors.end(), more.begin(), more.end());
  BOOST_TEST_REQUIRE(res.errors.empty(), br::config::to_string(res.errors));
  return res.group;
}

inline br::render::render_result render(const json& doc, const br::render::render_options& o = {}) {
  auto r = br::render::render_group(group_of(doc), o);
  BOOST_TEST_REQUIRE(r.ok(), br::config::to_string(r.errors));
  return r;
}

inline const json* find(const std::vector<json>& objs, const std::string& kind,
                        const std::string& name) {
  for (const auto& o : objs)
    if (o.at("kind") == kind && o.at("metadata").at("name") == name) return &o;
  return nullptr;
}

inline std::vector<const json*> of_kind(const std::vector<json>& objs, const std::string& kind) {
  std::vector<const json*> out;
  for (const auto& o : objs)
    if (o.at("kind") == kind) out.push_back(&o);
  return out;
}

/// Equality-based selector semantics (matchLabels / Service selector): every pair must be present.
inline bool selects(const json& selector, const json& labels) {
  for (const auto& [k, v] : selector.items())
    if (!labels.contains(k) || labels.at(k) != v) return false;
  return true;
}

/// env list -> name -> value (or "fieldRef:<path>" / "secret:<name>/<key>").
inline std::map<std::string, std::string> env_map(const json& env) {
  std::map<std::string, std::string> out;
  for (const auto& e : env) {
    std::string v;
    if (e.contains("value"))
      v = e.at("value").get<std::string>();
    else if (e.at("valueFrom").contains("fieldRef"))
      v = "fieldRef:" + e.at("valueFrom").at("fieldRef").at("fieldPath").get<std::string>();
    else
      v = "secret:" + e.at("valueFrom").at("secretKeyRef").at("name").get<std::string>() + "/" +
          e.at("valueFrom").at("secretKeyRef").at("key").get<std::string>();
    out[e.at("name").get<std::string>()] = v;
  }
  return out;
}

inline const json& container(const json& deployment, const std::string& name) {
  for (const auto& c : deployment.at("spec").at("template").at("spec").at("containers"))
    if (c.at("name") == name) return c;
  BOOST_FAIL("no container " << name);
  static json none;
  return none;
}

}  // namespace render_test
