// Generated credentials: the operator Secret of a new group, created with random passwords when absent.
#include "actors/operator/kube/core/generated_credentials.hpp"

#include <random>

#include "actors/operator/kube/core/kube_credentials.hpp"
#include "config/render/names.hpp"

namespace br {

using nlohmann::json;

bool may_generate_operator_secret(const config::failover_group& g, bool group_pvcs_exist) {
  if (!g.spec.credentials || g.spec.credentials->operator_secret.empty()) return false;
  if (group_pvcs_exist) return false;
  if (!g.status) return true;
  const auto& s = *g.status;
  return s.active_site.empty() && s.sites.empty() && s.epoch == 0;
}

namespace {

/// An Opaque Secret `name` in the group's namespace, labelled as the group's and owned by it.
json group_owned_secret(const config::failover_group& g, const std::string& name, json data) {
  json md = {{"name", name},
             {"namespace", g.metadata.namespace_name},
             {"labels", render::standard_labels(g.metadata.name)},
             {"ownerReferences", json::array({render::owner_reference(g)})}};
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"type", "Opaque"},
          {"metadata", std::move(md)},
          {"data", std::move(data)}};
}

}  // namespace

json generated_operator_secret(const config::failover_group& g,
                               const std::function<std::string(size_t)>& random_text) {
  return group_owned_secret(g, g.spec.credentials->operator_secret,
                            {{"username", base64_encode("bloodraven")},
                             {"password", base64_encode(random_text(32))},
                             {"MYSQL_ROOT_PASSWORD", base64_encode(random_text(32))},
                             {"MYSQL_REPLICATION_USER", base64_encode("repl")},
                             {"MYSQL_REPLICATION_PASSWORD", base64_encode(random_text(32))},
                             {"MYSQL_MONITOR_USER", base64_encode("monitor")},
                             {"MYSQL_MONITOR_PASSWORD", base64_encode(random_text(32))},
                             {"MYSQL_BACKUP_USER", base64_encode("backup")},
                             {"MYSQL_BACKUP_PASSWORD", base64_encode(random_text(32))}});
}

std::string operator_secret_copy_name(const std::string& group_ns, const std::string& group) {
  return "mysql-" + group_ns + "." + group + "-operator";
}

const std::vector<std::string>& operator_copy_keys() {
  // username/password: the operator's own account (every MySQL command it issues).
  // MYSQL_REPLICATION_USER/PASSWORD: the operator hands them to MySQL in CHANGE REPLICATION
  // SOURCE (SOURCE_USER/SOURCE_PASSWORD) and CLONE INSTANCE FROM ... IDENTIFIED BY (the donor
  // account). Not copied: MYSQL_ROOT_PASSWORD (the operator never connects as root; only the
  // pods' init container uses it), MYSQL_MONITOR_* (nothing of the operator uses that account).
  static const std::vector<std::string> v{"username", "password", "MYSQL_REPLICATION_USER",
                                          "MYSQL_REPLICATION_PASSWORD"};
  return v;
}

std::optional<json> operator_secret_copy(const config::failover_group& g, const json& source,
                                         const std::string& operator_ns) {
  if (operator_ns.empty() || !source.is_object() || g.metadata.uid.empty()) return std::nullopt;
  bool owned = false;
  for (const auto& o : source.value("metadata", json::object()).value("ownerReferences", json::array()))
    if (o.is_object() && o.value("uid", "") == g.metadata.uid) owned = true;
  if (!owned) return std::nullopt;
  json data = json::object();
  const auto have = source.value("data", json::object());
  for (const auto& k : operator_copy_keys())
    if (have.is_object() && have.contains(k)) data[k] = have[k];
  json labels = {{std::string{render::label_group}, g.metadata.name},
                 {label_group_namespace, g.metadata.namespace_name},
                 {std::string{render::label_managed_by}, "bloodraven"}};
  return json{{"apiVersion", "v1"},
              {"kind", "Secret"},
              {"type", source.value("type", "Opaque")},
              {"metadata",
               {{"name", operator_secret_copy_name(g.metadata.namespace_name, g.metadata.name)},
                {"namespace", operator_ns},
                {"labels", std::move(labels)}}},
              {"data", std::move(data)}};
}

