// `bloodraven backup ...` / `bloodraven restore` (see backup_cli.hpp).
#include "actors/operator/local/backup_cli.hpp"
#include "actors/operator/local/gr_backup_pick.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "config/duration_limits.hpp"
#include "config/failover_group.hpp"
#include "config/process_flags.hpp"
#include "io/backup/jobs.hpp"
#include "io/backup/verify.hpp"
#include "io/binlog/manifest.hpp"
#include "io/log/log.hpp"
#include "io/storage/storage_config.hpp"

namespace br {
namespace {

using nlohmann::json;

std::vector<config::flag_def> common_flags() {
  using namespace config;
  return {
      {"tools-chroot", "BLOODRAVEN_TOOLS_CHROOT", "",
       "run mysqldump/mysql/mysqlbinlog inside this chroot (the test sandbox's Debian sid root; "
       "needs root); empty: on this host",
       false, {}},
      {"mysql-bin-dir", "BLOODRAVEN_MYSQL_BIN_DIR", "",
       "directory of mysqldump, mysql and mysqlbinlog (empty: found in PATH)", false, {}},
      {"work-dir", "BLOODRAVEN_BACKUP_WORK_DIR", "",
       "where the dump and binlogs are staged in a private directory (empty: $TMPDIR or /tmp; with "
       "--tools-chroot: <chroot>/tmp)",
       false, {}},
      {"timeout", "BLOODRAVEN_BACKUP_TOOL_TIMEOUT", "6h",
       "deadline of each tool run (dump, load, binlog replay); on it the tools are killed", false,
       check_duration_within(std::chrono::seconds(1), std::chrono::hours(72))},
      {"log-level", "BLOODRAVEN_LOG_LEVEL", "info", "debug, info, warn or error", false, check_log_level},
  };
}

std::vector<config::flag_def> with(std::vector<config::flag_def> extra) {
  auto all = common_flags();
  all.insert(all.end(), extra.begin(), extra.end());
  return all;
}

std::optional<std::string> read_small(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::string s((std::istreambuf_iterator<char>(f)), {});
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

/// `user`: the account when given (then only the password file is read), else the username file.
std::string creds_error(const std::string& dir, backup::mysql_target& t, const std::string& user = "") {
  if (dir.empty()) return "--creds-dir is required (a directory with files username and password)";
  auto u = user.empty() ? read_small(dir + "/username") : std::optional<std::string>{user};
  auto p = read_small(dir + "/password");
  if (!u || u->empty()) return "--creds-dir: cannot read " + dir + "/username (or it is empty)";
  if (!p) return "--creds-dir: cannot read " + dir + "/password";
  t.user = *u;
  t.password = *p;
  return "";
}

std::string host_port_error(const std::string& flag, const std::string& v, backup::mysql_target& t) {
  auto colon = v.rfind(':');
  if (v.empty()) return flag + " is required (HOST:PORT)";
  if (colon == std::string::npos || colon == 0 || colon + 1 >= v.size() ||
      v.find_first_not_of("0123456789", colon + 1) != std::string::npos || v.size() - colon > 6)
    return flag + " \"" + v + "\" is not HOST:PORT";
  auto port = std::stoul(v.substr(colon + 1));
  if (port == 0 || port > 65535) return flag + " \"" + v + "\": port out of range";
  t.host = v.substr(0, colon);
  if (t.host.size() > 2 && t.host.front() == '[' && t.host.back() == ']') t.host = t.host.substr(1, t.host.size() - 2);
  t.port = static_cast<uint16_t>(port);
  return "";
}

/// --tls-ca and --standalone of `backup run` and `restore` (spec.tls, issue 26).
std::vector<config::flag_def> tls_flags() {
  return {{"tls-ca", "BLOODRAVEN_MYSQL_TLS_CA", "",
           "spec.tls: the CA (PEM) the server's certificate must chain to; its name must be the host "
           "dialled (sessions and tools with VERIFY_IDENTITY). Empty: --standalone's, else TLS when the "
           "server offers it, unverified. Kubernetes Jobs: /etc/mysql/tls/ca.crt",
           false, {}},
          {"standalone", "", "", "standalone: the group file; its spec.tls.caFile is the CA (unless --tls-ca)",
           false, {}}};
}

/// The CA the sessions and tools verify against: --tls-ca, else spec.tls.caFile of the
/// --standalone group file (which must load as the operator loads it), else "". "" or the error.
std::string tls_ca_error(std::map<std::string, std::string>& v, std::string& ca) {
  ca = v["tls-ca"];
  if (!ca.empty() || v["standalone"].empty()) return "";
  std::ifstream f(v["standalone"], std::ios::binary);
  if (!f) return "--standalone: cannot read the group file " + v["standalone"];
  std::string text((std::istreambuf_iterator<char>(f)), {});
  auto parsed = config::load_group_yaml(text, config::run_mode::standalone);
  if (!parsed.ok())
    return "--standalone: invalid group file " + v["standalone"] + ": " + parsed.errors.front().to_string();
  if (parsed.group.spec.tls) ca = parsed.group.spec.tls->ca_file;
  return "";
}

backup::tool_settings tools_from(std::map<std::string, std::string>& v) {
  backup::tool_settings t;
  t.chroot = v["tools-chroot"];
  t.bin_dir = v["mysql-bin-dir"];
  t.work_dir = v["work-dir"];
  t.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(config::to_duration(v["timeout"]));
  return t;
}

int64_t now_unix() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// Prints the final line and writes the result file; returns the exit code.
int finish(const std::string& prefix, bool ok, const json& j, const std::string& result_file) {
  auto text = backup::bounded_result_json(j);
  std::printf("%s_%s %s\n", prefix.c_str(), ok ? "COMPLETE" : "FAILED", text.c_str());
  std::fflush(stdout);
  if (!result_file.empty()) {
    std::ofstream f(result_file, std::ios::trunc);
    f << text;
    if (!f) std::fprintf(stderr, "cannot write --result-file %s\n", result_file.c_str());
  }
  return ok ? 0 : 1;
}

/// Parses flags; returns -1 to go on, else an exit code (help printed / bad usage).
int parse(const std::string& who, const std::string& summary, const std::vector<config::flag_def>& defs,
          int argc, char** argv, int skip, config::parsed_flags& out) {
  std::vector<const char*> args = {who.c_str()};
  for (int i = skip; i < argc; ++i) args.push_back(argv[i]);
  out = config::parse_flags(defs, static_cast<int>(args.size()), args.data(),
                            [](const char* n) { return std::getenv(n); });
  switch (out.what) {
    case config::parsed_flags::action::help:
      std::fputs(config::usage(who, summary, defs).c_str(), stdout);
      return 0;
    case config::parsed_flags::action::version:
    case config::parsed_flags::action::fail:
      std::fprintf(stderr, "%s: %s\n", who.c_str(), out.error.empty() ? "unexpected --version" : out.error.c_str());
      return 2;
    case config::parsed_flags::action::run:
      break;
  }
  log::level lvl;
  log::parse_level(out.values["log-level"], lvl);
  log::set_level(lvl);
  return -1;
}

struct store_or_error {
  std::unique_ptr<storage::object_store> store;
  std::string type;
  std::string error;
};

store_or_error open_store(const std::string& prefix) {
  store_or_error out;
  auto cfg = storage::parse_storage_config(prefix, storage::process_env(), storage::read_secret_file);
  if (!cfg.config) {
    out.error = cfg.error;
    return out;
  }
  out.type = cfg.config->type_name();
  out.store = storage::make_store(*cfg.config);
  if (!out.store) out.error = prefix + "_STORAGE_TYPE: no store for " + out.type;
  return out;
}

int backup_run(int argc, char** argv) {
  auto defs = with({{"name", "", "", "backup name (the MysqlBackup name); default <group>-<UTC yyyymmddhhmmss>", false, {}},
                    {"group", "", "", "standalone: the group, names the backup when --name is empty", false, {}},
                    {"source", "", "", "the server to dump, HOST:PORT (a caught-up replica or the primary); "
                     "Group Replication: every member, HOST:PORT,HOST:PORT,... (an ONLINE SECONDARY is picked)", false, {}},
                    {"source-member", "", "", "Group Replication: dump this member of --source (HOST:PORT) if ONLINE, "
                     "even the PRIMARY", false, {}},
                    {"creds-dir", "BLOODRAVEN_MYSQL_CREDS_DIR", "", "directory with files username and password", false, {}},
                    {"result-file", "", "", "also write the result JSON here (Jobs: /dev/termination-log)", false, {}}});
  for (auto& d : tls_flags()) defs.push_back(std::move(d));
  config::parsed_flags f;
  if (int rc = parse("bloodraven backup run",
                     "Dumps a MySQL server (mysqldump --single-transaction, GTIDs recorded) into the backup "
                     "store (BLOODRAVEN_BACKUP_*) as <name>/dump.sql.gz + <name>/backup.json.",
                     defs, argc, argv, 3, f);
      rc >= 0)
    return rc;
  auto& v = f.values;
  const auto start = now_unix();
  json result = {{"method", backup::method_name}, {"startTime", binlog::rfc3339(start)}};
  auto failed = [&](const std::string& m) {
    result["message"] = m;
    result["completionTime"] = binlog::rfc3339(now_unix());
    return finish("BLOODRAVEN_BACKUP", false, result, v["result-file"]);
  };
  std::string name = v["name"];
  if (name.empty() && !v["group"].empty()) {
    auto ts = binlog::rfc3339(start);  // 2026-11-26T14:03:00Z -> 20261126140300
    std::string digits;
    for (char c : ts)
      if (c >= '0' && c <= '9') digits += c;
    name = v["group"] + "-" + digits;
  }
  if (name.empty()) return failed("--name is required (or --group to generate <group>-<UTC timestamp>)");
  result["name"] = name;
  backup::backup_request r;
  r.name = name;
  std::string ca;
  if (auto e = tls_ca_error(v, ca); !e.empty()) return failed(e);
  if (v["source"].find(',') != std::string::npos || !v["source-member"].empty()) {
    // A Group Replication group's members: dump the member decide/gr_backup_source.hpp picks.
    std::vector<backup::mysql_target> members;
    for (std::size_t from = 0;;) {
      auto comma = v["source"].find(',', from);
      backup::mysql_target t;
      if (auto e = host_port_error("--source", v["source"].substr(from, comma - from), t); !e.empty())
        return failed(e);
      if (auto e = creds_error(v["creds-dir"], t); !e.empty()) return failed(e);
      t.tls_ca_file = ca;  // the members are read (the pick) over verified TLS too
      members.push_back(std::move(t));
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
    if (members.size() > 9) return failed("--source: a Group Replication group has at most 9 members");
    auto pick = local::pick_gr_backup_source(members, v["source-member"]);
    result["sourceMembers"] = pick.members;
    result["sourceChoice"] = pick.reason;
    if (!pick.index) return failed("no backup source in the group: " + pick.reason);
    r.source = members[*pick.index];
  } else {
    if (auto e = host_port_error("--source", v["source"], r.source); !e.empty()) return failed(e);
    if (auto e = creds_error(v["creds-dir"], r.source); !e.empty()) return failed(e);
  }
  r.source.tls_ca_file = ca;
  result["sourceHost"] = r.source.describe();
  if (!ca.empty()) result["tlsVerified"] = true;
  auto st = open_store("BLOODRAVEN_BACKUP");
  if (!st.error.empty()) return failed(st.error);
  result["storageType"] = st.type;
  r.store = st.store.get();
  r.tools = tools_from(v);
  auto out = backup::run_backup(r);
  result["location"] = out.location;
  if (!out.ok) return failed(out.message);
  const auto& b = out.info;
  result["sizeBytes"] = b.size_bytes;
  result["dumpBytes"] = b.dump_bytes;
  result["gtidExecuted"] = b.gtid_executed;
  result["binlogFile"] = b.binlog_file;
  result["binlogPos"] = b.binlog_pos;
  result["snapshotTime"] = b.snapshot_time;
  if (b.group_replication) result["groupReplication"] = backup::to_json(b)["groupReplication"];
  result["completionTime"] = b.completion_time;
  return finish("BLOODRAVEN_BACKUP", true, result, v["result-file"]);
}

int backup_delete(int argc, char** argv) {
  auto defs = with({{"name", "", "", "the backup to delete (every object under <name>/)", false, {}}});
  config::parsed_flags f;
  if (int rc = parse("bloodraven backup delete", "Deletes a backup from the store; a missing one is success.",
                     defs, argc, argv, 3, f);
      rc >= 0)
    return rc;
  auto st = open_store("BLOODRAVEN_BACKUP");
  if (!st.error.empty()) {
    std::fprintf(stderr, "bloodraven backup delete: %s\n", st.error.c_str());
    return 1;
  }
  auto name = f.values["name"];
  if (name.empty()) {
    std::fprintf(stderr, "bloodraven backup delete: --name is required\n");
    return 2;
  }
  auto d = backup::delete_backup(*st.store, name);
  if (!d) {
    std::fprintf(stderr, "bloodraven backup delete: %s\n", d.error().message.c_str());
    return 1;
  }
  std::printf("deleted %s%s/\n", st.store->location().c_str(), name.c_str());
  return 0;
}

int backup_list(int argc, char** argv) {
  auto defs = common_flags();
  config::parsed_flags f;
  if (int rc = parse("bloodraven backup list", "Lists the backups of the store (BLOODRAVEN_BACKUP_*) as JSON.",
                     defs, argc, argv, 3, f);
      rc >= 0)
    return rc;
  auto st = open_store("BLOODRAVEN_BACKUP");
  if (!st.error.empty()) {
    std::fprintf(stderr, "bloodraven backup list: %s\n", st.error.c_str());
    return 1;
  }
  auto l = backup::list_backups(*st.store);
  if (!l) {
    std::fprintf(stderr, "bloodraven backup list: %s\n", l.error().message.c_str());
    return 1;
  }
  json out = json::array();
  for (const auto& b : *l) {
    json e = {{"name", b.name}, {"location", st.store->location() + b.name + "/"}, {"storageType", st.type}};
    if (b.info) e["backup"] = backup::to_json(*b.info);
    else e["error"] = b.error;
    out.push_back(e);
  }
  std::printf("%s\n", out.dump(2).c_str());
  return 0;
}

int restore(int argc, char** argv) {
  auto defs = with({{"name", "", "", "the backup to restore", false, {}},
                    {"target", "", "", "a fresh server, HOST:PORT (no user tables, empty gtid_executed)", false, {}},
                    {"creds-dir", "BLOODRAVEN_MYSQL_CREDS_DIR", "", "directory with files username and password", false, {}},
                    {"user", "", "",
                     "the account to restore as (then --creds-dir needs only its password file); default: the "
                     "username file. Kubernetes: root (the dump's definers, GTID_PURGED and events need it)",
                     false, {}},
                    {"stop-datetime", "", "",
                     "point in time: replay archived binlogs (BLOODRAVEN_PITR_*) up to, not including, this "
                     "second (RFC3339, or 'YYYY-MM-DD HH:MM:SS' UTC)",
                     false, {}},
                    {"stop-gtid", "", "", "point in time: replay archived binlogs up to this GTID set (inclusive)", false, {}},
                    {"replace", "", "false",
                     "replace the data of a live server (spec.restoreInPlace): it must be fenced (super_read_only) "
                     "with no replica attached and no channel running; drops every schema but mysql, sys, "
                     "bloodraven and the server's own, then RESET BINARY LOGS AND GTIDS, then loads",
                     true, {}},
                    {"result-file", "", "", "also write the result JSON here (Jobs: /dev/termination-log)", false, {}}});
  for (auto& d : tls_flags()) defs.push_back(std::move(d));
  config::parsed_flags f;
  if (int rc = parse("bloodraven restore",
                     "Loads a backup into a fresh server (or, with --replace, over a fenced one), optionally replaying the archived binlogs of every "
                     "site up to a point in time.",
                     defs, argc, argv, 2, f);
      rc >= 0)
    return rc;
  auto& v = f.values;
  const auto start = now_unix();
  json result = {{"name", v["name"]}, {"startTime", binlog::rfc3339(start)}};
  auto failed = [&](const std::string& m) {
    result["message"] = m;
    result["completionTime"] = binlog::rfc3339(now_unix());
    return finish("BLOODRAVEN_RESTORE", false, result, v["result-file"]);
  };
  if (v["name"].empty()) return failed("--name is required");
  backup::restore_request r;
  r.name = v["name"];
  if (auto e = host_port_error("--target", v["target"], r.target); !e.empty()) return failed(e);
  result["target"] = r.target.describe();
  if (auto e = creds_error(v["creds-dir"], r.target, v["user"]); !e.empty()) return failed(e);
  if (auto e = tls_ca_error(v, r.target.tls_ca_file); !e.empty()) return failed(e);
  if (!r.target.tls_ca_file.empty()) result["tlsVerified"] = true;
  if (!v["stop-datetime"].empty() && !v["stop-gtid"].empty())
    return failed("--stop-datetime and --stop-gtid exclude each other");
  if (!v["stop-datetime"].empty()) {
    auto t = backup::parse_stop_datetime(v["stop-datetime"]);
    if (!t)
      return failed("--stop-datetime \"" + v["stop-datetime"] +
                    "\" is not a time (RFC3339 such as 2026-11-26T14:03:00Z, or 'YYYY-MM-DD HH:MM:SS' UTC; whole seconds)");
    r.stop.what = backup::stop_bound::kind::datetime;
    r.stop.unix_seconds = *t;
    result["stopDatetime"] = binlog::rfc3339(*t);
  } else if (!v["stop-gtid"].empty()) {
    gtid_parse_error pe;
    auto s = gtid_set::parse(v["stop-gtid"], &pe);
    if (!s) return failed("--stop-gtid is not a GTID set: " + pe.to_string());
    r.stop.what = backup::stop_bound::kind::gtid;
    r.stop.gtids = *s;
    result["stopGtid"] = s->to_compact_string();
  }
  auto st = open_store("BLOODRAVEN_BACKUP");
  if (!st.error.empty()) return failed(st.error);
  result["storageType"] = st.type;
  result["location"] = st.store->location() + r.name + "/";
  r.backups = st.store.get();
  store_or_error archive;
  if (r.stop.what != backup::stop_bound::kind::none) {
    archive = open_store("BLOODRAVEN_PITR");
    if (!archive.error.empty()) return failed("the binlog archive: " + archive.error);
    r.archive = archive.store.get();
  }
  r.tools = tools_from(v);
  r.replace = config::to_bool(v["replace"]);
  if (r.replace) result["replace"] = true;
  auto out = backup::run_restore(r);
  if (r.replace) result["dropped"] = out.dropped;
  if (!out.backup.gtid_executed.empty()) result["backupGtidExecuted"] = out.backup.gtid_executed;
  if (out.backup.size_bytes > 0) result["sourceSizeBytes"] = out.backup.size_bytes;  // the metric
  if (!out.ok) return failed(out.message);
  json files = json::array();
  for (const auto& rf : out.replayed) files.push_back(rf.site + "/" + rf.name);
  result["binlogsReplayed"] = files;
  result["loadedBytes"] = out.loaded_bytes;
  result["gtidExecuted"] = out.gtid_executed;
  if (r.replace) result["discardedGtids"] = out.discarded_gtids;
  if (r.replace && r.stop.what != backup::stop_bound::kind::none) result["accountStatementsSkipped"] = out.account_statements_skipped;
  result["completionTime"] = binlog::rfc3339(now_unix());
  return finish("BLOODRAVEN_RESTORE", true, result, v["result-file"]);
}

std::string check_mysql_size(const std::string& v) {
  std::string digits = !v.empty() && (v.back() == 'K' || v.back() == 'M' || v.back() == 'G') ? v.substr(0, v.size() - 1) : v;
  if (digits.empty() || digits.size() > 12 || digits[0] == '0' || digits.find_first_not_of("0123456789") != std::string::npos)
    return "expected a size such as 128M or 1G (digits, optional K/M/G)";
  return "";
}

std::string check_count(const std::string& v) {
  if (v.empty() || v.size() > 12 || v.find_first_not_of("0123456789") != std::string::npos)
    return "expected a whole number >= 0";
  return "";
}

std::chrono::milliseconds ms_of(const std::string& v) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(config::to_duration(v));
}

int backup_verify(int argc, char** argv) {
  using namespace std::chrono;
  auto step = [](const char* name, const char* env, const char* def, const char* help, nanoseconds max) {
    return config::flag_def{name, env, def, help, false, config::check_duration_within(seconds(1), max)};
  };
  auto defs = with(
      {{"name", "", "", "the backup to verify (default: the newest complete one)", false, {}},
       {"pitr", "", "", "'latest': also replay every archived binlog (BLOODRAVEN_PITR_*) after the backup", false,
        [](const std::string& v) { return v.empty() || v == "latest" ? "" : "only 'latest' is supported"; }},
       {"stop-datetime", "", "",
        "replay archived binlogs up to, not including, this second (RFC3339 or 'YYYY-MM-DD HH:MM:SS' UTC)", false, {}},
       {"sanity-query", "", "", "a query the restored server must answer (default checks only: tables exist, gtid_executed)",
        false, {}},
       {"expect-min-rows", "", "1", "rows the sanity query must return at least", false, check_count},
       {"max-duration", "", "5m", "the sanity query's allowance; slower fails (and it is cut off 1 s later)", false,
        config::check_duration_within(milliseconds(1), hours(24))},
       step("init-timeout", "", "5m", "deadline of mysqld --initialize-insecure", hours(1)),
       step("start-timeout", "", "2m", "deadline for the scratch server to accept connections", hours(1)),
       step("stop-timeout", "", "1m", "SIGTERM to the scratch server, SIGKILL after this", hours(1)),
       {"buffer-pool-size", "", "128M", "the scratch server's innodb_buffer_pool_size", false, check_mysql_size},
       {"keep-on-failure", "", "false", "leave the scratch directory after a failure (the server is stopped anyway)",
        true, config::check_bool},
       {"tls-ca", "BLOODRAVEN_MYSQL_TLS_CA", "",
        "spec.tls: with --tls-cert and --tls-key, the scratch server serves that certificate (it must name "
        "127.0.0.1) with require_secure_transport, and every session verifies it against this CA",
        false, {}},
       {"tls-cert", "BLOODRAVEN_MYSQL_TLS_CERT", "", "spec.tls: the scratch server's certificate (PEM)", false, {}},
       {"tls-key", "BLOODRAVEN_MYSQL_TLS_KEY", "", "spec.tls: its key (PEM)", false, {}},
       {"result-file", "", "", "also write the result JSON here (Jobs: /dev/termination-log)", false, {}}});
  config::parsed_flags f;
  if (int rc = parse("bloodraven backup verify",
                     "Restores a backup into a throwaway mysqld (started here, on 127.0.0.1, in a scratch directory "
                     "under --work-dir or the chroot's /tmp), optionally replays the archived binlogs, checks the "
                     "result, then stops the server and removes the directory.",
                     defs, argc, argv, 3, f);
      rc >= 0)
    return rc;
  auto& v = f.values;
  const auto start = now_unix();
  json result = {{"startTime", binlog::rfc3339(start)}};
  auto failed = [&](const std::string& m) {
    result["message"] = m;
    result["completionTime"] = binlog::rfc3339(now_unix());
    result["durationSeconds"] = now_unix() - start;
    return finish("BLOODRAVEN_VERIFY", false, result, v["result-file"]);
  };
  backup::verify_request r;
  r.name = v["name"];
  if (!r.name.empty()) result["name"] = r.name;
  if (!v["pitr"].empty() && !v["stop-datetime"].empty()) return failed("--pitr and --stop-datetime exclude each other");
  if (v["pitr"] == "latest") {
    r.stop.what = backup::stop_bound::kind::latest;
    result["pitr"] = "latest";
  } else if (!v["stop-datetime"].empty()) {
    auto t = backup::parse_stop_datetime(v["stop-datetime"]);
    if (!t)
      return failed("--stop-datetime \"" + v["stop-datetime"] +
                    "\" is not a time (RFC3339 such as 2026-11-26T14:03:00Z, or 'YYYY-MM-DD HH:MM:SS' UTC; whole seconds)");
    r.stop.what = backup::stop_bound::kind::datetime;
    r.stop.unix_seconds = *t;
    result["stopDatetime"] = binlog::rfc3339(*t);
  }
  r.sanity_query = v["sanity-query"];
  for (const char* k : {"expect-min-rows", "max-duration"})
    if (r.sanity_query.empty() && f.source[k] != "default")
      return failed(std::string("--") + k + " needs --sanity-query (it bounds that query)");
  r.expect_min_rows = std::stoull(v["expect-min-rows"]);
  r.max_duration = ms_of(v["max-duration"]);
  r.keep_on_failure = config::to_bool(v["keep-on-failure"]);
  r.server.tools = tools_from(v);
  r.server.init_timeout = ms_of(v["init-timeout"]);
  r.server.start_timeout = ms_of(v["start-timeout"]);
  r.server.stop_timeout = ms_of(v["stop-timeout"]);
  r.server.buffer_pool_size = v["buffer-pool-size"];
  const int tls_given = !v["tls-ca"].empty() + !v["tls-cert"].empty() + !v["tls-key"].empty();
  if (tls_given != 0 && tls_given != 3) return failed("--tls-ca, --tls-cert and --tls-key go together");
  r.server.tls_ca_file = v["tls-ca"];
  r.server.tls_cert_file = v["tls-cert"];
  r.server.tls_key_file = v["tls-key"];
  if (tls_given == 3) result["tlsVerified"] = true;
  auto st = open_store("BLOODRAVEN_BACKUP");
  if (!st.error.empty()) return failed(st.error);
  result["storageType"] = st.type;
  r.backups = st.store.get();
  store_or_error archive;
  if (r.stop.what != backup::stop_bound::kind::none) {
    archive = open_store("BLOODRAVEN_PITR");
    if (!archive.error.empty()) return failed("the binlog archive: " + archive.error);
    r.archive = archive.store.get();
  }
  backup::install_termination_handler();
  auto out = backup::run_verify(r);
  result["name"] = out.name;
  result["step"] = out.step;
  if (!out.name.empty()) result["location"] = st.store->location() + out.name + "/";
  if (!out.restore.backup.gtid_executed.empty()) result["backupGtidExecuted"] = out.restore.backup.gtid_executed;
  if (!out.restore.gtid_executed.empty()) result["gtidExecuted"] = out.restore.gtid_executed;
  if (!out.restore.replayed.empty()) {
    json files = json::array();
    for (const auto& rf : out.restore.replayed) files.push_back(rf.site + "/" + rf.name);
    result["binlogsReplayed"] = files;
  }
  if (out.restore.last_replayed_event > 0) {
    result["lastReplayedEventTime"] = binlog::rfc3339(out.restore.last_replayed_event);
    result["replayLagSeconds"] = now_unix() - out.restore.last_replayed_event;
  }
  if (out.tables > 0) result["tables"] = out.tables;
  if (out.sanity)
    result["sanity"] = {{"rows", out.sanity->rows}, {"durationMs", static_cast<int64_t>(out.sanity->took.count())}};
  if (!out.scratch.empty()) result["scratch"] = out.scratch;
  if (!out.scratch_kept.empty()) result["scratchKept"] = out.scratch_kept;
  if (out.server_killed) result["serverKilled"] = true;
  if (!out.ok) return failed(out.message);
  result["completionTime"] = binlog::rfc3339(now_unix());
  result["durationSeconds"] = now_unix() - start;
  return finish("BLOODRAVEN_VERIFY", true, result, v["result-file"]);
}

constexpr const char* backup_usage =
    "usage: bloodraven backup run --name NAME --source HOST:PORT[,HOST:PORT...] [--source-member HOST:PORT] --creds-dir DIR [--result-file FILE]\n"
    "                             [--tls-ca FILE | --standalone GROUP_FILE]\n"
    "       bloodraven backup delete --name NAME\n"
    "       bloodraven backup list\n"
    "       bloodraven backup verify [--name NAME] [--pitr latest | --stop-datetime T]\n"
    "                                [--sanity-query Q --expect-min-rows N --max-duration D] [--result-file FILE]\n"
    "                                [--tls-ca FILE --tls-cert FILE --tls-key FILE]\n"
    "       bloodraven restore --name NAME --target HOST:PORT --creds-dir DIR\n"
    "                          [--stop-datetime T | --stop-gtid SET] [--replace] [--result-file FILE]\n"
    "                          [--tls-ca FILE | --standalone GROUP_FILE]\n"
    "  storage: BLOODRAVEN_BACKUP_* (backups), BLOODRAVEN_PITR_* (binlog archive; restore with a stop)\n"
    "  each subcommand takes --help for its flags\n";

}  // namespace

int run_backup_cli(int argc, char** argv) {
  const std::string cmd = argc >= 2 ? argv[1] : "";
  if (cmd == "restore") return restore(argc, argv);
  const std::string sub = argc >= 3 ? argv[2] : "";
  if (sub == "run") return backup_run(argc, argv);
  if (sub == "delete") return backup_delete(argc, argv);
  if (sub == "list") return backup_list(argc, argv);
  if (sub == "verify") return backup_verify(argc, argv);
  std::fputs(backup_usage, sub == "-h" || sub == "--help" ? stdout : stderr);
  return sub == "-h" || sub == "--help" ? 0 : 2;
}

}  // namespace br
