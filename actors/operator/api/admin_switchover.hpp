// POST /admin/switchover: a switchover asked for by whoever holds the operator's private key
// (standalone mode has no CR to annotate; `bloodraven switchover` signs and sends it).
//
// Body {"namespace", "group", "target", "sentAtMs"} (at most 4 KiB, depth 2), signed in
// X-Bloodraven-Signature with purpose admin-request by one of the group's operator keys. It is
// accepted only when sentAtMs is within max_skew of the operator's clock and newer than the last
// accepted admin request of the group, so a captured request cannot be replayed later.
// Answers: 400 shape/fields, 401 signature, 404 group, 409 stale/replayed sentAtMs; the rest goes
// to the coordinator (202 accepted, 409 rejected with its reason).
#pragma once

#include <cstdint>
#include <string>

#include "actors/operator/api/operator_api.hpp"
#include "io/http/message.hpp"

namespace br {

inline constexpr json_limits admin_limits{4u << 10, 2};
inline constexpr int64_t admin_max_skew_ms = 60'000;

/// The checked request, or the error answer (status != 0).
struct admin_request {
  int status = 0;  ///< 0: valid; else the HTTP status of the refusal
  std::string error;
  std::string namespace_name, group, target;
};

/// Everything but the coordinator's verdict (synchronous; exposed for tests and the fuzz target).
/// Records sentAtMs of a valid request.
admin_request check_admin_switchover(group_table& groups, const http::request& req, int64_t now_ms);

/// The body and signature header value a client sends.
struct signed_admin_body {
  std::string body;
  std::string signature;
};
signed_admin_body sign_admin_switchover(const crypto::signing_key& key,
                                        const std::string& namespace_name,
                                        const std::string& group, const std::string& target,
                                        int64_t sent_at_ms);

}  // namespace br
