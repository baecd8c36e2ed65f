// Executor steps of the repair family: repoint the followers to the new primary (each only when
// its set is contained in the primary's, S4) and rejoin a repaired site.
#include "actors/operator/group/executor_core.hpp"

#include "io/log/log.hpp"
#include "messages/gtid_set.hpp"

namespace br::executor {

namespace {

/// Configures `site` to replicate from `primary` (stop, change source, start); `next` runs after
/// success, `on_error` with the failing command's description otherwise.
void replicate_from(exec_ptr self, const std::string& site, const std::string& primary,
                    bool stop_first, std::function<void()> next,
                    std::function<void(std::string)> on_error) {
  auto pt = target_of(self, primary);
  if (!pt) return;
  auto src = source_of(self, *pt);
  auto step = [=](mysql_op op, std::function<void()> k) {
    run_sql(
        self, op, site,
        [=](mysql_outcome& o) {
          if (!o.ok)
            on_error(to_string(op) + " failed: " + describe(o));
          else
            k();
        },
        caf::timespan{0}, [=](mysql_command& c) { c.source = src; });
  };
  auto change_and_start = [=] {
    step(mysql_op::change_source, [=] { step(mysql_op::start_replica, next); });
  };
  // A repaired site already stopped and reset its replica in earlier steps.
  if (stop_first)
    step(mysql_op::stop_replica, change_and_start);
  else
    change_and_start();
}

/// Semi-sync: before a site's set is read for the containment check, its application sessions
/// are killed and its source side switched OFF, receiver side ON (mysql_op::semisync_replica). A
/// server whose source side is on makes its own commits (its applier's too) wait; and a commit
/// still waiting would be in the binary log but not yet in gtid_executed, then answered OK by the
/// switch after the check passed (review V5 H2). Without semi-sync: `next` at once.
void as_semisync_replica(exec_ptr self, const std::string& site, std::function<void()> next,
                         std::function<void(std::string)> on_error) {
  if (self->state.plan.semisync_k == 0) {
    next();
    return;
  }
  run_sql(self, mysql_op::semisync_replica, site, [=](mysql_outcome& o) {
    if (!o.ok) {
      on_error("semisync_replica failed: " + describe(o));
      return;
    }
    if (!o.value.empty() && o.value != "0") {
      auto f = fields(self, site);
      f["killed"] = o.value;
      log::warn("semi-sync: sessions killed before the source side went OFF", f);
    }
    next();
  });
}

/// Reads `site`'s gtid_executed and checks it is contained in self->state.primary_gtid.
/// Calls k(true, "") when contained, k(false, reason) otherwise; a divergent site's extra set is
/// also given to `extra` (when set) before k.
void check_contained(exec_ptr self, const std::string& site,
                     std::function<void(bool, std::string)> k,
                     std::function<void(const gtid_set&)> extra = nullptr) {
  run_sql(self, mysql_op::read_gtid, site, [=](mysql_outcome& o) {
    if (!o.ok) {
      k(false, "unreachable (" + describe(o) + ")");
      return;
    }
    gtid_parse_error pe;
    auto mine = gtid_set::parse(o.value, &pe);
    auto primary = gtid_set::parse(self->state.primary_gtid);
    if (!mine || !primary) {
      k(false, "unparsable gtid_executed" + (mine ? std::string() : " (" + pe.to_string() + ")"));
      return;
    }
    if (mine->subset_of(*primary)) {
      k(true, "");
      return;
    }
    auto more = mine->subtract(*primary);
    if (extra) extra(more);
    k(false, "divergent: " + more.to_compact_string() + " (" + std::to_string(more.count()) +
                 " transactions not on the new primary)");
  });
}

void repoint_next(exec_ptr self) {
  auto& st = self->state;
  const auto& p = st.plan;
  while (st.follower < p.followers.size() &&
         (p.followers[st.follower] == p.candidate || p.followers[st.follower] == p.old_primary))
    ++st.follower;
  if (st.follower >= p.followers.size()) {
    step_done(self);
    return;
  }
  auto site = p.followers[st.follower++];
  auto skip = [=](std::string reason) {
    auto f = fields(self, site);
    f["reason"] = reason;
    log::warn("follower not repointed", f);
    self->state.result.not_repointed.push_back(site + ": " + reason);
    repoint_next(self);
  };
  // A reachable follower holding transactions the new primary lacks can no longer follow it:
  // its extra set is recorded as stranded (reported, and the site marked RecoveryBlocked).
  auto stranded = [=](const gtid_set& more) {
    record_loss(self, {site, gtid_loss_stranded, more.to_string(), more.count()});
  };
  as_semisync_replica(self, site, [=] { check_contained(
      self, site,
      [=](bool ok, std::string reason) {
        if (!ok) {
          skip(reason);
          return;
        }
        record_loss(self, {site, gtid_loss_stranded, "", 0});  // a re-run finds it contained now
        replicate_from(
            self, site, self->state.plan.candidate, true,
            [=] {
              log::info("follower repointed", fields(self, site));
              repoint_next(self);
            },
            skip);
      },
      stranded); }, skip);
}

}  // namespace

void run_repointing(exec_ptr self) {
  auto& st = self->state;
  bool repair = is_repair_kind(st.plan.kind);
  auto primary = repair ? st.plan.source : st.plan.candidate;
  run_sql(self, mysql_op::read_gtid, primary, [=](mysql_outcome& o) {
    if (!o.ok) {
      fail(self, "read_gtid on primary " + primary + " failed: " + describe(o));
      return;
    }
    self->state.primary_gtid = o.value;
    if (!repair) {
      self->state.follower = 0;
      repoint_next(self);
      return;
    }
    // Repair: S4 -- never replicate a site whose set the primary does not contain.
    auto site = self->state.plan.candidate;
    auto failed = [=](std::string why) { fail(self, site + ": " + why); };
    as_semisync_replica(self, site, [=] {
      check_contained(self, site, [=](bool ok, std::string reason) {
        if (!ok) {
          fail(self, site + " not repointed: " + reason);
          return;
        }
        replicate_from(self, site, primary, false, [=] { step_done(self); }, failed);
      });
    }, failed);
  });
}

}  // namespace br::executor
