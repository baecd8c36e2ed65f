// One archiver scan (blocking; runs in the archiver's detached worker): on the primary only,
// copy every sealed, not yet archived binlog into the archive and upsert the site's manifest.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/api_tls.hpp"
#include "io/storage/object_store.hpp"

namespace br::sidecar {

/// Archive layout, keys relative to the store's root: objects at `binlogs/<site>/<file>`, the
/// manifest at `binlogs/manifest-<site>.json` (on a PVC: files under the mount path).
struct archive_layout {
  std::string root;  ///< BLOODRAVEN_PITR_PVC_MOUNT_PATH (PVC only; used when no store is given)
  std::string site;
  std::string manifest_key() const { return "binlogs/manifest-" + site + ".json"; }
  std::string remote_path(const std::string& file) const { return "binlogs/" + site + "/" + file; }
  /// PVC file paths (tests).
  std::string manifest_path() const { return root + "/" + manifest_key(); }
  std::string object_dir() const { return root + "/binlogs/" + site; }
};

/// Retention from the operator's /pitr-cutoff.
struct retention_options {
  std::string cutoff_url;  ///< "" = no retention; else http(s)://<operator>/pitr-cutoff?namespace=&group=&profile=
  std::chrono::milliseconds request_timeout{2000};
  config::api_tls_settings tls;  ///< https: the operator verified, this sidecar's certificate presented
};

struct scan_options {
  archive_layout layout;
  /// Where the archive goes; null = a PVC store on layout.root.
  std::shared_ptr<storage::object_store> store;
  std::string storage_type = "PVC";  ///< for status: "PVC" or "S3"
  retention_options retention;
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

struct prune_report {
  bool swept = false;               ///< a cutoff was known and the manifest was looked at
  std::string cutoff;               ///< RFC3339 of the cutoff used ("" = none)
  std::vector<std::string> deleted; ///< files dropped from the manifest and deleted
  std::string note;                 ///< why nothing was deleted (no cutoff, 503, ...)
  std::string error;                ///< "" = everything planned was done
};

/// The retention sweep of this site's manifest (blocking): entries the cutoff allows
/// (plan_retention) leave the manifest first (written without them), then their objects are
/// deleted, so a crash never leaves the manifest pointing at a deleted object. No cutoff
/// deletes nothing.
prune_report prune_archive(const scan_options& o, std::optional<int64_t> cutoff_unix_ms);

/// Asks the operator (o.retention.cutoff_url) for the cutoff, then prune_archive.
prune_report retention_sweep(const scan_options& o);

/// The store the options name (o.store, else a PVC store on o.layout.root).
std::shared_ptr<storage::object_store> store_of(const scan_options& o);

}  // namespace br::sidecar
