// When the sidecar tells its mysqld to re-read its certificate files (issue 26): a pure rule over
// the files' stamps, so a half-written rotation is not loaded and a reload is not repeated.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "io/fs/file_stamp.hpp"

namespace br::sidecar {

enum class tls_reload_action {
  none,    ///< the files are what mysqld loaded last
  settle,  ///< they changed since the last look (or one is missing): look again next tick
  reload,  ///< changed since the last load and unchanged for one tick: ALTER INSTANCE RELOAD TLS
};

std::string_view to_string(tls_reload_action a);

/// `loaded`: the stamps at the last successful reload (at start: the files as found); `previous`:
/// the stamps of the last tick; `now`: this tick's. Rules in order: any file missing -> settle;
/// now == loaded -> none; now != previous -> settle; else reload.
tls_reload_action decide_tls_reload(const std::vector<fs::file_stamp>& loaded,
                                    const std::vector<fs::file_stamp>& previous,
                                    const std::vector<fs::file_stamp>& now);

/// The CA text the reload session trusts. `current`: the client CA file now; `trusted`: the
/// one the last successful reload (or the start) verified the server with. While mysqld still
/// serves the certificate of the previous CA, a session trusting only a new CA is refused and the
/// reload would never run (review V7 H1): when the two differ, both are trusted (the new first).
/// The local server is the sidecar's own; it already proved itself with `trusted`.
std::string reload_trust(const std::string& current, const std::string& trusted);

}  // namespace br::sidecar
