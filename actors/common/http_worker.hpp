// Detached HTTP worker (sidecar remotes, operator view pushes): one blocking libcurl request at a time, hard timeouts.
#pragma once

#include <caf/actor_system.hpp>

#include "config/api_tls.hpp"
#include "messages/interfaces.hpp"

namespace br {

/// One worker per remote (operator, each peer) so a hanging remote never delays the others.
/// With `tls` on, every call goes out over HTTPS (an http:// URL becomes https://): the server
/// verified against tls.ca_file (CA and host name), tls.cert_file presented as the client's.
http_worker_actor spawn_http_worker(caf::actor_system& sys, const config::api_tls_settings& tls = {});

/// The URL a call goes to: `url` itself, or https:// instead of http:// when `tls` is on.
std::string call_url(const std::string& url, const config::api_tls_settings& tls);

}  // namespace br
