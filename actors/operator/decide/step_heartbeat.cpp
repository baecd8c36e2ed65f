// step(): the operator's side of the in-database dead man's switch (docs/safety.md, rule 7).
// After a good poll of the active site the operator refreshes its heartbeat, and every
// switch_check_interval it checks that the switch is installed and armed (Event
// DeadMansSwitchNotArmed otherwise). Never while deposing or while a plan runs: the operator
// vouches only for the site it holds active.
#include "actors/operator/decide/step_context.hpp"

namespace br::step_detail {

void maybe_heartbeat(context& c, const std::string& site, const site_report& r) {
  auto& st = c.st;
  if (!r.probe_ok || !r.probe.writable() || site != st.view.active_site ||
      !st.view.deposing.empty() || busy(st))
    return;
  if (!st.heartbeat_inflight.insert(site).second) return;
  auto checked = st.switch_checked.find(site);
  bool ensure = checked == st.switch_checked.end() ||
                c.clock.now - checked->second >= c.rules.switch_check_interval;
  if (ensure) st.switch_checked[site] = c.clock.now;
  c.out.emplace_back(effect::heartbeat{site, ensure});
}

void on_heartbeat_done(context& c, const input::heartbeat_done& in) {
  auto& st = c.st;
  const auto& site = in.site;
  st.heartbeat_inflight.erase(site);
  if (!in.outcome) return;
  const auto& o = *in.outcome;
  auto key = "switch-not-armed:" + site;
  if (!o.ok) {
    auto f = c.fields(site);
    f["error"] = o.error;
    c.log(log_level::warn, in.ensure ? "dead man's switch check failed" : "heartbeat failed", f);
    if (in.ensure) st.switch_checked.erase(site);  // check again on the next poll
    return;
  }
  if (!in.ensure) return;
  if (o.value == "armed") {
    st.alerts.erase(key);  // the heartbeat follows on the next poll
    return;
  }
  c.alert_once(key, "Warning", "DeadMansSwitchNotArmed",
               "the in-database dead man's switch on " + site + " is not armed (" + o.value +
                   "): a primary cut off from every authority will not fence itself; "
                   "policy Safe will not promote onto this server",
               site);
}

}  // namespace br::step_detail
