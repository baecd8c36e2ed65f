// The bounded fence: SET GLOBAL super_read_only=ON under a short lock wait, killing the lock
// holders between attempts, within one budget (the rules are in fence_plan.*).
#include <chrono>
#include <optional>
#include <string>

#include "io/mysql/fence_plan.hpp"
#include "io/mysql/fencing.hpp"

namespace br::mysql {

namespace {

using clock = std::chrono::steady_clock;
using ms = std::chrono::milliseconds;

ms since(clock::time_point t0) {
  return std::chrono::duration_cast<ms>(clock::now() - t0);
}

bool connection_level(const mysql_error& e) {
  return e.kind != error_kind::server_error && e.kind != error_kind::other;
}

/// One kill round: the lock holders, or every application session when the server names no
/// holder at all (it cannot tell; the SET is still waiting on somebody). Errors are the
/// listings'; refused KILLs are collected in the report.
result<void> kill_round(connection& conn, const dialect& d, const kill_policy& policy,
                        fence_report& rep) {
  auto k = kill_lock_holders(conn, d, policy);
  if (!k) return k.error();
  const size_t listed = k->killed + k->already_gone + k->kept + k->failures.size();
  if (listed == 0) {
    ++rep.fallback_rounds;
    k = kill_application_sessions(conn, d, policy);
    if (!k) return k.error();
  } else {
    rep.kept += k->kept;
  }
  rep.killed_ids.insert(rep.killed_ids.end(), k->killed_ids.begin(), k->killed_ids.end());
  rep.kill_failures.insert(rep.kill_failures.end(), k->failures.begin(), k->failures.end());
  return {};
}

mysql_error deadline_error(const fence_report& rep, ms budget, const mysql_error& last) {
  mysql_error e = last;  // kind server_error, code 1205/1213: the server refused, nothing applied
  e.message = "fence budget of " + std::to_string(budget.count()) + " ms exhausted after " +
              std::to_string(rep.elapsed.count()) + " ms (no further attempt fits): " +
              "super_read_only=ON still waits for a lock (attempts " +
              std::to_string(rep.attempts) + ", lock holders killed " +
              std::to_string(rep.killed_ids.size()) + ", spared " + std::to_string(rep.kept) +
              ", kills refused " + std::to_string(rep.kill_failures.size()) +
              "); last: " + last.message;
  return e;
}

/// Back to the server's lock wait, so a reused session runs its next commands as before. Only
/// on a live session; its own failure does not undo the fence's outcome.
void restore_lock_wait(connection& conn, const dialect& d) {
  (void)conn.exec(d.reset_lock_wait_timeout_sql());
}

}  // namespace

result<fence_report> fence_bounded(connection& conn, const dialect& d, const fence_options& opts) {
  const auto t0 = clock::now();
  fence_report rep;
  std::chrono::seconds wait = attempt_lock_wait(opts.budget, ms{0}, true);
  std::chrono::seconds session_wait{0};  // what this session runs with (0: not set yet)
  bool released = false;                 // the semi-sync release ran (at most once)
  while (true) {
    if (wait != session_wait) {
      auto s = conn.exec(d.set_lock_wait_timeout_sql(wait));
      if (!s) return s.error();
      session_wait = wait;
    }
    ++rep.attempts;
    auto r = conn.exec(d.fence_sql());
    std::optional<mysql_error> failed;
    if (!r) failed = r.error();
    if (failed && is_lock_wait_failure(*failed)) ++rep.lock_waits;
    rep.elapsed = since(t0);
    switch (next_fence_step(failed, rep.elapsed, opts.budget)) {
      case fence_next::done:
        restore_lock_wait(conn, d);
        // Fenced: applications may connect again (they can no longer write). A failure leaves
        // offline_mode ON, which the next fence or a promotion ends.
        if (rep.semisync.go_offline) (void)conn.exec("SET GLOBAL offline_mode = OFF");
        return rep;
      case fence_next::give_up_error:
        if (!connection_level(*failed)) restore_lock_wait(conn, d);
        return *failed;
      case fence_next::give_up_deadline:
        restore_lock_wait(conn, d);
        return deadline_error(rep, opts.budget, *failed);
      case fence_next::kill_blockers_and_retry:
        break;
    }
    // A semi-sync source whose commits wait for acknowledgements that cannot come: only the
    // release ends their wait (a KILL does not). Once, after the first blocked attempt, so a
    // healthy semi-sync primary (a boot fence) keeps its clients and its receivers.
    bool sessions_killed = false;  // by the release, just now: no kill round needed after it
    if (!released) {
      released = true;
      auto rel = release_semisync_waits(conn, d, opts.policy, rep);
      if (!rel) {
        auto e = rel.error();
        e.message = "semi-sync release during the fence: " + e.message;
        if (!connection_level(e)) restore_lock_wait(conn, d);
        return e;
      }
      sessions_killed = rel->kill_sessions;
    }
    if (auto k = sessions_killed ? result<void>{} : kill_round(conn, d, opts.policy, rep); !k) {
      // A dead session ends the fence; a refused listing (privileges) does not: the holder may
      // still let go before the budget is spent.
      if (connection_level(k.error())) return k.error();
      rep.kill_failures.push_back(k.error());
    }
    rep.elapsed = since(t0);
    wait = attempt_lock_wait(opts.budget, rep.elapsed, false);
    if (wait.count() == 0) {
      restore_lock_wait(conn, d);
      return deadline_error(rep, opts.budget, *failed);
    }
  }
}

result<void> fence(connection& conn, const dialect& d) {
  fence_options opts;
  opts.budget = conn.options().read_timeout;
  opts.policy.protected_users.insert(conn.options().user);
  auto r = fence_bounded(conn, d, opts);
  if (!r) return r.error();
  return {};
}

}  // namespace br::mysql
