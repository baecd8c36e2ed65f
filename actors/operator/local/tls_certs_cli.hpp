// `bloodraven tls-certs`: the certificates for the operator and sidecar APIs over mutual TLS in
// standalone mode (issue 26; docs/safety.md "The operator and sidecar APIs over TLS"), the way
// `bloodraven keygen` writes the signing keys: a CA (kept when present) and one certificate per
// process naming it (actors/common/peer_identity.hpp), plus one for the router's checks.
#pragma once

namespace br {

/// argv[1] is "tls-certs". Exit 0 when every file was written, 2 on usage, 1 on failure.
int run_tls_certs_cli(int argc, char** argv);

}  // namespace br
