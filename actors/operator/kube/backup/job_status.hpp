// What the controllers read of their Jobs: a Job's outcome (job_view) and the newest
// termination message among its pods (the `bloodraven` tools write their result JSON there).
// Shared by the backup and restore controllers.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "actors/operator/kube/backup/backup_decide.hpp"
#include "io/kube/client.hpp"

namespace br::backup_ctl {

/// Pure: the Job's outcome from its status (Complete / Failed conditions, succeeded count) and
/// the backup Job's source/active annotations; a default view for null.
job_view view_job(const json* job);

/// The newest terminated container's message among the pods `selector` selects in `ns`; ""
/// when none yet. `error` is set when the list failed.
std::string newest_termination_message(kube::client& c, const std::string& ns,
                                       const std::string& selector, std::string& error);

}  // namespace br::backup_ctl
