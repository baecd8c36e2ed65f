// `bloodraven switchover`: asks a running operator for a switchover of one group, signed with the
// operator key of a keys directory (POST /admin/switchover; see actors/operator/api/admin_switchover.hpp).
#pragma once

namespace br {

/// argv[1] is "switchover". Prints the operator's answer; 0 when accepted, 1 refused or failed,
/// 2 usage.
int run_switchover_cli(int argc, char** argv);

}  // namespace br
