// Reading X.509 certificates back (the counterpart of x509_issue.hpp): validity, names, whether
// a CA signed a certificate and whether a key belongs to it. For the operator's generated CA
// (actors/operator/kube/core/operator_ca.*), which decides from these facts whether to keep,
// re-issue or replace what it finds in its Secret.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace br::crypto {

/// What a certificate says about itself.
struct cert_info {
  std::chrono::system_clock::time_point not_before;
  std::chrono::system_clock::time_point not_after;
  std::vector<std::string> names;  ///< subjectAltName DNS names and IP addresses (text), in order
  std::vector<std::string> uris;   ///< subjectAltName URIs, in order
  std::string common_name;         ///< the subject's CN ("" when none)
  bool is_ca = false;              ///< basicConstraints CA:TRUE
};

/// The first certificate of `cert_pem`; nullopt when it does not parse.
std::optional<cert_info> inspect_cert(const std::string& cert_pem);

/// Whether `cert_pem` was issued by `ca_cert_pem` (issuer name matches and the CA's key
/// verifies its signature); false when either does not parse.
bool signed_by(const std::string& cert_pem, const std::string& ca_cert_pem);

/// Whether `key_pem` is the private key of `cert_pem`; false when either does not parse.
bool key_matches(const std::string& cert_pem, const std::string& key_pem);

}  // namespace br::crypto
