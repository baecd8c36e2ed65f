// Standalone mode (`bloodraven --standalone FILE`): the group file and credentials from the flags,
// and the root children that run one group against MySQL on ordinary hosts with the local platform
// (state file, events ring, DNS/route files and hooks) and the status hub feeding /ws/status.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "actors/common/runtime.hpp"
#include "actors/operator/group/group_supervisor.hpp"
#include "actors/operator/local/local_platform.hpp"
#include "actors/operator/api/operator_api.hpp"
#include "config/api_tls.hpp"
#include "config/failover_group.hpp"
#include "io/http/websocket_hub.hpp"

namespace br {

/// A loaded standalone group and what its supervisor needs.
struct standalone_setup {
  std::string file;  ///< the group file
  std::string namespace_name;
  config::failover_group group;
  group_credentials creds;
  std::shared_ptr<const auth::key_ring> keys;  ///< from --keys-dir
  std::string state_dir;
  config::api_tls_settings api_tls;  ///< --tls-*: calls to the sidecars over HTTPS when on
};

/// Reads --standalone, --mysql-user, --mysql-password-file (else BLOODRAVEN_MYSQL_PASSWORD),
/// --keys-dir and --state-dir (created). Returns 0, or 2 after saying on stderr what is
/// wrong (every invalid field of the group file with its path).
int load_standalone(std::map<std::string, std::string>& flags, standalone_setup& out);

/// The root children of standalone mode: a lifetime hook first (it stops the platform, the MySQL
/// workers and the WebSocket sessions after everything else), then the group's supervisor.
/// Events are recorded in `events`, which GET /events reads.
children_factory standalone_children(std::shared_ptr<const standalone_setup> setup,
                                     std::shared_ptr<group_table> groups,
                                     std::shared_ptr<http::websocket_hub> ws,
                                     std::shared_ptr<event_ring> events);

}  // namespace br
