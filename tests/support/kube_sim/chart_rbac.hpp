// The operator's RBAC as the Helm chart renders it, for the API simulator to enforce in tests.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/kube_sim/rbac.hpp"

namespace br::kube_sim {

/// Release the tests install the chart as: `helm install bloodraven charts/bloodraven -n
/// bloodraven-system --set 'groupNamespaces={default,shop}'` (fullname and ServiceAccount
/// "bloodraven"; the tests' groups live in "default" and "shop").
struct chart_release {
  std::string name = "bloodraven";
  std::string ns = "bloodraven-system";
  /// values.groupNamespaces: where the operator may use Secrets (empty: the release namespace).
  std::vector<std::string> group_namespaces{"default", "shop"};
  /// values.webhook.certificate as the chart resolves it: "operator" renders role-webhook-ca.yaml.
  std::string webhook_certificate = "helm";
  std::string service_account() const;  ///< the chart's fullname for this release name
};

/// The Role, ClusterRole, RoleBinding and ClusterRoleBinding objects of the chart's templates
/// with the default values and `rel`'s groupNamespaces. The RBAC templates use only a few template
/// actions (names, the release namespace, labels, a leaderElection.enabled guard that defaults to
/// true, one range over groupNamespaces, one guard on webhook.certificate=operator); these are
/// rendered here, and any other action left in an RBAC template is an error (std::runtime_error)
/// so the templates cannot drift from what this reads. tests/chart/chart_test.sh compares the
/// result with `helm template`.
std::vector<nlohmann::json> chart_rbac_objects(const std::string& chart_dir, const chart_release& rel = {});

/// The operator ServiceAccount's policy from the chart, and its enforcement for `identities`.
rbac_policy chart_operator_policy(const std::string& chart_dir, const chart_release& rel = {});
rbac_enforcement chart_operator_rbac(const std::string& chart_dir, std::vector<std::string> identities,
                                     const chart_release& rel = {});

}  // namespace br::kube_sim
