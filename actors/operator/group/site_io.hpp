// The real site_io_actor: a dispatcher over a small pool of detached MySQL workers.
#pragma once

#include <caf/actor_system.hpp>

#include <cstddef>

#include "messages/interfaces.hpp"
#include "messages/mysql.hpp"

namespace br {

struct site_io_config {
  /// Detached worker threads; each blocks on one MySQL call at a time. A few workers serve
  /// thousands of sites because a probe is one short round trip (no thread per site).
  size_t workers = 4;
};

/// Spawns the dispatcher and its workers (linked to it). A command waits in the dispatcher's queue
/// until a worker is idle, so one hung server delays only the worker it holds, never the queue
/// behind a busy worker. The reply is the worker's mysql_outcome.
site_io_actor spawn_site_io(caf::actor_system& sys, site_io_config cfg = {});

namespace site_io_detail {
/// io/mysql's error kind as mysql_outcome.error_kind ("protocol" is reported as "other").
std::string outcome_kind(std::string_view io_kind);
}  // namespace site_io_detail

}  // namespace br
