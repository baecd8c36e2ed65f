// The group TLS controller: list, decide (group_tls_plan.hpp), apply (see group_tls.hpp).
#include "actors/operator/kube/core/group_tls.hpp"

#include <caf/all.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "actors/operator/kube/core/api_tls_plan.hpp"
#include "actors/operator/kube/core/guarded_pass.hpp"
#include "actors/operator/kube/core/operator_ca.hpp"
#include "config/render/api_tls_pod.hpp"
#include "config/tls_spec.hpp"
#include "io/crypto/x509_issue.hpp"
#include "io/fs/atomic_file.hpp"
#include "io/log/log.hpp"

namespace br::group_tls {

std::optional<tls_settings> settings_of(const config::failover_group& g) {
  if (!g.spec.tls) return std::nullopt;
  const auto& t = *g.spec.tls;
  tls_settings s;
  if (t.issuer_ref) {
    s.issuer_name = t.issuer_ref->name;
    s.issuer_kind = std::string{config::to_string(t.issuer_ref->kind)};
  }
  s.secret_name = config::effective_tls_secret_name(t, g.metadata.name);
  return s;
}

namespace {

constexpr const char* discovery_path = "/apis/cert-manager.io/v1";

struct pass {
  const controller_options& o;
  kube::client& c;
  pass_result out;
  std::optional<crypto::pem_pair> ca;  // the generated CA, read once per pass when needed
  bool ca_failed = false;
  std::optional<crypto::pem_pair> api_ca;  // the API CA (o.api_ca), the same way
  bool api_ca_failed = false;

  explicit pass(const controller_options& opts) : o(opts), c(*opts.client) {}

  void failed(const std::string& what, const std::string& name, const std::string& error) {
    ++out.failures;
    log::warn("group TLS: " + what + " failed", {{"name", name}, {"error", error}});
  }

  void event(const config::failover_group& g, const json& object, const char* type, const char* reason,
             const std::string& message) {
    if (!o.events) return;
    auto r = o.events->record(kube::ref_of(object), type, reason, message);
    if (!r) failed("event " + std::string{reason}, g.metadata.name, r.error().describe());
  }

  /// nullopt when discovery failed (nothing is decided that depends on it this pass).
  std::optional<bool> certificate_kind_served() {
    auto r = c.request("GET", discovery_path, "", "");
    if (r) return serves_certificates(*r);
    if (r.error().not_found()) return false;
    failed("discovery of " + std::string{discovery_path}, discovery_path, r.error().describe());
    return std::nullopt;
  }

  /// The group's Secret as read: the object, null when absent; nullopt when the read failed.
  std::optional<json> read(const std::string& ns, const std::string& name) {
    auto r = c.get(kube::resources::secrets, ns, name);
    if (r) return *r;
    if (r.error().not_found()) return json(nullptr);
    failed("read Secret", ns + "/" + name, r.error().describe());
    return std::nullopt;
  }

  /// Creates (have null) or updates (conditionally) the group's Secret. True when written.
  bool write_secret(const std::string& ns, const json& have, const json& object) {
    const std::string name = object["metadata"].value("name", "");
    auto r = have.is_object() ? c.update(kube::resources::secrets, object)
                              : c.create(kube::resources::secrets, ns, object);
    if (!r) {
      // 409: another writer got there between read and write; the next pass reads again.
      failed(have.is_object() ? "update Secret" : "create Secret", ns + "/" + name, r.error().describe());
      return false;
    }
    ++out.writes;
    return true;
  }

