// The loop of a Kubernetes controller that works in passes (the backup, restore and verification
// controllers): one pass now, then one every `interval`, each only while this operator holds the
// Lease (`guard` valid, or no guard); a pass that throws (a malformed object) is logged and the
// next one comes anyway. Header-only: each controller keeps its own state type (and actor name).
#pragma once

#include <caf/all.hpp>

#include <exception>
#include <string>

#include "io/log/log.hpp"
#include "messages/interfaces.hpp"

namespace br::op {

/// `State` has a member `o` with `guard` (shared_ptr to a lease_guard, may be null) and
/// `interval`; `pass(o)` runs one pass.
template <class State, class Pass>
ticking_actor::behavior_type guarded_pass_behavior(ticking_actor::stateful_pointer<State> self,
                                                   std::string what, Pass pass) {
  self->send(self, tick_atom::value);
  return {
      [=](tick_atom) {
        const auto& opts = self->state.o;
        if (!opts.guard || opts.guard->valid()) {
          try {
            pass(opts);
          } catch (const std::exception& e) {  // a malformed object must not end the controller
            log::error(what + " pass failed", {{"error", e.what()}});
          }
        }
        self->delayed_send(self, opts.interval, tick_atom::value);
      },
  };
}

}  // namespace br::op
