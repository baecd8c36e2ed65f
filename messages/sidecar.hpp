// Sidecar value types: cached view, HTTP calls of the sidecar's workers, push acks, status.
#pragma once

#include <caf/meta/type_name.hpp>

#include <cstdint>
#include <string>

#include "messages/operator.hpp"

namespace br {

/// Where a view offered to the sidecar's view cache came from. Operator answers and pushes are
/// authoritative (adopted when epoch >= cached); peers' views only when strictly newer.
enum class view_source : uint8_t { operator_poll, peer, push, boot, file };

/// The sidecar's cached view; `present` false = no view yet (first boot without an operator).
struct sidecar_view {
  bool present = false;
  topology_view view;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, sidecar_view& x) {
  return f(caf::meta::type_name("sidecar_view"), x.present, x.view);
}

/// A view offered to the view cache.
struct view_offer {
  topology_view view;
  view_source source = view_source::operator_poll;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, view_offer& x) {
  return f(caf::meta::type_name("view_offer"), x.view, x.source);
}

/// One HTTP request for a detached HTTP worker.
struct http_call {
  std::string method = "GET";
  std::string url;
  std::string body;
  int64_t timeout_ms = 2000;
  std::string signature;  ///< X-Bloodraven-Signature request header when not empty
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, http_call& x) {
  return f(caf::meta::type_name("http_call"), x.method, x.url, x.body, x.timeout_ms, x.signature);
}

/// Its result. `sent_at_ns` is the steady clock (the actor clock's time base) just before the
/// request was sent: docs/safety.md rule 6 counts contact from the send.
struct http_reply {
  int status = 0;  ///< 0 = no response
  std::string body;
  std::string error;  ///< "" when a response arrived; else refused|timeout|other: text
  int64_t sent_at_ns = 0;
  std::string signature;  ///< the response's X-Bloodraven-Signature header ("" = none)
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, http_reply& x) {
  return f(caf::meta::type_name("http_reply"), x.status, x.body, x.error, x.sent_at_ns,
           x.signature);
}

/// Answer to a pushed view (PUT /view). `ok` false = no acknowledgement (the fence could not be
/// confirmed, or the view was older than the cached one: `stale`).
struct push_ack {
  bool ok = false;
  bool stale = false;
  uint64_t epoch = 0;  ///< the cached epoch after the push
  bool fenced = false;
  bool mysql_reachable = true;
  std::string error;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, push_ack& x) {
  return f(caf::meta::type_name("push_ack"), x.ok, x.stale, x.epoch, x.fenced, x.mysql_reachable,
           x.error);
}

/// What the fencing monitor knows, for /status and /ready.
struct sidecar_status {
  bool boot_done = false;
  bool self_fenced = false;
  uint64_t epoch = 0;
  bool mysql_reachable = false;
  bool operator_reachable = false;
  uint64_t ticks = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, sidecar_status& x) {
  return f(caf::meta::type_name("sidecar_status"), x.boot_done, x.self_fenced, x.epoch,
           x.mysql_reachable, x.operator_reachable, x.ticks);
}

}  // namespace br
