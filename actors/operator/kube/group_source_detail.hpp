// Internal to the group source (actors/operator/kube/group_source*.cpp, group_entries.cpp,
// group_finalize.cpp, group_resolver.cpp): its state and the steps those files share.
#pragma once

#include "actors/operator/kube/group_lifecycle.hpp"

#include <algorithm>

#include <caf/all.hpp>

#include <functional>
#include <map>
#include <optional>
#include <set>

#include "actors/common/http_worker.hpp"
#include "actors/common/registry.hpp"
#include "actors/operator/kube/core/generated_credentials.hpp"
#include "actors/operator/kube/platform/kube_dns.hpp"
#include "actors/operator/kube/core/kube_events.hpp"
#include "actors/operator/kube/platform/kube_finalizer.hpp"
#include "actors/operator/kube/platform/kube_router.hpp"
#include "actors/operator/kube/platform/kube_taints.hpp"
#include "actors/operator/kube/reconcile/reconciler.hpp"
#include "actors/operator/api/status_hub.hpp"
#include "config/render/names.hpp"
#include "actors/operator/kube/core/kube_state_store.hpp"
#include "actors/operator/api/operator_api.hpp"
#include "actors/operator/kube/core/status_writer.hpp"
#include "config/failover_group.hpp"
#include "config/rfc3339.hpp"
#include "io/kube/events.hpp"
#include "io/log/log.hpp"

#include "actors/operator/kube/group_source.hpp"
#include "actors/common/wall_clock.hpp"

