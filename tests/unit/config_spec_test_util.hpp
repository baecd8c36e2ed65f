// Shared helpers for the config_spec tests: base documents and error lookups.
#pragma once

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "config/failover_group.hpp"
#include "config/group_validate.hpp"
#include "config/yaml_json.hpp"

namespace config_spec_test {

inline std::string read_source_file(const std::string& relative) {
  const char* root = std::getenv("BR_SOURCE_DIR");
  BOOST_TEST_REQUIRE(root != nullptr, "BR_SOURCE_DIR is not set (run through ctest)");
  std::ifstream in{std::string{root} + "/" + relative};
  BOOST_TEST_REQUIRE(in.good(), "cannot open " << relative);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The error at `path` whose message contains `fragment`, or null.
inline const br::config::field_error* find_error(const br::config::field_errors& errs,
                                                 const std::string& path,
                                                 const std::string& fragment = {}) {
  for (const auto& e : errs)
    if (e.path == path && e.message.find(fragment) != std::string::npos) return &e;
  return nullptr;
}

/// Every error, one per line, or "(none)": the message of a failed check.
inline std::string dump(const br::config::field_errors& errs) {
  return errs.empty() ? "(none)" : br::config::to_string(errs);
}

/// Parse + validate a JSON document, as load_group_* does for text.
inline br::config::field_errors load(const nlohmann::json& doc, br::config::run_mode mode) {
  auto res = br::config::parse_group(doc);
  auto more = br::config::validate(res.group, mode);
  res.errors.insert(res.errors.end(), more.begin(), more.end());
  return res.errors;
}

/// A YAML document as JSON (the test's own text: a parse error fails the test).
inline nlohmann::json json_of(const char* yaml) {
  br::config::field_errors errs;
  auto j = br::config::yaml_to_json(yaml, errs);
  BOOST_TEST_REQUIRE(errs.empty(), dump(errs));
  return j;
}

/// A valid Kubernetes-mode group: iad and pdx candidates, sea a reader.
inline const char* kube_base_yaml = R"(
apiVersion: shipstream.io/v1alpha1
kind: MysqlFailoverGroup
metadata:
  name: orders
  namespace: db
spec:
  secretName: orders-mysql
  dns: {hostname: orders-db.example.com}
  sites:
    - name: iad
      zone: us-east-1a
      lbIP: 10.0.0.1
      taintNodeSelector: {shipstream.io/site.orders: iad}
      storage: {size: 10Gi}
    - name: pdx
      role: primary-candidate
      zone: us-west-2a
      lbIP: 10.0.0.2
      taintNodeSelector: {shipstream.io/site.orders: pdx}
      storage: {size: 10Gi}
    - name: sea
      role: read-only
      zone: us-west-2b
      storage: {size: 10Gi}
)";

/// A valid standalone group.
inline const char* standalone_base_yaml = R"(
apiVersion: shipstream.io/v1alpha1
kind: MysqlFailoverGroup
metadata: {name: orders}
spec:
  sites:
    - {name: iad, address: {host: 127.0.0.1, port: 3306}, sidecarAddress: "127.0.0.1:8080"}
    - {name: pdx, address: {host: 127.0.0.1, port: 3307}}
    - {name: sea, role: read-only, address: {host: 127.0.0.1}}
)";

}  // namespace config_spec_test
