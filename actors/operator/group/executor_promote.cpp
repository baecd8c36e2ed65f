// Executor steps of the drain-and-promote family: drain the candidate's relay log, record the
// promotion GTID set, promote through the dead man's switch and confirm it writable (S9) or, for a
// repaired site, replicating.
#include "actors/operator/group/executor_core.hpp"

#include "actors/common/registry.hpp"
#include "io/log/log.hpp"
#include "messages/gtid_set.hpp"

namespace br::executor {

namespace {

/// A stopped applier (STOP REPLICA SQL_THREAD, an applier error) would leave the relay log
/// unapplied and any wait would only time out: those transactions were acknowledged by the old
/// primary (S3). Start the threads first (the IO thread failing to reach a dead primary is
/// harmless; stopping_replica stops both afterwards), then `next`.
void ensure_applier(exec_ptr self, const site_probe& probe, std::function<void()> next) {
  auto cand = self->state.plan.candidate;
  if (!probe.channel_configured || probe.sql_state == "ON") {
    next();
    return;
  }
  if (self->state.plan.semisync_k > 0) {
    // START REPLICA would start the receiver too, the one rule 4 stopped: the old primary could
    // then collect acknowledgements again (review V5 M6). The wait runs as is.
    auto f = fields(self, cand);
    f["sqlThread"] = probe.sql_state;
    log::warn("semi-sync: the candidate's applier is stopped; not starting it (its receiver would "
              "start too)", f);
    next();
    return;
  }
  auto f = fields(self, cand);
  f["sqlThread"] = probe.sql_state;
  log::warn("candidate's applier is stopped; starting it to drain the relay log", f);
  run_sql(self, mysql_op::start_replica, cand, [=](mysql_outcome& r) {
    if (!r.ok) {
      auto g = fields(self, cand);
      g["error"] = describe(r);
      log::warn("could not start the candidate's applier; waiting anyway", g);
    }
    next();
  });
}

/// Emergency failover: drain what the candidate has RECEIVED, best effort within
/// relayDrainTimeout (what it could not apply is recorded as lost at stopping_replica).
void drain_received(exec_ptr self) {
  auto cand = self->state.plan.candidate;
  if (self->state.ss_no_loss) {
    // Rule 4 chose this candidate because its received set holds every acknowledged commit:
    // the drain is not best-effort here. Drained to the set seen at the stop (a restart since
    // would have shrunk a fresh reading), or nothing is promoted.
    auto target = self->state.ss_drain_target;
    auto drain = self->state.plan.drain_timeout;
    run_sql(
        self, mysql_op::wait_executed, cand,
        [=](mysql_outcome& w) {
          if (w.ok && w.value == "reached") {
            auto g = fields(self, cand);
            g["gtid"] = target;
            log::info("relay log drained (semi-sync no-loss candidate)", g);
            step_done(self);
            return;
          }
          fail(self, "the semi-sync no-loss candidate " + cand +
                         " did not apply its received transactions within relayDrainTimeout (" +
                         (w.ok ? "wait " + w.value : describe(w)) + "); nothing promoted");
        },
        drain, [=](mysql_command& c) { c.gtid = target; });
    return;
  }
  run_sql(self, mysql_op::probe, cand, [=](mysql_outcome& o) {
    auto f = fields(self, cand);
    if (!o.ok) {
      f["error"] = describe(o);
      log::warn("relay drain skipped: candidate probe failed", f);
      step_done(self);
      return;
    }
    // Without a channel (or an older site_io) its own executed set makes the wait a no-op.
    auto target = o.probe.received_gtid.empty() ? o.probe.gtid_executed : o.probe.received_gtid;
    auto drain = self->state.plan.drain_timeout;
    ensure_applier(self, o.probe, [=] {
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
    });
  });
}

/// After a failed wait: how many of the source's transactions the candidate still lacks, for
/// the rollback's reason.
void fail_lag(exec_ptr self, const std::string& source_gtid, const std::string& why) {
  auto cand = self->state.plan.candidate;
  run_sql(self, mysql_op::read_gtid, cand, [=](mysql_outcome& o) {
    std::string missing;
    auto src = gtid_set::parse(source_gtid);
    auto have = o.ok ? gtid_set::parse(o.value) : std::nullopt;
    if (src && have) {
      auto m = src->subtract(*have);
      missing = "; missing " + std::to_string(m.count()) + " transactions: " + m.to_compact_string();
    }
    fail(self, "LagTimeout: " + cand + " did not execute the fenced source's transactions within "
                   "maxLagWait (" + why + ")" + missing);
  });
}

/// Switchover (docs/safety.md S3): the candidate must execute everything the fenced source has,
/// or nothing is promoted. Fence the source again (idempotent: a resumed executor must know it
/// is fenced, so its set is final), read its gtid_executed, wait up to maxLagWait for the
/// candidate to execute that set; a shortfall fails the step and the switchover is rolled back.
void catch_up_with_source(exec_ptr self) {
  auto src = self->state.plan.old_primary;
  auto cand = self->state.plan.candidate;
  run_sql(self, mysql_op::fence, src, [=](mysql_outcome& fo) {
    if (!fo.ok) {
      fail(self, "the source " + src + " could not be fenced before the catch-up wait (" +
                     describe(fo) + "); a switchover promotes only a candidate that holds every "
                     "transaction the source acknowledged");
      return;
    }
    run_sql(self, mysql_op::read_gtid, src, [=](mysql_outcome& g) {
      if (!g.ok) {
        fail(self, "reading the fenced source's gtid_executed failed: " + describe(g));
        return;
      }
      auto source_gtid = g.value;
      self->state.result.source_gtid = source_gtid;
      auto f = fields(self, src);
      f["sourceGtid"] = source_gtid;
      log::info("switchover: the fenced source's set recorded; waiting for the candidate", f);
      run_sql(self, mysql_op::probe, cand, [=](mysql_outcome& p) {
        auto go = [=] {
          auto wait = self->state.plan.max_lag_wait;
          run_sql(
              self, mysql_op::wait_executed, cand,
              [=](mysql_outcome& w) {
                if (w.ok && w.value == "reached") {
                  auto h = fields(self, cand);
                  h["sourceGtid"] = source_gtid;
                  log::info("switchover: the candidate executed every transaction of the source", h);
                  step_done(self);
                  return;
                }
                fail_lag(self, source_gtid, w.ok ? "wait " + w.value : describe(w));
              },
              wait, [=](mysql_command& c) { c.gtid = source_gtid; });
        };
        if (p.ok)
          ensure_applier(self, p.probe, go);
        else
          go();
      });
    });
  });
}

}  // namespace

void run_draining(exec_ptr self) {
  if (self->state.plan.kind == plan_kind::switchover)
    catch_up_with_source(self);
  else
    drain_received(self);
}

void run_stopping_replica(exec_ptr self) {
  auto cand = self->state.plan.candidate;
  auto kind = self->state.plan.kind;
  if (is_repair_kind(kind)) {
    // A repaired site is fenced and about to follow the active primary: nothing is promoted.
    run_sql_must(self, mysql_op::stop_replica, cand, [=] { step_done(self); });
    return;
  }
  run_sql_must(self, mysql_op::stop_replica, cand, [=] {
    // Before the channel is reset (resetting_replica discards the relay log): what the candidate
    // received and did not apply is lost with it. Recorded now, persisted with this phase, and
    // reported exactly (S3, S4); unknown is not an option, so a failed probe fails the plan.
    run_sql(self, mysql_op::probe, cand, [=](mysql_outcome& o) {
      if (!o.ok) {
        fail(self, "probe of " + cand + " before its channel is reset failed (" + describe(o) +
                       "); what its relay log holds would be discarded unseen");
        return;
      }
      auto received = gtid_set::parse(o.probe.received_gtid);
      auto executed = gtid_set::parse(o.probe.gtid_executed);
      if (!received || !executed) {
        fail(self, "unparsable GTID sets on " + cand + " before its channel is reset");
        return;
      }
      auto lost = received->subtract(*executed);
      if (!lost.empty()) {
        auto f = fields(self, cand);
        f["gtid"] = lost.to_string();
        f["count"] = lost.count();
        log::warn("received transactions not applied will be discarded with the relay log", f);
      }
      record_loss(self, {cand, gtid_loss_discarded, lost.to_string(), lost.count()});
      step_done(self);
    });
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
  // server whose switch is armed (event scheduler ON, event ENABLED). In semi-sync mode the
  // source side is switched on first, so no commit is ever answered without K receivers.
  semisync_source_before_promotion(self, [=] { promote_through_switch(self); });
}

void promote_through_switch(exec_ptr self) {
  auto cand = self->state.plan.candidate;
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
  bool repair = is_repair_kind(st.plan.kind);
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