  /// The group's CA as the operator's MySQL sessions read it, with the CAs before it
  /// (ca_file_bundle; written when it differs).
  void write_ca_file(const config::failover_group& g, const std::string& ca_pem_now) {
    const auto path = group_ca_file(o.ca_dir, g.metadata.namespace_name, g.metadata.name);
    std::string ca_pem;
    {
      std::ifstream in{path, std::ios::binary};
      std::stringstream b;
      b << in.rdbuf();
      ca_pem = ca_file_bundle(ca_pem_now, in ? b.str() : std::string{});
      if (in && b.str() == ca_pem) return;
    }
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path{path}.parent_path(), ec);
    auto e = ec ? "create " + std::filesystem::path{path}.parent_path().string() + ": " + ec.message()
                : fs::write_file_atomic(path, ca_pem, 0644);
    if (!e.empty()) {
      failed("write the CA file", path, e);
      return;
    }
    log::info("group TLS: CA file written", {{"file", path}, {"group", g.metadata.name}});
  }

  void conflict(const config::failover_group& g, const json& object, const std::string& why) {
    log::warn("group TLS: " + why, {{"group", g.metadata.name}, {"namespace", g.metadata.namespace_name}});
    event(g, object, "Warning", reason_secret_conflict, why + "; spec.tls.secretName must name a Secret bloodraven may own");
  }

  void cert_manager(const config::failover_group& g, const json& object, const tls_settings& s) {
    const json want = certificate(g, s, o.operator_ns);
    const std::string name = want["metadata"]["name"];
    auto have = c.get(certificates, o.operator_ns, name);
    if (!have && !have.error().not_found()) {
      failed("read Certificate", o.operator_ns + "/" + name, have.error().describe());
      return;
    }
    if (auto w = certificate_write(have ? *have : json(nullptr), want)) {
      auto r = have ? c.update(certificates, *w) : c.create(certificates, o.operator_ns, *w);
      if (!r) {
        failed(have ? "update Certificate" : "create Certificate", o.operator_ns + "/" + name, r.error().describe());
      } else {
        ++out.writes;
        log::info(have ? "group TLS: Certificate updated" : "group TLS: Certificate created",
                  {{"certificate", o.operator_ns + "/" + name}, {"group", g.metadata.name}});
        if (!have)
          event(g, object, "Normal", reason_certificate_requested,
                "Certificate " + o.operator_ns + "/" + name + " requested from " +
                    (s.issuer_kind.empty() ? "Issuer" : s.issuer_kind) + " " + s.issuer_name);
      }
    }
    auto issued = read(o.operator_ns, name);
    auto copy = read(g.metadata.namespace_name, s.secret_name);
    if (!issued || !copy) return;
    const auto d = decide_copy(g, s, *issued, *copy);
    switch (d.step) {
      case copy_step::wait:
        log::info("group TLS: waiting for cert-manager: " + d.why, {{"certificate", o.operator_ns + "/" + name}});
        return;
      case copy_step::keep:
        write_ca_file(g, op_ca::material_of(*issued).ca.cert_pem);
        return;
      case copy_step::conflict:
        conflict(g, object, d.why);
        return;
      case copy_step::write:
        if (write_secret(g.metadata.namespace_name, *copy, d.object)) {
          write_ca_file(g, op_ca::material_of(*issued).ca.cert_pem);
          log::info("group TLS: issued Secret copied",
                    {{"from", o.operator_ns + "/" + name},
                     {"to", g.metadata.namespace_name + "/" + s.secret_name}});
          event(g, object, "Normal", reason_secret_copied,
                "Secret " + s.secret_name + " copied from " + o.operator_ns + "/" + name +
                    (copy->is_object() ? " (renewed)" : ""));
        }
        return;
    }
  }

  /// The CA of `co` (ensure_ca_secret), read once per pass into `slot`; false when unusable.
  bool ensure_ca(const op_ca::operator_ca_options& co, std::optional<crypto::pem_pair>& slot, bool& failed_once) {
    if (slot) return true;
    if (failed_once) return false;
    auto m = op_ca::ensure_ca_secret(co, std::chrono::system_clock::now());
    if (auto* e = std::get_if<std::string>(&m)) {
      failed_once = true;
      failed("the generated CA", co.ns + "/" + co.secret, *e);
      return false;
    }
    slot = std::get<op_ca::ca_material>(m).ca;
    return true;
  }

