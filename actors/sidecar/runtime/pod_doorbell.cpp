// The member's own-Pod doorbell annotation (see pod_doorbell.hpp).
#include "actors/sidecar/runtime/pod_doorbell.hpp"

#include <caf/all.hpp>

#include <algorithm>

#include "config/render/member_rbac.hpp"

namespace br::sidecar {

nlohmann::json pod_doorbell_patch(const std::string& token) {
  return {{"metadata", {{"annotations", {{render::gr_observed_annotation, token}}}}}};
}

kube::result<nlohmann::json> ring_pod_doorbell(kube::client& c, const std::string& ns,
                                               const std::string& pod, const std::string& token,
                                               std::chrono::milliseconds timeout) {
  return c.merge_patch(kube::resources::pods, ns, pod, pod_doorbell_patch(token), {}, timeout);
}

std::chrono::milliseconds pod_doorbell_retry_delay(int failures) {
  constexpr std::chrono::milliseconds first{500}, cap{30000};
  auto d = first;
  for (int i = 1; i < failures && d < cap; ++i) d *= 2;
  return std::min(d, cap);
}

pod_doorbell_actor spawn_pod_doorbell(caf::actor_system& sys, pod_doorbell_options o) {
  // Detached: the patch blocks (libcurl) for up to `timeout`.
  return sys.spawn<caf::detached>(
      [o](pod_doorbell_actor::pointer) -> pod_doorbell_actor::behavior_type {
        return {[o](annotate_atom, const std::string& token) -> std::string {
          auto r = ring_pod_doorbell(*o.client, o.pod_namespace, o.pod_name, token, o.timeout);
          return r ? std::string{} : r.error().describe();
        }};
      });
}

}  // namespace br::sidecar
