// INFO parsing (see info.hpp).
#include "io/redis/info.hpp"

#include <charconv>

namespace br::redis {
namespace {

int64_t to_int(const std::map<std::string, std::string>& kv, const char* key, int64_t fallback) {
  auto it = kv.find(key);
  if (it == kv.end()) return fallback;
  int64_t v = 0;
  const auto& s = it->second;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return fallback;
  return v;
}

std::string text(const std::map<std::string, std::string>& kv, const char* key) {
  auto it = kv.find(key);
  return it == kv.end() ? std::string() : it->second;
}

}  // namespace

std::map<std::string, std::string> parse_info(std::string_view t) {
  std::map<std::string, std::string> out;
  while (!t.empty()) {
    auto nl = t.find('\n');
    std::string_view line = t.substr(0, nl);
    t = nl == std::string_view::npos ? std::string_view() : t.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    out.emplace(std::string(line.substr(0, colon)), std::string(line.substr(colon + 1)));
  }
  return out;
}

dragonfly::replication_info parse_replication(std::string_view t) {
  using dragonfly::server_role;
  const auto kv = parse_info(t);
  dragonfly::replication_info r;
  const std::string role = text(kv, "role");
  if (role == "master") r.role = server_role::master;
  else if (role == "slave" || role == "replica") r.role = server_role::replica;
  r.connected_replicas = to_int(kv, "connected_slaves", -1);
  r.master_repl_offset = to_int(kv, "master_repl_offset", -1);
  r.master_host = text(kv, "master_host");
  r.master_port = to_int(kv, "master_port", 0);
  r.link_up = text(kv, "master_link_status") == "up";
  r.last_io_seconds_ago = to_int(kv, "master_last_io_seconds_ago", -1);
  r.sync_in_progress = to_int(kv, "master_sync_in_progress", 0) != 0;
  r.replica_offset = to_int(kv, "slave_repl_offset", r.master_repl_offset);
  r.loading = to_int(kv, "loading", 0) != 0;
  if (t.find("# Keyspace") != std::string_view::npos) {
    r.keys = 0;
    for (const auto& [k, v] : kv) {
      if (k.rfind("db", 0) != 0 || v.rfind("keys=", 0) != 0) continue;
      int64_t n = 0;
      auto end = v.find(',');
      const std::string num = v.substr(5, end == std::string::npos ? std::string::npos : end - 5);
      auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
      if (ec != std::errc() || p != num.data() + num.size() || n < 0) {
        r.keys = -1;  // unreadable: unknown, which the decisions treat as holding data
        break;
      }
      r.keys += n;
    }
  }
  return r;
}

}  // namespace br::redis