  bool ensure_ca() {
    op_ca::operator_ca_options co;
    co.client = o.client;
    co.ns = o.operator_ns;
    co.secret = o.ca_secret;
    co.component = "mysql-tls-ca";  // no Service: the Secret keeps only the CA
    return ensure_ca(co, ca, ca_failed);
  }

  /// The Secret `name` in the group's namespace after decision `d` (decide_issue's steps): kept,
  /// or written with `make(ca.crt, leaf)` for `names`; `current()` runs once it is (kept or
  /// written, before the log line).
  template <class Make, class Current>
  void issue_from(const config::failover_group& g, const json& object, const crypto::pem_pair& from,
                  const std::string& ca_secret, const std::string& name, const json& have,
                  const issue_decision& d, const std::vector<std::string>& names, Make make, Current current) {
    json want;
    switch (d.step) {
      case issue_step::keep:
        current();
        return;
      case issue_step::conflict:
        conflict(g, object, "Secret " + name + " in namespace " + g.metadata.namespace_name + ": " + d.why);
        return;
      case issue_step::no_ca:
        failed("the generated CA", o.operator_ns + "/" + ca_secret, d.why);
        return;
      case issue_step::rewrite:
        want = make(from.cert_pem, op_ca::material_of(have).serving);
        break;
      case issue_step::issue: {
        auto leaf = crypto::issue_peer_cert(from, names, op_ca::serving_validity);
        if (!leaf) {
          failed("issue a certificate", g.metadata.namespace_name + "/" + name, "libcrypto could not issue it");
          return;
        }
        want = make(from.cert_pem, *leaf);
        break;
      }
    }
    if (have.is_object()) want["metadata"]["resourceVersion"] = have["metadata"].value("resourceVersion", "");
    if (!write_secret(g.metadata.namespace_name, have, want)) return;
    current();
    log::info("group TLS: Secret written from the generated CA",
              {{"secret", g.metadata.namespace_name + "/" + name}, {"reason", d.why}});
    event(g, object, "Normal", reason_secret_issued,
          "Secret " + name + " issued from the operator's CA (" + d.why + ")");
  }

  void generated(const config::failover_group& g, const json& object, const tls_settings& s) {
    if (!ensure_ca()) return;
    auto have = read(g.metadata.namespace_name, s.secret_name);
    if (!have) return;
    const auto names = group_cert_names(g).all();
    const auto d = decide_issue(facts_of(g, *ca, *have), names, std::chrono::system_clock::now());
    issue_from(
        g, object, *ca, o.ca_secret, s.secret_name, *have, d, names,
        [&](const std::string& ca_pem, const crypto::pem_pair& leaf) {
          return group_secret(g, s, ca_pem, leaf.cert_pem, leaf.key_pem);
        },
        [&] { write_ca_file(g, ca->cert_pem); });
  }

  /// The APIs over mutual TLS (o.api_ca): every site's API Secret from the API CA.
  void api_sites(const config::failover_group& g, const json& object) {
    if (!o.api_ca || !ensure_ca(*o.api_ca, api_ca, api_ca_failed)) return;
    for (const auto& site : g.spec.sites) {
      const auto name = render::api_tls_secret_name(g.metadata.name, site.name);
      auto have = read(g.metadata.namespace_name, name);
      if (!have) continue;
      const auto d = api_tls::decide_site(g, site.name, *api_ca, *have, std::chrono::system_clock::now());
      issue_from(g, object, *api_ca, o.api_ca->secret, name, *have, d, api_tls::site_cert_names(g, site.name),
                 [&](const std::string& ca_pem, const crypto::pem_pair& leaf) {
                   return api_tls::site_secret(g, site.name, ca_pem, leaf);
                 },
                 [] {});
    }
  }

