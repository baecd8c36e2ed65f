// The operator-generated CA, Kubernetes side (see the header).
#include "actors/operator/kube/core/operator_ca.hpp"

#include <caf/all.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "actors/operator/kube/core/guarded_pass.hpp"
#include "io/fs/atomic_file.hpp"
#include "io/log/log.hpp"

namespace br::op_ca {

using nlohmann::json;

namespace {

/// The material after `step` (new_ca or issue_serving); nullopt when libcrypto fails.
std::optional<ca_material> renewed(const ca_material& have, ca_step step, const std::string& ca_name,
                                   const std::vector<std::string>& names, bool client_auth) {
  ca_material m = have;
  if (step == ca_step::new_ca) {
    auto ca = crypto::make_ca(ca_name, ca_validity);
    if (!ca) return std::nullopt;
    m.ca = *ca;
  }
  if (names.empty()) {  // a CA-only Secret
    m.serving = {};
    return m;
  }
  auto s = client_auth ? crypto::issue_peer_cert(m.ca, names, serving_validity)
                       : crypto::issue_server_cert(m.ca, names, serving_validity);
  if (!s) return std::nullopt;
  m.serving = *s;
  return m;
}

std::string read_text(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  std::stringstream b;
  b << in.rdbuf();
  return in ? b.str() : std::string{};
}

}  // namespace

std::variant<ca_material, std::string> ensure_ca_secret(const operator_ca_options& o, time_point now) {
  auto& c = *o.client;
  const auto names = !o.names.empty()     ? o.names
                     : o.service.empty() ? std::vector<std::string>{}
                                         : service_dns_names(o.service, o.ns);
  for (int attempt = 0; attempt < 4; ++attempt) {
    auto got = c.get(kube::resources::secrets, o.ns, o.secret);
    if (!got && !got.error().not_found()) return "read Secret " + o.secret + ": " + got.error().describe();
    const bool exists = got.ok();
    const ca_material have = exists ? material_of(*got) : ca_material{};
    const auto d = decide_ca_material(facts_of(have), names, now);
    if (d.step == ca_step::keep) return have;
    auto m = renewed(have, d.step, o.secret + "-ca", names, o.client_auth);
    if (!m) return std::string{"libcrypto could not issue the certificates"};
    const std::string what = d.step == ca_step::new_ca ? "new CA" : "serving certificate re-issued";
    if (!exists) {
      auto r = c.create(kube::resources::secrets, o.ns, ca_secret(o.secret, o.ns, *m, {}, o.component));
      if (r) {
        log::info(o.log_name + ": created the CA Secret", {{"secret", o.secret}, {"namespace", o.ns}});
        return *m;
      }
      if (!r.error().already_exists()) return "create Secret " + o.secret + ": " + r.error().describe();
      log::info(o.log_name + ": another replica created the Secret first; using it", {{"secret", o.secret}});
      continue;
    }
    const std::string rv = (*got)["metadata"].value("resourceVersion", std::string{});
    auto r = c.update(kube::resources::secrets, ca_secret(o.secret, o.ns, *m, rv, o.component));
    if (r) {
      log::info(o.log_name + ": " + what, {{"secret", o.secret}, {"reason", d.why}});
      return *m;
    }
    if (!r.error().conflict() && !r.error().not_found())
      return "update Secret " + o.secret + ": " + r.error().describe();
    log::info(o.log_name + ": the Secret changed meanwhile; reading it again", {{"secret", o.secret}});
  }
  return "Secret " + o.secret + " kept changing under every write";
}

std::string write_serving_files(const ca_material& m, const std::string& cert_file,
                                const std::string& key_file, const std::string& ca_file) {
  for (const auto& f : {cert_file, key_file}) {
    std::error_code ec;
    const auto dir = std::filesystem::path{f}.parent_path();
    if (!dir.empty()) std::filesystem::create_directories(dir, ec);
    if (ec) return "create " + dir.string() + ": " + ec.message();
  }
  // The CA first: a new certificate is only served once the CA that verifies it is in place.
  if (!ca_file.empty() && read_text(ca_file) != m.ca.cert_pem)
    if (auto e = fs::write_file_atomic(ca_file, m.ca.cert_pem, 0644); !e.empty()) return e;
  if (read_text(key_file) != m.serving.key_pem)
    if (auto e = fs::write_file_atomic(key_file, m.serving.key_pem, 0600); !e.empty()) return e;
  if (read_text(cert_file) != m.serving.cert_pem)
    if (auto e = fs::write_file_atomic(cert_file, m.serving.cert_pem, 0644); !e.empty()) return e;
  return {};
}

std::string sync_ca_bundle(const operator_ca_options& o, const std::string& ca_pem) {
  if (o.webhook_configuration.empty()) return {};
  auto& c = *o.client;
  auto got = c.get(validating_webhook_configurations, "", o.webhook_configuration);
  if (!got)
    return "read ValidatingWebhookConfiguration " + o.webhook_configuration + ": " + got.error().describe();
  const json ops = ca_bundle_patch(*got, ca_pem);
  if (ops.empty()) return {};
  auto r = c.json_patch(validating_webhook_configurations, "", o.webhook_configuration, ops);
  if (!r)
    return "patch ValidatingWebhookConfiguration " + o.webhook_configuration + ": " + r.error().describe();
  log::info("webhook CA: caBundle set to the CA", {{"webhookConfiguration", o.webhook_configuration}});
  return {};
}

int operator_ca_pass(const operator_ca_options& o) {
  auto m = ensure_ca_secret(o, std::chrono::system_clock::now());
  if (auto* e = std::get_if<std::string>(&m)) {
    log::error(o.log_name + ": " + *e, {{"secret", o.secret}});
    return 1;
  }
  const auto& mat = std::get<ca_material>(m);
  int failures = 0;
  if (auto e = write_serving_files(mat, o.cert_file, o.key_file, o.ca_file); !e.empty()) {
    log::error(o.log_name + ": cannot write the serving certificate: " + e, {{"cert", o.cert_file}});
    ++failures;
  }
  if (auto e = sync_ca_bundle(o, mat.ca.cert_pem); !e.empty()) {
    log::error("webhook CA: " + e, {});
    ++failures;
  }
  return failures;
}

std::string prepare_operator_ca(const operator_ca_options& o, std::chrono::milliseconds deadline) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  std::string last;
  for (;;) {
    auto m = ensure_ca_secret(o, std::chrono::system_clock::now());
    if (auto* mat = std::get_if<ca_material>(&m)) {
      last = write_serving_files(*mat, o.cert_file, o.key_file, o.ca_file);
      if (last.empty()) return {};
    } else {
      last = std::get<std::string>(m);
    }
    log::warn(o.log_name + ": not ready yet: " + last, {{"secret", o.secret}});
    if (std::chrono::steady_clock::now() + std::chrono::seconds{1} >= until) return last;
    std::this_thread::sleep_for(std::chrono::seconds{1});
  }
}

namespace {

struct keeper_state {
  operator_ca_options o;
  static inline const char* name = "webhook_ca";
};

ticking_actor::behavior_type keeper(ticking_actor::stateful_pointer<keeper_state> self,
                                    operator_ca_options o) {
  self->state.o = std::move(o);
  return op::guarded_pass_behavior(self, "webhook CA", [](const auto& opts) { operator_ca_pass(opts); });
}

}  // namespace

ticking_actor spawn_operator_ca_keeper(caf::actor_system& sys, operator_ca_options o) {
  return sys.spawn<caf::detached>(keeper, std::move(o));
}

}  // namespace br::op_ca
