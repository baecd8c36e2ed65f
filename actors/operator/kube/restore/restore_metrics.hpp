// bloodraven_restore_* metrics (reference §5: labels namespace, group, restore_kind
// init_from_backup | in_place, target_site).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace br::restore_ctl::metrics {

/// A restore that succeeded: bloodraven_restore_duration_seconds (histogram 15 s .. 8 h) observes
/// its duration (when known), _last_success_timestamp_seconds its completion, and
/// _last_source_size_bytes the backup's stored size (removed when unknown).
void restore_succeeded(const std::string& ns, const std::string& group, const std::string& kind,
                       const std::string& target_site, double duration_seconds,
                       double completed_unix, std::optional<std::int64_t> source_size_bytes);

}  // namespace br::restore_ctl::metrics