std::optional<json> copy_write(const json& have, const json& want) {
  if (!have.is_object()) return want;
  const auto labels = have.value("metadata", json::object()).value("labels", json::object());
  bool labels_ok = true;
  for (const auto& [k, v] : want["metadata"]["labels"].items())
    if (labels.value(k, json()) != v) labels_ok = false;
  if (labels_ok && have.value("type", "Opaque") == want.value("type", "Opaque") &&
      have.value("data", json::object()) == want.value("data", json::object()))
    return std::nullopt;
  json out = want;
  // Keeps what others added to the copy's metadata; ours wins on our labels.
  auto md = have.value("metadata", json::object());
  for (const auto& [k, v] : want["metadata"]["labels"].items()) md["labels"][k] = v;
  out["metadata"] = md;
  return out;
}

std::map<std::string, std::string> secret_data(const json& secret) {
  std::map<std::string, std::string> out;
  if (!secret.is_object()) return out;
  auto data = secret.value("data", json::object());
  if (!data.is_object()) return out;
  for (auto it = data.begin(); it != data.end(); ++it)
    if (it->is_string())
      if (auto d = base64_decode(it->get<std::string>())) out[it.key()] = *d;
  return out;
}

std::map<std::string, std::string> completed_keys(const config::failover_group& g,
                                                  std::map<std::string, std::string> have,
                                                  bool& added) {
  added = false;
  auto pair = [&](const std::string& base) {
    if (have.count(base + ".key") && have.count(base + ".pub")) return;
    auto k = crypto::generate_key();
    if (!k) return;
    have[base + ".key"] = crypto::private_pem(*k);
    have[base + ".pub"] = crypto::public_pem(k->pub);
    added = true;
  };
  pair("operator");
  for (const auto& s : g.spec.sites) pair("site-" + s.name);
  return have;
}

json generated_keys_secret(const config::failover_group& g,
                           const std::map<std::string, std::string>& data) {
  json encoded = json::object();
  for (const auto& [k, v] : data) encoded[k] = base64_encode(v);
  return group_owned_secret(g, render::keys_secret(g.metadata.name), std::move(encoded));
}

auth::key_ring_load operator_keys_of(const config::failover_group& g,
                                     const std::map<std::string, std::string>& data) {
  auth::key_ring_load out;
  auto text = [&](const std::string& k) {
    auto it = data.find(k);
    return it == data.end() ? std::string() : it->second;
  };
  auth::key_ring ring;
  auto own = crypto::signing_key_from_pem(text("operator.key"));
  if (!own.key) {
    out.error = "operator.key: " + own.error;
    return out;
  }
  ring.signer = own.key;
  auto pubs = crypto::verify_keys_from_pem(text("operator.pub"));
  ring.operator_keys = pubs.keys.empty() ? std::vector<crypto::verify_key>{own.key->pub} : pubs.keys;
  for (const auto& s : g.spec.sites) {
    auto l = crypto::verify_keys_from_pem(text("site-" + s.name + ".pub"));
    if (!l.error.empty()) {
      out.error = "site-" + s.name + ".pub: " + l.error;
      return out;
    }
    ring.site_keys[s.name] = l.keys;
  }
  out.ring = std::move(ring);
  return out;
}

std::string random_password(size_t n) {
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device rd;
  std::uniform_int_distribution<size_t> pick(0, sizeof(alphabet) - 2);
  std::string out;
  for (size_t i = 0; i < n; ++i) out.push_back(alphabet[pick(rd)]);
  return out;
}

}  // namespace br