  /// Deletes a Certificate and the Secret issued for it (same name) in the operator's namespace.
  void remove_certificate(const std::string& name) {
    for (const auto* r : {&certificates, &kube::resources::secrets}) {
      auto d = c.remove(*r, o.operator_ns, name);
      if (!d && !d.error().not_found()) {
        failed("delete " + r->plural, o.operator_ns + "/" + name, d.error().describe());
        continue;
      }
      if (d) ++out.writes;
    }
    log::info("group TLS: Certificate of a group no longer served deleted", {{"certificate", o.operator_ns + "/" + name}});
  }

  void run() {
    std::vector<json> items;
    for (const auto& ns : o.namespaces.empty() ? std::vector<std::string>{""} : o.namespaces) {
      auto got = c.list_all(kube::resources::mysqlfailovergroups, ns);
      if (!got) {
        failed("list MysqlFailoverGroups", ns, got.error().describe());
        return;  // nothing decided from a partial view
      }
      for (auto& item : (*got)["items"]) items.push_back(std::move(item));
    }
    out.cert_manager = certificate_kind_served();
    std::map<std::string, group_intent> intents;
    for (const auto& item : items) {
      const json md = item.value("metadata", json::object());
      const std::string key = md.value("namespace", "") + "/" + md.value("name", "");
      if (md.contains("deletionTimestamp")) {
        intents[key] = group_intent::absent;  // its copy goes with it (owner reference)
        continue;
      }
      auto parsed = config::load_group_json(item.dump(), config::run_mode::kubernetes);
      if (!parsed.ok()) {  // the group source reports the errors (InvalidSpec); nothing done here
        log::debug("group TLS: group spec not valid; skipped", {{"group", key}, {"errors", config::to_string(parsed.errors)}});
        intents[key] = group_intent::unknown;
        continue;
      }
      const auto& g = parsed.group;
      api_sites(g, item);  // every group, spec.tls or not
      auto s = settings_of(g);
      if (!s) {
        intents[key] = group_intent::other;
        continue;
      }
      if (!s->issuer_name.empty() && !out.cert_manager) {
        intents[key] = group_intent::unknown;  // cannot tell which source serves it this pass
        continue;
      }
      if (auto why = issuer_refusal(*s, o.cluster_issuers); !why.empty()) {
        intents[key] = group_intent::unknown;  // nothing requested; what exists is kept
        log::warn("group TLS: " + why, {{"group", key}});
        event(g, item, "Warning", reason_issuer_not_allowed, why);
        continue;
      }
      const auto source = choose_source(*s, out.cert_manager.value_or(false));
      intents[key] = source == tls_source::cert_manager ? group_intent::cert_manager : group_intent::other;
      if (source == tls_source::cert_manager)
        cert_manager(g, item, *s);
      else
        generated(g, item, *s);
    }
    if (out.cert_manager != true) return;  // without the kind there are no Certificates to clean
    kube::list_options lo;
    lo.label_selector = std::string{component_label} + "=" + component_value;
    auto certs = c.list_all(certificates, o.operator_ns, lo);
    if (!certs) {
      failed("list Certificates", o.operator_ns, certs.error().describe());
      return;
    }
    std::vector<json> listed((*certs)["items"].begin(), (*certs)["items"].end());
    for (const auto& name : stale_certificates(listed, intents, o.namespaces)) remove_certificate(name);
  }
};

struct controller_state {
  controller_options o;
  static inline const char* name = "group_tls";
};

ticking_actor::behavior_type controller(ticking_actor::stateful_pointer<controller_state> self,
                                        controller_options o) {
  self->state.o = std::move(o);
  return op::guarded_pass_behavior(self, "group TLS", [](const auto& opts) { reconcile_tls_once(opts); });
}

}  // namespace

pass_result reconcile_tls_once(const controller_options& o) {
  pass p{o};
  p.run();
  return p.out;
}

ticking_actor spawn_tls_controller(caf::actor_system& sys, controller_options o) {
  if (!o.events && o.client)
    o.events = std::make_shared<kube::event_recorder>(
        *o.client, kube::event_recorder_options{"bloodraven", o.instance, std::chrono::seconds(600)});
  return sys.spawn<caf::detached>(controller, std::move(o));
}

}  // namespace br::group_tls
