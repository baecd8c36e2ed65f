// In-process Kubernetes API simulator over HTTP/1.1 (for tests and the kube-sim program).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/kube_sim/rbac.hpp"

namespace br::kube_sim {

/// Header a client sets to name the writer (the write log attributes writes by it).
inline constexpr const char* identity_header = "X-Bloodraven-Identity";

/// One mutating request as the simulator saw it.
struct write_record {
  std::chrono::system_clock::time_point wall;
  std::chrono::steady_clock::time_point mono;  // when the request was received
  std::string verb;                            // POST PUT PATCH DELETE
  std::string path;
  std::string user_agent;
  std::string identity;  // the identity header, "" when absent
  int status = 0;
  std::string resource_version;  // of the object in the reply, "" when none
  nlohmann::json object;         // the reply body
};

struct options {
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;                               // 0 = pick a free one
  std::size_t history_limit = 1000;                     // changes kept for watch resumption
  std::chrono::milliseconds bookmark_interval{1000};   // for watches with allowWatchBookmarks
};

/// Returns a non-zero HTTP status to fail a request with (fault injection), 0 to serve it.
/// `identity` is the request's identity header ("" when absent).
using failure_rule = std::function<int(const std::string& method, const std::string& path,
                                       const std::string& identity)>;

/// A request the simulator refused under RBAC.
struct denial {
  std::string identity;
  std::string method;
  std::string path;
  request_attributes attributes;
  std::string message;  ///< the Status message sent
};

class simulator {
 public:
  explicit simulator(options o = {});
  ~simulator();  // stop()
  simulator(const simulator&) = delete;
  simulator& operator=(const simulator&) = delete;

  /// Binds and serves on background threads; returns the port.
  std::uint16_t start();
  /// Closes every connection (open watches end abruptly) and joins all threads. Idempotent.
  void stop();
  std::uint16_t port() const;
  std::string url() const;  // http://127.0.0.1:<port>

  /// Ends every open watch stream abruptly (no terminating chunk), as a dropped connection.
  void drop_watches();
  /// Forgets all history: resuming a watch from any older resourceVersion gets 410 Gone.
  void compact();
  /// Installs (or with {} removes) a fault-injection rule.
  void set_failure_rule(failure_rule rule);
  /// Turns RBAC enforcement on (or with nullopt off); applies to requests received from now on.
  void set_rbac(std::optional<rbac_enforcement> rbac);
  /// Enforces another subject's policy as well (an identity is checked against the first
  /// enforcement naming it). Writes of Roles and RoleBindings by an enforced subject get the API
  /// server's escalation check: the rules granted must all be held by the writer.
  void add_rbac(rbac_enforcement rbac);
  /// Every request refused by RBAC so far, in arrival order.
  std::vector<denial> denials() const;
  /// Every mutating request so far, in arrival order.
  std::vector<write_record> writes() const;
  std::size_t open_watches() const;
  std::uint64_t resource_version() const;
  // A request's user, as admission webhooks see it (userInfo): the user of the RBAC enforcement
  // naming its identity header, else the identity header itself, else "kube-sim:admin"
  // (system:masters). Like the API server, an Impersonate-User header (kubectl --as, with
  // --as-group) replaces it when that user is in system:masters, and is refused with 403
  // otherwise. Authorisation stays by identity header (set_rbac).
  /// Where a Service named by a webhook's clientConfig listens ("host:port"): the simulator has
  /// no cluster network (API simulation; see admission_webhooks.hpp).
  void route_service(const std::string& ns, const std::string& name, int port,
                     const std::string& address);
  /// Writes a kubeconfig that points at this simulator (for kubectl); returns its path.
  std::string write_kubeconfig(const std::string& dir) const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace br::kube_sim
