// Is mysqld provably not running? Gate rule 2 lets a sidecar acknowledge a deposing view without a
// fence only then (docs/safety.md "Threat model"): a failed connect proves nothing by itself (an
// overloaded server loses connections and times out; the client library reports a refused TCP
// connect as errno 115 of its non-blocking connect). The proof is a fresh TCP connect to the
// local address answered by a reset (ECONNREFUSED): the kernel says nothing listens on that port.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

#include "io/mysql/error.hpp"

namespace br::mysql {

/// True for an IPv4 literal in 127.0.0.0/8, "::1", or "localhost".
bool loopback_host(std::string_view host);

/// A TCP connect to host:port (an IP literal; "localhost" means 127.0.0.1) within `timeout`:
/// true only when it is refused (ECONNREFUSED). Accepted, timed out, unreachable, any other
/// error: false.
bool tcp_refused(std::string_view host, uint16_t port, std::chrono::milliseconds timeout);

/// `e` (a failed connect) counts as "mysqld is down" only when it is a connection-level failure
/// of the connect itself, the host is loopback, and a fresh TCP connect is refused.
bool provably_down(const mysql_error& e, std::string_view host, uint16_t port,
                   std::chrono::milliseconds timeout = std::chrono::milliseconds(500));

}  // namespace br::mysql
