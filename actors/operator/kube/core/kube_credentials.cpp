// Secret -> group_credentials: base64 data keys, the legacy DSN, and named problems.
#include "actors/operator/kube/core/kube_credentials.hpp"

#include <array>
#include <map>

#include "config/render/accounts.hpp"

namespace br {


bool parse_dsn_account(std::string_view dsn, std::string& user, std::string& password) {
  // The database name follows the last '/'; the account ends at the last '@' before it (a
  // password may itself contain '@' or ':'), and the user ends at the first ':'.
  auto slash = dsn.rfind('/');
  auto head = slash == std::string_view::npos ? dsn : dsn.substr(0, slash);
  auto at = head.rfind('@');
  if (at == std::string_view::npos) return false;
  auto account = head.substr(0, at);
  auto colon = account.find(':');
  user = std::string(account.substr(0, colon));
  password = colon == std::string_view::npos ? std::string{} : std::string(account.substr(colon + 1));
  return !user.empty();
}

namespace {

/// The Secret's decoded data, or a problem.
credential_problem read_secret(const secret_getter& get, const std::string& name,
                               std::map<std::string, std::string>& data) {
  auto res = get(name);
  if (!res) {
    if (res.error().not_found())
      return {"SecretNotFound", "Secret \"" + name + "\" not found"};
    return {"SecretReadFailed", "reading Secret \"" + name + "\": " + res.error().describe()};
  }
  data.clear();
  const auto& d = res->value("data", nlohmann::json::object());
  for (auto it = d.begin(); it != d.end(); ++it) {
    if (!it.value().is_string()) continue;
    if (auto v = base64_decode(it.value().get<std::string>())) data[it.key()] = *v;
  }
  // stringData is write-only on a real server, but a simulator or fixture may keep it.
  const auto& sd = res->value("stringData", nlohmann::json::object());
  for (auto it = sd.begin(); it != sd.end(); ++it)
    if (it.value().is_string() && !data.count(it.key())) data[it.key()] = it.value().get<std::string>();
  return {};
}

credential_problem missing_key(const std::string& secret, const std::string& key) {
  return {"SecretMissingKey", "Secret \"" + secret + "\" has no key \"" + key + "\""};
}

void optional_replication(const std::map<std::string, std::string>& data, group_credentials& out) {
  if (auto u = data.find("MYSQL_REPLICATION_USER"); u != data.end() && !u->second.empty()) {
    out.replication_user = u->second;
    auto p = data.find("MYSQL_REPLICATION_PASSWORD");
    out.replication_password = p == data.end() ? std::string{} : p->second;
  }
}

}  // namespace

credential_problem resolve_group_credentials(const config::group_spec& spec,
                                             const secret_getter& get_secret,
                                             group_credentials& out) {
  out = group_credentials{};
  std::map<std::string, std::string> data;
  if (spec.credentials) {
    const auto& name = spec.credentials->operator_secret;
    if (auto p = read_secret(get_secret, name, data)) return p;
    for (const char* key : {"username", "password"})
      if (!data.count(key)) return missing_key(name, key);
    if (auto bad = render::account_values_problem(name, data); !bad.empty())
      return {"CredentialReconcileFailed", bad};
    out.operator_user = data["username"];
    out.operator_password = data["password"];
    optional_replication(data, out);
  } else if (!spec.secret_name.empty()) {
    const auto& name = spec.secret_name;
    if (auto p = read_secret(get_secret, name, data)) return p;
    if (!data.count("dsn")) return missing_key(name, "dsn");
    // The pods' init reads this Secret's account keys too (render::users_env).
    if (auto bad = render::account_values_problem(name, data); !bad.empty())
      return {"CredentialReconcileFailed", bad};
    if (!parse_dsn_account(data["dsn"], out.operator_user, out.operator_password))
      return {"SecretMissingKey",
              "Secret \"" + name + "\" key \"dsn\" holds no account (expected user:password@...)"};
    optional_replication(data, out);
  } else {
    return {"SecretNotFound", "the spec names no credentials Secret"};
  }
  if (!spec.replication.secret_name.empty()) {
    const auto& name = spec.replication.secret_name;
    if (auto p = read_secret(get_secret, name, data)) return p;
    for (const char* key : {"MYSQL_REPLICATION_USER", "MYSQL_REPLICATION_PASSWORD"})
      if (!data.count(key)) return missing_key(name, key);
    out.replication_user = data["MYSQL_REPLICATION_USER"];
    out.replication_password = data["MYSQL_REPLICATION_PASSWORD"];
  }
  // The cache pods' requirepass (render/dragonfly.hpp reads the same key): the manager's AUTH.
  if (spec.dragonfly.enabled && spec.dragonfly.auth) {
    const auto& a = *spec.dragonfly.auth;
    if (auto p = read_secret(get_secret, a.secret_name, data)) return p;
    if (!data.count(a.password_key)) return missing_key(a.secret_name, a.password_key);
    out.dragonfly_password = data[a.password_key];
  }
  return {};
}

}  // namespace br
