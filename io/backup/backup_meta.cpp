// backup.json and the result lines (see backup_meta.hpp).
#include "io/backup/backup_meta.hpp"

namespace br::backup {

nlohmann::json to_json(const backup_info& b) {
  nlohmann::json j = {{"version", b.version},           {"name", b.name},
          {"method", b.method},             {"format", b.format},
          {"dumpKey", b.dump_key},          {"sizeBytes", b.size_bytes},
          {"dumpBytes", b.dump_bytes},      {"sha256", b.sha256},
          {"gtidExecuted", b.gtid_executed}, {"binlogFile", b.binlog_file},
          {"binlogPos", b.binlog_pos},      {"sourceHost", b.source_host},
          {"serverVersion", b.server_version}, {"schemas", b.schemas},
          {"startTime", b.start_time},      {"snapshotTime", b.snapshot_time},
          {"completionTime", b.completion_time}};
  if (const auto& g = b.group_replication)
    j["groupReplication"] = {{"groupName", g->group_name}, {"memberId", g->member_id},
                             {"memberRole", g->member_role}, {"memberState", g->member_state}};
  return j;
}

backup_info_parse parse_backup_info(const std::string& text) {
  backup_info_parse out;
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    out.error = "backup.json: not a JSON object";
    return out;
  }
  backup_info b;
  auto str = [&](const char* k, std::string& dst, bool required) {
    if (!j.contains(k)) return !required;
    if (!j[k].is_string()) return false;
    dst = j[k].get<std::string>();
    return true;
  };
  auto num = [&](const char* k, uint64_t& dst) {
    if (!j.contains(k)) return true;
    if (!j[k].is_number_unsigned()) return false;
    dst = j[k].get<uint64_t>();
    return true;
  };
  if (!j.contains("version") || !j["version"].is_number_integer()) {
    out.error = "backup.json: .version missing or not an integer";
    return out;
  }
  b.version = j["version"].get<int>();
  if (b.version != backup_info::current_version) {
    out.error = "backup.json: .version " + std::to_string(b.version) + " is not supported (expected " +
                std::to_string(backup_info::current_version) + ")";
    return out;
  }
  struct field {
    const char* key;
    std::string* dst;
    bool required;
  };
  for (auto f : {field{"name", &b.name, true}, field{"method", &b.method, true},
                 field{"format", &b.format, true}, field{"dumpKey", &b.dump_key, true},
                 field{"sha256", &b.sha256, false}, field{"gtidExecuted", &b.gtid_executed, true},
                 field{"binlogFile", &b.binlog_file, false}, field{"sourceHost", &b.source_host, false},
                 field{"serverVersion", &b.server_version, false},
                 field{"startTime", &b.start_time, true}, field{"snapshotTime", &b.snapshot_time, true},
                 field{"completionTime", &b.completion_time, false}}) {
    if (!str(f.key, *f.dst, f.required)) {
      out.error = std::string("backup.json: .") + f.key + " missing or not a string";
      return out;
    }
  }
  for (auto [k, dst] : {std::pair<const char*, uint64_t*>{"sizeBytes", &b.size_bytes},
                        {"dumpBytes", &b.dump_bytes},
                        {"binlogPos", &b.binlog_pos}}) {
    if (!num(k, *dst)) {
      out.error = std::string("backup.json: .") + k + " not a non-negative integer";
      return out;
    }
  }
  if (j.contains("schemas")) {
    if (!j["schemas"].is_array()) {
      out.error = "backup.json: .schemas not an array";
      return out;
    }
    for (size_t i = 0; i < j["schemas"].size(); ++i) {
      if (!j["schemas"][i].is_string()) {
        out.error = "backup.json: .schemas[" + std::to_string(i) + "] not a string";
        return out;
      }
      b.schemas.push_back(j["schemas"][i].get<std::string>());
    }
  }
  if (j.contains("groupReplication")) {
    const auto& g = j["groupReplication"];
    gr_source_info gi;
    for (auto [k, dst] : {std::pair<const char*, std::string*>{"groupName", &gi.group_name},
                          {"memberId", &gi.member_id},
                          {"memberRole", &gi.member_role},
                          {"memberState", &gi.member_state}}) {
      if (!g.is_object() || !g.contains(k) || !g[k].is_string()) {
        out.error = std::string("backup.json: .groupReplication.") + k + " missing or not a string";
        return out;
      }
      *dst = g[k].get<std::string>();
    }
    b.group_replication = std::move(gi);
  }
  if (b.method != method_name) {
    out.error = "backup.json: .method \"" + b.method + "\" is not supported (expected mysqldump)";
    return out;
  }
  out.value = std::move(b);
  return out;
}

bool valid_backup_name(const std::string& name) {
  if (name.empty() || name.size() > 200 || name == "." || name == "..") return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '_' || c == '-'))
      return false;
  return true;
}

std::string bounded_result_json(nlohmann::json j, size_t max_bytes) {
  auto text = j.dump();
  if (text.size() <= max_bytes) return text;
  if (j.contains("message") && j["message"].is_string()) {
    auto m = j["message"].get<std::string>();
    size_t over = text.size() - max_bytes;
    size_t keep = m.size() > over + 16 ? m.size() - over - 16 : 0;
    // Cut on a UTF-8 boundary.
    while (keep > 0 && (static_cast<unsigned char>(m[keep]) & 0xC0) == 0x80) --keep;
    j["message"] = m.substr(0, keep) + "...";
    text = j.dump();
    if (text.size() <= max_bytes) return text;
  }
  if (j.contains("gtidExecuted") && j["gtidExecuted"].is_string()) {
    auto g = j["gtidExecuted"].get<std::string>();
    j["gtidExecutedTruncated"] = true;
    size_t over = text.size() - max_bytes + 40;
    j["gtidExecuted"] = g.size() > over ? g.substr(0, g.size() - over) : std::string();
    text = j.dump();
  }
  return text.size() <= max_bytes ? text : text.substr(0, 0) + R"({"message":"result too large"})";
}

}  // namespace br::backup
