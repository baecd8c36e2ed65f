// When the executor kills the deposed primary's application sessions (killing_sessions, and a
// switchover's steering), as a pure rule.
//
// The old primary is fenced (super_read_only) before any session is killed, and a switchover
// fences it again, records its gtid_executed and waits for the candidate to execute all of it
// before anything is promoted (docs/safety.md S3): a session left on it can never commit. A kill
// only moves clients. Before the promotion there is nowhere to move them: the router still names
// the old primary until steering, so a client that reconnects comes straight back, and killing
// "every second until none is left" held the promotion for the whole
// plannedFailover.drainTimeout (30 s) whenever clients reconnect (the chaos probers, a pool behind
// a Kubernetes Service). So the sessions are killed once at the fence (open transactions end,
// clients stop waiting on a server that cannot commit), and a switchover kills them once more
// right after steering, when a reconnecting client reaches the new primary.
#pragma once

#include <cstdint>

#include "messages/operator.hpp"

namespace br {

enum class session_kill_point : uint8_t {
  at_fence,        ///< killing_sessions, right after fencing_old
  after_steering,  ///< at the end of steering (router, DNS, taints done)
};

/// Pure: whether the executor kills the old primary's application sessions at `at`.
/// `operator_fenced_old`: this run's fence of the old primary was acknowledged (gate rule 1);
/// without it nothing is killed (an unreachable or unfenced server is not touched).
/// at_fence: failover and switchover (the promotion kinds); after_steering: switchover only
/// (an emergency failover's old primary is normally gone). One round each; never repeated.
bool kill_old_sessions(plan_kind kind, session_kill_point at, bool operator_fenced_old);

}  // namespace br
