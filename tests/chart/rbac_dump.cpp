// Prints the chart's RBAC objects as the API simulator reads them (tests/support/kube_sim/
// chart_rbac.hpp), as a JSON array, so the chart test can compare them with `helm template`.
// Usage: br_chart_rbac_dump CHART_DIR RELEASE_NAME RELEASE_NAMESPACE [NS,NS... [WEBHOOK_CERTIFICATE]]
// (values.groupNamespaces, absent or empty: the chart's default; values.webhook.certificate,
// absent: helm)
#include <algorithm>
#include <iostream>
#include <string>

#include "tests/support/kube_sim/chart_rbac.hpp"

int main(int argc, char** argv) {
  if (argc < 4 || argc > 6) {
    std::cerr << "usage: br_chart_rbac_dump CHART_DIR RELEASE_NAME RELEASE_NAMESPACE [NS,NS... [WEBHOOK_CERTIFICATE]]\n";
    return 2;
  }
  try {
    br::kube_sim::chart_release rel;
    rel.name = argv[2];
    rel.ns = argv[3];
    rel.group_namespaces.clear();
    if (argc == 6) rel.webhook_certificate = argv[5];
    if (argc >= 5)
      for (std::string all = argv[4], ns; !all.empty(); all = all.substr(std::min(all.size(), ns.size() + 1))) {
        ns = all.substr(0, all.find(','));
        if (!ns.empty()) rel.group_namespaces.push_back(ns);
      }
    std::cout << nlohmann::json(br::kube_sim::chart_rbac_objects(argv[1], rel)).dump(2) << "\n";
  } catch (const std::exception& e) {
    std::cerr << "br_chart_rbac_dump: " << e.what() << "\n";
    return 1;
  }
}
