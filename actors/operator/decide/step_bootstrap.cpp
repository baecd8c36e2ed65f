// step(): how a group comes into being (fresh-deploy bootstrap) and how an empty site is brought
// back (auto-clone). The rules are the pure functions of decide/bootstrap.hpp; here they meet the
// group's state: a bootstrap is recorded (status.bootstrap) before its plan, the seed is promoted
// by a plan of kind `bootstrap` (the ordinary executor, promotion through the dead man's switch),
// then every other site is brought in by one `auto_clone` plan at a time, each persisted phase by
// phase (docs/safety.md "Bootstrap and auto-clone").
#include <chrono>

#include "actors/operator/decide/bootstrap.hpp"
#include "actors/operator/decide/bootstrap_record.hpp"
#include "actors/operator/decide/step_context.hpp"

namespace br::step_detail {

namespace {

std::vector<bootstrap_site_facts> site_facts(const context& c) {
  std::vector<bootstrap_site_facts> out;
  for (const auto& name : c.rules.sites) {
    bootstrap_site_facts f;
    f.name = name;
    f.role = c.role_of(name);
    if (auto r = c.st.reports.find(name); r != c.st.reports.end()) {
      f.reported = true;
      f.polled_ms = r->second.polled_at_ms;
      auto state = r->second.step.next.state;
      f.reachable = r->second.probe_ok &&
                    (state == site_state::read_only || state == site_state::writable);
      if (r->second.probe_ok) {
        f.writable = r->second.probe.writable();
        f.channel = r->second.probe.channel_configured;
        f.gtid_executed = r->second.probe.gtid_executed;
      }
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::string seed_of(const context& c) {
  if (!c.rules.seed_site.empty()) return c.rules.seed_site;
  for (const auto& s : c.rules.sites)
    if (c.role_of(s) == site_role::primary_candidate) return s;
  return c.rules.sites.empty() ? "" : c.rules.sites.front();
}

bool retry_wait(const context& c) {
  return c.st.last_plan_failure && c.clock.now - *c.st.last_plan_failure < c.rules.plan_retry_delay;
}

void note(context& c, std::string text) {
  if (c.st.bootstrap_note == text) return;
  c.st.bootstrap_note = std::move(text);
  auto f = c.fields();
  f["note"] = c.st.bootstrap_note;
  c.log(log_level::info, "bootstrap: " + c.st.bootstrap_note, f);
  status_changed(c, true);
}

double seconds_between(int64_t from_ms, int64_t to_ms) {
  return from_ms > 0 && to_ms >= from_ms ? static_cast<double>(to_ms - from_ms) / 1000.0 : -1;
}

}  // namespace

bool hold_for_restore(context& c) {
  if (!restore_holds(c.st.durable, c.rules.restore_hold)) return false;
  note(c, "waiting: " + c.rules.restore_hold);
  return true;
}

bool maybe_bootstrap(context& c) {
  auto& st = c.st;
  if (!c.rules.bootstrap) return false;
  bootstrap_facts facts{st.durable, seed_of(c), site_facts(c)};
  auto d = decide_bootstrap(facts);
  switch (d.verdict) {
    case bootstrap_verdict::not_new:
      if (!st.bootstrap_note.empty()) {
        st.bootstrap_note.clear();
        status_changed(c, true);
      }
      return false;
    case bootstrap_verdict::wait:
      note(c, "waiting: " + d.reason);
      return true;
    case bootstrap_verdict::refuse:
      note(c, "refused: " + d.reason);
      c.alert_once("bootstrap-refused:" + d.reason, "Warning", "BootstrapFailed",
                   "bootstrap refused: " + d.reason);
      return true;
    case bootstrap_verdict::bootstrap:
      break;
  }
  if (retry_wait(c)) {
    note(c, "retrying after a failed attempt");
    return true;
  }
  st.bootstrap_note.clear();
  // The record: kept across a retried attempt (started time, attempts), rebuilt otherwise.
  const auto& old = st.durable.bootstrap;
  change_bootstrap ch;
  auto& rec = ch.record;
  rec.source = "fresh-deploy";
  rec.seed = d.seed;
  rec.started_ms = old.source == "fresh-deploy" && old.seed == d.seed && old.started_ms > 0
                       ? old.started_ms
                       : c.wall_ms();
  rec.sites.push_back({d.seed, "seed", "Pending", "", 0, 0, 0});
  for (const auto& a : d.sites) {
    bootstrap_site s{a.site, a.action, a.action == "divergent" ? "Blocked" : "Pending",
                     a.reason, 0, 0, 0};
    rec.sites.push_back(std::move(s));
    if (a.action == "divergent")
      ch.blocked.push_back({a.site, a.divergent_gtid, a.divergent_count});
  }
  for (auto& s : rec.sites)
    for (const auto& o : old.sites)
      if (old.source == "fresh-deploy" && o.name == s.name) s.attempts = o.attempts;
  rec.phase = overall_phase(rec);
  auto f = c.fields(d.seed);
  for (const auto& a : d.sites) f["sites"][a.site] = a.action;
  c.log(log_level::info, "bootstrapping a new group", f);
  ch.start_kind = plan_kind::bootstrap;
  ch.start_site = d.seed;
  persist(c, std::move(ch));
  return true;
}

void continue_bootstrap(context& c) {
  auto& st = c.st;
  const auto& rec = st.durable.bootstrap;
  if (!c.rules.bootstrap || busy(st) || rec.source != "fresh-deploy" || rec.phase == "Done") return;
  // From whichever site is active: after a failover during the bootstrap (the seed lost), the
  // remaining sites are brought in from the new primary (the promoted one is marked Done by the
  // promotion's durable change).
  if (st.view.active_site.empty()) return;
  if (retry_wait(c)) return;
  for (const auto& s : rec.sites) {
    if ((s.action != "clone" && s.action != "replicate") || s.phase == "Done") continue;
    if (s.name == st.view.active_site) continue;
    auto f = c.fields(s.name);
    f["action"] = s.action;
    c.log(log_level::info, "bootstrap: bringing in the next site", f);
    start_plan(c, plan_kind::auto_clone, s.name, "", false, false);
    return;
  }
}

void maybe_auto_clone(context& c) {
  auto& st = c.st;
  if (!c.rules.bootstrap || busy(st)) return;
  const auto& rec = st.durable.bootstrap;
  if (rec.source == "fresh-deploy" && rec.phase != "Done") return;  // bootstrap's business
  auto_clone_facts facts;
  facts.active = st.view.active_site;
  facts.sites = site_facts(c);
  facts.recovery = st.durable.recovery;
  facts.now_ms = c.wall_ms();
  auto base = std::chrono::duration_cast<std::chrono::milliseconds>(c.rules.plan_retry_delay).count();
  if (rec.source == "auto-clone")
    for (const auto& s : rec.sites)
      if (s.phase == "Failed")
        facts.not_before_ms[s.name] = s.finished_ms + auto_clone_backoff_ms(base, s.attempts);
  // A site just brought in may still be known by a report from before its restart (empty, no
  // channel): only a poll after its plan ended counts.
  for (const auto& s : rec.sites)
    if (s.finished_ms > 0) facts.settled_ms[s.name] = s.finished_ms;
  auto site = pick_auto_clone(facts);
  if (!site) return;
  change_bootstrap ch;
  auto& r = ch.record;
  r.source = "auto-clone";
  r.seed = st.view.active_site;
  r.started_ms = c.wall_ms();
  uint32_t attempts = 0;
  if (rec.source == "auto-clone")
    for (const auto& s : rec.sites)
      if (s.name == *site && s.phase == "Failed") attempts = s.attempts;
  r.sites.push_back({*site, "clone", "Pending", "empty while the active site has data", 0, 0,
                     attempts});
  r.phase = overall_phase(r);
  ch.start_kind = plan_kind::auto_clone;
  ch.start_site = *site;
  persist(c, std::move(ch));
}

void bootstrap_persisted(context& c, const change_bootstrap& x, bool ok) {
  if (!ok) {
    // Nothing starts without its record; the next evaluation decides again.
    auto f = c.fields(x.start_site);
    f["source"] = x.record.source;
    c.log(log_level::warn, "bootstrap record not stored: its plan does not start", f);
    return;
  }
  for (const auto& b : x.blocked) {
    auto msg = b.site + " holds " + std::to_string(b.divergent_count) +
               " transactions the seed " + x.record.seed + " lacks (" + b.divergent_gtid +
               "): it is not cloned and stays fenced (RecoveryBlocked); reclone it explicitly "
               "(kubectl bloodraven reclone) to bring it in";
    auto f = c.fields(b.site);
    f["divergentGtid"] = b.divergent_gtid;
    f["divergentCount"] = b.divergent_count;
    c.log(log_level::warn, "bootstrap: divergent site blocked", f);
    c.emit("Warning", "DataLossDetected", msg, b.site);
    c.metric(metric_kind::divergent, b.site, static_cast<double>(b.divergent_count));
  }
  status_changed(c, true);
  if (!x.start_site.empty())
    start_plan(c, x.start_kind, x.start_site, "", false, x.start_kind == plan_kind::bootstrap);
}

void bootstrap_plan_done(context& c, const change_plan_done& x) {
  const auto& plan = x.plan;
  const auto& res = x.result;
  const auto& rec = c.st.durable.bootstrap;  // already updated by the change
  if (plan.kind != plan_kind::bootstrap && plan.kind != plan_kind::auto_clone &&
      plan.kind != plan_kind::reclone)
    return;
  const bootstrap_site* site = nullptr;
  for (const auto& s : rec.sites)
    if (s.name == plan.candidate) site = &s;
  if (!res.ok) {
    if (plan.kind != plan_kind::reclone)
      c.emit("Warning", "BootstrapFailed",
             (rec.source == "auto-clone" ? "auto-clone of " : "bootstrap of ") + plan.candidate +
                 " failed (" + res.error + "); retried automatically",
             plan.candidate);
    return;
  }
  if (site) {
    auto kind = plan.kind == plan_kind::bootstrap ? "promote" : "bring_in";
    c.metric(metric_kind::bootstrap_phase, plan.candidate,
             seconds_between(site->started_ms, site->finished_ms), kind);
  }
  if (plan.kind == plan_kind::auto_clone || plan.kind == plan_kind::reclone) {
    if (res.clone_outcome == "cloned" || plan.kind == plan_kind::reclone)
      c.metric(metric_kind::clone_operation, plan.candidate, 0, rec.source);
    if (plan.kind == plan_kind::auto_clone)
      c.emit("Normal", "BootstrapSiteCloned",
             plan.candidate + " replicates from " + plan.source +
                 (res.clone_outcome.empty() ? "" : " (" + res.clone_outcome + ")"),
             plan.candidate);
  }
  if (rec.phase == "Done" && rec.source == "fresh-deploy") {
    auto secs = seconds_between(rec.started_ms, rec.finished_ms);
    c.metric(metric_kind::bootstrap_phase, rec.seed, secs, "total");
    c.emit("Normal", "BootstrapCompleted",
           "group bootstrapped from seed " + rec.seed + " in " +
               std::to_string(static_cast<int64_t>(secs)) + " s",
           rec.seed);
  }
}

}  // namespace br::step_detail
