// The operator's HTTP API: /active-site, /status, /pitr-cutoff, /events, /ws/status, /, /sidecar/report
// and /admin/{switchover,reclone} (actors/operator/api/admin_request.hpp).
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/common/authority.hpp"
#include "actors/common/supervisor.hpp"
#include "actors/common/wall_clock.hpp"
#include "messages/operator.hpp"
#include "io/codec/json_limits.hpp"
#include "io/http/router.hpp"
#include "io/http/websocket_hub.hpp"

namespace br {

/// The groups this process runs, keyed "<namespace>/<name>", and the last sidecar report per
/// site. Thread-safe: supervisors write handles from actor threads, HTTP handlers read them.
class group_table {
 public:
  struct entry {
    std::string namespace_name;
    std::string group;
    caf::actor supervisor;  ///< the group's supervisor; replaced whenever it (re)starts
    /// The group's keys: /active-site answers are signed with them and reports verified.
    /// Null: /active-site answers 503 and every report is refused.
    std::shared_ptr<const auth::key_ring> keys;
    std::vector<std::string> sites;  ///< spec.sites: the only sites a report may name
    /// spec.replication.mode groupReplication: only such a group takes gr-observed doorbells.
    bool group_replication = false;
  };

  /// Wraps `c` (a group supervisor child) so every (re)start records its handle here, with the
  /// group's keys and sites.
  child_spec track(const std::string& namespace_name, const std::string& group, child_spec c,
                   std::shared_ptr<const auth::key_ring> keys = nullptr,
                   std::vector<std::string> sites = {}, bool group_replication = false);

  /// Drops every held handle (call while the actor system still runs: a handle must not
  /// outlive its system).
  void drop_handles();

  std::vector<entry> groups() const;
  bool find(const std::string& namespace_name, const std::string& group, entry& out) const;

  /// Records a verified report unless an equal or newer one (`sent_at_ms`) is already there:
  /// false = a replay or reordering, not recorded.
  bool record_report(const std::string& key, const std::string& site, int64_t sent_at_ms,
                     nlohmann::json report);
  std::map<std::string, nlohmann::json> reports(const std::string& key) const;
  /// Records the sentAtMs of a verified admin request unless an equal or newer one was already
  /// accepted for the group: false = a replay, refused.
  bool accept_admin(const std::string& key, int64_t sent_at_ms);
  /// Records the sentAtMs of a verified gr-observed report (a doorbell) of `site` unless an equal
  /// or newer one was already accepted: false = a replay or reordering, refused.
  bool accept_doorbell(const std::string& key, const std::string& site, int64_t sent_at_ms);

 private:
  mutable std::mutex mx_;
  std::map<std::string, entry> groups_;
  std::map<std::string, std::map<std::string, nlohmann::json>> reports_;
  std::map<std::string, std::map<std::string, int64_t>> report_sent_;
  std::map<std::string, int64_t> admin_sent_;
  std::map<std::string, std::map<std::string, int64_t>> doorbell_sent_;
};

/// What GET /pitr-cutoff needs: the minimum completionTime (unix ms) of Succeeded, non-deleting
/// MysqlBackups of (namespace, group, profile). Return false with `error` set when listing
/// failed (-> 500); `has_cutoff` false when there is none (cutoffTime omitted).
struct pitr_answer {
  bool ok = true;
  std::string error;
  bool has_cutoff = false;
  int64_t cutoff_ms = 0;
};
using pitr_source = std::function<pitr_answer(const std::string& namespace_name,
                                              const std::string& group,
                                              const std::string& profile)>;

struct operator_api_options {
  std::shared_ptr<group_table> groups;
  /// The newest events, newest last; empty function = no event source.
  std::function<std::vector<group_event>()> events;
  std::chrono::milliseconds ask_timeout{std::chrono::seconds(2)};
  /// Backup catalogue for /pitr-cutoff; empty = no client (503, as the reference answers
  /// without a Kubernetes client). Nothing lists MysqlBackups yet.
  pitr_source pitr;
  /// GET /ws/status; null = route absent.
  std::shared_ptr<http::websocket_hub> ws;
  /// GET / serves the dashboard.
  bool dashboard = true;
  /// Wall clock for pollTime; empty = system clock.
  wall_source wall_clock;
  /// The API is served over TLS with client certificates (issue 26): POST /sidecar/report needs
  /// the named site's certificate, GET /active-site with a nonce one of the group's sites (or the
  /// operator's), POST /admin/* the operator's (actors/common/peer_identity.hpp); 403 otherwise.
  bool client_certificates = false;
};

void install_operator_routes(http::router& r, caf::actor_system& sys, operator_api_options o);

/// The bounds of POST /sidecar/report bodies.
inline constexpr json_limits report_limits{16u << 10, 8};

/// What an accepted report asks for besides being recorded.
struct report_accepted {
  std::string namespace_name, group, site;
  /// A gr-observed report (kind "gr-observed", actors/operator/api/gr_doorbell.hpp): wake the
  /// group's pollers. Nothing else of it is acted on.
  bool wake = false;
};

/// POST /sidecar/report (synchronous; exposed for the fuzz target and tests): shape limits,
/// then the fields, the group, a site of that group, its signature, and a sentAtMs newer than
/// the last recorded one. Any failure is a 4xx naming the field and records nothing. A body
/// with "kind": "gr-observed" is a doorbell (same checks; ordered separately from the fencing
/// reports); `accepted` (optional) says what the caller must do for an accepted one.
/// `client_certificates`: see operator_api_options (checked once the site is known).
http::response handle_report(group_table& groups, const http::request& req,
                             report_accepted* accepted = nullptr, bool client_certificates = false);

}  // namespace br
