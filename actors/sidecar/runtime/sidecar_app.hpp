// Wiring of the sidecar: the root supervisor's children and the HTTP routes, from the configuration.
#pragma once

#include <caf/actor_system.hpp>

#include <memory>
#include <vector>

#include "actors/common/authority.hpp"
#include "actors/common/supervisor.hpp"
#include "actors/sidecar/common/sidecar_handles.hpp"
#include "config/sidecar_config.hpp"
#include "io/http/router.hpp"

namespace br::sidecar {

/// Children in start order: view_cache, mysql_worker, http workers (operator, each peer),
/// fencing_monitor, boot_guard (async) or gr_watcher (Group Replication with an operator), the
/// binlog archiver (PITR). Each start stores its new handle in `handles`.
/// `keys`: loaded from KEYS_DIR (load_keys); null = nothing verifies and nothing is signed.
std::vector<child_spec> sidecar_children(const config::sidecar_config& cfg,
                                         std::shared_ptr<const auth::key_ring> keys,
                                         std::shared_ptr<sidecar_handles> handles);

void install_routes(http::router& r, caf::actor_system& sys, const config::sidecar_config& cfg,
                    std::shared_ptr<const auth::key_ring> keys,
                    std::shared_ptr<sidecar_handles> handles);

/// The keys of KEYS_DIR for this site; null with `error` set when they cannot be loaded, null
/// and "" when KEYS_DIR is not set.
std::shared_ptr<const auth::key_ring> load_keys(const config::sidecar_config& cfg,
                                                std::string& error);

/// HTTP handler timeout that lets PUT /view finish a fence.
std::chrono::milliseconds handler_timeout_for(const config::sidecar_config& cfg);

}  // namespace br::sidecar
