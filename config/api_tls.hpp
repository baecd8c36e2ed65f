// TLS for the sidecar and operator APIs (issue 26): the flags both binaries take, and what they
// turn on. One CA file serves both directions: servers verify client certificates against it,
// clients verify servers (CA and host name) against it. Plain HTTP when none is set.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "config/process_flags.hpp"

namespace br::config {

struct api_tls_settings {
  std::string cert_file;  ///< PEM chain: served, and presented as the client certificate
  std::string key_file;   ///< its PEM key
  std::string ca_file;    ///< PEM CA bundle: verifies servers and client certificates
  /// TLS_CLIENT_AUTH "require": a handshake without a client certificate is refused; "request":
  /// served (health probes, routers), and the authority-carrying routes refuse it themselves.
  bool require_client_cert = true;
  bool on() const { return !cert_file.empty(); }
};

/// --tls-cert-file, --tls-key-file, --tls-ca-file, --tls-client-auth with their variables
/// BLOODRAVEN_TLS_CERT_FILE, BLOODRAVEN_TLS_KEY_FILE, BLOODRAVEN_TLS_CA_FILE,
/// BLOODRAVEN_TLS_CLIENT_AUTH (the same names for both binaries).
std::vector<flag_def> api_tls_flag_defs();

/// The settings from parsed flag values; "" or what is wrong, naming the flag and its variable
/// (the three files go together: all set, or none).
std::string read_api_tls(const std::map<std::string, std::string>& values, api_tls_settings& out);

}  // namespace br::config
