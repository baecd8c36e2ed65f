// decide/session_drain: one kill of the old primary's sessions at the fence (failover and
// switchover), one more after steering (switchover only), nothing on a server this run did not fence.
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/session_drain.hpp"

using namespace br;

namespace {

struct row {
  plan_kind kind;
  session_kill_point at;
  bool fenced;
  bool kill;
};

const char* name(session_kill_point p) {
  return p == session_kill_point::at_fence ? "at_fence" : "after_steering";
}

}  // namespace

BOOST_AUTO_TEST_CASE(kill_old_sessions_table) {
  using k = plan_kind;
  using p = session_kill_point;
  const row rows[] = {
      {k::switchover, p::at_fence, true, true},
      {k::switchover, p::after_steering, true, true},  // clients that came back move to the new primary
      {k::switchover, p::at_fence, false, false},      // not fenced by this run: untouched
      {k::switchover, p::after_steering, false, false},
      {k::failover, p::at_fence, true, true},
      {k::failover, p::after_steering, true, false},   // an emergency's old primary is normally gone
      {k::failover, p::at_fence, false, false},
      {k::recover, p::at_fence, true, false},          // repair kinds have no killing step
      {k::reclone, p::after_steering, true, false},
      {k::bootstrap, p::at_fence, true, false},
      {k::auto_clone, p::after_steering, true, false},
  };
  for (const auto& r : rows)
    BOOST_TEST(kill_old_sessions(r.kind, r.at, r.fenced) == r.kill,
               to_string(r.kind) << " " << name(r.at) << " fenced=" << r.fenced);
}
