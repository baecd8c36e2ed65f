// The sidecar's binlog archiver (PITR): on the primary only, a detached worker
// uploads sealed binlogs into the archive (PVC or S3) and upserts the site's manifest, right after
// each rotation (inotify on the binlog index) and every poll interval (the safety net). Every
// retention interval the same worker asks the operator's /pitr-cutoff and prunes this site's
// manifest and objects (whatever this server's role: the manifest is this site's alone).
#pragma once

#include <caf/event_based_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <chrono>
#include <memory>
#include <string>

#include "actors/sidecar/archive/binlog_scan.hpp"
#include "actors/sidecar/common/sidecar_handles.hpp"
#include "messages/interfaces.hpp"

namespace br::sidecar {

struct archiver_options {
  scan_options scan;
  std::chrono::milliseconds poll_interval{std::chrono::seconds(60)};
  std::chrono::milliseconds probe_timeout{std::chrono::seconds(2)};
  bool watch_index = true;  ///< inotify on the binlog index: scan right after each rotation
  /// Retention sweeps (when scan.retention.cutoff_url is set): the first this long after start,
  /// then every retention_interval.
  std::chrono::milliseconds retention_first_delay{std::chrono::seconds(30)};
  std::chrono::milliseconds retention_interval{std::chrono::hours(1)};
};

/// The scan worker: blocking file I/O, spawned detached.
archive_worker_actor spawn_archive_worker(caf::actor_system& sys, scan_options o);

/// The archiver (event-based). Asks the local MySQL worker (through `handles`) whether this
/// server is writable, then its own detached worker for the scan; never blocks.
binlog_archiver_actor spawn_binlog_archiver(caf::actor_system& sys, archiver_options o,
                                            std::shared_ptr<sidecar_handles> handles);

/// The /archiver/status body when the archiver is off.
std::string archiver_disabled_status();

}  // namespace br::sidecar
