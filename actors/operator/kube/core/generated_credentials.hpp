// Generated credentials: the operator Secret of a new group, created with random passwords when absent.
#pragma once

#include <map>
#include <optional>

#include "actors/common/key_dir.hpp"

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/failover_group.hpp"

namespace br {

/// Event reason when the operator created a group's credentials Secret.
inline constexpr const char* reason_credentials_generated = "CredentialsGenerated";

/// Pure: the operator may create spec.credentials.operatorSecret only for a group that never ran:
/// credentials mode, no coordinator status yet (no activeSite, sites or epoch) and no PVC of the
/// group. Otherwise the datadirs already hold accounts, fresh random passwords would lock the
/// operator out, and a missing Secret is reported (SecretNotFound) instead.
bool may_generate_operator_secret(const config::failover_group& g, bool group_pvcs_exist);

/// Pure given `random_text` (n -> n random characters): Secret <operatorSecret> in the group's
/// namespace with the reference's keys (username "bloodraven", password, MYSQL_ROOT_PASSWORD)
/// and the least-privilege accounts' (MYSQL_REPLICATION_USER "repl", MYSQL_REPLICATION_PASSWORD,
/// MYSQL_MONITOR_USER "monitor", MYSQL_MONITOR_PASSWORD), base64, owned by the group, labelled
/// as the group's. The init script (config/render/accounts.hpp) creates the accounts from them.
nlohmann::json generated_operator_secret(const config::failover_group& g,
                                         const std::function<std::string(size_t)>& random_text);

/// Label on the operator-namespace copy naming the group's namespace (with the group label).
inline constexpr const char* label_group_namespace = "shipstream.io/failover-group-namespace";

/// Name of the copy of a group's generated operator Secret in the operator's namespace:
/// "mysql-<group namespace>.<group>-operator" (MOCO keeps "mysql-<ns>.<name>" there). A
/// namespace holds no dot, so no two groups share a name.
std::string operator_secret_copy_name(const std::string& group_ns, const std::string& group);

/// The keys of the operator Secret its copy keeps (each justified in the definition): the
/// operator's account and the replication account it passes to CHANGE REPLICATION SOURCE and
/// CLONE. Never MYSQL_ROOT_PASSWORD or the monitor account's.
const std::vector<std::string>& operator_copy_keys();

/// Pure: the copy of `source` (the group's operator Secret as read) for the operator's
/// namespace `operator_ns`: same type, only the operator_copy_keys() present in the source, no owner (an owner in another namespace is not
/// allowed), labelled with the group's name and namespace so the finalizer finds and deletes
/// it. nullopt when `source` is not the one the operator generated for this group (not owned by
/// the group's uid): a user's own Secret is not copied out of its namespace.
std::optional<nlohmann::json> operator_secret_copy(const config::failover_group& g,
                                                   const nlohmann::json& source,
                                                   const std::string& operator_ns);

/// Pure: the write that brings the copy `have` (null when absent) to `want`: nullopt when
/// they already agree (type, data, labels), else `want` (with have's resourceVersion when it
/// exists, so the update is conditional).
std::optional<nlohmann::json> copy_write(const nlohmann::json& have, const nlohmann::json& want);

/// The decoded data of a Secret (key -> bytes); keys that are not base64 are left out.
std::map<std::string, std::string> secret_data(const nlohmann::json& secret);

/// `have` (a keys Secret's decoded data) completed with fresh PEM keys for the operator and for
/// every site of `g` that has none; `added` says whether anything was generated.
std::map<std::string, std::string> completed_keys(const config::failover_group& g,
                                                  std::map<std::string, std::string> have,
                                                  bool& added);

/// Pure: Secret mysql-<g>-keys holding `data` (base64), owned by the group, labelled as the
/// group's. Each site's pod mounts a subset (render_deployment); the operator reads the
/// operator key and the sites' public keys.
nlohmann::json generated_keys_secret(const config::failover_group& g,
                                     const std::map<std::string, std::string>& data);

/// The operator's key ring from a keys Secret's decoded data ("" error) for the sites of `g`.
auth::key_ring_load operator_keys_of(const config::failover_group& g,
                                     const std::map<std::string, std::string>& data);

/// n characters from [A-Za-z0-9], from std::random_device.
std::string random_password(size_t n);

}  // namespace br
