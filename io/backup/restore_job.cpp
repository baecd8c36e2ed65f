// run_restore (see jobs.hpp): checks, load, optional PITR replay.
#include <optional>

#include "io/backup/gzip_file.hpp"
#include "io/backup/job_common.hpp"
#include "io/backup/jobs.hpp"
#include "io/backup/replace_target.hpp"
#include "io/backup/tool_args.hpp"
#include "io/binlog/binlog_file.hpp"
#include "io/binlog/manifest.hpp"
#include "io/log/log.hpp"

namespace br::backup {

void apply_tls(const mysql_target& t, mysql::connect_options& o) {
  o.tls = t.tls_ca_file.empty() ? mysql::tls_mode::preferred : mysql::tls_mode::verify_identity;
  o.tls_ca_file = t.tls_ca_file;
}

mysql::result<mysql::connection> open_session(const mysql_target& t) {
  mysql::connect_options o;
  o.host = t.host;
  o.port = t.port;
  o.user = t.user;
  o.password = t.password;
  o.connect_timeout = std::chrono::seconds(10);
  o.read_timeout = std::chrono::seconds(60);
  o.write_timeout = std::chrono::seconds(60);
  apply_tls(t, o);
  return mysql::connection::open(o);
}

namespace {

/// "" when the target is a fresh server: no table outside the system schemas, an empty
/// gtid_executed, gtid_mode ON. Fills the read-only flags it found.
std::string check_target(mysql::connection& c, const mysql_target& t, bool& super_ro, bool& ro) {
  auto tables = c.query(
      "SELECT CONCAT(TABLE_SCHEMA,'.',TABLE_NAME) FROM information_schema.TABLES WHERE TABLE_SCHEMA NOT IN "
      "('mysql','sys','information_schema','performance_schema') ORDER BY 1 LIMIT 3");
  if (!tables) return "cannot read the target's tables: " + tables.error().to_string();
  if (!tables->rows.empty()) {
    std::string names;
    for (const auto& row : tables->rows) names += (names.empty() ? "" : ", ") + row[0].value_or("?");
    return "the target " + t.describe() + " is not empty (it holds tables: " + names +
           "): restore only into a fresh server";
  }
  auto v = c.query("SELECT @@GLOBAL.gtid_executed, @@GLOBAL.gtid_mode, @@GLOBAL.super_read_only, @@GLOBAL.read_only");
  if (!v || v->rows.empty()) return "cannot read the target's gtid_executed: " + (v ? std::string("no row") : v.error().to_string());
  const auto& row = v->rows[0];
  auto executed = row[0].value_or("");
  if (!executed.empty()) {
    auto set = gtid_set::parse(executed);
    return "the target " + t.describe() + " is not empty: its gtid_executed is " +
           (set ? set->to_compact_string() : executed) + " (restore only into a fresh server)";
  }
  if (row[1].value_or("") != "ON")
    return "the target " + t.describe() + " has gtid_mode " + row[1].value_or("NULL") + ": restore needs gtid_mode ON";
  super_ro = row[2].value_or("0") == "1";
  ro = row[3].value_or("0") == "1";
  return "";
}

/// `restore --replace`: "" when the live target may be replaced (replace_refusal); fills the
/// read-only flags and the schemas it would drop.
std::string check_replace_target(mysql::connection& c, const mysql_target& t, bool& super_ro, bool& ro,
                                 std::vector<std::string>& drop) {
  auto read_err = [](const char* what, const auto& r) {
    return std::string("cannot read the target's ") + what + ": " + (r ? std::string("no row") : r.error().to_string());
  };
  replace_facts f;
  auto v = c.query("SELECT @@GLOBAL.gtid_mode, @@GLOBAL.super_read_only, @@GLOBAL.read_only");
  if (!v || v->rows.empty()) return read_err("gtid_mode", v);
  f.gtid_mode = v->rows[0][0].value_or("");
  f.super_read_only = v->rows[0][1].value_or("0") == "1";
  f.read_only = v->rows[0][2].value_or("0") == "1";
  auto dumps = c.query(
      "SELECT COUNT(*) FROM performance_schema.threads WHERE PROCESSLIST_COMMAND IN ('Binlog Dump','Binlog Dump GTID')");
  if (!dumps || dumps->rows.empty()) return read_err("replica connections", dumps);
  f.replicas_attached = std::stoi(dumps->rows[0][0].value_or("0"));
  auto ch = c.query(
      "SELECT CHANNEL_NAME FROM performance_schema.replication_connection_status WHERE SERVICE_STATE <> 'OFF' "
      "UNION SELECT CHANNEL_NAME FROM performance_schema.replication_applier_status WHERE SERVICE_STATE <> 'OFF'");
  if (!ch) return read_err("replication channels", ch);
  for (const auto& row : ch->rows) f.channels.push_back(row[0].value_or(""));
  if (auto e = replace_refusal(f, t.describe()); !e.empty()) return e;
  auto s = c.query("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA ORDER BY 1");
  if (!s) return read_err("schemas", s);
  std::vector<std::string> all;
  for (const auto& row : s->rows) all.push_back(row[0].value_or(""));
  drop = schemas_to_drop(all);
  super_ro = f.super_read_only;
  ro = f.read_only;
  return "";
}

std::string mysql_datetime(int64_t unix_seconds) {
  auto s = binlog::rfc3339(unix_seconds);  // 2026-11-26T14:03:00Z
  s[10] = ' ';
  s.pop_back();
  return s;
}

}  // namespace

restore_outcome run_restore(const restore_request& r) {
  restore_outcome out;
  auto now = r.now ? r.now : system_now;
  auto fail = [&](std::string m) {
    out.message = std::move(m);
    return out;
  };
  if (!valid_backup_name(r.name)) return fail("--name \"" + r.name + "\" is not a valid backup name");
  auto meta = r.backups->get_bytes(r.name + "/" + meta_object, 1 << 20);
  if (!meta) {
    if (meta.error().not_found)
      return fail("backup " + r.name + " not found: no " + r.name + "/backup.json in " + r.backups->location() +
                  " (a backup without it is incomplete)");
    return fail("cannot read " + r.name + "/backup.json: " + meta.error().message);
  }
  auto parsed = parse_backup_info(*meta);
  if (!parsed.value) return fail(parsed.error);
  out.backup = *parsed.value;
  const auto& b = out.backup;
  auto backup_gtids = gtid_set::parse(b.gtid_executed);
  auto snapshot = parse_stop_datetime(b.snapshot_time);
  if (!backup_gtids || !snapshot) return fail("backup.json: .gtidExecuted or .snapshotTime cannot be read");
  if (auto e = check_stop_bound(r.stop, *snapshot, *backup_gtids); !e.empty()) return fail(e);

  // The replay plan first: a restore that cannot reach its bound is refused before it writes.
  replay_plan plan;
  if (r.stop.what != stop_bound::kind::none) {
    if (r.archive == nullptr) return fail("a stop bound needs the binlog archive (BLOODRAVEN_PITR_STORAGE_TYPE is not set)");
    auto listed = r.archive->list("binlogs/manifest-");
    if (!listed) return fail("cannot list the binlog archive " + r.archive->location() + ": " + listed.error().message);
    std::vector<binlog::manifest> manifests;
    for (const auto& o : *listed) {
      if (o.key.size() < 5 || o.key.substr(o.key.size() - 5) != ".json") continue;
      auto text = r.archive->get_bytes(o.key, 64ull << 20);
      if (!text) return fail("cannot read " + o.key + ": " + text.error().message);
      auto m = binlog::parse_manifest(*text);
      if (!m.value) return fail(o.key + ": " + m.error);
      manifests.push_back(std::move(*m.value));
    }
    plan = plan_replay(*backup_gtids, *snapshot, r.stop, manifests);
    if (!plan.error.empty()) return fail(plan.error);
  }

  auto conn = open_session(r.target);
  if (!conn) return fail("cannot connect to the target " + r.target.describe() + ": " + conn.error().to_string());
  bool super_ro = false, ro = false;
  std::vector<std::string> drop;
  if (auto e = r.replace ? check_replace_target(*conn, r.target, super_ro, ro, drop) : check_target(*conn, r.target, super_ro, ro);
      !e.empty())
    return fail(e);
  // The dump may carry the source's events, among them the operator's dead man's switch
  // (bloodraven.dead_mans_switch, ENABLED when the backup was taken on the primary) with a
  // heartbeat that is stale by now: run, it would fence the target in the middle of the load or
  // the replay. The event scheduler is off while the restore writes and put back after.
  auto sched = conn->query("SELECT @@GLOBAL.event_scheduler");
  if (!sched || sched->rows.empty()) return fail("cannot read the target's event_scheduler: " + (sched ? std::string("no row") : sched.error().to_string()));
  const bool scheduler_on = sched->rows[0][0].value_or("") == "ON";
  if (scheduler_on)
    if (auto x = conn->exec("SET GLOBAL event_scheduler = OFF"); !x) return fail("cannot stop the target's event scheduler: " + x.error().to_string());
  // A fresh server of ours boots fenced; the restore writes, then puts the fence back.
  if (super_ro || ro) {
    if (auto x = conn->exec("SET GLOBAL super_read_only = OFF"); !x) return fail("cannot lift super_read_only on the target: " + x.error().to_string());
    if (auto x = conn->exec("SET GLOBAL read_only = OFF"); !x) return fail("cannot lift read_only on the target: " + x.error().to_string());
  }
  struct refence {
    mysql_target t;
    bool super_ro, ro, scheduler_on;
    ~refence() {
      if (!super_ro && !ro && !scheduler_on) return;
      auto c = open_session(t);
      if (!c) {
        log::warn("restore: could not set read_only / event_scheduler back on the target", {{"error", c.error().to_string()}});
        return;
      }
      if (ro) (void)c->exec("SET GLOBAL read_only = ON");
      if (super_ro) (void)c->exec("SET GLOBAL super_read_only = ON");
      if (scheduler_on) (void)c->exec("SET GLOBAL event_scheduler = ON");  // fenced first
    }
  } guard{r.target, super_ro, ro, scheduler_on};
  conn = mysql::make_error(mysql::error_kind::other, "closed");  // no idle session during the load

  std::string err;
  private_dir dir(r.tools, err);
  if (!err.empty()) return fail(err);
  auto opt = write_option_file(dir, "client.cnf", r.target.user, r.target.password, err);
  if (!err.empty()) return fail(err);
  const auto ca = stage_ca(dir, r.target.tls_ca_file, err);
  if (!err.empty()) return fail(err);
  const std::string local = dir.host_path(dump_object);
  log::info("restore: downloading", {{"name", r.name}, {"key", b.dump_key}, {"sizeBytes", b.size_bytes}});
  if (auto st = r.backups->get_file(b.dump_key, local); !st)
    return fail("download of " + b.dump_key + " failed: " + st.error().message);
  if (!b.sha256.empty()) {
    auto sum = sha256_file(local, err);
    if (!err.empty()) return fail(err);
    if (sum != b.sha256) return fail(b.dump_key + ": SHA-256 " + sum + " differs from backup.json's " + b.sha256);
  }
  // Replace: only now, with the dump in hand and checked, is anything of the target's removed.
  // The GTIDs it discards are marked as purged once the restored data is in (mark_discarded),
  // also when the load or the replay fails after the reset (best effort, below).
  struct mark_on_exit {
    const mysql_target& t;
    std::string statement;  ///< "" = nothing to mark
    ~mark_on_exit() {
      if (statement.empty()) return;
      auto c = open_session(t);
      auto x = c ? c->exec(statement) : mysql::result<uint64_t>(c.error());
      if (!x) log::warn("restore: could not mark the discarded GTIDs as purged after a failure", {{"error", x.error().to_string()}});
    }
  } mark_discarded{r.target, ""};
  std::optional<gtid_set> executed_before;
  if (r.replace) {
    auto c = open_session(r.target);
    if (!c) return fail("cannot connect to the target to replace its data: " + c.error().to_string());
    if (auto x = c->exec("SET SESSION sql_log_bin = 0"); !x) return fail("cannot turn off sql_log_bin: " + x.error().to_string());
    auto before = c->query("SELECT @@GLOBAL.gtid_executed, @@GLOBAL.log_bin");
    if (!before || before->rows.empty()) return fail("cannot read the target's gtid_executed before the replace");
    executed_before = gtid_set::parse(before->rows[0][0].value_or(""));
    if (!executed_before) return fail("the target's gtid_executed cannot be parsed: " + before->rows[0][0].value_or(""));
    std::vector<std::string> binlogs;
    if (before->rows[0][1].value_or("0") == "1") {
      auto logs = c->query("SHOW BINARY LOGS");
      if (!logs) return fail("SHOW BINARY LOGS failed: " + logs.error().to_string());
      for (const auto& row : logs->rows) binlogs.push_back(row[0].value_or(""));
    }
    std::string reset_error;
    auto reset = reset_statement(binlogs, reset_error);
    if (!reset) return fail(reset_error);
    log::info("restore: replacing", {{"target", r.target.describe()},
                                     {"gtidExecutedBefore", executed_before->to_compact_string()},
                                     {"reset", *reset}});
    for (const auto& schema : drop) {
      log::info("restore: dropping schema (replace)", {{"schema", schema}, {"target", r.target.describe()}});
      if (auto x = c->exec("DROP SCHEMA " + quote_identifier(schema)); !x)
        return fail("DROP SCHEMA " + schema + " failed: " + x.error().to_string());
      out.dropped.push_back(schema);
    }
    if (auto x = c->exec(*reset); !x) return fail(*reset + " failed: " + x.error().to_string());
    mark_discarded.statement = mark_discarded_statement(*executed_before);
  }
  const auto client_args = load_args(r.target, opt, ca);
  {
    gzip_reader in(local);
    if (!in.error().empty()) return fail(in.error());
    std::vector<command> cmds = {tool_command(r.tools, "mysql", client_args)};
    pipeline_options po;
    po.deadline = r.tools.timeout;
    po.env = tool_environment(dir);
    po.input = [&](char* buf, size_t cap) { return in.read(buf, cap); };
    log::info("restore: loading the dump", {{"name", r.name}, {"target", r.target.describe()}});
    auto pr = run_pipeline(cmds, po);
    if (!pr.ok()) {
      if (!in.error().empty()) return fail("reading the dump failed: " + in.error());
      return fail("loading the dump failed: " + pr.describe(cmds));
    }
    out.loaded_bytes = in.bytes_out();
  }

  if (!plan.files.empty()) {
    std::vector<std::string> files;
    gtid_set account_gtids;  // replace: account statements, not replayed over the kept accounts
    for (size_t i = 0; i < plan.files.size(); ++i) {
      const auto& f = plan.files[i];
      std::string local_name = std::to_string(i) + "-" + f.site + "-" + f.name;
      if (!storage::valid_key(f.site) || f.site.find('/') != std::string::npos ||
          !storage::valid_key(f.name) || f.name.find('/') != std::string::npos)
        return fail("manifest entry " + f.site + "/" + f.name + " has an unusable site or file name");
      if (auto st = r.archive->get_file(f.remote_path, dir.host_path(local_name)); !st)
        return fail("download of the archived binlog " + f.remote_path + " failed: " + st.error().message);
      if (r.replace) {
        std::string scan_error;
        auto picked = binlog::gtids_of_statements(dir.host_path(local_name), is_account_statement, scan_error);
        if (!picked) return fail("reading the account statements of " + f.remote_path + ": " + scan_error);
        account_gtids = account_gtids.unite(*picked);
      }
      files.push_back(dir.tool_path(local_name));
    }
    account_gtids = account_gtids.subtract(*backup_gtids);  // the dump's: skipped by the server anyway
    std::vector<std::string> binlog_args;
    if (r.stop.what == stop_bound::kind::datetime)
      binlog_args.push_back("--stop-datetime=" + mysql_datetime(r.stop.unix_seconds));
    else if (r.stop.what == stop_bound::kind::gtid)
      binlog_args.push_back("--include-gtids=" + r.stop.gtids.subtract(account_gtids).to_compact_string());
    // latest: the planned files whole (what the dump holds is skipped by GTID)
    if (!account_gtids.empty() && r.stop.what != stop_bound::kind::gtid)
      binlog_args.push_back("--exclude-gtids=" + account_gtids.to_compact_string());
    binlog_args.insert(binlog_args.end(), files.begin(), files.end());
    out.account_statements_skipped = account_gtids.to_compact_string();
    std::vector<command> cmds = {tool_command(r.tools, "mysqlbinlog", binlog_args),
                                 tool_command(r.tools, "mysql", client_args)};
    pipeline_options po;
    po.deadline = r.tools.timeout;
    po.env = tool_environment(dir);
    log::info("restore: replaying archived binlogs", {{"name", r.name}, {"files", plan.files.size()}});
    auto pr = run_pipeline(cmds, po);
    if (!pr.ok()) return fail("binlog replay failed: " + pr.describe(cmds));
    out.replayed = plan.files;
    out.last_replayed_event = plan.last_event_unix;
  }
  if (r.stop.what != stop_bound::kind::none) out.replay_covered = plan.covered.to_compact_string();

  auto c2 = open_session(r.target);
  if (!c2) return fail("cannot connect to the target after the restore: " + c2.error().to_string());
  if (executed_before) {
    auto restored = c2->query("SELECT @@GLOBAL.gtid_executed");
    auto restored_set = restored && !restored->rows.empty() ? gtid_set::parse(restored->rows[0][0].value_or("")) : std::nullopt;
    if (!restored_set) return fail("cannot read the restored gtid_executed");
    if (auto x = c2->exec(mark_discarded.statement); !x)
      return fail("cannot add the discarded GTIDs " + executed_before->subtract(*restored_set).to_compact_string() +
                  " to gtid_purged: " + x.error().to_string());
    mark_discarded.statement.clear();
    auto skipped = gtid_set::parse(out.account_statements_skipped);
    out.discarded_gtids = executed_before->subtract(*restored_set).subtract(skipped.value_or(gtid_set{})).to_compact_string();
  }
  auto g = c2->query("SELECT @@GLOBAL.gtid_executed");
  if (!g || g->rows.empty()) return fail("cannot read the restored gtid_executed");
  auto set = gtid_set::parse(g->rows[0][0].value_or(""));
  out.gtid_executed = set ? set->to_compact_string() : g->rows[0][0].value_or("");
  if (executed_before && !(set && set->contains(*executed_before)))
    return fail("after marking the discarded GTIDs the target's gtid_executed " + out.gtid_executed +
                " still lacks some of " + executed_before->to_compact_string());
  (void)now;
  out.ok = true;
  return out;
}

}  // namespace br::backup
