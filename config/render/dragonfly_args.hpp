// Dragonfly's command line in Kubernetes mode: the operator-owned flags and the user's args
// with every operator-owned flag taken out.
#pragma once

#include <string>
#include <vector>

#include "config/group_spec.hpp"

namespace br::render {

/// Pure: `args` without any operator-owned flag (--port, --admin_port, --bind,
/// --break_replication_on_master_restart, --maxmemory, --proactor_threads, --dir, --s3_endpoint,
/// --s3_use_https, --s3_sign_payload, --requirepass), in the forms Dragonfly's flag parser takes:
/// `--flag=value`, `--flag value` (the value dropped too unless it is itself a flag), one or two
/// dashes, and `--noflag` for the boolean ones. Other args keep their order.
std::vector<std::string> filter_dragonfly_args(const std::vector<std::string>& args);

/// Pure: the operator-owned flags from spec.dragonfly, then filter_dragonfly_args(spec.args).
/// With auth, --requirepass=$(DRAGONFLY_PASSWORD) (the container's env from the auth Secret).
std::vector<std::string> dragonfly_args(const config::dragonfly_spec& spec);

}  // namespace br::render
