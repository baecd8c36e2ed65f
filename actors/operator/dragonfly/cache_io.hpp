// The Dragonfly manager's blocking I/O on one site's cache server (called from the manager's
// detached thread only): read INFO replication + persistence into a site_observation, run one
// steering command. A connection is kept per site and dropped after any error (io/redis).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "actors/operator/decide/dragonfly_steer.hpp"
#include "io/redis/client.hpp"

namespace br::dragonfly {

struct cache_endpoint {
  std::string site;
  std::string host;
  uint16_t port = 6379;
};

struct cache_timeouts {
  std::chrono::milliseconds connect{1000};
  std::chrono::milliseconds io{2000};
};

/// One site's connection, opened on demand.
class cache_site {
 public:
  cache_site(cache_endpoint e, std::string password, cache_timeouts t);

  const cache_endpoint& endpoint() const { return e_; }
  /// INFO replication + INFO persistence; unreachable (with `error`) when either fails.
  site_observation observe(std::string& error);
  /// One command; "" on success, else why.
  std::string run(const std::vector<std::string>& argv, std::chrono::milliseconds io_timeout);
  /// Whether the server advertises REPLTAKEOVER (COMMAND INFO REPLTAKEOVER is not nil);
  /// nullopt when it could not be asked (`message` says why either way).
  std::optional<bool> probe_takeover(std::string& message);

 private:
  redis::client* connection(std::chrono::milliseconds io_timeout, std::string& error);
  cache_endpoint e_;
  std::string password_;
  cache_timeouts t_;
  std::unique_ptr<redis::client> c_;
};

}  // namespace br::dragonfly
