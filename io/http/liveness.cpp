// The liveness listener's options and route.
#include "io/http/liveness.hpp"

namespace br::http {

server_options liveness_options(std::string address, std::uint16_t port) {
  using std::chrono::milliseconds;
  server_options o;
  o.name = "health";
  o.address = std::move(address);
  o.port = port;
  o.threads = 1;
  o.max_connections = 16;
  o.max_connections_per_client = 4;
  o.max_body_bytes = 1024;
  o.max_header_bytes = 4096;
  o.header_timeout = milliseconds{2000};
  o.body_timeout = milliseconds{2000};
  o.write_timeout = milliseconds{2000};
  o.idle_timeout = milliseconds{5000};
  o.handler_timeout = milliseconds{2500};
  o.stop_grace = milliseconds{500};
  return o;
}

router liveness_routes(std::function<void(responder)> check) {
  router r;
  r.get(livez_path, "livez", [check = std::move(check)](const request&, responder reply) {
    if (check)
      check(std::move(reply));
    else
      reply(response::text(200, "ok"));
  });
  return r;
}

}  // namespace br::http
