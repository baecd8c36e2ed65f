// ALTER INSTANCE RELOAD TLS (issue 26): mysqld reads its ssl_ca/ssl_cert/ssl_key files again and
// serves them to new sessions, without a restart. Open sessions keep their TLS session.
#pragma once

#include "io/mysql/connection.hpp"

namespace br::mysql {

/// Opens a session from `opts` (its connect/read/write timeouts bound the whole call), runs the
/// statement and closes it. Needs CONNECTION_ADMIN. A server whose new files do not load keeps
/// its previous TLS context and answers with an error (no NO ROLLBACK ON ERROR).
result<void> reload_tls(const connect_options& opts);

}  // namespace br::mysql
