// Chaos harness: planned-failover checks (see planned_checks.hpp).
#include "tests/chaos/planned_checks.hpp"

namespace br::chaos {

namespace {

nlohmann::json group_status(const cluster& c) {
  auto st = c.status();
  if (st.is_object() && st.contains("chaos/g") && st["chaos/g"].is_object()) return st["chaos/g"];
  return nlohmann::json::object();
}

std::string str(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

}  // namespace

nlohmann::json planned_status(const cluster& c) {
  auto g = group_status(c);
  if (g.contains("plannedFailover") && g["plannedFailover"].is_object()) return g["plannedFailover"];
  return nlohmann::json::object();
}

nlohmann::json last_failover_losses(const cluster& c) {
  auto g = group_status(c);
  if (g.contains("lastFailoverLosses") && g["lastFailoverLosses"].is_array())
    return g["lastFailoverLosses"];
  return nlohmann::json::array();
}

nlohmann::json site_status(const cluster& c, const std::string& site) {
  auto g = group_status(c);
  if (g.contains("sites") && g["sites"].is_array())
    for (const auto& s : g["sites"])
      if (str(s, "name") == site) return s;
  return nlohmann::json::object();
}

bool replicates_from(cluster& c, int k, int source) {
  auto rows = c.sql(k).query(
      "SELECT c.HOST, c.PORT, s.SERVICE_STATE, a.SERVICE_STATE FROM "
      "performance_schema.replication_connection_configuration c JOIN "
      "performance_schema.replication_connection_status s USING (CHANNEL_NAME) JOIN "
      "performance_schema.replication_applier_status a USING (CHANNEL_NAME) WHERE c.CHANNEL_NAME=''");
  return rows && rows->size() == 1 && (*rows)[0][0].value_or("") == c.site_addr(source) &&
         (*rows)[0][1].value_or("") == std::to_string(c.mysql_port(source)) &&
         (*rows)[0][2].value_or("") == "ON" && (*rows)[0][3].value_or("") == "ON";
}

bool gtid_contained(cluster& c, int k, int primary) {
  auto g = c.sql(k).scalar("SELECT REPLACE(@@global.gtid_executed, '\\n', '')");
  auto p = c.sql(primary).scalar("SELECT REPLACE(@@global.gtid_executed, '\\n', '')");
  if (!g || !p) return false;
  return c.sql(primary).scalar("SELECT GTID_SUBSET('" + *g + "', '" + *p + "')") == "1";
}

bool ready_for_planned(cluster& c, int source, int target) {
  auto v = c.active_view();
  if (!v.is_object() || str(v, "activeSite") != cluster::site_name(source)) return false;
  auto phase = str(planned_status(c), "phase");
  if (!phase.empty() && phase != "Succeeded" && phase != "Failed") return false;
  return str(site_status(c, cluster::site_name(source)), "state") == "writable" &&
         str(site_status(c, cluster::site_name(target)), "state") == "read-only" &&
         replicates_from(c, target, source);
}

bool has_event(const nlohmann::json& events, const std::string& reason, const std::string& text) {
  if (!events.is_array()) return false;
  for (const auto& e : events)
    if (str(e, "reason") == reason && str(e, "message").find(text) != std::string::npos) return true;
  return false;
}

int64_t window_unavailability_ms(const std::vector<ack>& acks, int64_t from_ms, int64_t to_ms) {
  std::vector<ack> in;
  for (const auto& a : acks)
    if (a.t_ack_ms <= to_ms) in.push_back(a);
  return write_unavailability_ms(in, from_ms, to_ms);
}

}  // namespace br::chaos
