// Bridge from an async HTTP handler to a CAF request/response, blocking no thread.
#pragma once

#include <caf/actor_system.hpp>
#include <caf/detail/type_list.hpp>
#include <caf/detail/type_traits.hpp>
#include <caf/event_based_actor.hpp>
#include <chrono>
#include <exception>
#include <string>
#include <utility>

#include "io/http/message.hpp"

namespace br::http {

namespace detail {

/// Builds a CAF result handler with exactly the argument types of `on_ok`, because CAF 0.17
/// deduces the expected response from the handler signature (generic lambdas do not work).
template <class OnOk, class... Ts>
auto make_ask_handler(OnOk on_ok, responder reply, std::string name,
                      caf::detail::type_list<Ts...>) {
  return [on_ok = std::move(on_ok), reply = std::move(reply), name = std::move(name)](Ts... xs) {
    try {
      reply(on_ok(std::forward<Ts>(xs)...));
    } catch (const std::exception& e) {
      reply(response::error(500, name + ": " + e.what()));
    } catch (...) {
      reply(response::error(500, name + ": unknown exception"));
    }
  };
}

}  // namespace detail

/// Sends `args...` to `dest` (typed or untyped handle) as a request with `timeout` from a
/// short-lived event_based actor and answers `reply` from its callbacks:
///  - on a result, `reply(on_ok(result...))`; `on_ok` has a concrete signature matching the
///    response, e.g. `[](const status_view& v) { return response::json(200, to_json(v)); }`;
///  - on an error (including the request timeout, a dead or unreachable actor),
///    503 {"error": "<name>: <caf error text>"}.
/// Choose `timeout` shorter than the server's handler_timeout so the caller sees the CAF
/// error rather than the generic handler timeout.
template <class Handle, class OnOk, class... Args>
void ask(caf::actor_system& sys, const Handle& dest, std::chrono::milliseconds timeout,
         responder reply, std::string name, OnOk on_ok, Args... args) {
  if (!dest) {
    reply(response::error(503, name + ": actor unavailable"));
    return;
  }
  using arg_types = typename caf::detail::get_callable_trait<OnOk>::arg_types;
  auto on_result = detail::make_ask_handler(std::move(on_ok), reply, name, arg_types{});
  sys.spawn([=](caf::event_based_actor* self) {
    self->request(dest, timeout, args...).then(on_result, [reply, name](caf::error& err) {
      reply(response::error(503, name + ": " + caf::to_string(err)));
    });
  });
}

}  // namespace br::http
