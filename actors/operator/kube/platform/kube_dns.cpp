// Kubernetes DNS: create or update the DNSEndpoint bloodraven-<g> (externaldns.k8s.io/v1alpha1).
#include "actors/operator/kube/platform/kube_dns.hpp"

#include <caf/all.hpp>

#include "config/render/names.hpp"
#include "config/render/traffic.hpp"
#include "io/kube/retry.hpp"
#include "io/log/log.hpp"

namespace br {

using nlohmann::json;

namespace {

json member(const json& obj, const char* a, const char* b = nullptr) {
  if (!obj.is_object() || !obj.contains(a)) return nullptr;
  const json& x = obj[a];
  if (!b) return x;
  return x.is_object() && x.contains(b) ? x[b] : json(nullptr);
}

/// Every key of `want` present in `have` with the same value (labels, annotations).
bool includes(const json& have, const json& want) {
  if (!want.is_object()) return true;
  if (!have.is_object()) return want.empty();
  for (auto it = want.begin(); it != want.end(); ++it)
    if (!have.contains(it.key()) || have[it.key()] != it.value()) return false;
  return true;
}

}  // namespace

std::optional<json> dns_endpoint_write(const json& live, const json& desired) {
  if (!live.is_object() || live.empty()) return desired;
  bool same = member(live, "spec") == member(desired, "spec") &&
              includes(member(live, "metadata", "labels"), member(desired, "metadata", "labels")) &&
              includes(member(live, "metadata", "annotations"),
                       member(desired, "metadata", "annotations")) &&
              member(live, "metadata", "ownerReferences") ==
                  member(desired, "metadata", "ownerReferences");
  if (same) return std::nullopt;
  json out = desired;
  out["metadata"]["resourceVersion"] = member(live, "metadata", "resourceVersion");
  // Keep labels and annotations others (external-dns, users) put there; ours win.
  for (const char* m : {"labels", "annotations"}) {
    json merged = member(live, "metadata", m);
    if (!merged.is_object()) merged = json::object();
    json mine = member(desired, "metadata", m);
    if (mine.is_object())
      for (auto it = mine.begin(); it != mine.end(); ++it) merged[it.key()] = it.value();
    out["metadata"][m] = merged;
  }
  return out;
}

std::string apply_dns_endpoint(kube::client& c, const kube_platform_options& o,
                               const std::string& site, bool* wrote) {
  if (wrote) *wrote = false;
  auto g = o.context ? o.context->get() : config::failover_group{};
  auto desired = render::render_dns_endpoint(g, site, o.render);
  if (!desired) return "site " + site + " is not a primary-candidate with an lbIP";
  const auto name = render::dns_endpoint_name(o.group);
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (!o.may_write()) return "not leading: the lease guard is not valid";
    auto live = c.get(kube::resources::dnsendpoints, o.ns, name, o.call_timeout);
    if (!live && !live.error().not_found()) return "get: " + live.error().describe();
    auto write = dns_endpoint_write(live ? *live : json(nullptr), *desired);
    if (!write) return "";
    auto r = live ? c.update(kube::resources::dnsendpoints, *write, o.call_timeout)
                  : c.create(kube::resources::dnsendpoints, o.ns, *write, o.call_timeout);
    if (r) {
      if (wrote) *wrote = true;
      return "";
    }
    // Someone wrote between our read and our write: read again.
    if (r.error().conflict() || r.error().already_exists()) continue;
    return (live ? "update: " : "create: ") + r.error().describe();
  }
  return "conflicts on every attempt";
}

namespace {

dns_actor::behavior_type kube_dns(dns_actor::pointer, kube_platform_options o) {
  return {[o](dns_atom, const std::string&, const std::string& site, const std::string& target) {
    bool wrote = false;
    auto problem = apply_dns_endpoint(*o.client, o, site, &wrote);
    json f = {{"group", o.group}, {"namespace", o.ns}, {"site", site}, {"target", target}};
    if (!problem.empty()) {
      f["error"] = problem;
      log::warn("dns endpoint not written", f);
      return false;
    }
    // Asked again on every steering pass: said only when the object changed.
    if (wrote) log::info("dns endpoint points at the site", f);
    return true;
  }};
}

}  // namespace

dns_actor spawn_kube_dns(caf::actor_system& sys, kube_platform_options o) {
  return sys.spawn<caf::detached>(kube_dns, std::move(o));
}

}  // namespace br
