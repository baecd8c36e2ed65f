// Group Replication values (issue 22): what one member says of its group, read in the same
// round trip as the site probe (mysql_op::gr_probe), and the settings a START needs. The
// operator judges the group only through cross_validate (decide/gr_view.hpp) over every
// member's snapshot, never through one member's.
#pragma once

#include <caf/meta/type_name.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace br {

/// One row of performance_schema.replication_group_members as one member reports it.
struct gr_member_row {
  std::string member_id;  ///< MEMBER_ID (that member's server_uuid)
  std::string host;
  uint16_t port = 0;
  std::string state;  ///< MEMBER_STATE: ONLINE | RECOVERING | OFFLINE | ERROR | UNREACHABLE
  std::string role;   ///< MEMBER_ROLE: PRIMARY | SECONDARY | ""
  std::string version;
  bool operator==(const gr_member_row&) const = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, gr_member_row& x) {
  return f(caf::meta::type_name("gr_member_row"), x.member_id, x.host, x.port, x.state, x.role,
           x.version);
}

/// One member's own view of its group.
struct gr_snapshot {
  bool plugin_loaded = false;  ///< group_replication_group_name exists as a variable
  std::string member_id;       ///< @@server_uuid
  std::string group_name;      ///< @@group_replication_group_name ("" when unset)
  std::string self_state;      ///< the member's own row's MEMBER_STATE ("" when it has none)
  std::string view_id;         ///< its own replication_group_member_stats.VIEW_ID ("" when none)
  std::vector<gr_member_row> rows;
  bool operator==(const gr_snapshot&) const = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, gr_snapshot& x) {
  return f(caf::meta::type_name("gr_snapshot"), x.plugin_loaded, x.member_id, x.group_name,
           x.self_state, x.view_id, x.rows);
}

/// Whether a member's own table shows it in a majority view: itself ONLINE and ONLINE rows a
/// strict majority of its rows (a member cut off from the others lists them UNREACHABLE).
inline bool in_majority_view(const gr_snapshot& s) {
  if (s.self_state != "ONLINE" || s.rows.empty()) return false;
  std::size_t online = 0;
  for (const auto& r : s.rows) online += r.state == "ONLINE" ? 1 : 0;
  return online * 2 > s.rows.size();
}

/// Whether a member's own table shows it in a view that still has quorum: itself ONLINE and the
/// rows not UNREACHABLE (ONLINE, RECOVERING: members XCom still hears) a strict majority.
inline bool in_quorate_view(const gr_snapshot& s) {
  if (s.self_state != "ONLINE" || s.rows.empty()) return false;
  std::size_t heard = 0;
  for (const auto& r : s.rows) heard += r.state != "UNREACHABLE" ? 1 : 0;
  return heard * 2 > s.rows.size();
}

/// What gr_bootstrap / gr_start set (SET GLOBAL, the plugin stopped) before START
/// GROUP_REPLICATION. The recovery account travels as the command's `source` target (like
/// change_source's replication account) and only on the START statement, never stored.
struct gr_settings {
  std::string group_name;         ///< group_replication_group_name (UUID)
  std::string local_address;      ///< group_replication_local_address (host:port)
  std::string group_seeds;        ///< group_replication_group_seeds (comma separated)
  std::string consistency;        ///< group_replication_consistency
  std::string exit_state_action;  ///< group_replication_exit_state_action
  int32_t auto_rejoin_tries = 3;  ///< group_replication_autorejoin_tries
  bool recovery_ssl = true;       ///< group_replication_recovery_use_ssl
  /// spec.tls: the CA file as the member's mysqld sees it; set: verified TLS for the group
  /// communication and distributed recovery (messages/gr_tls.hpp), whatever recovery_ssl says.
  std::string ssl_ca;
  bool operator==(const gr_settings&) const = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, gr_settings& x) {
  return f(caf::meta::type_name("gr_settings"), x.group_name, x.local_address, x.group_seeds,
           x.consistency, x.exit_state_action, x.auto_rejoin_tries, x.recovery_ssl, x.ssl_ca);
}

/// A member whose site was removed from the spec, leaving the group (issue 23 scale-down):
/// recorded Stopping BEFORE its STOP GROUP_REPLICATION is sent, Stopped once it is out of every
/// other member's view (then its workload is deleted). Kept until the site is declared again or
/// no workload of it is left (decide/gr_scale_down.hpp).
struct gr_leave_record {
  std::string site;
  std::string member_id;  ///< its server_uuid when known ("" = never read)
  std::string phase;      ///< Stopping | Stopped
  bool operator==(const gr_leave_record&) const = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, gr_leave_record& x) {
  return f(caf::meta::type_name("gr_leave_record"), x.site, x.member_id, x.phase);
}

/// What the operator must never forget about a Group Replication group (durable_state.gr).
/// `bootstrapped` and `group_name` are sticky: once set they never change (the store write is the
/// only path, and apply_change refuses to clear them).
struct gr_durable {
  std::string group_name;         ///< the pinned group name, generated once when the spec has none
  bool bootstrapped = false;      ///< a member was seen ONLINE in the group: never bootstrap again
  uint64_t observed_view_max = 0; ///< the largest agreed view (quorum denominator)
  /// The member a bootstrap was started on ("" = none yet). Set BEFORE the START is sent, so an
  /// operator restarted between START and `bootstrapped` looks for that group instead of
  /// starting another (decide_gr_bootstrap adopts it).
  std::string bootstrap_started;
  /// Guarded quorum recovery (issue 23): the last request taken (its id, consumed once), what it
  /// runs (recovery_kind "forceMembers" | "rebootstrap") on which member, and whether it is still
  /// open. Recorded BEFORE the command is sent: a restarted operator never sends it again, it
  /// only clears group_replication_force_members and closes the record.
  std::string recovery_request;
  std::string recovery_kind;
  std::string recovery_site;
  bool recovery_open = false;
  /// Scale-down: the members leaving the group (changed only by change_gr::leave_update).
  std::vector<gr_leave_record> leaving;
  bool operator==(const gr_durable&) const = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, gr_durable& x) {
  return f(caf::meta::type_name("gr_durable"), x.group_name, x.bootstrapped, x.observed_view_max,
           x.bootstrap_started, x.recovery_request, x.recovery_kind, x.recovery_site,
           x.recovery_open, x.leaving);
}

}  // namespace br
