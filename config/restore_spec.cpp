// spec.initFromBackup: strict reading, canonical JSON, validation with field paths, and the
// bootstrap hold it implies.
#include "config/restore_spec.hpp"

#include "config/group_validate.hpp"
#include "config/json_reader.hpp"
#include "config/rfc3339.hpp"
#include "messages/gtid_set.hpp"

namespace br::config {

// ---- reading -------------------------------------------------------------------------------

void read(const json& v, const std::string& path, mysql_backup_ref_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("name", out.name).done();
}

void read(const json& v, const std::string& path, restore_pvc_source& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("claimName", out.claim_name).field("subPath", out.sub_path).done();
}

void read(const json& v, const std::string& path, restore_source_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("mysqlBackupRef", out.mysql_backup_ref).field("s3", out.s3).field("pvc", out.pvc).done();
}

void read(const json& v, const std::string& path, point_in_time_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("stopDatetime", out.stop_datetime)
      .field("stopGtid", out.stop_gtid)
      .field("excludeGtids", out.exclude_gtids)
      .done();
}

void read(const json& v, const std::string& path, init_from_backup_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("source", out.source)
      .field("pointInTime", out.point_in_time)
      .field("loadOptions", out.load_options)
      .field("decryption", out.decryption)
      .done();
}

void read(const json& v, const std::string& path, restore_in_place_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("confirm", out.confirm)
      .field("source", out.source)
      .field("pointInTime", out.point_in_time)
      .field("loadOptions", out.load_options)
      .field("decryption", out.decryption)
      .done();
}

// ---- canonical JSON ------------------------------------------------------------------------

namespace {

void put(json& j, const char* key, const std::string& v) {
  if (!v.empty()) j[key] = v;
}

}  // namespace

json to_json(const init_from_backup_spec& s) {
  json src = json::object();
  if (s.source.mysql_backup_ref) src["mysqlBackupRef"] = {{"name", s.source.mysql_backup_ref->name}};
  if (s.source.s3) {
    // The profile's S3 block as config::to_json(backup_spec) writes it.
    backup_spec one;
    one.profiles.push_back({"x", {backup_storage_type::s3, s.source.s3, std::nullopt}, {}, {}, {}, {}, {}});
    src["s3"] = to_json(one)["profiles"][0]["storage"]["s3"];
  }
  if (s.source.pvc) {
    json p = json::object();
    put(p, "claimName", s.source.pvc->claim_name);
    put(p, "subPath", s.source.pvc->sub_path);
    src["pvc"] = p;
  }
  json j = {{"source", src}};
  if (s.point_in_time) {
    json p = json::object();
    put(p, "stopDatetime", s.point_in_time->stop_datetime);
    put(p, "stopGtid", s.point_in_time->stop_gtid);
    if (!s.point_in_time->exclude_gtids.is_null()) p["excludeGtids"] = s.point_in_time->exclude_gtids;
    j["pointInTime"] = p;
  }
  if (!s.load_options.is_null()) j["loadOptions"] = s.load_options;
  if (!s.decryption.is_null()) j["decryption"] = s.decryption;
  return j;
}

json to_json(const restore_in_place_spec& s) {
  // The members shared with initFromBackup are written by its writer.
  json j = to_json(init_from_backup_spec{s.source, s.point_in_time, s.load_options, s.decryption});
  if (!s.confirm.empty()) j["confirm"] = s.confirm;
  return j;
}

// ---- validation ----------------------------------------------------------------------------

split_location split_backup_location(std::string_view location) {
  std::string l{location};
  while (!l.empty() && l.back() == '/') l.pop_back();
  split_location out;
  auto slash = l.rfind('/');
  if (slash == std::string::npos) {
    out.name = l;
  } else {
    out.parent = l.substr(0, slash);
    out.name = l.substr(slash + 1);
  }
  return out;
}

namespace {

std::string in_q(std::string_view s) {
  return "\"" + std::string{s} + "\"";
}

/// A backup's name as `bloodraven backup run` accepts it (io/backup valid_backup_name: letters,
/// digits, '.', '_', '-', not starting with '.').
bool backup_name_ok(std::string_view n) {
  if (n.empty() || n.size() > 253 || n.front() == '.') return false;
  for (char c : n)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '_' || c == '-'))
      return false;
  return true;
}

void location(const std::string& path, const std::string& value, const char* what,
              field_errors& errs) {
  if (value.empty()) {
    errs.push_back({path, std::string{"required: the backup's own directory ("} + what +
                              "/<backup name>, where its backup.json is)"});
    return;
  }
  if (value.starts_with("/") || value.find("..") != std::string::npos) {
    errs.push_back({path, "must be a relative path without \"..\", got " + in_q(value)});
    return;
  }
  auto s = split_backup_location(value);
  if (!backup_name_ok(s.name))
    errs.push_back({path, "its last segment " + in_q(s.name) +
                              " must be the backup's name (letters, digits, '.', '_', '-')"});
}

}  // namespace

