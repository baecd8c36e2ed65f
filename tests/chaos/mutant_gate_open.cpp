// MUTANT, test-only (target bloodraven-mutant-gate-open, `tools/chaos.sh --mutant-gate-open`):
// an operator whose promotion gate opens at once for an unreachable old primary under every
// policy, to show that the chaos invariant checker catches a missing gate. Never for use.
//
// This file compiles the real gate under another name and defines `promotion_gate` around it.
// It defines every symbol of promotion_gate.cpp, so the static link never pulls the library's
// member into this executable.
#define promotion_gate promotion_gate_unmutated
#include "actors/operator/decide/promotion_gate.cpp"  // NOLINT(bugprone-suspicious-include)
#undef promotion_gate

namespace br {

gate_decision promotion_gate(const gate_input& in) {
  if (in.old_primary_unreachable)
    return decided(gate_verdict::open, gate_rule::fast_unreachable, "MUTANT: gate disabled");
  return promotion_gate_unmutated(in);
}

}  // namespace br
