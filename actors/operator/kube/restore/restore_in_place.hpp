// spec.restoreInPlace, the controller's pure decisions (Kubernetes mode): is the spec armed (its
// confirm newer than status.restoreInPlace.confirmTokenUsed), into which site (the active one),
// from where (resolve_source, paths under spec.restoreInPlace), and the phase machine
// Preflight -> Fencing -> Restoring -> Resuming -> Succeeded | Failed (decide_restore_in_place).
// restore_controller.cpp applies these actions (docs/backup.md "Restore in place"). The pod
// labels are not among them: the router writes them, following the coordinator's freeze
// (async_steering in kube/reconcile/reconciler.hpp).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "actors/operator/kube/restore/restore_decide.hpp"
#include "config/failover_group.hpp"
#include "messages/operator.hpp"

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

/// What the controller reads for one pass.
struct in_place_input {
  config::failover_group group;  ///< spec.restoreInPlace set, or removed while a restore runs
  nlohmann::json status = nlohmann::json::object();  ///< the group's .status
  nlohmann::json backup;         ///< the MysqlBackup mysqlBackupRef names; null if none
  job_view job;                  ///< replace_job_name(group)
  restore_freeze_record freeze;  ///< the coordinator's durable record, as last read
  std::string refused;           ///< the coordinator's answer when it refused the freeze ("" = not)
  bool target_fenced = false;    ///< the target reports super_read_only ON and has no primary label
  bool plan_running = false;     ///< status.bootstrap shows a clone or reclone under way
  std::string now;               ///< RFC 3339
};

enum class in_place_step {
  status,      ///< body: status.restoreInPlace
  freeze,      ///< ask the coordinator "freeze:<arg>" (idempotent for the same token)
  lift,        ///< ask the coordinator "lift:<arg>"
  create_job,  ///< body: the Job
  delete_job,  ///< arg: its name
  reclone,     ///< ask the coordinator to reclone site <arg> from the restored one: body is the
               ///< request "<arg>:restore=<token>" (the token confirms the discard)
  event,
};

struct in_place_action {
  in_place_step kind = in_place_step::status;
  nlohmann::json body;
  std::string arg;
  std::string event_type, reason, message;
  /// status Succeeded: the bloodraven_restore_* values (duration < 0 when unknown).
  double duration_seconds = -1;
  double completed_unix = 0;
  std::optional<std::int64_t> source_size_bytes;
};

/// The coordinator's answer to a reclone request ends it (recorded in
/// status.restoreInPlace.reclones) unless it is "busy" or another plan runs (asked again later).
bool reclone_answer_final(const std::string& answer);

/// The next actions. Failed at Preflight touches nothing. Fencing waits for target_fenced (the
/// coordinator fences the site; the router drops its primary label). Succeeded asks one reclone
/// per other site (each until its answer is recorded), none while a plan runs. After the freeze is recorded, a failure
/// keeps the freeze and the fence (no lift) and the Job (for its logs); nothing is retried: a
/// newer confirm starts a new restore once the person decided. A status write comes first in
/// every list (the controller stops its pass when it fails), so the Job never exists before the
/// phase saying so is stored.
std::vector<in_place_action> decide_restore_in_place(const in_place_input& in, const job_renderer& render);

}  // namespace br::restore_ctl
