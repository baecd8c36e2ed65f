// The group source's front half: what a MysqlFailoverGroup object is (parsed, validated, its
// credentials read, a new group's Secrets generated), and the detached watcher and resolver that
// do the blocking API calls.
#include "actors/operator/kube/group_source_detail.hpp"

#include "config/render/dragonfly.hpp"
#include "config/render/gr_member.hpp"

namespace br {

using nlohmann::json;

config::address_spec service_site_address(const std::string& ns, const std::string& group,
                                          const std::string& site) {
  return {"mysql-" + group + "-" + site + "." + ns + ".svc.cluster.local", 3306};
}

group_desired desire_from_event(const std::string& type, const json& object) {
  group_desired d;
  const json md = object.value("metadata", json::object());
  d.ns = md.value("namespace", std::string{});
  d.name = md.value("name", std::string{});
  d.uid = md.value("uid", std::string{});
  d.generation = md.value("generation", int64_t{0});
  d.object_json = object.dump();
  d.terminating = md.contains("deletionTimestamp");
  if (type == "DELETED") {
    d.deleted = true;
    return d;
  }
  auto parsed = config::load_group_json(d.object_json, config::run_mode::kubernetes);
  d.errors = parsed.errors;
  d.valid = parsed.ok();
  if (d.valid) {
    d.spec = parsed.group.spec;
    d.group = parsed.group;
    d.restore_hold = config::restore_bootstrap_hold(d.spec.init_from_backup,
                                                    object.value("status", json::object()));
  }
  return d;
}

std::string service_sidecar_address(const std::string& ns, const std::string& group,
                                    const std::string& site) {
  return render::sidecar_peer_address(group, site, ns);
}

std::string service_dragonfly_address(const std::string& ns, const std::string& group,
                                      const std::string& site, int port) {
  return render::dragonfly_site_name(group, site) + "." + ns + ".svc.cluster.local:" + std::to_string(port);
}

config::group_spec runtime_spec(const config::group_spec& spec, const std::string& ns,
                                const std::string& group, const site_address_fn& addr,
                                const sidecar_address_fn& sidecar, const dragonfly_address_fn& cache) {
  auto out = spec;
  for (auto& s : out.sites) s.address = addr(ns, group, s.name);
  // Group Replication: the member's group communication address as its my.cnf has it, which
  // the operator also sets before every START (config/render/gr_member.hpp).
  if (render::is_group_replication(out))
    for (auto& s : out.sites)
      s.group_replication =
          config::site_group_replication_spec{render::gr_member_address(group, ns, s)};
  if (sidecar)
    for (auto& s : out.sites) s.sidecar_address = sidecar(ns, group, s.name);
  if (cache && out.dragonfly.enabled)
    for (auto& s : out.sites) s.dragonfly_address = cache(ns, group, s.name, out.dragonfly.port);
  return out;
}

json invalid_spec_condition(const config::field_errors& errors, const std::string& now) {
  std::string msg = "invalid spec (" + std::to_string(errors.size()) +
                    (errors.size() == 1 ? " error): " : " errors): ");
  for (size_t i = 0; i < errors.size(); ++i) msg += (i ? "; " : "") + errors[i].to_string();
  return {{"type", "Ready"},
          {"status", "False"},
          {"reason", reason_invalid_spec},
          {"message", msg},
          {"lastTransitionTime", now}};
}

}  // namespace br

