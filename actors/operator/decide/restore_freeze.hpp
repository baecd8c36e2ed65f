// spec.restoreInPlace's hold on a group: arming by confirm token and the freeze (pure rules).
//
// The restore controller asks the coordinator through one request key, restore_freeze_key:
//   "freeze:<token>:<site>"  arm: record the token and freeze, for the restore into <site>, which
//                            must be the active site (a switchover since the preflight refuses it);
//                            asked again while frozen by the same token, the fence and the others'
//                            STOP REPLICA are sent again (the controller asks on every Fencing pass);
//   "lift:<token>"           the restore loaded: unfreeze, the other sites restore-pending, the
//                            site made writable again;
//   "cancel:<token>"         nothing was loaded (Fencing failed or timed out): unfreeze, the site
//                            made writable again, nobody pending;
//   "abandon:<token>"        a Failed restore lifted by a person (kubectl bloodraven restore lift):
//                            unfreeze, the half-loaded site stays fenced and every site, the
//                            target too, restore-pending (a newer confirm restores it again).
// The token is the spec's `confirm` (RFC 3339) and is recorded in the durable state with the
// freeze, before the active site is fenced or any Job exists, so an operator restart never runs it
// twice: a token at or before the recorded one is refused. While frozen, step starts no plan
// (failover, switchover, bootstrap, auto-clone, recovery, reclone), adopts and re-asserts nothing,
// and restarts no receiver; it still fences a stray writable site that is not the restore's.
// Restore-pending sites (restore_freeze_record::pending) stay out of every rule until their reclone
// from the restored site succeeded.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "messages/operator.hpp"

namespace br {

/// The coordinator's request key (the controller's input, not an annotation a person sets).
inline constexpr const char* restore_freeze_key = "restore-in-place";

/// The status condition type shown (True) while a freeze holds.
inline constexpr std::string_view restore_frozen_condition = "RestoreInPlaceFrozen";

struct restore_freeze_facts {
  std::vector<std::string> sites;  ///< declared order
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
  bool refence = false;         ///< accepted, the same freeze: send the fence and STOP REPLICA again
  std::string reason;           ///< one line: why not, or what changes
  restore_freeze_record next;   ///< == facts.now unless `changes`
};

enum class restore_freeze_verb { freeze, lift, cancel, abandon };

struct restore_freeze_request {
  restore_freeze_verb verb = restore_freeze_verb::freeze;
  std::string token;
  std::string site;  ///< freeze only: the restore's target
};

/// "freeze:<token>:<site>" (the site after the last ':'), "lift:<token>", "cancel:<token>",
/// "abandon:<token>"; false when malformed (a freeze without a site too).
bool parse_restore_freeze_request(std::string_view value, restore_freeze_request& out);

/// Arming: `token` RFC 3339 and strictly newer than the recorded one; `site` the active site
/// (else refused: the restore would replace another server than its preflight chose); the active
/// site known, writable and reachable (not polled conclusively yet, e.g. just after a restart:
/// wait), or fenced and restore-pending after an abandoned restore; no plan, bootstrap or deferred
/// planned failover. The same token while frozen is accepted without a change (a controller
/// restarted mid-way asks again); `refence` is then set so the fence and STOP REPLICA go again.
restore_freeze_verdict check_freeze(const restore_freeze_facts& f, const std::string& token,
                                    const std::string& site);

/// Unfreezing (lift, cancel, abandon): only the recorded token ends its freeze; not frozen =
/// accepted, no change. lift: every other site becomes restore-pending; abandon: every site.
restore_freeze_verdict check_unfreeze(const restore_freeze_facts& f, restore_freeze_verb verb,
                                      const std::string& token);

/// `site` is restore-pending in `r`.
bool restore_pending(const restore_freeze_record& r, const std::string& site);

/// A reclone plan of `site` ended (the coordinator's durable change): succeeded, the site leaves
/// the pending list; failed, it may be asked again (leaves `recloned`).
restore_freeze_record after_reclone(restore_freeze_record r, const std::string& site, bool ok);

}  // namespace br
