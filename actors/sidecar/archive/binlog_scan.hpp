// One archiver scan (blocking; runs in the archiver's detached worker): on the primary only,
// copy every sealed, not yet archived binlog into the archive and upsert the site's manifest.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace br::sidecar {

/// PVC storage layout: objects under `<root>/binlogs/<site>/<file>`, the
/// manifest at `<root>/binlogs/manifest-<site>.json`.
struct archive_layout {
  std::string root;  ///< BLOODRAVEN_PITR_PVC_MOUNT_PATH
  std::string site;
  std::string manifest_path() const { return root + "/binlogs/manifest-" + site + ".json"; }
  std::string object_dir() const { return root + "/binlogs/" + site; }
  std::string remote_path(const std::string& file) const { return "binlogs/" + site + "/" + file; }
};

struct scan_options {
  archive_layout layout;
  std::string binlog_dir;   ///< BLOODRAVEN_PITR_BINLOG_DIR
  std::string index_name;   ///< BLOODRAVEN_PITR_BINLOG_INDEX (relative to binlog_dir unless absolute)
  std::chrono::milliseconds deadline{std::chrono::minutes(5)};  ///< the whole scan
};

struct scan_report {
  bool primary = false;                 ///< @@read_only was 0: this site archives
  std::vector<std::string> archived;    ///< files archived by this scan, oldest first
  uint64_t archived_bytes = 0;
  size_t backlog = 0;                   ///< sealed files still not archived after the scan
  std::string error;                    ///< "" = the scan did everything it planned
  int64_t last_upload_unix = 0;         ///< 0 = nothing archived by this scan
};

/// `is_primary` answers @@read_only == 0 on the local server (nullopt = it could not tell: the
/// scan then archives nothing and reports the error). `now` gives unix seconds (archivedAt).
scan_report archive_scan(const scan_options& o, const std::function<std::optional<bool>()>& is_primary,
                         const std::function<int64_t()>& now);

}  // namespace br::sidecar
