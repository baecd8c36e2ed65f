// spec.tls (issue 26): TLS for MySQL (client sessions and replication) as C++ values, with strict
// reading, canonical JSON and validation at field paths. Kubernetes mode names where the
// certificates come from (issuerRef: cert-manager; absent: a CA the operator generates) and the
// Secret holding ca.crt/tls.crt/tls.key; standalone mode names files on the operator's host and
// the CA path as every mysqld sees it (SOURCE_SSL_CA). Each mode refuses the other's fields.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "config/field_error.hpp"

namespace br::config {

enum class run_mode;

enum class issuer_kind { issuer, cluster_issuer };  // "Issuer" | "ClusterIssuer"
std::string_view to_string(issuer_kind k);

/// spec.tls.issuerRef: the cert-manager issuer of the group's certificates.
struct tls_issuer_ref {
  std::string name;                         // "name": required
  issuer_kind kind = issuer_kind::issuer;   // "kind"
  bool operator==(const tls_issuer_ref&) const = default;
};

/// Where mysqld reads its certificate files in the pods (and the default SOURCE_SSL_CA).
inline constexpr std::string_view mysql_tls_dir = "/etc/mysql/tls";
inline constexpr std::string_view mysql_tls_ca_file = "/etc/mysql/tls/ca.crt";
inline constexpr std::string_view mysql_tls_cert_file = "/etc/mysql/tls/tls.crt";
inline constexpr std::string_view mysql_tls_key_file = "/etc/mysql/tls/tls.key";

struct tls_spec {
  // Kubernetes mode.
  std::optional<tls_issuer_ref> issuer_ref;  // "issuerRef"; absent: the operator's generated CA
  std::string secret_name;                   // "secretName"; empty: "<group>-tls"
  // Both modes.
  bool require_secure_transport = true;  // "requireSecureTransport": my.cnf require_secure_transport
  // Standalone mode: files on the operator's host (PEM).
  std::string ca_file;    // "caFile": required; the CA MySQL servers are verified against
  std::string cert_file;  // "certFile": optional client certificate, with keyFile
  std::string key_file;   // "keyFile"
  /// "mysqlCaFile": the CA file as each replica's mysqld sees it (SOURCE_SSL_CA); empty:
  /// mysql_tls_ca_file. Standalone only (Kubernetes mounts it there).
  std::string mysql_ca_file;
  bool operator==(const tls_spec&) const = default;
};

/// spec.tls.secretName, else "<group>-tls".
std::string effective_tls_secret_name(const tls_spec& tls, std::string_view group);

/// The CA path a replica's mysqld is given in SOURCE_SSL_CA.
std::string effective_mysql_ca_file(const tls_spec& tls);

void read(const nlohmann::json& v, const std::string& path, tls_spec& out, field_errors& errs);
nlohmann::json to_json(const tls_spec& tls);

/// The mode's rules, paths rooted at `path` ("spec.tls"): Kubernetes refuses the file fields,
/// wants issuerRef.name when issuerRef is given and a DNS-subdomain secretName; standalone refuses
/// issuerRef/secretName, wants an absolute caFile, certFile and keyFile together, absolute paths.
void validate_tls(const tls_spec& tls, run_mode mode, const std::string& path, field_errors& errs);

}  // namespace br::config
