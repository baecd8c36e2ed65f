// The process kubelet's httpGet probe with scheme HTTPS (SIMULATED kubelet): like the real
// kubelet, TLS without verifying the server's certificate and without a client certificate.
#pragma once

#include <string>

namespace br::test::kubelet {

/// On the connected socket `fd` (left open; the caller closes it): a TLS handshake, then
/// "GET path", true on a 2xx/3xx status. Every step is bounded by about one second.
bool https_get_ok(int fd, const std::string& host, const std::string& path);

}  // namespace br::test::kubelet