namespace br::source_detail {

namespace {

/// A new group whose operator Secret is absent gets one with random passwords (never
/// overwritten: a create that finds it already there changes nothing). "" or the Secret's name.
std::string generate_secret_if_new(kube::client& c, const group_desired& d) {
  if (!d.group.spec.credentials) return "";
  const auto& name = d.group.spec.credentials->operator_secret;
  auto have = c.get(kube::resources::secrets, d.ns, name, std::chrono::seconds(5));
  if (have || !have.error().not_found()) return "";
  kube::list_options lo;
  lo.label_selector = "shipstream.io/failover-group=" + d.name;
  auto pvcs = c.list(kube::resources::pvcs, d.ns, lo, std::chrono::seconds(5));
  if (!pvcs) return "";
  if (!may_generate_operator_secret(d.group, !(*pvcs)["items"].empty())) return "";
  auto made = c.create(kube::resources::secrets, d.ns,
                       generated_operator_secret(d.group, random_password), std::chrono::seconds(5));
  if (!made) {
    if (!made.error().already_exists())
      log::warn("credentials Secret not generated",
                {{"group", d.name}, {"namespace", d.ns}, {"error", made.error().describe()}});
    return "";
  }
  log::info("credentials Secret generated", {{"group", d.name}, {"namespace", d.ns}, {"secret", name}});
  return name;
}

/// The group's keys: read from mysql-<g>-keys, created (or completed for new sites) with fresh
/// keys. Null when the API fails: the group then runs without signed views leaving the operator
/// (gate rule 1 only), and a later event retries.
std::shared_ptr<const auth::key_ring> ensure_keys(kube::client& c, const group_desired& d) {
  auto name = render::keys_secret(d.name);
  auto f = [&] { return json{{"group", d.name}, {"namespace", d.ns}, {"secret", name}}; };
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto have = c.get(kube::resources::secrets, d.ns, name, std::chrono::seconds(5));
    if (!have && !have.error().not_found()) {
      auto g = f();
      g["error"] = have.error().describe();
      log::warn("keys Secret not readable", g);
      return nullptr;
    }
    bool added = false;
    auto data = completed_keys(d.group, have ? secret_data(*have) : std::map<std::string, std::string>{},
                               added);
    if (added) {
      auto object = generated_keys_secret(d.group, data);
      kube::result<json> wrote = have ? [&] {
        object["metadata"]["resourceVersion"] = (*have)["metadata"].value("resourceVersion", "");
        return c.update(kube::resources::secrets, object, std::chrono::seconds(5));
      }()
                                      : c.create(kube::resources::secrets, d.ns, object,
                                                 std::chrono::seconds(5));
      if (!wrote) {
        if (wrote.error().already_exists() || wrote.error().conflict()) continue;  // raced: reread
        auto g = f();
        g["error"] = wrote.error().describe();
        log::warn("keys Secret not written", g);
        return nullptr;
      }
      log::info("keys Secret generated", f());
    }
    auto ring = operator_keys_of(d.group, data);
    if (!ring.ring) {
      auto g = f();
      g["error"] = ring.error;
      log::warn("keys Secret unusable", g);
      return nullptr;
    }
    return std::make_shared<const auth::key_ring>(std::move(*ring.ring));
  }
  return nullptr;
}

/// Keeps the copy of a generated operator Secret in the operator's namespace equal to the
/// group's (created, or updated when the source changed; on each resolution of the group).
/// Failures are logged and retried by the next resolution: nothing reads the copy to run.
void sync_operator_copy(kube::client& c, const group_desired& d, const std::string& operator_ns) {
  if (operator_ns.empty() || !d.group.spec.credentials) return;
  auto source = c.get(kube::resources::secrets, d.ns, d.group.spec.credentials->operator_secret,
                      std::chrono::seconds(5));
  if (!source) return;
  auto want = operator_secret_copy(d.group, *source, operator_ns);
  if (!want) return;
  const auto name = (*want)["metadata"]["name"].get<std::string>();
  json f = {{"group", d.name}, {"namespace", d.ns}, {"copy", operator_ns + "/" + name}};
  auto have = c.get(kube::resources::secrets, operator_ns, name, std::chrono::seconds(5));
  if (!have && !have.error().not_found()) {
    f["error"] = have.error().describe();
    log::warn("operator Secret copy not readable", f);
    return;
  }
  auto write = copy_write(have ? *have : json(nullptr), *want);
  if (!write) return;
  auto wrote = have ? c.update(kube::resources::secrets, *write, std::chrono::seconds(5))
                    : c.create(kube::resources::secrets, operator_ns, *write, std::chrono::seconds(5));
  if (!wrote) {
    f["error"] = wrote.error().describe();
    log::warn("operator Secret copy not written", f);
    return;
  }
  log::info(have ? "operator Secret copy updated" : "operator Secret copy created", f);
}

/// Group Replication: the sites whose Deployment (by the group's label) exists although the spec
/// no longer declares them, sorted; a failed list is logged and yields none (the next resolution
/// of the group finds them again: their workload is only deleted once the scale-down says so).
std::vector<std::string> leaving_sites(kube::client& c, const group_desired& d) {
  kube::list_options lo;
  lo.label_selector = std::string{render::label_group} + "=" + d.name;
  auto deps = c.list(kube::resources::deployments, d.ns, lo, std::chrono::seconds(5));
  if (!deps) {
    log::warn("Deployments not listed for the scale-down",
              {{"group", d.name}, {"namespace", d.ns}, {"error", deps.error().describe()}});
    return {};
  }
  std::set<std::string> out;
  for (const auto& dep : deps->value("items", json::array())) {
    auto site = dep["metadata"].value("labels", json::object()).value(std::string{render::label_site}, "");
    if (!site.empty() && !config::find_site(d.spec, site)) out.insert(site);
  }
  return {out.begin(), out.end()};
}

}  // namespace