namespace br::source_detail {

using nlohmann::json;

/// The group source's detached resolver (see resolver() below).
/// It also removes an admin annotation from a group object (annotate, namespace, name, key,
/// resourceVersion) -> clear_result (an int): the removal is conditional on the resourceVersion.
using resolver_actor = caf::typed_actor<
    caf::replies_to<resolve_atom, std::string /*type*/, std::string /*object*/>::with<group_desired>,
    caf::replies_to<annotate_atom, std::string, std::string, std::string, std::string>::with<int>>;

/// What removing an admin annotation came to.
enum clear_result : int {
  cleared = 0,   ///< removed; act on the value once
  changed = 1,   ///< the object changed or is gone: a newer watch event carries the current value
  failed = 2,    ///< the API call failed: try again later
};

struct group_entry {
  std::string ns, name, uid;
  platform_handles platform;
  std::shared_ptr<kube_group_context> context = std::make_shared<kube_group_context>();
  kube_status_writer_actor status_writer;  // also takes the spec conditions
  status_writer_actor hub;  // /ws/status feed in front of the status writer (null = none)
  caf::actor supervisor;
  bool stopping = false;  // a stop of `supervisor` is under way
  bool deleted = false;
  bool has_running = false;  // running_* describe the live supervisor
  config::group_spec running_spec;
  group_credentials running_creds;
  std::string running_restore_hold;
  int64_t running_generation = 0;
  std::optional<group_desired> pending;  // start this once the supervisor is down
  group_desired last;                    // newest resolution (credentials retry, restarts)
  std::string spec_conditions = "[]";    // last sent to the status writer
  std::string reported_problem;          // last Event reason+message, to send each once
  bool finalize = false;                 // terminating: untaint + drop the finalizer once down
  config::group_spec finalize_spec;
};

/// An admin annotation seen on a group object, until it is handled (group_admin.cpp). Reclone:
/// first removed from the object (so it is acted on at most once, even across operator restarts),
/// then handed to the group's coordinator, which validates it and answers (Events
/// RecloneRequested / RecloneRejected come from there). Planned failover: handed first, asked
/// about until it ended, then removed. Every hand-off carries `id` (decide/admin_handoff.hpp).
struct pending_admin {
  std::string annotation;  ///< reclone-site | planned-failover
  std::string value;
  std::string resource_version;  ///< of the object the value was (last) read from
  std::string id;                ///< the request's id: value + the resourceVersion first read
  bool cleared = false;          ///< reclone: removed from the object; now owed to the coordinator
  bool taken = false;            ///< planned failover: accepted, running
  bool ended = false;            ///< planned failover: ended; its annotation is being removed
  bool in_flight = false;        ///< a removal or a coordinator request is under way
  int attempts = 0;              ///< coordinator answers "busy" (retried every second, 120 times)
  /// Planned failover: the annotation was removed before the request ended: the coordinator is
  /// asked to cancel it (only a Deferred one can be; a running plan goes on to its end).
  bool cancel_wanted = false;
  bool gone = false;  ///< planned failover: the annotation is no longer on the object
};

/// The fenced-sites annotation of a group (desired state, never removed from the object): the
/// latest value seen, and the value the running coordinator took.
struct fence_desired {
  std::string value;  ///< absent annotation: ""
  std::optional<std::string> handed;
  bool in_flight = false;
  int attempts = 0;
};

struct source_state {
  group_source_options o;
  std::string path;
  resolver_actor resolver;
  std::vector<std::shared_ptr<kube::reflector>> reflectors;
  std::map<std::string, group_entry> groups;  // "<ns>/<name>"
  std::set<caf::actor_addr> group_links;      // supervisors whose exit message may still arrive
  bool stopping = false;
  caf::error stop_reason;
  std::vector<caf::response_promise> stop_waiters;
  std::map<std::string, pending_admin> admin;  // "<ns>/<name>": admin annotations being handled
  std::map<std::string, fence_desired> fence;  // "<ns>/<name>": the fenced-sites annotation
  static inline const char* name = "group_source";
};

using source_ptr = group_source_actor::stateful_pointer<source_state>;

inline std::string key_of(const std::string& ns, const std::string& name) { return ns + "/" + name; }

inline bool same_creds(const group_credentials& a, const group_credentials& b) {
  return a.operator_user == b.operator_user && a.operator_password == b.operator_password &&
         a.replication_user == b.replication_user &&
         a.replication_password == b.replication_password && auth::same_keys(a.keys, b.keys) &&
         a.dragonfly_password == b.dragonfly_password;
}

inline json fields(const group_entry& e) { return {{"group", e.name}, {"namespace", e.ns}}; }

inline std::string group_path(source_ptr self, const group_entry& e) {
  return self->state.path + "/group:" + e.name + "." + e.ns;
}

// -- shared steps --------------------------------------------------------------------------------

/// Now for condition times, from the source's wall clock.
inline std::string now_rfc3339(source_ptr self) { return rfc3339_seconds(self->state.o.wall_clock); }

// group_resolver.cpp: the detached helpers.
/// Blocks in the reflector loop on (run); every change goes to the source as
/// (kube_event, type, json). It holds the source weakly: the source's exit stops the reflector.
using watcher_actor = caf::typed_actor<caf::reacts_to<run_atom>>;
watcher_actor::behavior_type watcher(watcher_actor::pointer, std::shared_ptr<kube::client> client,
                                     std::shared_ptr<kube::reflector> refl,
                                     group_source_actor source);
/// Parses, validates and reads the credentials of one object (blocking Secret reads, each
/// bounded): (resolve, type, object JSON) -> group_desired. A generated operator Secret is kept
/// copied to `operator_ns` ("" = no copy). With spec.tls the group's MySQL sessions verify
/// against the CA file the group TLS controller keeps under `tls_ca_dir`.
resolver_actor::behavior_type resolver(resolver_actor::pointer,
                                       std::shared_ptr<kube::client> client, std::string operator_ns,
                                       std::string tls_ca_dir);

// group_entries.cpp: one group's platform actors, supervisor, conditions and Events.
void report(source_ptr self);
void make_platform(source_ptr self, group_entry& e);
void drop_platform(source_ptr self, group_entry& e);
void set_spec_conditions(source_ptr self, group_entry& e, const json& conditions);
void warn_once(source_ptr self, group_entry& e, const std::string& reason, const std::string& msg);
void start_group(source_ptr self, group_entry& e, const group_desired& d);
void stop_group(source_ptr self, group_entry& e);
void finish_stop_if_done(source_ptr self);
void begin_stop(source_ptr self, caf::error reason);
void emit_normal(source_ptr self, group_entry& e, const std::string& reason,
                 const std::string& msg);

// group_finalize.cpp: entries, and the finalizer of a group being deleted.
group_entry& ensure_entry(source_ptr self, const std::string& key, const group_desired& d);
void forget_entry(source_ptr self, const std::string& key);
void run_finalizer(source_ptr self, const std::string& key);
void terminate_group(source_ptr self, const group_desired& d);

// group_admin.cpp: admin annotations on group objects (the reclone request).
/// Notes the reclone annotation of a watched object (if any) and carries it on.
void note_admin_annotation(source_ptr self, const json& object);
/// Carries the group's pending admin annotation one step on: remove it from the object, then hand
/// it to the running coordinator. Called on notes, group starts and its own retry timer.
void drive_admin(source_ptr self, const std::string& key);
/// Hands (key, value) to the group's coordinator; `done` gets its answer, or nullopt when it could
/// not be reached or did not answer in time.
void ask_group_coordinator(source_ptr self, group_entry& e, std::string key, std::string value,
                           std::function<void(std::optional<std::string>)> done);
// group_restore.cpp: spec.restoreInPlace's requests from the restore controller (freeze, lift,
// the reclones on the restore's word), handed to the group's coordinator.
caf::result<std::string> restore_request(source_ptr self, const std::string& ns, const std::string& name,
                                         const std::string& key, const std::string& value);
// group_fence.cpp: the fenced-sites annotation, handed to the coordinator whenever its value
// changes and whenever the group (re)starts; the coordinator decides (decide/manual_fence.hpp).
void note_fence_annotation(source_ptr self, const json& object);
void drive_fence(source_ptr self, const std::string& key);
/// A group supervisor started: its coordinator has not heard the value yet.
void fence_group_started(source_ptr self, const std::string& key);

// group_source.cpp: applying resolved objects and supervisor exits (group_lifecycle decides).
void apply(source_ptr self, group_desired d);

}  // namespace br::source_detail
