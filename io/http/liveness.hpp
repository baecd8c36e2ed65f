// A separate, tiny HTTP listener for the kubelet's liveness probe (GET /livez): its own
// connection budget, so a flood that fills the API listener's slots cannot fail liveness.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "io/http/router.hpp"
#include "io/http/server.hpp"

namespace br::http {

inline constexpr const char* livez_path = "/livez";

/// Options for a liveness listener named "health" on `address`:`port`: one thread, at most 16
/// connections and 4 per client (the kubelet probes from its node's address), 1 KiB bodies,
/// 4 KiB headers, deadlines of 2 s (idle 5 s) and a 2.5 s handler timeout (under the sidecar
/// probe's 3 s).
server_options liveness_options(std::string address, std::uint16_t port);

/// GET /livez (and HEAD): `check(reply)` answers; without a check, 200 "ok". The check must
/// answer within the listener's handler timeout (else 503) and must not touch MySQL.
router liveness_routes(std::function<void(responder)> check = {});

}  // namespace br::http
