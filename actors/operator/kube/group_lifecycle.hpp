// The lifecycle of one group's supervisor in Kubernetes mode, as pure decisions: what the group
// source does with a newly resolved MysqlFailoverGroup, and what it does once a supervisor is down.
// group_source.cpp gathers the facts, calls these, and carries the answer out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "config/group_spec.hpp"

namespace br {

/// Pure: the running supervisor's spec still holds for `wanted`. spec.restoreInPlace is not
/// compared: the restore controller reads it from the object, the group's actors never do, and
/// setting it must not restart the coordinator it asks to freeze the group.
bool same_running_spec(const config::group_spec& running, const config::group_spec& wanted);

/// What the group source knows of a group it already tracks.
struct tracked_group {
  bool exists = false;      ///< an entry for this namespace/name
  std::string uid;          ///< the object uid the entry was made for
  bool running = false;     ///< its supervisor is alive
  bool stopping = false;    ///< a stop of that supervisor was requested
  bool finalizing = false;  ///< being deleted: finalizer under way
  /// The resolved spec and credentials equal the ones the running supervisor was started with.
  bool same_as_running = false;
};

/// The newly resolved object, reduced to what the decision reads.
struct resolved_group {
  bool deleted = false;      ///< the watch said DELETED
  bool terminating = false;  ///< deletionTimestamp set (our finalizer holds it)
  std::string uid;
  bool valid = true;         ///< the spec passed validation
  bool problem = false;      ///< its credentials could not be read (retry later)
};

enum class resolved_action : uint8_t {
  ignore,          ///< nothing to do
  forget,          ///< deleted and nothing running: drop the entry
  stop,            ///< deleted while running: stop the supervisor, forget it once down
  stop_then_apply, ///< recreated under the same name while the old one runs: stop it, then apply
  finalize,        ///< terminating: stop, then untaint and release the finalizer
  report_invalid,  ///< invalid spec: condition + Event, keep what runs
  report_problem,  ///< credentials unavailable: condition + Event, retry later
  keep_running,    ///< valid, unchanged: only the status bookkeeping
  restart,         ///< spec or credentials changed: stop, start the new spec once down
  start_when_down, ///< a stop is in flight: start the new spec once down
  start,           ///< start a supervisor now
};

struct resolved_decision {
  resolved_action action = resolved_action::ignore;
  /// The entry belongs to a deleted object of the same name (uid changed) and nothing runs for it:
  /// drop it before acting as for a new group.
  bool drop_stale_entry = false;
};

/// `source_stopping`: the whole source is shutting down (lease lost or process exit).
resolved_decision decide_resolved(const tracked_group& g, const resolved_group& d,
                                  bool source_stopping);

/// What is known when a group's supervisor went down.
struct supervisor_down {
  bool source_stopping = false;
  bool finalizing = false;
  bool deleted = false;
  bool pending = false;    ///< a newer resolution waits to be applied
  bool requested = false;  ///< we asked it to stop
};

enum class down_action : uint8_t {
  finish_source_stop,  ///< the source is stopping: count it down
  finalize,            ///< run the finalizer now
  forget,              ///< deleted: drop the entry (then apply a pending recreation, if any)
  start_pending,       ///< start the pending resolution
  restart_later,       ///< it failed on its own: restart after the restart delay
  none,                ///< stopped as asked, nothing waits
};

down_action decide_down(const supervisor_down& d);

/// A request annotation on a watched group object (group_admin.cpp): reclone-site or
/// planned-failover.
struct admin_annotation_seen {
  std::string annotation;  ///< its key
  std::string value;
  std::string resource_version;  ///< the removal is conditional on it
};
/// Null when the object carries none, is being deleted, or has no resourceVersion. When both
/// are present the reclone comes first; the other stays on the object for a later event.
std::optional<admin_annotation_seen> admin_annotation_of(const nlohmann::json& object);

}  // namespace br
