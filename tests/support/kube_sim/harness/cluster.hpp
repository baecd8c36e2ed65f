// The Kubernetes integration suites' shared setup around the API simulator: the simulator under
// the chart's RBAC for the operator's identity, clients by identity, the CRDs a group needs, the
// operator's credentials Secret, the group source's options with short test timings, the actors
// it needs beside it (registry, site_io), and the list of requests the RBAC refused.
#pragma once

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "actors/common/registry.hpp"
#include "actors/operator/group/site_io.hpp"
#include "actors/operator/kube/group_source.hpp"
#include "io/kube/client.hpp"
#include "tests/support/kube_sim/simulator.hpp"

namespace br::kube_sim::test {

/// `$BR_SOURCE_DIR/<rel>` (the repository's file, for charts and tools).
std::string source_path(const std::string& rel);

/// The identity the operator's client runs under (the chart's ServiceAccount when RBAC is on).
inline constexpr const char* operator_identity = "operator-0";

/// The simulator, started; with `chart_rbac` the chart's RBAC is enforced on operator_identity
/// (403 as a real API server); the test's own clients stay unrestricted.
class sim_cluster {
 public:
  explicit sim_cluster(bool chart_rbac = true);
  ~sim_cluster();
  sim_cluster(const sim_cluster&) = delete;
  sim_cluster& operator=(const sim_cluster&) = delete;

  simulator sim;

  /// A client of the simulator that identifies as `identity`.
  std::shared_ptr<kube::client> client(const std::string& identity,
                                       std::chrono::milliseconds timeout = std::chrono::seconds(5)) const;

  /// Creates with an unrestricted client: "" when created, else the error.
  std::string create(const kube::resource_ref& r, const std::string& ns, const nlohmann::json& obj) const;
  /// The chart's MysqlFailoverGroup CRD and (unless `dns_endpoint` is false) the DNSEndpoint CRD.
  std::string install_crds(bool dns_endpoint = true) const;
  /// The group's operator credentials Secret (`username`, `password`).
  std::string create_operator_secret(const std::string& ns, const std::string& name,
                                     const std::string& user, const std::string& password) const;
  /// The operator's requests the RBAC refused, one line each ("" when none).
  std::string denials() const;
};

/// The group source's options with short test timings (status writes, the reflector, reconcile
/// passes, group restarts), running as operator_identity.
group_source_options fast_group_source(std::shared_ptr<kube::client> operator_client, site_io_actor io);

/// What runs beside the group source in the operator process: the registry and site_io, and the
/// root supervisor with the group source. Stopped in reverse order.
struct operator_actors {
  registry_actor registry;
  site_io_actor io;
  caf::actor root;

  /// The registry and (with `with_site_io`) site_io.
  void spawn(caf::actor_system& sys, bool with_site_io = true);
  /// The root supervisor with the group source.
  void start(caf::actor_system& sys, const group_source_options& o);
  /// Stops the root (waiting up to `timeout`), then site_io and the registry.
  void stop(caf::scoped_actor& self, std::chrono::seconds timeout = std::chrono::seconds(30));
};

}  // namespace br::kube_sim::test
