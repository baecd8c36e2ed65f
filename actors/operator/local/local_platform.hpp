// Standalone-mode platform: fsynced state file, event log + ring, DNS/route files, hooks, status.
#pragma once

#include <caf/actor_system.hpp>
#include <caf/error.hpp>
#include <caf/expected.hpp>

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "messages/interfaces.hpp"
#include "messages/operator.hpp"

namespace br {

struct local_platform_config {
  std::string dir;         ///< state, status, DNS and route files live here
  std::string dns_hook;    ///< optional: run after the DNS file changed (env BR_GROUP/SITE/TARGET)
  std::string taint_hook;  ///< optional: env BR_GROUP, BR_SITE, BR_TAINT=1|0
  std::chrono::milliseconds hook_timeout{std::chrono::seconds(10)};
  size_t event_ring = 256;  ///< events kept in memory (GET /events)
  /// The ring to record events in (shared with the HTTP layer from before the actor system
  /// starts); empty: a new one of `event_ring` entries.
  std::shared_ptr<class event_ring> events;
};

/// The newest events, shared with the HTTP layer (thread-safe).
class event_ring {
 public:
  explicit event_ring(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}
  void push(group_event e);
  std::vector<group_event> snapshot() const;

 private:
  mutable std::mutex mx_;
  size_t capacity_;
  std::deque<group_event> events_;
};

struct local_platform {
  platform_handles handles;
  std::shared_ptr<event_ring> events;
};

/// Spawns every local platform actor; blocking ones (files, fsync, hooks) are detached.
local_platform spawn_local_platform(caf::actor_system& sys, local_platform_config cfg);

/// Only the file store (S6/S7): `<dir>/<group>.state.json`.
state_store_actor spawn_file_state_store(caf::actor_system& sys, std::string dir);

/// Kills every actor of the platform.
void stop_local_platform(const local_platform& p);

// -- the blocking pieces, exposed for tests ---------------------------------------------------

/// Writes `<path>.tmp`, fsyncs it, renames it over `path`, fsyncs the directory.
caf::error write_file_atomic(const std::string& path, const std::string& content);

/// Missing file -> fresh state; unreadable or corrupt -> an error (never a silent reset).
caf::expected<durable_state> load_state_file(const std::string& path);
caf::error save_state_file(const std::string& path, const durable_state& s);

/// Runs `/bin/sh -c command` with extra environment variables; kills it at the deadline.
/// Returns the exit status, or an error (timeout, spawn failure, killed by a signal).
caf::expected<int> run_hook(const std::string& command, const std::map<std::string, std::string>& env,
                            std::chrono::milliseconds timeout);

}  // namespace br
