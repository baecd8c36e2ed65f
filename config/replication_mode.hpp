// spec.replication.mode and spec.replication.groupReplication (issue 22): the second replication
// mode, where MySQL Group Replication decides (membership, certification, primary election) and
// the operator observes and reflects (docs/group-replication.md). Values and their JSON readers;
// the mode's validation rules are in replication_validate.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "config/duration.hpp"
#include "config/field_error.hpp"

namespace br::config {

using namespace std::chrono_literals;

/// "async" (default) | "groupReplication". Immutable once a group has run.
enum class replication_mode { async, group_replication };

/// group_replication_consistency.
enum class gr_consistency { eventual, before_on_primary_failover, before, after, before_and_after };

/// group_replication_exit_state_action.
enum class gr_exit_state_action { read_only, offline_mode, abort_server };

std::string_view to_string(replication_mode m);
/// MySQL's spelling ("BEFORE_ON_PRIMARY_FAILOVER", "READ_ONLY", ...), also the API's.
std::string_view to_string(gr_consistency c);
std::string_view to_string(gr_exit_state_action a);

/// spec.replication.groupReplication.
struct group_replication_spec {
  gr_consistency consistency = gr_consistency::before_on_primary_failover;
  gr_exit_state_action exit_state_action = gr_exit_state_action::read_only;
  std::int32_t auto_rejoin_tries = 3;  // "autoRejoinTries", 0..2016 (MySQL's range)
  /// "groupName": the pinned group_replication_group_name (a UUID); empty: generated once at the
  /// first bootstrap and kept in the durable state. Never changes once the group exists.
  std::string group_name;
  /// "multiPrimary": reserved; true is refused (single-primary only).
  bool multi_primary = false;
  /// "maxSwitchoverDelay": bound of a planned switchover through group_replication_set_as_primary.
  duration max_switchover_delay = 60s;
  bool operator==(const group_replication_spec&) const = default;
};

/// spec.sites[].groupReplication: the member's own settings.
struct site_group_replication_spec {
  /// "localAddress": host:port of the member's group communication endpoint,
  /// group_replication_local_address: with the MySQL communication stack, an address and port
  /// the member's mysqld listens on. Standalone mode: required. Kubernetes: rendered.
  std::string local_address;
  bool operator==(const site_group_replication_spec&) const = default;
};

void read(const nlohmann::json& v, const std::string& path, replication_mode& out,
          field_errors& errs);
void read(const nlohmann::json& v, const std::string& path, gr_consistency& out,
          field_errors& errs);
void read(const nlohmann::json& v, const std::string& path, gr_exit_state_action& out,
          field_errors& errs);
void read(const nlohmann::json& v, const std::string& path, group_replication_spec& out,
          field_errors& errs);
void read(const nlohmann::json& v, const std::string& path, site_group_replication_spec& out,
          field_errors& errs);

nlohmann::json to_json(const group_replication_spec& s);
nlohmann::json to_json(const site_group_replication_spec& s);

/// Group Replication's quorum: floor(n/2)+1 of a view of n members must be ONLINE (1 for n <= 1).
constexpr std::size_t gr_quorum_of(std::size_t n) { return n <= 1 ? 1 : n / 2 + 1; }
/// A group-aware PodDisruptionBudget's maxUnavailable: n - floor(n/2) - 1 (0 for n <= 2), so a
/// voluntary disruption never takes the group below its majority.
constexpr std::size_t gr_pdb_max_unavailable(std::size_t n) { return n <= 1 ? 0 : n - gr_quorum_of(n); }

/// A random (version 4) UUID, lowercase: a group name for a group whose spec pins none.
std::string random_uuid();

/// Canonical UUID text (8-4-4-4-12 hex digits, either case).
bool is_uuid(std::string_view s);

}  // namespace br::config
