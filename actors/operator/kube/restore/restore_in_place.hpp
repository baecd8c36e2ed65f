// spec.restoreInPlace, the controller's pure decisions (Kubernetes mode): is the spec armed (its
// confirm newer than status.restoreInPlace.confirmTokenUsed), into which site (the active one),
// from where (resolve_source, paths under spec.restoreInPlace), and the phase machine
// Preflight -> Fencing -> Restoring -> Resuming -> Succeeded | Failed (decide_restore_in_place).
// restore_controller.cpp applies these actions (docs/backup.md "Restore in place"). The pod
// labels are not among them: the router writes them, following the coordinator's freeze
// (async_steering in kube/reconcile/reconciler.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "actors/operator/kube/restore/restore_decide.hpp"
#include "config/failover_group.hpp"
#include "messages/operator.hpp"

namespace br::restore_ctl {

/// How long Fencing may wait for a fresh probe to confirm the target fenced and no other site
/// replicating (STOP REPLICA is sent again on each pass); then Failed, the freeze cancelled (nothing
/// was loaded) and the sites still waited for named.
inline constexpr std::chrono::minutes fencing_deadline{5};

/// The annotation `kubectl bloodraven restore lift <group>` sets to the Failed restore's token:
/// the freeze is lifted ("abandon"), the target stays fenced and every site restore-pending.
inline constexpr const char* restore_lift_annotation = "bloodraven.shipstream.io/restore-lift";

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
  bool target_fenced = false;    ///< target_fenced() since status.restoreInPlace.fencingStartTime
  std::string fencing_waits;     ///< what target_fenced() still waits for (named in a deadline failure)
  std::string lift_request;      ///< the restore_lift_annotation's value ("" = none)
  std::chrono::milliseconds fencing_limit = fencing_deadline;  ///< controller_options::fencing_deadline
  bool plan_running = false;     ///< status.bootstrap shows a clone or reclone under way
  std::string now;               ///< RFC 3339
};

enum class in_place_step {
  status,      ///< body: status.restoreInPlace
  freeze,      ///< ask the coordinator "freeze:<arg>" (arg "<token>:<site>"; the same freeze again
               ///< sends the fence and STOP REPLICA again)
  lift,        ///< ask the coordinator "lift:<arg>" (loaded: the others restore-pending)
  cancel,      ///< ask the coordinator "cancel:<arg>" (nothing loaded)
  abandon,     ///< ask the coordinator "abandon:<arg>" (Failed, lifted by a person)
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

/// The next actions. Failed at Preflight touches nothing. Fencing asks the freeze again each pass
/// (fence and STOP REPLICA again) until target_fenced, then creates the Job (named by the token)
/// and only then stores Restoring (a Job found while Fencing moves to Restoring); a freeze of
/// another site than targetSite, a source refused, the spec removed or fencing_deadline passed
/// fail it and cancel the freeze (nothing was loaded). From Restoring on, a failure keeps the
/// freeze, the fence and the Job; the restore_lift_annotation with the token abandons the freeze
/// (the target stays fenced, every site restore-pending) and a newer confirm starts a new restore.
/// Succeeded records the coordinator's restore-pending sites (status.restoreInPlace.pendingSites)
/// and asks the reclone of each not yet asked (a failed reclone is asked again), none while a plan
/// runs. The pass stops for the group when a status write fails.
std::vector<in_place_action> decide_restore_in_place(const in_place_input& in, const job_renderer& render);

}  // namespace br::restore_ctl
