// spec.restoreInPlace's arming and freeze rules (see restore_freeze.hpp).
#include "actors/operator/decide/restore_freeze.hpp"

#include <algorithm>

#include "config/rfc3339.hpp"

namespace br {

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

void add(std::vector<std::string>& v, const std::string& s) {
  if (!contains(v, s)) v.push_back(s);
}

}  // namespace

bool parse_restore_freeze_request(std::string_view value, restore_freeze_request& out) {
  auto colon = value.find(':');
  if (colon == std::string_view::npos || colon + 1 >= value.size()) return false;
  auto verb = value.substr(0, colon);
  auto rest = value.substr(colon + 1);
  out = {};
  if (verb == "freeze") {
    auto last = rest.rfind(':');
    if (last == std::string_view::npos || last == 0 || last + 1 >= rest.size()) return false;
    out.verb = restore_freeze_verb::freeze;
    out.token = std::string(rest.substr(0, last));
    out.site = std::string(rest.substr(last + 1));
    return true;
  }
  if (verb == "lift") out.verb = restore_freeze_verb::lift;
  else if (verb == "cancel") out.verb = restore_freeze_verb::cancel;
  else if (verb == "abandon") out.verb = restore_freeze_verb::abandon;
  else return false;
  out.token = std::string(rest);
  return true;
}

bool restore_pending(const restore_freeze_record& r, const std::string& site) {
  return contains(r.pending, site);
}

restore_freeze_record after_reclone(restore_freeze_record r, const std::string& site, bool ok) {
  if (!restore_pending(r, site)) return r;
  auto& from = ok ? r.pending : r.recloned;
  from.erase(std::remove(from.begin(), from.end(), site), from.end());
  return r;
}

restore_freeze_verdict check_freeze(const restore_freeze_facts& f, const std::string& token,
                                    const std::string& site) {
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
      if (site != f.now.site)
        return refuse("the freeze of token " + token + " holds site " + f.now.site + ", not " + site);
      v.accepted = v.refence = true;
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
  if (site != f.active_site)
    return refuse("the restore targets " + site + " but the active site is " + f.active_site +
                  " (it changed since the preflight)");
  if (!f.active_known) {
    v.wait = true;
    v.reason = "waiting for a conclusive poll of the active site " + f.active_site;
    return v;
  }
  // After an abandoned restore the target is held fenced (restore-pending): restoring it again is
  // the way out, so it need not be writable.
  const bool held = restore_pending(f.now, f.active_site) && f.now.site == f.active_site;
  if (!f.active_writable && !held)
    return refuse("the active site " + f.active_site + " is not writable and reachable");
  if (f.plan_running) return refuse("a plan is running; wait for it to end");
  if (f.bootstrap_running) return refuse("a bootstrap is running; wait for it to end");
  if (f.planned_deferred) return refuse("a planned failover is Deferred; cancel it first");
  v.accepted = v.changes = true;
  v.next = {token, true, f.active_site, {}, f.now.pending};
  v.reason = "token " + token + " recorded; the group is frozen and " + f.active_site + " is fenced for the restore";
  return v;
}

restore_freeze_verdict check_unfreeze(const restore_freeze_facts& f, restore_freeze_verb verb,
                                      const std::string& token) {
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
  const auto& site = f.now.site;
  auto& pending = v.next.pending;
  switch (verb) {
    case restore_freeze_verb::lift:
      pending.erase(std::remove(pending.begin(), pending.end(), site), pending.end());
      for (const auto& s : f.sites)
        if (s != site) add(pending, s);
      v.reason = "the freeze of token " + token + " is lifted; " + site +
                 " is unfenced through the promotion path; the other sites stay restore-pending until recloned from it";
      break;
    case restore_freeze_verb::cancel:
      v.reason = "the freeze of token " + token + " is cancelled before any load; " + site +
                 " is unfenced through the promotion path";
      break;
    case restore_freeze_verb::abandon:
      for (const auto& s : f.sites) add(pending, s);
      v.reason = "the freeze of token " + token + " is lifted after a failed restore; " + site +
                 " stays fenced and every site restore-pending: a newer confirm restores " + site + " again";
      break;
    case restore_freeze_verb::freeze:
      v.accepted = v.changes = false;
      v.next = f.now;
      v.reason = "not an unfreeze";
      break;
  }
  return v;
}

}  // namespace br
