// MUTANT, test-only (target bloodraven-mutant-no-catch-up, `tools/chaos.sh --mutant-no-catch-up`):
// an operator whose switchover drains only what the candidate has RECEIVED, as before issue 18,
// instead of fencing the source and waiting until the candidate has executed the source's whole
// set. It shows that the switchover chaos scenario catches acknowledged writes lost this way.
// Never for use.
//
// This file compiles the real drain/promote steps with `run_draining` renamed and defines
// `run_draining` around them; it defines every symbol of executor_promote.cpp, so the static link
// never pulls the library's member into this executable.
#define run_draining run_draining_unmutated
#include "actors/operator/group/executor_promote.cpp"  // NOLINT(bugprone-suspicious-include)
#undef run_draining

namespace br::executor {

void run_draining(exec_ptr self) { drain_received(self); }  // MUTANT: no catch-up with the source

}  // namespace br::executor
