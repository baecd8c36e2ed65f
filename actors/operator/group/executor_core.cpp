// The failover executor's shared helpers: plan end, failure, deadlines, step persistence and
// MySQL commands bounded by the current step (see executor_core.hpp).
#include "actors/operator/group/executor_core.hpp"

#include <algorithm>

#include "actors/common/registry.hpp"
#include "actors/operator/decide/plan_steps.hpp"
#include "io/log/log.hpp"

namespace br::executor {

namespace {

void stop_push_workers(executor_state& st) {
  for (auto& [site, w] : *st.push_workers) caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
  st.push_workers->clear();
}

}  // namespace

bool is_connection_error(const std::string& kind) {
  return kind == "refused" || kind == "timeout" || kind == "lost_connection";
}

std::string describe(const mysql_outcome& o) {
  std::string s = o.error_kind.empty() ? std::string("error") : o.error_kind;
  // site_io's texts already start with "<kind> <code>": do not say it twice.
  if (!o.error.empty() && o.error.rfind(s, 0) == 0) return o.error;
  if (o.error_code != 0) s += " " + std::to_string(o.error_code);
  if (!o.error.empty()) s += ": " + o.error;
  return s;
}

nlohmann::json fields(exec_ptr self, const std::string& site) {
  const auto& p = self->state.plan;
  return {{"group", p.group},          {"site", site},
          {"epoch", p.epoch},          {"plan", p.id},
          {"kind", to_string(p.kind)}, {"phase", to_string(self->state.current)}};
}

mono_time now_of(exec_ptr self) {
  return self->clock().now();
}

caf::timespan remaining(exec_ptr self) {
  auto left = self->state.deadline_at - now_of(self);
  return std::max<caf::timespan>(left, std::chrono::milliseconds(1));
}

bool promotion_attempted(const executor_state& st) {
  if (st.promotion_done) return true;
  auto all = plan_steps(st.plan.kind);
  auto promo = std::find(all.begin(), all.end(), plan_phase::promoting);
  auto cur = std::find(all.begin(), all.end(), st.current);
  return promo != all.end() && cur != all.end() && cur >= promo;
}

void record_loss(exec_ptr self, gtid_loss loss) {
  auto& losses = self->state.result.losses;
  // A re-run step finds the same loss again: one entry per site and kind.
  std::erase_if(losses, [&](const gtid_loss& l) { return l.site == loss.site && l.kind == loss.kind; });
  if (loss.count > 0) losses.push_back(std::move(loss));
}

void finish(exec_ptr self) {
  auto& st = self->state;
  st.finished = true;
  ++st.seq;
  stop_push_workers(st);
  if (st.deps.coordinator) self->send(st.deps.coordinator, plan_done_atom::value, st.result);
  self->quit();
}

void fail(exec_ptr self, const std::string& why) {
  auto& st = self->state;
  if (st.finished) return;
  st.result.ok = false;
  st.result.reached = st.current;
  st.result.error = to_string(st.current) + ": " + why;
  // A switchover that fails before anything was promoted is rolled back: the source stays the
  // active primary (the coordinator publishes it under a new epoch and unfences it); so is a
  // semi-sync failover that found no site holding every acknowledged commit.
  st.result.source_kept = (st.plan.kind == plan_kind::switchover && !promotion_attempted(st)) ||
                          semisync_failover_kept(st);
  auto f = fields(self, st.plan.candidate);
  f["error"] = st.result.error;
  log::error("plan failed", f);
  report_error(self, st.path, st.result.error);
  report_step(self, st.path, "failed: " + st.result.error);
  finish(self);
}

void arm_deadline(exec_ptr self, caf::timespan d) {
  auto& st = self->state;
  st.deadline_at = now_of(self) + d;
  self->delayed_send(self, d, deadline_atom::value, st.seq);
}

namespace {

/// How often a refused progress write is offered again once the promotion has run.
constexpr int promoted_persist_attempts = 5;

/// The candidate has been promoted (called once a step finished: `promoting` or a later one is
/// done): nothing can undo that, so ending the plan "failed" on a refused progress write would
/// leave a writable primary no view names (seen: the API server timed out the steering write).
bool past_promotion(const executor_state& st) {
  return is_promotion_kind(st.plan.kind) && promotion_attempted(st);
}

void persist_progress(exec_ptr self, int attempt) {
  auto& st = self->state;
  auto retry_or_fail = [=](const std::string& why) {
    auto& s = self->state;
    if (past_promotion(s) && attempt < promoted_persist_attempts) {
      auto f = fields(self, s.plan.candidate);
      f["attempt"] = attempt;
      f["error"] = why;
      log::warn("progress not persisted after the promotion; offered again", f);
      ++s.seq;
      arm_deadline(self, s.plan.step_timeout);
      persist_progress(self, attempt + 1);
      return;
    }
    fail(self, why);
  };
  self->request(st.deps.coordinator, st.plan.step_timeout + request_slack, phase_atom::value,
                st.plan.id, st.current,
                plan_facts{st.result.promotion_gtid, st.result.source_gtid, st.result.losses})
      .then(if_current<bool>(self,
                             [=](bool persisted) {
                               if (!persisted) {
                                 retry_or_fail("progress not persisted");
                                 return;
                               }
                               auto& s = self->state;
                               s.persisting = false;
                               ++s.index;
                               start_next(self);
                             }),
            if_current<caf::error&>(self, [=](caf::error& e) {
              retry_or_fail("progress not persisted: " + to_string(e));
            }));
}

}  // namespace

void step_done(exec_ptr self) {
  auto& st = self->state;
  if (st.finished) return;
  st.persisting = true;
  ++st.seq;
  arm_deadline(self, st.plan.step_timeout);
  auto f = fields(self, st.plan.candidate);
  log::info("plan step done", f);
  if (!st.deps.coordinator) {
    st.persisting = false;
    ++st.index;
    start_next(self);
    return;
  }
  persist_progress(self, 1);
}

const mysql_target* target_of(exec_ptr self, const std::string& site) {
  auto& t = self->state.deps.targets;
  auto it = t.find(site);
  if (it == t.end()) {
    fail(self, "no MySQL target for site '" + site + "'");
    return nullptr;
  }
  return &it->second;
}

mysql_target source_of(exec_ptr self, const mysql_target& site_target) {
  mysql_target src = self->state.deps.replication;
  src.site = site_target.site;
  src.host = site_target.host;
  src.port = site_target.port;
  return src;
}

// A connection-level failure is retried once at once (not for CLONE, which reconnects by itself):
// site_io drops a broken session on such an error, so the retry opens a fresh one. Without it a
// session cached before a server restart would make a live server look dead -- and "the old
// primary is unreachable" is exactly what lets policy Fast promote.
void run_sql(exec_ptr self, mysql_op op, const std::string& site,
             std::function<void(mysql_outcome&)> k, caf::timespan timeout,
             std::function<void(mysql_command&)> adjust, int attempt) {
  auto& st = self->state;
  auto t = target_of(self, site);
  if (!t) return;
  mysql_command cmd;
  cmd.op = op;
  cmd.target = *t;
  cmd.timeout =
      timeout.count() > 0 ? timeout : std::min(st.deps.command_timeout, st.plan.step_timeout);
  cmd.source_ssl = st.deps.replication_ssl;
  cmd.source_ssl_ca = st.deps.replication_ssl_ca;
  cmd.leader_generation = st.deps.leader_generation;
  // Not started at all once the step is over (its reply would be ignored).
  cmd.deadline = self->clock().now() + remaining(self);
  if (adjust) adjust(cmd);
  self->request(st.deps.site_io, remaining(self) + request_slack, cmd)
      .then(
          if_current<mysql_outcome&>(self, [=](mysql_outcome& o) {
            if (!o.ok && attempt == 1 && op != mysql_op::clone &&
                is_connection_error(o.error_kind)) {
              auto f = fields(self, site);
              f["op"] = to_string(op);
              f["error"] = describe(o);
              log::info("retrying command on a fresh connection", f);
              run_sql(self, op, site, k, timeout, adjust, 2);
              return;
            }
            k(o);
          }),
          if_current<caf::error&>(self, [=](caf::error& e) {
            fail(self, to_string(op) + " on " + site + ": site_io: " + to_string(e));
          }));
}

void run_sql_must(exec_ptr self, mysql_op op, const std::string& site, std::function<void()> next,
                  std::function<void(mysql_command&)> adjust) {
  run_sql(
      self, op, site,
      [=](mysql_outcome& o) {
        if (!o.ok) {
          fail(self, to_string(op) + " on " + site + " failed: " + describe(o));
          return;
        }
        next();
      },
      caf::timespan{0}, std::move(adjust));
}

}  // namespace br::executor
