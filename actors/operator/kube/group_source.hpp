// Kubernetes group source: list+watch MysqlFailoverGroups and start, update or stop their supervisors.
#pragma once

#include <caf/actor.hpp>
#include <caf/allowed_unsafe_message_type.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/common/supervisor.hpp"
#include "actors/common/wall_clock.hpp"
#include "actors/operator/group/group_supervisor.hpp"
#include "actors/operator/kube/core/group_tls_plan.hpp"
#include "actors/operator/kube/core/kube_credentials.hpp"
#include "actors/operator/kube/core/lease_lock.hpp"
#include "config/api_tls.hpp"
#include "config/failover_group.hpp"
#include "config/render/options.hpp"
#include "config/field_error.hpp"
#include "io/kube/client.hpp"
#include "io/http/websocket_hub.hpp"
#include "io/kube/reflector.hpp"

namespace br {

class group_table;

/// Condition and Event reason for an object the operator's validation rejects. The reference
/// names none (its CEL rules reject such objects at admission); Ready=False makes the printer
/// column show it.
inline constexpr const char* reason_invalid_spec = "InvalidSpec";

/// What the resolver made of one watch event (parsed, validated, credentials read).
struct group_desired {
  bool deleted = false;
  bool terminating = false;  ///< deletionTimestamp set: stop the group, then finalize it
  std::string ns, name, uid;
  int64_t generation = 0;
  bool valid = false;
  config::field_errors errors;  ///< parse + validation, with field paths
  credential_problem problem;   ///< valid spec but no usable credentials
  std::string generated_secret;  ///< the operator Secret the resolver just created, if any
  config::group_spec spec;
  config::failover_group group;  ///< the whole parsed object (metadata for owner references)
  group_credentials creds;
  /// spec.initFromBackup not Succeeded yet (config::restore_bootstrap_hold): the group's
  /// coordinator holds a group that never had a primary; a change restarts the group.
  std::string restore_hold;
  std::string object_json;  ///< the object as seen (re-resolved on a credentials retry)
  /// Group Replication: sites no longer in the spec whose Deployment still exists (the
  /// scale-down takes their member out of the group first; group_runtime::gr_leaving).
  std::vector<std::string> leaving_sites;
};

/// Where the operator reaches a site's MySQL server in Kubernetes mode.
using site_address_fn = std::function<config::address_spec(
    const std::string& ns, const std::string& group, const std::string& site)>;

/// The site Service's cluster DNS name, port 3306.
config::address_spec service_site_address(const std::string& ns, const std::string& group,
                                          const std::string& site);

/// Where the operator reaches a site's sidecar (PUT /view); "" = no sidecar to push to.
using sidecar_address_fn = std::function<std::string(
    const std::string& ns, const std::string& group, const std::string& site)>;

/// The site Service's sidecar port, "mysql-<g>-<site>.<ns>.svc.cluster.local:8080" (the Service
/// publishes not-ready addresses, so a sidecar whose mysqld is down still answers: gate rule 2).
std::string service_sidecar_address(const std::string& ns, const std::string& group,
                                    const std::string& site);

/// Where the operator reaches a site's Dragonfly server in Kubernetes mode ("host:port").
using dragonfly_address_fn = std::function<std::string(
    const std::string& ns, const std::string& group, const std::string& site, int port)>;

/// The site's Dragonfly Service, "<g>-dragonfly-<site>.<ns>.svc.cluster.local:<port>" (also the
/// address the other sites' replicas follow it at).
std::string service_dragonfly_address(const std::string& ns, const std::string& group,
                                      const std::string& site, int port);

struct group_source_options {
  std::shared_ptr<kube::client> client;
  std::vector<std::string> namespaces;  ///< empty = all namespaces
  std::shared_ptr<op::lease_guard> guard;  ///< handed to every writer (S8); null = no guard
  std::shared_ptr<group_table> groups;     ///< /active-site, /status; may be null
  site_io_actor site_io;
  /// The leadership generation the groups run under (every MySQL command carries it; site_io
  /// refuses it once that leadership ended, S8). Set by the leadership actor; 0 = none.
  uint64_t leader_generation = 0;
  std::string instance;  ///< pod name (Event reportingInstance)
  /// The operator's own namespace (POD_NAMESPACE): a group's generated operator Secret is copied
  /// there (operator_secret_copy) and the copy deleted with the group. "" = no copy.
  std::string operator_namespace;
  /// spec.tls: where the group TLS controller writes each group's CA file (group_tls::
  /// group_ca_file); a group's MySQL sessions verify against it (kube_mode hands the same
  /// directory to the controller).
  std::string tls_ca_dir = group_tls::default_ca_dir;
  /// Wall clock of every group's actors (Event and condition times; empty = system clock).
  wall_source wall_clock;
  site_address_fn site_address = service_site_address;
  sidecar_address_fn sidecar_address = service_sidecar_address;
  dragonfly_address_fn dragonfly_address = service_dragonfly_address;
  restart_policy group_policy;
  kube::reflector_options reflector;
  std::chrono::milliseconds credential_retry{std::chrono::seconds(30)};  ///< reference: 30 s
  config::api_tls_settings api_tls;  ///< --tls-*: calls to the sidecars over HTTPS when on
  std::chrono::milliseconds restart_delay{std::chrono::seconds(5)};  ///< after a group gave up
  std::chrono::milliseconds status_backoff_initial{500};
  std::chrono::milliseconds status_backoff_max{30000};
  caf::timespan status_coalesce{std::chrono::milliseconds(500)};
  /// Run a reconciler per group (apply rendered objects, pod labels, rollouts).
  bool reconcile = true;
  std::chrono::milliseconds reconcile_interval{std::chrono::seconds(10)};
  std::chrono::milliseconds reconcile_busy_interval{std::chrono::seconds(2)};
  render::render_options render;  ///< --sidecar-image and the reconciler version
  /// GET /ws/status: each running group's status publications also go to this hub (through a
  /// per-group status_hub in front of its status writer); null = no WebSocket feed.
  std::shared_ptr<http::websocket_hub> ws;
};

/// Pure: parse + validate (Kubernetes mode) one watch event's object; credentials are left to
/// the caller. `type` is ADDED, MODIFIED or DELETED.
group_desired desire_from_event(const std::string& type, const nlohmann::json& object);

/// The spec a group runs with: every site's address filled in by `addr`, its sidecar's by
/// `sidecar` and, with spec.dragonfly.enabled, its cache server's (dragonflyAddress) by `cache`
/// (when given).
config::group_spec runtime_spec(const config::group_spec& spec, const std::string& ns,
                                const std::string& group, const site_address_fn& addr,
                                const sidecar_address_fn& sidecar = {},
                                const dragonfly_address_fn& cache = {});

/// The Ready=False condition for an invalid object, listing every error with its field path.
nlohmann::json invalid_spec_condition(const config::field_errors& errors, const std::string& now);

/// The group source as a child of the root supervisor ("group_source"). Its groups run as
/// supervisors under it ("<path>/group:<name>.<namespace>"), each with its own Kubernetes
/// platform (status writer, state store, events). (stop) -> bool stops every group first.
child_spec group_source_child(group_source_options o);

/// The same actor spawned by `parent` at registry path `path` (the leadership actor starts it
/// itself once it holds the lease).
group_source_actor spawn_group_source(caf::local_actor* parent, group_source_options o,
                                      std::string path);

}  // namespace br

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(br::group_desired)
