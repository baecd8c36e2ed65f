// Executor steps of bootstrap, auto-clone and reclone: verify the accounts (SHOW GRANTS), CLONE
// only when clone_need (auto-clone) or reclone_check (reclone) allows it, decided again on every
// run and never beside a CLONE still running, and wait for the recipient to answer after its
// CLONE restart, then fence it again. docs/architecture.md "How a group comes into being".
#include "actors/operator/group/executor_core.hpp"

#include "actors/operator/decide/bootstrap.hpp"
#include "io/log/log.hpp"

namespace br::executor {

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t from = 0;
  while (from <= text.size()) {
    auto nl = text.find('\n', from);
    out.push_back(text.substr(from, nl == std::string::npos ? std::string::npos : nl - from));
    if (nl == std::string::npos) break;
    from = nl + 1;
  }
  return out;
}

/// SHOW GRANTS as `account` (operator: the site's own target; replication: the replication
/// credentials on the same host and port), then `next` or a failed plan naming what is missing.
void verify_one(exec_ptr self, const std::string& site, bool replication,
                std::function<void()> next) {
  auto t = target_of(self, site);
  if (!t) return;
  auto account = replication ? source_of(self, *t) : *t;
  const auto& required =
      replication ? replication_account_privileges() : operator_account_privileges();
  std::string who = std::string(replication ? "replication" : "operator") + " account '" +
                    account.user + "' on " + site;
  run_sql(
      self, mysql_op::show_grants, site,
      [=](mysql_outcome& o) {
        if (!o.ok) {
          fail(self, who + ": SHOW GRANTS failed: " + describe(o));
          return;
        }
        auto missing = missing_privileges(lines(o.value), required);
        if (!missing.empty()) {
          std::string list;
          for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
          fail(self, who + " lacks the global privilege" + (missing.size() > 1 ? "s " : " ") +
                         list + " (GRANT " + list + " ON *.* TO '" + account.user + "')");
          return;
        }
        next();
      },
      caf::timespan{0}, [account](mysql_command& c) { c.target = account; });
}

void verify_next(exec_ptr self) {
  auto& st = self->state;
  if (st.verify_index >= st.deps.sites.size()) {
    log::info("accounts verified", fields(self, st.plan.candidate));
    step_done(self);
    return;
  }
  auto site = st.deps.sites[st.verify_index++];
  verify_one(self, site, false, [=] { verify_one(self, site, true, [=] { verify_next(self); }); });
}

void clone_now(exec_ptr self, const std::string& why) {
  auto& st = self->state;
  auto pt = target_of(self, st.plan.source);
  if (!pt) return;
  auto src = source_of(self, *pt);
  auto clone_timeout = std::max(st.plan.step_timeout, st.deps.clone_timeout);
  auto site = st.plan.candidate;
  auto f = fields(self, site);
  f["donor"] = st.plan.source;
  f["reason"] = why;
  log::info("cloning from the active site", f);
  run_sql(
      self, mysql_op::clone, site,
      [=](mysql_outcome& o) {
        if (!o.ok) {
          fail(self,
               "clone of " + site + " from " + self->state.plan.source + " failed: " + describe(o));
          return;
        }
        self->state.result.clone_outcome = "cloned";
        auto f = fields(self, site);
        f["reason"] = why;
        log::info("site cloned", f);
        step_done(self);
      },
      clone_timeout, [=](mysql_command& c) { c.source = src; });
}

}  // namespace

void run_verifying_accounts(exec_ptr self) {
  self->state.verify_index = 0;
  verify_next(self);
}

