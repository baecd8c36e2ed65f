// The semi-synchronous release before a fence (fence_plan.hpp plan_semisync_release): clients
// first, then the source side off, so a released commit is never acknowledged.
#include <string>
#include <vector>

#include "io/mysql/fencing.hpp"

namespace br::mysql {

namespace {

/// The source side's variable exists only with the semisync_source plugin loaded: read through
/// performance_schema, so a server without it answers NULL instead of an error. read_only, not
/// super_read_only: a SET GLOBAL super_read_only=ON still waiting for its lock already reads 1.
constexpr const char* state_sql =
    "SELECT @@GLOBAL.read_only, @@GLOBAL.offline_mode, (SELECT VARIABLE_VALUE FROM"
    " performance_schema.global_variables WHERE VARIABLE_NAME = 'rpl_semi_sync_source_enabled')";

bool truthy(const std::optional<std::string>& v) {
  return v && (*v == "1" || *v == "ON");
}

result<semisync_fence_state> read_state(connection& conn) {
  auto r = conn.query(state_sql);
  if (!r) return r.error();
  if (r->rows.size() != 1 || r->rows[0].size() != 3)
    return make_error(error_kind::other, "semi-sync fence state: unexpected result shape");
  const auto& row = r->rows[0];
  return semisync_fence_state{truthy(row[2]), truthy(row[0]), truthy(row[1])};
}

/// How many of `ids` are in a statement (0 for an empty list, no query). Not only the commit
/// waiting for an acknowledgement: commits queued behind it ('waiting for handler commit') are
/// answered OK too once the source side goes off (review V6 H1, seen on MySQL 9.7).
result<size_t> busy_among(connection& conn, const std::vector<uint64_t>& ids) {
  if (ids.empty()) return size_t{0};
  std::string list;
  for (auto id : ids) list += (list.empty() ? "" : ", ") + std::to_string(id);
  auto r = conn.query(
      "SELECT COUNT(*) FROM performance_schema.threads WHERE PROCESSLIST_COMMAND <> 'Sleep'"
      " AND PROCESSLIST_ID IN (" + list + ")");
  if (!r) return r.error();
  if (r->rows.size() != 1 || r->rows[0].empty() || !r->rows[0][0])
    return make_error(error_kind::other, "semi-sync fence: unexpected count of busy sessions");
  return static_cast<size_t>(std::stoull(*r->rows[0][0]));
}

}  // namespace

result<semisync_fence_steps> release_semisync_waits(connection& conn, const dialect& d,
                                                    const kill_policy& policy, fence_report& rep) {
  auto state = read_state(conn);
  if (!state) return state.error();
  const semisync_fence_steps steps = plan_semisync_release(*state);
  if (steps.go_offline) {
    if (auto r = conn.exec("SET GLOBAL offline_mode = ON"); !r) return r.error();
  }
  rep.semisync.go_offline = steps.go_offline;
  if (steps.kill_sessions) {
    auto k = kill_application_sessions(conn, d, policy);
    if (!k) return k.error();
    rep.killed_ids.insert(rep.killed_ids.end(), k->killed_ids.begin(), k->killed_ids.end());
    rep.kill_failures.insert(rep.kill_failures.end(), k->failures.begin(), k->failures.end());
    // A session the server refused to kill that is in a statement may be a commit waiting for
    // an acknowledgement, or queued behind one, with its client still connected: switching the
    // source side off would answer it OK. Stop here. (An idle one is left alone; it could still
    // commit after the source side goes off: application accounts must not hold SYSTEM_USER or
    // CONNECTION_ADMIN.)
    auto busy = busy_among(conn, k->failed_ids);
    if (!busy) return busy.error();
    if (*busy > 0)
      return make_error(error_kind::server_error,
                        "semi-sync fence: " + std::to_string(*busy) +
                            " session(s) in a statement could not be killed; the source side "
                            "stays on (first refusal: " + k->failures.front().message + ")");
  }
  rep.semisync.kill_sessions = steps.kill_sessions;
  if (steps.source_off) {
    if (auto r = conn.exec("SET GLOBAL rpl_semi_sync_source_enabled = OFF"); !r) return r.error();
  }
  rep.semisync.source_off = steps.source_off;
  return steps;
}

}  // namespace br::mysql
