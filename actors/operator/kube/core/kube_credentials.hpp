// Kubernetes mode: the group's MySQL accounts read from the Secrets its spec names.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "io/codec/base64.hpp"
#include "actors/operator/group/group_supervisor.hpp"
#include "config/group_spec.hpp"
#include "io/kube/result.hpp"

namespace br {

/// Why a group cannot start for lack of credentials; reason "" = none. Reasons are the
/// documented Event reasons: SecretNotFound, SecretMissingKey (and SecretReadFailed for
/// an API error, which is retried like the others).
struct credential_problem {
  std::string reason;
  std::string message;
  explicit operator bool() const { return !reason.empty(); }
};



/// user and password of a go-sql-driver DSN "user:pass@tcp(host:port)/db?params".
bool parse_dsn_account(std::string_view dsn, std::string& user, std::string& password);

/// Reads a Secret by name in the group's namespace (blocking; tests pass a lambda).
using secret_getter = std::function<kube::result<nlohmann::json>(const std::string& name)>;

/// credentials.operatorSecret (keys username, password; optional MYSQL_REPLICATION_USER and
/// MYSQL_REPLICATION_PASSWORD), else the legacy secretName (key dsn, same optional keys);
/// spec.replication.secretName overrides the replication account; with spec.dragonfly.enabled
/// and auth, its Secret's passwordKey is the cache password. Fills `out` and returns no
/// problem, or names the first Secret or key that is missing, or (CredentialReconcileFailed)
/// the first value of the credentials Secret the pods' init SQL could not take
/// (render::account_values_problem: control characters, bad user names, no password).
credential_problem resolve_group_credentials(const config::group_spec& spec,
                                             const secret_getter& get_secret,
                                             group_credentials& out);

}  // namespace br
