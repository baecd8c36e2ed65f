// spec.restoreInPlace, the controller's first pure step (Kubernetes mode): is the spec armed (its
// confirm newer than status.restoreInPlace.confirmTokenUsed), into which site (the active one),
// and from where (resolve_source, paths under spec.restoreInPlace). The phases after it (the
// coordinator's freeze, the Job of render_replace_job, the resume) are not wired yet:
// restoreInPlace is refused at validation (docs/backup.md "Restore in place").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "actors/operator/kube/restore/restore_decide.hpp"
#include "config/failover_group.hpp"

namespace br::restore_ctl {

struct in_place_preflight {
  bool armed = false;   ///< confirm is newer than the token used last (else nothing to do)
  std::string token;    ///< spec.restoreInPlace.confirm
  std::string failed;   ///< armed but it cannot run: why (naming the field); nothing touched
  std::string wait;     ///< armed, not yet: why
  std::string target;   ///< the active site (status.activeSite)
  restore_source source;
};

/// `g` has spec.restoreInPlace; `status` is the group's .status; `backup` the MysqlBackup that
/// mysqlBackupRef names (null when none/not found). Not armed: the token is not newer than
/// status.restoreInPlace.confirmTokenUsed (a terminal phase stays until a newer one). Waits while
/// an earlier restore is still in a running phase. Failed: no active site; the source's own
/// refusals (a MysqlBackup of another group, Failed, an unknown profile, a stopDatetime before it).
in_place_preflight preflight_in_place(const config::failover_group& g, const nlohmann::json& status,
                                      const nlohmann::json& backup);

}  // namespace br::restore_ctl
