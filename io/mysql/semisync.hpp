// Semi-synchronous replication switches (docs/safety.md "Semi-synchronous replication"): the
// promoted primary waits for K receivers with a timeout the operator counts as infinite; every
// other server is a semi-sync receiver with its own source side off (a server whose source side is
// on makes its own commits wait for acknowledgements, including its applier's).
#pragma once

#include <cstdint>

#include "io/mysql/connection.hpp"
#include "messages/mysql.hpp"

namespace br::mysql {

/// SET GLOBAL: wait point AFTER_SYNC, wait_for_replica_count = k, timeout = the maximum
/// (semisync_timeout_max_ms),
/// wait_no_replica ON, then the source side ON (the last, so it never waits with other settings).
/// Fails (server_error "Unknown system variable") when the semisync_source plugin is not loaded.
result<void> semisync_source_on(connection& conn, uint32_t k);

/// SET GLOBAL rpl_semi_sync_source_enabled = OFF, rpl_semi_sync_replica_enabled = ON: the server
/// acknowledges what it receives (from its next receiver start) and never waits itself.
result<void> semisync_as_replica(connection& conn);

}  // namespace br::mysql
