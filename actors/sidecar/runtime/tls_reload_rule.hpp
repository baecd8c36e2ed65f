// When the sidecar tells its mysqld to re-read its certificate files (issue 26): a pure rule over
// the files' stamps, so a half-written rotation is not loaded and a reload is not repeated.
#pragma once

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

}  // namespace br::sidecar
