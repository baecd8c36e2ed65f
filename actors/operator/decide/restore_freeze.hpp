// spec.restoreInPlace's hold on a group: arming by confirm token and the freeze (pure rules).
//
// The restore controller asks the coordinator through one request key, restore_freeze_key, with
// "freeze:<token>" (arm: record the token and freeze) or "lift:<token>" (unfreeze). The token is
// the spec's `confirm` (RFC 3339) and is recorded in the durable state with the freeze, before
// the active site is fenced or any Job exists, so an operator restart never runs it twice: a
// token at or before the recorded one is refused. While frozen, step starts no plan (failover,
// switchover, bootstrap, auto-clone, recovery, reclone), adopts and re-asserts nothing, and
// restarts no receiver; it still fences a stray writable site that is not the restore's.
#pragma once

#include <string>
#include <string_view>

#include "messages/operator.hpp"

namespace br {

/// The coordinator's request key (the controller's input, not an annotation a person sets).
inline constexpr const char* restore_freeze_key = "restore-in-place";

/// The status condition type shown (True) while a freeze holds.
inline constexpr std::string_view restore_frozen_condition = "RestoreInPlaceFrozen";

struct restore_freeze_facts {
  std::string active_site;        ///< "" while no primary is confirmed
  bool active_writable = false;   ///< the active site's latest report: writable and reachable
  bool active_known = false;      ///< a conclusive poll of the active site (after a restart: not yet)
  bool plan_running = false;      ///< a plan (failover, switchover, bootstrap, clone...) runs
  bool bootstrap_running = false; ///< a bootstrap record not Done/Failed
  bool planned_deferred = false;  ///< a planned failover waits (Deferred)
  restore_freeze_record now;      ///< as recorded
};

struct restore_freeze_verdict {
  bool accepted = false;
  bool wait = false;            ///< not now, not refused: asked again (the answer is "busy")
  bool changes = false;         ///< accepted and `next` differs from `now` (a write is needed)
  std::string reason;           ///< one line: why not, or what changes
  restore_freeze_record next;   ///< == facts.now unless `changes`
};

/// "freeze:<token>" -> {true, token}; "lift:<token>" -> {false, token}; false when malformed.
bool parse_restore_freeze_request(std::string_view value, bool& freeze, std::string& token);

/// Arming: `token` RFC 3339 and strictly newer than the recorded one; the active site known,
/// writable and reachable (not polled conclusively yet, e.g. just after a restart: wait); no plan, bootstrap or deferred planned failover. The same token
/// while frozen is accepted without a change (a controller restarted mid-way asks again).
restore_freeze_verdict check_freeze(const restore_freeze_facts& f, const std::string& token);

/// Lifting: only the recorded token lifts its freeze; not frozen = accepted, no change.
restore_freeze_verdict check_lift(const restore_freeze_facts& f, const std::string& token);

}  // namespace br