// GCC 12 at -O2 reports a false -Wmaybe-uninitialized inside the std::string comparisons of the
// nested callbacks below (inlined through std::function); Debug builds do not. Silenced here only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
void run_auto_cloning(exec_ptr self) {
  auto site = self->state.plan.candidate;
  auto donor = self->state.plan.source;
  auto again = [self](std::string why) {
    auto& s = self->state;
    s.last_note = std::move(why);
    self->delayed_send(self, confirm_retry_interval, retry_atom::value, s.seq);
  };
  using reader =
      std::function<void(mysql_op, const std::string&, std::function<void(std::string)>)>;
  reader read = [=](mysql_op op, const std::string& on, std::function<void(std::string)> k) {
    run_sql(self, op, on, [=](mysql_outcome& o) {
      if (!o.ok && on == site && is_connection_error(o.error_kind)) {
        // A recipient restarting after a CLONE that an earlier run issued: wait for it.
        again(to_string(op) + " on " + on + ": " + describe(o));
        return;
      }
      if (!o.ok) {
        fail(self, to_string(op) + " on " + on + " failed: " + describe(o));
        return;
      }
      k(o.value);
    });
  };
  // A reclone (a person asked): cloned when everything the recipient holds beyond the donor was
  // confirmed by the request, else refused and the site RecoveryBlocked with what was found.
  auto reclone = [=](const std::string& mine, const std::string& executed) {
    auto check = reclone_check(mine, executed, self->state.plan.discard_gtid);
    if (!check.allowed) {
      if (check.discarded_count > 0)
        record_loss(self, {site, gtid_loss_stranded, check.discarded, check.discarded_count});
      fail(self, site + " " + check.reason + ": not cloned; it is RecoveryBlocked with what it " +
                     "holds beyond " + donor + " as its divergentGtid, confirm that to reclone");
      return;
    }
    clone_now(self, check.discarded_count == 0
                        ? std::string("reclone requested; nothing beyond the donor is discarded")
                        : "reclone requested; discarding the " +
                              std::to_string(check.discarded_count) +
                              " confirmed transactions only it holds: " + check.discarded);
  };
  auto decide = [=] {
    read(mysql_op::read_gtid, site, [=](std::string mine) {
      read(mysql_op::read_gtid, donor, [=](std::string executed) {
        if (self->state.plan.kind == plan_kind::reclone) {
          reclone(mine, executed);
          return;
        }
        read(mysql_op::read_purged, donor, [=](std::string purged) {
          // An empty set may still hide data written without GTIDs: look for tables first.
          auto tables = [=](std::function<void(std::string)> k) {
            if (!mine.empty()) return k("");
            read(mysql_op::read_user_tables, site, k);
          };
          tables([=](std::string user_tables) {
            auto need = clone_need(mine, executed, purged, user_tables);
            switch (need.verdict) {
              case clone_verdict::clone:
                clone_now(self, need.reason);
                return;
              case clone_verdict::replicate: {
                self->state.result.clone_outcome = "not needed: " + need.reason;
                auto f = fields(self, site);
                f["reason"] = need.reason;
                log::info("no clone needed; the site replicates", f);
                step_done(self);
                return;
              }
              case clone_verdict::divergent:
                // Never cloned: that would throw away transactions only this site has (S4).
                fail(self, site + " " + need.reason + ": not cloned; reclone it explicitly");
                return;
              case clone_verdict::unknown:
                fail(self, site + ": " + need.reason);
                return;
            }
          });
        });
      });
    });
  };
  // A CLONE an earlier run issued (the operator restarted meanwhile) may still be running: wait
  // for it to end, then decide on what the recipient holds. Never a second CLONE beside it.
  read(mysql_op::read_clone_state, site, [=](std::string state) {
    if (state == "In Progress" || state == "Not Started") {
      again("a clone of " + site + " is in progress");
      return;
    }
    decide();
  });
}
#pragma GCC diagnostic pop

void run_restarting(exec_ptr self) {
  auto& st = self->state;
  auto site = st.plan.candidate;
  run_sql(self, mysql_op::read_gtid, site, [=](mysql_outcome& o) {
    auto& s = self->state;
    if (o.ok) {
      // Fenced again before anything else: the boot flags should hold it (super_read_only in
      // my.cnf), but a restart with other flags, or a CLONE that lifted the fence and did not
      // restart, must not leave a writable replica behind (docs/safety.md S5).
      log::info("recipient answers after its restart; fencing it again", fields(self, site));
      run_sql_must(self, mysql_op::fence, site, [self] { step_done(self); });
      return;
    }
    s.last_note = "waiting for " + site + " to answer: " + describe(o);
    self->delayed_send(self, confirm_retry_interval, retry_atom::value, s.seq);
  });
}

}  // namespace br::executor
