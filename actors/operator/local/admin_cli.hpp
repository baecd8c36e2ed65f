// `bloodraven switchover` and `bloodraven reclone`: sign an admin request with the operator's key
// and send it to a running operator (POST /admin/switchover, /admin/reclone; admin_request.hpp).
#pragma once

namespace br {

/// argv[1] is "switchover" or "reclone". Exit code 0 when the operator accepted the request.
int run_admin_cli(int argc, char** argv);

}  // namespace br
