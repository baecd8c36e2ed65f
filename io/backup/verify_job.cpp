// run_verify (see verify.hpp): pick the backup, provision the scratch server, restore, check,
// clean up.
#include <memory>

#include "io/backup/job_common.hpp"
#include "io/backup/verify.hpp"
#include "io/log/log.hpp"
#include "io/mysql/sql_text.hpp"

namespace br::backup {
namespace {

using clock = std::chrono::steady_clock;

std::string gtid_text(const std::string& s) {
  auto set = gtid_set::parse(s);
  return set ? set->to_compact_string() : s;
}

}  // namespace

verify_outcome run_verify(const verify_request& r) {
  verify_outcome out;
  std::unique_ptr<ephemeral_mysqld> server;
  auto fail = [&](std::string m) {
    if (int sig = termination_signal(); sig != 0) m = "terminated by signal " + std::to_string(sig) + ": " + m;
    out.message = std::move(m);
    if (server) {
      if (r.keep_on_failure) {
        server->keep_scratch();
        out.scratch_kept = server->scratch();
      }
      server->stop();
      out.server_killed = server->killed_at_stop();
      server.reset();  // removes the scratch directory unless kept
    }
    return out;
  };

  out.step = "select";
  out.name = r.name;
  if (out.name.empty()) {
    auto listed = list_backups(*r.backups);
    if (!listed) return fail("cannot list the backups in " + r.backups->location() + ": " + listed.error().message);
    auto newest = newest_complete(*listed);
    if (!newest) return fail("no complete backup in " + r.backups->location() + " (none has a readable backup.json)");
    out.name = *newest;
  }
  log::info("verify: backup chosen", {{"name", out.name}});

  out.step = "provision";
  server = std::make_unique<ephemeral_mysqld>(r.server);
  auto started = server->start();
  out.scratch = server->scratch();
  if (!started.empty()) return fail(started);
  if (termination_signal() != 0) return fail("stopped before the restore");

  out.step = "restore";
  restore_request rr;
  rr.name = out.name;
  rr.target = server->target();
  rr.tools = r.server.tools;
  rr.backups = r.backups;
  rr.archive = r.archive;
  rr.stop = r.stop;
  out.restore = run_restore(rr);
  if (!out.restore.ok) return fail(out.restore.message);

  out.step = "check";
  {
    auto c = open_session(server->target());
    if (!c) return fail("cannot connect to the restored server: " + c.error().to_string());
    std::string in;
    auto q = c->quoter();
    for (const auto& s : out.restore.backup.schemas) in += (in.empty() ? "" : ",") + q(s);
    if (in.empty()) return fail("backup.json lists no schema: nothing to check");
    auto t = c->query("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA IN (" + in + ")");
    if (!t || t->rows.empty()) return fail("cannot count the restored tables: " + (t ? std::string("no row") : t.error().to_string()));
    out.tables = std::stoull(t->rows[0][0].value_or("0"));
    if (out.tables == 0) return fail("the restored schemas hold no table");
    auto backup_set = gtid_set::parse(out.restore.backup.gtid_executed);
    auto restored = gtid_set::parse(out.restore.gtid_executed);
    auto covered = out.restore.replay_covered.empty() ? backup_set : gtid_set::parse(out.restore.replay_covered);
    if (!backup_set || !restored || !covered) return fail("a GTID set of the restore cannot be read");
    if (auto e = check_restored_gtids(r.stop.what, *backup_set, *covered, *restored); !e.empty()) return fail(e);
  }
  if (!r.sanity_query.empty()) {
    auto target = server->target();
    mysql::connect_options o;
    o.host = target.host;
    o.port = target.port;
    o.user = target.user;
    o.password = target.password;
    o.connect_timeout = std::chrono::seconds(10);
    // The query is bounded by its allowance (plus a second for the round trip), else by the
    // tools' deadline.
    o.read_timeout = r.max_duration.count() > 0 ? r.max_duration + std::chrono::seconds(1) : r.server.tools.timeout;
    o.write_timeout = std::chrono::seconds(60);
    apply_tls(target, o);
    auto c = mysql::connection::open(o);
    if (!c) return fail("cannot connect for the sanity query: " + c.error().to_string());
    log::info("verify: the sanity query runs", {{"maxDurationMs", static_cast<int64_t>(r.max_duration.count())}});
    const auto t0 = clock::now();
    auto res = c->query(r.sanity_query);
    sanity_result s;
    s.took = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - t0);
    if (!res) return fail("the sanity query failed after " + std::to_string(s.took.count()) + " ms: " + res.error().to_string());
    s.rows = res->rows.size();
    out.sanity = s;
    if (auto e = check_sanity(s, r.expect_min_rows, r.max_duration); !e.empty()) return fail(e);
  }

  out.step = "cleanup";
  auto stopped = server->stop();
  out.server_killed = server->killed_at_stop();
  server.reset();
  if (!stopped.empty()) return fail(stopped);
  if (termination_signal() != 0) return fail("stopped during the checks");
  log::info("verify: verified", {{"name", out.name}, {"gtidExecuted", gtid_text(out.restore.gtid_executed)}});
  out.ok = true;
  return out;
}

}  // namespace br::backup
