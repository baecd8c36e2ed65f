// Generated credentials: the operator Secret of a new group, created with random passwords when absent.
#pragma once

#include <functional>
#include <string>

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
/// namespace with the reference's keys (username "bloodraven", password, MYSQL_ROOT_PASSWORD;
/// base64), owned by the group, labelled as the group's.
nlohmann::json generated_operator_secret(const config::failover_group& g,
                                         const std::function<std::string(size_t)>& random_text);

/// Pure: Secret mysql-<g>-sidecar-token with key `token` (base64 of `token`), owned by the group,
/// labelled as the group's. The sidecars mount it (SIDECAR_TOKEN_FILE, reconciler version 2) and
/// the operator presents it on PUT /view, so the Safe gate's rules 2 and 3 can open.
nlohmann::json generated_sidecar_token_secret(const config::failover_group& g,
                                              const std::string& token);

/// The decoded `token` of a sidecar token Secret; "" when absent, empty or not base64.
std::string sidecar_token_of(const nlohmann::json& secret);

/// n characters from [A-Za-z0-9], from std::random_device.
std::string random_password(size_t n);

}  // namespace br
