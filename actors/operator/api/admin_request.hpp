// POST /admin/switchover, /admin/reclone and /admin/fence: requests from whoever holds the operator's
// private key (standalone mode has no object to annotate; `bloodraven switchover` and `bloodraven
// reclone` sign and send them).
//
// Body {"action", "namespace", "group", <argument>, "sentAtMs"} (at most 4 KiB, depth 2), signed in
// X-Bloodraven-Signature with purpose admin-request by one of the group's operator keys. The
// argument is "target" (switchover: the site to hand over to) or "value" (reclone: the reclone
// token `<site>:<gtid-prefix>` or `<site>:confirm=<group>`, the annotation's value). "action" must
// name the endpoint's own action, so a signed body of one action cannot be posted to the other.
// A request is accepted only when sentAtMs is within max_skew of the operator's clock and newer than
// the last accepted admin request of the group, so a captured request cannot be replayed later.
// Answers: 400 shape/fields, 401 signature, 404 group, 409 stale/replayed sentAtMs; the rest goes
// to the coordinator (202 accepted, 409 rejected with its reason, 503 busy: try again).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "actors/operator/api/operator_api.hpp"
#include "io/http/message.hpp"

namespace br {

inline constexpr json_limits admin_limits{4u << 10, 2};
inline constexpr int64_t admin_max_skew_ms = 60'000;

enum class admin_action { switchover, reclone, fence, recover };

/// "switchover" | "reclone" | "fence" | "recover" (the body's "action" and the path's last
/// segment). recover: a Group Replication group's guarded quorum recovery, value
/// "<id>@<plan digest>" (the force-quorum-recovery annotation's value).
std::string_view to_string(admin_action a);
/// The body member that carries the action's argument: "target" | "value" (reclone: the token;
/// fence: "on:<site>" | "off:<site>", decide/manual_fence.hpp).
std::string_view argument_field(admin_action a);

/// The checked request, or the error answer (status != 0).
struct admin_request {
  int status = 0;  ///< 0: valid; else the HTTP status of the refusal
  std::string error;
  std::string namespace_name, group, argument;
};

/// Everything but the coordinator's verdict (synchronous; exposed for tests and the fuzz target).
/// Records sentAtMs of a valid request.
admin_request check_admin_request(admin_action action, group_table& groups,
                                  const http::request& req, int64_t now_ms);

/// The body and signature header value a client sends.
struct signed_admin_body {
  std::string body;
  std::string signature;
};
signed_admin_body sign_admin_request(admin_action action, const crypto::signing_key& key,
                                     const std::string& namespace_name, const std::string& group,
                                     const std::string& argument, int64_t sent_at_ms);

}  // namespace br
