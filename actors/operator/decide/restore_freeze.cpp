// spec.restoreInPlace's arming and freeze rules (see restore_freeze.hpp).
#include "actors/operator/decide/restore_freeze.hpp"

#include "config/rfc3339.hpp"

namespace br {

bool parse_restore_freeze_request(std::string_view value, bool& freeze, std::string& token) {
  auto colon = value.find(':');
  if (colon == std::string_view::npos || colon + 1 >= value.size()) return false;
  auto verb = value.substr(0, colon);
  if (verb != "freeze" && verb != "lift") return false;
  freeze = verb == "freeze";
  token = std::string(value.substr(colon + 1));
  return true;
}

restore_freeze_verdict check_freeze(const restore_freeze_facts& f, const std::string& token) {
  restore_freeze_verdict v;
  v.next = f.now;
  auto refuse = [&](std::string why) {
    v.reason = std::move(why);
    return v;
  };
  auto t = config::parse_rfc3339(token);
  if (!t) return refuse("confirm token \"" + token + "\" is not an RFC 3339 time");
  if (f.now.frozen) {
    if (token == f.now.token) {
      v.accepted = true;
      v.reason = "already frozen by this token";
      return v;
    }
    return refuse("the group is frozen by the restore armed with token " + f.now.token +
                  "; it must be lifted first");
  }
  if (!f.now.token.empty()) {
    auto used = config::parse_rfc3339(f.now.token);
    if (token == f.now.token || (used && *t <= *used))
      return refuse("confirm token " + token + " is not newer than the one already used (" + f.now.token +
                    "): set a newer confirm to run the restore again");
  }
  if (f.active_site.empty()) return refuse("the group has no active primary to restore into");
  if (!f.active_known) {
    v.wait = true;
    v.reason = "waiting for a conclusive poll of the active site " + f.active_site;
    return v;
  }
  if (!f.active_writable)
    return refuse("the active site " + f.active_site + " is not writable and reachable");
  if (f.plan_running) return refuse("a plan is running; wait for it to end");
  if (f.bootstrap_running) return refuse("a bootstrap is running; wait for it to end");
  if (f.planned_deferred) return refuse("a planned failover is Deferred; cancel it first");
  v.accepted = v.changes = true;
  v.next = {token, true, f.active_site, {}};
  v.reason = "token " + token + " recorded; the group is frozen and " + f.active_site + " is fenced for the restore";
  return v;
}

restore_freeze_verdict check_lift(const restore_freeze_facts& f, const std::string& token) {
  restore_freeze_verdict v;
  v.next = f.now;
  if (!f.now.frozen) {
    v.accepted = true;
    v.reason = "not frozen";
    return v;
  }
  if (token != f.now.token) {
    v.reason = "the freeze belongs to token " + f.now.token + ", not " + token;
    return v;
  }
  v.accepted = v.changes = true;
  v.next.frozen = false;
  v.reason = "the freeze of token " + token + " is lifted; " + f.now.site + " is unfenced through the promotion path";
  return v;
}

}  // namespace br
