// Group Replication's TLS settings (issue 26), one table for the operator's SET GLOBAL before
// every START (io/mysql/group_replication.cpp) and the Kubernetes my.cnf
// (config/render/gr_member.cpp), so the two never disagree.
//
// With the MySQL communication stack the group communication connections are MySQL client
// connections made with the distributed recovery SSL options (group_replication_recovery_ssl_*)
// in the mode group_replication_ssl_mode, and a clone for distributed recovery takes its
// clone_ssl_ca from group_replication_recovery_ssl_ca (REQUIRE SSL when recovery_use_ssl is ON).
// Measured on MySQL 9.7 (docs/group-replication.md "TLS"): with VERIFY_IDENTITY a member whose
// certificate does not name its group address fails even the test connection to itself, and the
// others refuse to connect to it; a member whose certificate is of another CA is refused too
// (integration_gr_tls), and joins when the members only encrypt.
#pragma once

#include <string>
#include <vector>

namespace br {

struct gr_tls_setting {
  std::string variable;  ///< the system variable (underscores)
  std::string value;
  bool quoted = false;   ///< a string value in SQL ('...'), else ON/OFF
};

/// `ca_file` set (spec.tls: the CA as the member's mysqld sees it): verified TLS for the group
/// communication and the recovery channel (VERIFY_IDENTITY, the CA, server certificate verified,
/// no RSA key fetch). Else `encrypt` (spec.replication.tls): TLS without verification, or none.
inline std::vector<gr_tls_setting> gr_tls_settings(bool encrypt, const std::string& ca_file) {
  if (!ca_file.empty())
    return {
        {"group_replication_recovery_use_ssl", "ON", false},
        {"group_replication_ssl_mode", "VERIFY_IDENTITY", true},
        {"group_replication_recovery_ssl_ca", ca_file, true},
        {"group_replication_recovery_ssl_verify_server_cert", "ON", false},
        {"group_replication_recovery_get_public_key", "OFF", false},
    };
  return {
      {"group_replication_recovery_use_ssl", encrypt ? "ON" : "OFF", false},
      {"group_replication_ssl_mode", encrypt ? "REQUIRED" : "DISABLED", true},
      {"group_replication_recovery_get_public_key", "ON", false},
  };
}

}  // namespace br
