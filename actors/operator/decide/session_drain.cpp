// When the deposed primary's sessions are killed (see session_drain.hpp).
#include "actors/operator/decide/session_drain.hpp"

namespace br {

bool kill_old_sessions(plan_kind kind, session_kill_point at, bool operator_fenced_old) {
  if (!operator_fenced_old) return false;
  switch (at) {
    case session_kill_point::at_fence:
      return kind == plan_kind::failover || kind == plan_kind::switchover;
    case session_kill_point::after_steering:
      return kind == plan_kind::switchover;
  }
  return false;
}

}  // namespace br
