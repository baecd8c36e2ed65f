// Blocking I/O on one cache server (see cache_io.hpp).
#include "actors/operator/dragonfly/cache_io.hpp"

#include "io/redis/info.hpp"

namespace br::dragonfly {

cache_site::cache_site(cache_endpoint e, std::string password, cache_timeouts t)
    : e_(std::move(e)), password_(std::move(password)), t_(t) {}

redis::client* cache_site::connection(std::chrono::milliseconds io_timeout, std::string& error) {
  if (c_ && c_->options().io_timeout == io_timeout) return c_.get();
  redis::connect_options o;
  o.host = e_.host;
  o.port = e_.port;
  o.password = password_;
  o.connect_timeout = t_.connect;
  o.io_timeout = io_timeout;
  redis::redis_error err;
  c_ = redis::client::connect(o, err);
  if (!c_) error = err.to_string();
  return c_.get();
}

site_observation cache_site::observe(std::string& error) {
  site_observation s;
  s.site = e_.site;
  s.host = e_.host;
  s.port = e_.port;
  auto* c = connection(t_.io, error);
  if (!c) return s;
  std::string text;
  for (const char* section : {"replication", "persistence", "keyspace"}) {
    auto r = c->command({"INFO", section});
    if (!r.ok()) {
      error = r.error.to_string();
      c_.reset();
      return s;
    }
    text += r.value->str + "\n";
  }
  s.reachable = true;
  s.info = redis::parse_replication(text);
  return s;
}

std::string cache_site::run(const std::vector<std::string>& argv, std::chrono::milliseconds io_timeout) {
  std::string error;
  auto* c = connection(io_timeout, error);
  if (!c) return error;
  auto r = c->command(argv);
  if (!r.ok()) {
    if (r.error.kind != redis::error_kind::server_error) c_.reset();
    return r.error.to_string();
  }
  return "";
}

std::optional<bool> cache_site::probe_takeover(std::string& message) {
  std::string error;
  auto* c = connection(t_.io, error);
  if (!c) {
    message = "cannot ask " + e_.site + ": " + error;
    return std::nullopt;
  }
  auto r = c->command({"COMMAND", "INFO", "REPLTAKEOVER"});
  if (!r.ok()) {
    message = "COMMAND INFO REPLTAKEOVER on " + e_.site + ": " + r.error.to_string();
    if (r.error.kind != redis::error_kind::server_error) c_.reset();
    return std::nullopt;
  }
  const auto& v = *r.value;
  const bool known = v.kind == redis::reply::type::array && !v.elements.empty() &&
                     v.elements.front().kind != redis::reply::type::nil;
  message = known ? e_.site + " advertises REPLTAKEOVER"
                  : e_.site + " does not know REPLTAKEOVER: promotions use REPLICAOF NO ONE";
  return known;
}

}  // namespace br::dragonfly
