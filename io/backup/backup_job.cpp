// run_backup, list_backups, delete_backup (see jobs.hpp).
#include <chrono>
#include <optional>

#include "io/backup/dump_header.hpp"
#include "io/backup/gzip_file.hpp"
#include "io/backup/jobs.hpp"
#include "io/backup/job_common.hpp"
#include "io/backup/tool_args.hpp"
#include "io/binlog/manifest.hpp"
#include "io/log/log.hpp"
#include "io/mysql/group_replication.hpp"

namespace br::backup {

backup_outcome run_backup(const backup_request& r) {
  backup_outcome out;
  auto now = r.now ? r.now : system_now;
  out.info.name = r.name;
  out.info.start_time = binlog::rfc3339(now());
  out.info.source_host = r.source.describe();
  out.info.dump_key = r.name + "/" + dump_object;
  auto fail = [&](std::string m) {
    out.message = std::move(m);
    return out;
  };
  if (!valid_backup_name(r.name)) return fail("--name \"" + r.name + "\" is not a valid backup name ([A-Za-z0-9._-], at most 200)");
  out.location = r.store->location() + r.name + "/";
  auto existing = r.store->get_bytes(r.name + "/" + meta_object, 1 << 20);
  if (existing) return fail("backup " + r.name + " already exists at " + out.location + " (delete it first)");
  if (!existing.error().not_found) return fail("cannot read " + r.name + "/backup.json: " + existing.error().message);

  // What to dump: every schema but the server's own (docs/backup.md: accounts are not included).
  auto conn = open_session(r.source);
  if (!conn) return fail("cannot connect to the source " + r.source.describe() + ": " + conn.error().to_string());
  auto q = conn->query(
      "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME NOT IN "
      "('mysql','sys','information_schema','performance_schema') ORDER BY SCHEMA_NAME");
  if (!q) return fail("cannot list the source's schemas: " + q.error().to_string());
  for (const auto& row : q->rows)
    if (!row.empty() && row[0]) out.info.schemas.push_back(*row[0]);
  auto v = conn->query("SELECT @@version, @@gtid_mode");
  if (!v || v->rows.empty()) return fail("cannot read the source's version: " + (v ? std::string("no row") : v.error().to_string()));
  out.info.server_version = v->rows[0][0].value_or("");
  if (v->rows[0][1].value_or("") != "ON")
    return fail("the source " + r.source.describe() + " has gtid_mode " + v->rows[0][1].value_or("NULL") +
                ": backups need GTIDs (point-in-time recovery relies on them)");
  if (out.info.schemas.empty()) return fail("the source " + r.source.describe() + " has no user schema to back up");
  // A Group Replication member (issue 23): only an ONLINE one (a RECOVERING member's data is
  // incomplete, an ERROR, OFFLINE or expelled one's stale); its group and role are recorded.
  auto gr = mysql::read_gr_snapshot(*conn);
  if (!gr) return fail("cannot read the source's Group Replication state: " + gr.error().to_string());
  if (gr->plugin_loaded && !gr->group_name.empty()) {
    std::string role;
    for (const auto& row : gr->rows)
      if (row.member_id == gr->member_id) role = row.role;
    if (gr->self_state != "ONLINE")
      return fail("the source " + r.source.describe() + " is a member of Group Replication group " +
                  gr->group_name + " in state " + (gr->self_state.empty() ? "(none)" : gr->self_state) +
                  ": a backup reads only an ONLINE member");
    out.info.group_replication = gr_source_info{gr->group_name, gr->member_id, role, gr->self_state};
    log::info("backup: the source is a Group Replication member",
              {{"group", gr->group_name}, {"role", role}, {"source", r.source.describe()}});
  }

  std::string err;
  private_dir dir(r.tools, err);
  if (!err.empty()) return fail(err);
  auto opt = write_option_file(dir, "client.cnf", r.source.user, r.source.password, err);
  if (!err.empty()) return fail(err);
  auto ca = stage_ca(dir, r.source.tls_ca_file, err);
  if (!err.empty()) return fail(err);
  std::vector<command> cmds = {tool_command(r.tools, "mysqldump", dump_args(r.source, opt, ca, out.info.schemas))};

  const std::string local = dir.host_path(dump_object);
  gzip_writer gz(local);
  if (!gz.error().empty()) return fail(gz.error());
  std::string head;
  dump_header header;
  bool header_done = false;
  int64_t snapshot = 0;
  pipeline_options po;
  po.deadline = r.tools.timeout;
  po.env = tool_environment(dir);
  po.output = [&](std::string_view chunk) {
    if (!header_done) {
      head.append(chunk.substr(0, std::min<size_t>(chunk.size(), (1u << 20) - std::min<size_t>(head.size(), 1u << 20))));
      header = parse_dump_header(head);
      if (header.done || head.size() >= (1u << 20)) {
        header_done = true;
        snapshot = now();  // the consistent point was taken before the header was written
        head.clear();
      }
    }
    return gz.write(chunk);
  };
  log::info("backup: dump started", {{"name", r.name}, {"source", r.source.describe()}, {"schemas", out.info.schemas}});
  auto pr = run_pipeline(cmds, po);
  if (!pr.ok()) {
    if (!gz.error().empty()) return fail("writing the dump failed: " + gz.error());
    return fail("mysqldump failed: " + pr.describe(cmds));
  }
  if (!header_done) {
    header = parse_dump_header(head);
    snapshot = now();
  }
  if (!header.gtid_purged)
    return fail("the dump has no GTID_PURGED statement (mysqldump --set-gtid-purged=ON wrote none)");
  if (!header.binlog_file || !header.binlog_pos)
    return fail("the dump has no binlog position (mysqldump --source-data=2 wrote none: binary logging off?)");
  if (!gz.finish()) return fail("writing the dump failed: " + gz.error());
  out.info.gtid_executed = *header.gtid_purged;
  out.info.binlog_file = *header.binlog_file;
  out.info.binlog_pos = *header.binlog_pos;
  out.info.snapshot_time = binlog::rfc3339(snapshot);
  out.info.dump_bytes = gz.bytes_in();
  out.info.size_bytes = gz.bytes_out();
  out.info.sha256 = gz.sha256_hex();
  log::info("backup: dump done, uploading",
            {{"name", r.name}, {"dumpBytes", out.info.dump_bytes}, {"storedBytes", out.info.size_bytes}});
  if (auto st = r.store->put_file(out.info.dump_key, local); !st)
    return fail("upload of " + out.info.dump_key + " failed: " + st.error().message);
  out.info.completion_time = binlog::rfc3339(now());
  if (auto st = r.store->put_bytes(r.name + "/" + meta_object, to_json(out.info).dump(2)); !st)
    return fail("upload of " + r.name + "/backup.json failed: " + st.error().message);
  out.ok = true;
  return out;
}

storage::store_result<std::vector<listed_backup>> list_backups(storage::object_store& store) {
  auto all = store.list("");
  if (!all) return all.error();
  std::vector<listed_backup> out;
  const std::string suffix = std::string("/") + meta_object;
  for (const auto& o : *all) {
    if (o.key.size() <= suffix.size() || o.key.compare(o.key.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    std::string name = o.key.substr(0, o.key.size() - suffix.size());
    if (name.find('/') != std::string::npos) continue;
    listed_backup b;
    b.name = name;
    auto text = store.get_bytes(o.key, 1 << 20);
    if (!text) {
      b.error = text.error().message;
    } else {
      auto p = parse_backup_info(*text);
      if (p.value) b.info = std::move(p.value);
      else b.error = p.error;
    }
    out.push_back(std::move(b));
  }
  return out;
}

storage::store_status delete_backup(storage::object_store& store, const std::string& name) {
  if (!valid_backup_name(name))
    return storage::store_error{"--name \"" + name + "\" is not a valid backup name", false, false};
  if (auto st = store.remove(name + "/" + meta_object); !st) return st;
  auto objs = store.list(name + "/");
  if (!objs) return objs.error();
  for (const auto& o : *objs)
    if (auto st = store.remove(o.key); !st) return st;
  return storage::done{};
}

}  // namespace br::backup
