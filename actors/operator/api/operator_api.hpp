// The operator's HTTP API: /active-site, /status, /pitr-cutoff, /events, /ws/status, / and /sidecar/report.
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

#include "actors/common/supervisor.hpp"
#include "actors/common/wall_clock.hpp"
#include "messages/operator.hpp"
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
  };

  /// Wraps `c` (a group supervisor child) so every (re)start records its handle here.
  child_spec track(const std::string& namespace_name, const std::string& group, child_spec c);

  /// Drops every held handle (call while the actor system still runs: a handle must not
  /// outlive its system).
  void drop_handles();

  std::vector<entry> groups() const;
  bool find(const std::string& namespace_name, const std::string& group, entry& out) const;

  void record_report(const std::string& key, const std::string& site, nlohmann::json report);
  std::map<std::string, nlohmann::json> reports(const std::string& key) const;

 private:
  mutable std::mutex mx_;
  std::map<std::string, entry> groups_;
  std::map<std::string, std::map<std::string, nlohmann::json>> reports_;
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
};

void install_operator_routes(http::router& r, caf::actor_system& sys, operator_api_options o);

}  // namespace br
