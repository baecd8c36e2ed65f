// Executor steps of the drain-and-promote family: drain the candidate's relay log, record the
// promotion GTID set, promote through the dead man's switch and confirm it writable (S9) or, for a
// repaired site, replicating.
#include "actors/operator/group/executor_core.hpp"

#include "actors/common/registry.hpp"
#include "io/log/log.hpp"

namespace br::executor {

void run_draining(exec_ptr self) {
  auto& st = self->state;
  auto cand = st.plan.candidate;
  run_sql(self, mysql_op::probe, cand, [=](mysql_outcome& o) {
    auto f = fields(self, cand);
    if (!o.ok) {
      f["error"] = describe(o);
      log::warn("relay drain skipped: candidate probe failed", f);
      step_done(self);
      return;
    }
    // What the candidate has RECEIVED is what it can still apply; without a channel (or an older
    // site_io) its own executed set makes the wait a no-op.
    auto target = o.probe.received_gtid.empty() ? o.probe.gtid_executed : o.probe.received_gtid;
    auto drain = self->state.plan.drain_timeout;
    auto wait = [=] {
      run_sql(
        self, mysql_op::wait_executed, cand,
        [=](mysql_outcome& w) {
          auto g = fields(self, cand);
          g["gtid"] = target;
          if (w.ok && w.value == "reached") {
            log::info("relay log drained", g);
          } else if (w.ok) {
            log::warn("relay drain timed out; continuing", g);
          } else {
            g["error"] = describe(w);
            log::warn("relay drain failed; continuing", g);
          }
          step_done(self);
        },
        drain, [=](mysql_command& c) { c.gtid = target; });
    };
    // A stopped applier (STOP REPLICA SQL_THREAD, an applier error) would leave the relay log
    // unapplied and the drain would only time out: those transactions were acknowledged by the
    // old primary (S3). Start the threads first (the IO thread failing to reach a dead primary is
    // harmless; stopping_replica stops both afterwards).
    if (o.probe.channel_configured && o.probe.sql_state != "ON") {
      f["sqlThread"] = o.probe.sql_state;
      log::warn("candidate's applier is stopped; starting it to drain the relay log", f);
      run_sql(self, mysql_op::start_replica, cand, [=](mysql_outcome& r) {
        if (!r.ok) {
          auto g = fields(self, cand);
          g["error"] = describe(r);
          log::warn("could not start the candidate's applier; draining anyway", g);
        }
        wait();
      });
      return;
    }
    wait();
  });
}

void run_recording_gtid(exec_ptr self) {
  auto cand = self->state.plan.candidate;
  run_sql(self, mysql_op::read_gtid, cand, [=](mysql_outcome& o) {
    if (!o.ok) {
      fail(self, "read_gtid on " + cand + " failed: " + describe(o));
      return;
    }
    self->state.result.promotion_gtid = o.value;
    self->state.plan.promotion_gtid = o.value;
    auto f = fields(self, cand);
    f["promotionGtidExecuted"] = o.value;
    log::info("promotion gtid recorded", f);
    step_done(self);
  });
}

void run_promoting(exec_ptr self) {
  auto cand = self->state.plan.candidate;
  // Through the in-database dead man's switch (docs/safety.md rule 7): super_read_only=OFF,
  // heartbeat, read_only=OFF, retried if the switch fires in between. Safe promotes only onto a
  // server whose switch is armed (event scheduler ON, event ENABLED).
  run_sql_must(
      self, mysql_op::promote_switch, cand,
      [=] {
        log::info("candidate promoted", fields(self, self->state.plan.candidate));
        step_done(self);
      },
      [=](mysql_command& c) {
        c.lease = self->state.deps.lease_timeout;
        c.require_armed = self->state.plan.policy == gate_policy::safe;
      });
}

void confirm_probe(exec_ptr self) {
  auto& st = self->state;
  auto cand = st.plan.candidate;
  bool repair = st.plan.kind == plan_kind::recover || st.plan.kind == plan_kind::reclone;
  run_sql(self, mysql_op::probe, cand, [=](mysql_outcome& o) {
    auto& s = self->state;
    if (o.ok && !repair) {
      if (o.probe.writable()) {
        log::info("promotion confirmed writable", fields(self, cand));
        step_done(self);
      } else {
        // S9: nothing is steered towards a site not confirmed writable.
        log::error("promotion succeeded but writable confirmation failed; DNS not flipped",
                   fields(self, cand));
        fail(self, "candidate " + cand + " is not writable after promotion; nothing steered");
      }
      return;
    }
    if (o.ok && o.probe.replicating()) {
      log::info("replica confirmed replicating", fields(self, cand));
      step_done(self);
      return;
    }
    s.last_note =
        o.ok ? "io " + o.probe.io_state + ", sql " + o.probe.sql_state +
                   (o.probe.last_io_error.empty() ? "" : ", io error: " + o.probe.last_io_error) +
                   (o.probe.last_sql_error.empty() ? "" : ", sql error: " + o.probe.last_sql_error)
             : "probe: " + describe(o);
    self->delayed_send(self, confirm_retry_interval, retry_atom::value, s.seq);
  });
}

}  // namespace br::executor
