// Atoms: the verbs of the typed messages (CAF 0.17 atoms, at most 10 characters).
#pragma once

#include <caf/atom.hpp>

namespace br {

using announce_atom = caf::atom_constant<caf::atom("announce")>;
using step_atom = caf::atom_constant<caf::atom("step")>;
using error_atom = caf::atom_constant<caf::atom("error")>;
using restarts_atom = caf::atom_constant<caf::atom("restarts")>;
using restart_atom = caf::atom_constant<caf::atom("restart")>;
using tree_atom = caf::atom_constant<caf::atom("tree")>;
using child_atom = caf::atom_constant<caf::atom("child")>;
using stop_atom = caf::atom_constant<caf::atom("stop")>;
using tick_atom = caf::atom_constant<caf::atom("tick")>;
using probe_atom = caf::atom_constant<caf::atom("probe")>;
using ping_atom = caf::atom_constant<caf::atom("ping")>;

}  // namespace br