void validate_init_from_backup(const init_from_backup_spec& spec, const backup_spec* backup,
                               const std::string& path, field_errors& errs) {
  const auto& src = spec.source;
  const std::string sp = path + ".source";
  int sources = (src.mysql_backup_ref ? 1 : 0) + (src.s3 ? 1 : 0) + (src.pvc ? 1 : 0);
  if (sources != 1)
    errs.push_back({sp, sources == 0 ? "required: exactly one of mysqlBackupRef, s3 or pvc"
                                     : "set exactly one of mysqlBackupRef, s3 or pvc, not " +
                                           std::to_string(sources)});
  if (src.mysql_backup_ref) {
    const auto& n = src.mysql_backup_ref->name;
    if (n.empty())
      errs.push_back({sp + ".mysqlBackupRef.name", "required"});
    else if (!is_dns_label_or_subdomain(n))
      errs.push_back({sp + ".mysqlBackupRef.name", "invalid MysqlBackup name " + in_q(n)});
    if (!backup)
      errs.push_back({sp + ".mysqlBackupRef",
                      "needs spec.backup: the MysqlBackup's profile (spec.backup.profiles) says "
                      "where its files are"});
  }
  if (src.s3) {
    validate_storage({backup_storage_type::s3, src.s3, std::nullopt}, sp, errs);
    location(sp + ".s3.prefix", src.s3->prefix, "<profile prefix>", errs);
  }
  if (src.pvc) {
    if (src.pvc->claim_name.empty())
      errs.push_back({sp + ".pvc.claimName", "required"});
    else if (!is_dns_label_or_subdomain(src.pvc->claim_name))
      errs.push_back({sp + ".pvc.claimName", "invalid claim name " + in_q(src.pvc->claim_name)});
    location(sp + ".pvc.subPath", src.pvc->sub_path, "<profile subPath>", errs);
  }
  if (spec.point_in_time) {
    const auto& p = *spec.point_in_time;
    const std::string pp = path + ".pointInTime";
    if (!p.exclude_gtids.is_null())
      errs.push_back({pp + ".excludeGtids",
                      "not implemented yet: the restore replays up to a bound and cannot skip "
                      "transactions; use stopDatetime or stopGtid (replay up to and including a "
                      "GTID set); remove the field"});
    if (!p.stop_datetime.empty() && !p.stop_gtid.empty())
      errs.push_back({pp, "set either stopDatetime or stopGtid, not both"});
    if (p.stop_datetime.empty() && p.stop_gtid.empty() && p.exclude_gtids.is_null())
      errs.push_back({pp, "required: stopDatetime or stopGtid (or remove pointInTime to restore "
                          "the backup as it is)"});
    if (!p.stop_datetime.empty() && !parse_stop_datetime(p.stop_datetime))
      errs.push_back({pp + ".stopDatetime",
                      "invalid time " + in_q(p.stop_datetime) +
                          ": expected RFC 3339 (2026-11-26T14:03:00Z) or \"YYYY-MM-DD HH:MM:SS\" "
                          "(UTC), whole seconds"});
    if (!p.stop_gtid.empty()) {
      gtid_parse_error pe;
      if (!gtid_set::parse(p.stop_gtid, &pe))
        errs.push_back({pp + ".stopGtid", "invalid GTID set: " + pe.to_string()});
    }
    if (!p.stop_datetime.empty() || !p.stop_gtid.empty()) {
      if (!backup || !backup->pitr.enabled || backup->pitr.profile_name.empty())
        errs.push_back({pp, "needs the binlog archive: spec.backup.pitr.enabled with a "
                            "profileName (its storage is the archive replayed)"});
    }
  }
  if (!spec.load_options.is_null())
    errs.push_back({path + ".loadOptions",
                    "not implemented yet: the dump is loaded whole by the mysql client (no "
                    "threads, schema filters or index options); remove the field"});
  if (!spec.decryption.is_null())
    errs.push_back({path + ".decryption",
                    "not implemented yet: backups are not encrypted by the operator; remove the "
                    "field"});
}

void validate_restore_in_place(const restore_in_place_spec& spec, const backup_spec* backup,
                               const std::string& path, field_errors& errs) {
  if (spec.confirm.empty())
    errs.push_back({path + ".confirm",
                    "required: an RFC 3339 time (e.g. the current time) newer than "
                    "status.restoreInPlace.confirmTokenUsed; it arms the restore"});
  else if (!parse_rfc3339(spec.confirm))
    errs.push_back({path + ".confirm", "invalid time " + in_q(spec.confirm) +
                                           ": expected RFC 3339 (2026-11-26T14:03:00Z)"});
  // loadOptions and decryption get this field's own messages below.
  validate_init_from_backup({spec.source, spec.point_in_time, nullptr, nullptr}, backup, path, errs);
  if (!spec.load_options.is_null()) {
    const auto& lo = spec.load_options;
    const bool one_schema = lo.is_object() && lo.contains("includeSchemas") &&
                            lo["includeSchemas"].is_array() && lo["includeSchemas"].size() == 1;
    if (one_schema)
      errs.push_back({path + ".loadOptions.includeSchemas",
                      "not implemented yet: a per-schema restore (one schema dropped and reloaded "
                      "while the group keeps serving) is not built; only the full-instance restore "
                      "is; remove loadOptions"});
    else
      errs.push_back({path + ".loadOptions",
                      "not implemented yet: the dump is loaded whole by the mysql client (no "
                      "threads, schema filters or index options); remove the field"});
  }
  if (!spec.decryption.is_null())
    errs.push_back({path + ".decryption",
                    "not implemented yet: backups are not encrypted by the operator; remove the "
                    "field"});
}

std::string restore_bootstrap_hold(const std::optional<init_from_backup_spec>& spec,
                                   const json& status) {
  std::string phase;
  if (status.is_object() && status.contains("restore") && status["restore"].is_object()) {
    const auto& r = status["restore"];
    if (r.contains("phase") && r["phase"].is_string()) phase = r["phase"].get<std::string>();
  }
  // A restore Job still loading holds the group even when initFromBackup was removed meanwhile
  // (the restore controller sees that Job to its end).
  if ((!spec && phase != "Running") || phase == "Succeeded") return "";
  return "the restore of spec.initFromBackup has not succeeded yet (status.restore)";
}

}  // namespace br::config
