// Route table: (method, exact path) -> named async handler; query parsing and percent-decoding.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "io/http/message.hpp"

namespace br::http {

/// A connection taken over from the HTTP server (e.g. for a WebSocket). Defined in
/// io/http/upgraded_connection.hpp, which includes Beast: only a WebSocket TU needs it.
struct upgraded_connection;
/// Out-of-line deleter so code without Beast can hold and drop an upgraded connection.
struct upgraded_connection_deleter {
  void operator()(upgraded_connection* c) const;
};
using upgraded_ptr = std::unique_ptr<upgraded_connection, upgraded_connection_deleter>;

/// Receives the socket of an upgrade request (one with "Upgrade:" and "Connection: upgrade"
/// headers) on its route. From then on the server no longer owns, times or counts it; it
/// must be dropped before the server is destroyed (the socket lives on its io_context).
using upgrade_handler = std::function<void(const request&, upgraded_ptr)>;

struct route {
  std::string method;
  std::string path;
  std::string name;  // metrics label and error texts; a fixed string, never the raw path
  handler on_request;
  upgrade_handler on_upgrade;  // set only on upgrade routes
};

class router {
 public:
  /// Registers a route. `name` labels metrics and timeouts. A later add() for the same
  /// (method, path) replaces the earlier one.
  router& add(std::string method, std::string path, std::string name, handler h);
  router& get(std::string path, std::string name, handler h) {
    return add("GET", std::move(path), std::move(name), std::move(h));
  }
  router& post(std::string path, std::string name, handler h) {
    return add("POST", std::move(path), std::move(name), std::move(h));
  }
  /// Extension point for WebSocket: a GET route whose upgrade requests hand over the socket.
  /// `plain` (optional) answers non-upgrade GETs on the same path.
  router& add_upgrade(std::string path, std::string name, upgrade_handler on_upgrade,
                      handler plain = {});

  enum class outcome { found, not_found, method_not_allowed };
  struct match {
    outcome kind = outcome::not_found;
    const route* found = nullptr;  // for found (HEAD falls back to the GET route)
    std::string allow;             // for method_not_allowed, e.g. "GET, POST"
    std::string name;              // metrics label: route name or "not_found"
  };
  match find(std::string_view method, std::string_view path) const;

 private:
  std::map<std::string, std::map<std::string, route>, std::less<>> by_path_;  // path -> method
};

/// Percent-decodes `in` ('+' becomes ' ' when `plus_is_space`); nullopt on a bad escape.
std::optional<std::string> percent_decode(std::string_view in, bool plus_is_space);

/// Splits a target into decoded path and query map; nullopt when malformed (not origin-form
/// or bad escapes).
struct parsed_target {
  std::string path;
  std::map<std::string, std::string> query;
};
std::optional<parsed_target> parse_target(std::string_view target);

}  // namespace br::http
