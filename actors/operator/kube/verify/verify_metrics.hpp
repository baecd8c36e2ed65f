// bloodraven_backup_verification_* and bloodraven_backup_verified_timestamp_seconds (reference
// §5), labelled namespace, group, profile.
#pragma once

#include <string>

namespace br::verify_ctl::metrics {

/// A verification ended: runs_total{result=success|failure} + 1, duration observed,
/// last_attempt = now; on success verified_timestamp = now; replay lag when one was replayed
/// (< 0: none).
void verification_ended(const std::string& ns, const std::string& group, const std::string& profile, bool ok,
                        double duration_seconds, double now_unix, double replay_lag_seconds);

}  // namespace br::verify_ctl::metrics
