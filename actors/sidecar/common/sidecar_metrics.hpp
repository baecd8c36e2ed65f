// The sidecar's Prometheus metrics (on the process registry).
#pragma once

#include <prometheus/counter.h>
#include <prometheus/gauge.h>

#include <string>

namespace br::sidecar {

/// bloodraven_sidecar_self_fence_total{reason="mismatch|transition|lease|push"}.
prometheus::Counter& self_fence_counter(const std::string& reason);
/// bloodraven_sidecar_view_epoch: epoch of the cached view.
prometheus::Gauge& view_epoch_gauge();

/// Binlog archiver (PITR): bloodraven_archiver_files_archived_total,
/// bloodraven_archiver_upload_failures (failed scans, cumulative; a gauge by the reference metric set),
/// bloodraven_archiver_last_upload_timestamp_seconds, bloodraven_archiver_backlog_files.
prometheus::Counter& archived_files_counter();
prometheus::Gauge& archiver_failures_gauge();
prometheus::Gauge& archiver_last_upload_gauge();
prometheus::Gauge& archiver_backlog_gauge();

}  // namespace br::sidecar