watcher_actor::behavior_type watcher(watcher_actor::pointer, std::shared_ptr<kube::client> client,
                                     std::shared_ptr<kube::reflector> refl,
                                     group_source_actor source) {
  // Held weakly: a strong handle here would keep the source alive while the reflector blocks.
  auto weak = caf::actor_cast<caf::weak_actor_ptr>(source);
  source = nullptr;
  return {[=](run_atom) {
    refl->run([&](const kube::watch_event& e) {
      // The weak pointer back to a strong handle of the same typed interface it was taken from.
      if (auto h = caf::actor_cast<group_source_actor>(weak.lock()))
        caf::anon_send(h, kube_event_atom::value, e.type, e.object.dump());
    });
    (void)client;  // keeps the client alive as long as the reflector runs
  }};
}

resolver_actor::behavior_type resolver(resolver_actor::pointer,
                                       std::shared_ptr<kube::client> client, std::string operator_ns,
                                       std::string tls_ca_dir) {
  return {[=](resolve_atom, const std::string& type, const std::string& text) -> group_desired {
    auto object = json::parse(text, nullptr, false);
    if (object.is_discarded()) object = json::object();
    auto d = desire_from_event(type, object);
    if (d.deleted || d.terminating || !d.valid) return d;
    d.generated_secret = generate_secret_if_new(*client, d);
    d.problem = resolve_group_credentials(
        d.spec,
        [&](const std::string& secret) {
          return client->get(kube::resources::secrets, d.ns, secret, std::chrono::seconds(5));
        },
        d.creds);
    if (!d.problem) d.creds.keys = ensure_keys(*client, d);
    // spec.tls: the CA the group's pods mount, as the group TLS controller writes it for us (a
    // session fails, never plain text, until it exists: group_supervisor's target_of).
    if (!d.problem && d.spec.tls)
      d.creds.mysql_tls_ca_file = group_tls::group_ca_file(tls_ca_dir, d.ns, d.name);
    if (!d.problem) sync_operator_copy(*client, d, operator_ns);
    if (render::is_group_replication(d.spec)) d.leaving_sites = leaving_sites(*client, d);
    return d;
  },
  [=](annotate_atom, const std::string& ns, const std::string& name, const std::string& key,
      const std::string& resource_version) -> int {
    // A merge patch carrying the resourceVersion it was read at: a precondition, as on update.
    json patch = {{"metadata",
                   {{"resourceVersion", resource_version}, {"annotations", {{key, nullptr}}}}}};
    auto r = client->merge_patch(mfg_resource, ns, name, patch, {}, std::chrono::seconds(5));
    if (r) return clear_result::cleared;
    json f = {{"group", ns + "/" + name}, {"annotation", key}, {"error", r.error().describe()}};
    if (r.error().conflict() || r.error().not_found()) return clear_result::changed;
    log::warn("admin annotation not removed", f);
    return clear_result::failed;
  }};
}

}  // namespace br::source_detail
