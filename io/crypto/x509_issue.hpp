// X.509 certificates through OpenSSL's libcrypto: a self-signed CA and server certificates it
// signs (EC P-256, SHA-256), as PEM. For the operator's own TLS endpoints (the status webhook)
// when no certificate is provided, and for tests that need a CA.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace br::crypto {

/// A certificate and its private key, both PEM (the key is never logged).
struct pem_pair {
  std::string cert_pem;
  std::string key_pem;
};

/// A self-signed CA (basicConstraints CA:TRUE critical, keyUsage keyCertSign and cRLSign) valid
/// from an hour ago for `validity`; nullopt when libcrypto fails.
std::optional<pem_pair> make_ca(const std::string& common_name, std::chrono::hours validity);

/// A server certificate signed by `ca` for `dns_names` (the first is also the common name;
/// entries that parse as IPv4/IPv6 literals become IP subjectAltNames, entries with "://" URI
/// subjectAltNames), extendedKeyUsage
/// serverAuth, valid from an hour ago for `validity`; nullopt when `ca` does not parse, no name
/// is given or libcrypto fails.
std::optional<pem_pair> issue_server_cert(const pem_pair& ca, const std::vector<std::string>& dns_names,
                                          std::chrono::hours validity);

/// The same with extendedKeyUsage serverAuth and clientAuth: one certificate a process both
/// serves with and presents as a TLS client (the sidecar and operator APIs, issue 26).
std::optional<pem_pair> issue_peer_cert(const pem_pair& ca, const std::vector<std::string>& names,
                                        std::chrono::hours validity);

}  // namespace br::crypto
