// Validation of spec.replication.mode and what it changes (issue 22). In groupReplication mode
// the group owns election and fencing, so the async-only members are refused with their path
// rather than accepted and ignored; in async mode the Group Replication members are refused.
#include <array>
#include <charconv>
#include <optional>
#include <tuple>
#include <set>

#include "config/group_validate.hpp"
#include "config/replication_mode.hpp"

namespace br::config {
namespace {

std::string in_quotes(std::string_view s) {
  return "\"" + std::string{s} + "\"";
}

std::string site_path(std::size_t i, std::string_view field) {
  return "spec.sites[" + std::to_string(i) + "]." + std::string{field};
}

// "mysql:8.0.21", "registry/x/mysql:8.0", "mysql:9.7.4-oracle": the tag's leading numbers.
// nullopt when the tag does not start with a version (a digest, "latest", no tag).
std::optional<std::array<int, 3>> image_version(std::string_view image) {
  auto slash = image.rfind('/');
  auto colon = image.rfind(':');
  if (colon == std::string_view::npos || (slash != std::string_view::npos && colon < slash))
    return std::nullopt;
  std::string_view tag = image.substr(colon + 1);
  std::array<int, 3> v{0, 0, 0};
  std::size_t parts = 0;
  const char* p = tag.data();
  const char* end = tag.data() + tag.size();
  while (parts < 3 && p < end) {
    auto [next, ec] = std::from_chars(p, end, v[parts]);
    if (ec != std::errc{}) break;
    ++parts;
    p = next;
    if (p == end || *p != '.') break;
    ++p;
  }
  if (parts < 2) return std::nullopt;
  return v;
}

// spec.replication.semiSync (issue 25): the primary waits for K receivers, so K other sites must
// exist; Group Replication certifies commits itself and has no use for it.
void validate_semi_sync(const group_spec& spec, field_errors& errs) {
  const auto& ss = spec.replication.semi_sync;
  if (spec.replication.mode == replication_mode::group_replication) {
    if (!(ss == semi_sync_spec{}))
      errs.push_back({"spec.replication.semiSync",
                      "not used in groupReplication mode (the group certifies every commit "
                      "itself); remove it"});
    return;
  }
  const std::string k_path = "spec.replication.semiSync.waitForReplicaCount";
  if (ss.wait_for_replica_count < 1) {
    errs.push_back({k_path, "must be at least 1, got 0"});
  } else if (ss.enabled && ss.wait_for_replica_count + 1 > spec.sites.size()) {
    errs.push_back({k_path, "must be at most the number of sites - 1 (" +
                                std::to_string(spec.sites.size() > 0 ? spec.sites.size() - 1 : 0) +
                                "): the primary waits for that many other sites, got " +
                                std::to_string(ss.wait_for_replica_count)});
  }
}

}  // namespace

void validate_replication_mode(const group_spec& spec, run_mode mode, field_errors& errs) {
  auto fail = [&](std::string path, std::string message) {
    errs.push_back({std::move(path), std::move(message)});
  };
  const auto& r = spec.replication;
  validate_semi_sync(spec, errs);
  if (r.mode == replication_mode::async) {
    if (r.group_replication)
      fail("spec.replication.groupReplication", "only used with mode groupReplication; remove it");
    for (std::size_t i = 0; i < spec.sites.size(); ++i)
      if (spec.sites[i].group_replication)
        fail(site_path(i, "groupReplication"), "only used with mode groupReplication; remove it");
    return;
  }

  // ---- groupReplication ----
  const group_replication_spec gr = r.group_replication.value_or(group_replication_spec{});
  if (spec.sites.empty() || spec.sites.size() > 9)
    fail("spec.sites", "a Group Replication group has 1 to 9 members (one per site), got " +
                           std::to_string(spec.sites.size()));
  std::set<std::string> addresses;
  for (std::size_t i = 0; i < spec.sites.size(); ++i) {
    const auto& s = spec.sites[i];
    if (s.role != site_role::primary_candidate)
      fail(site_path(i, "role"),
           "each site is one member of the group and any member may be elected; roles other "
           "than primary-candidate do not apply in groupReplication mode, got " +
               in_quotes(to_string(s.role)));
    const std::string local =
        s.group_replication ? s.group_replication->local_address : std::string{};
    if (mode == run_mode::kubernetes && s.service_template &&
        s.service_template->type != "ClusterIP")
      // The member's address is the headless site Service (config/render/gr_member.hpp).
      fail(site_path(i, "serviceTemplate.spec.type"),
           "must be ClusterIP in groupReplication mode: the site Service is headless (its name "
           "is the member's group communication address), got " +
               in_quotes(s.service_template->type));
    if (local.empty()) {
      // Kubernetes: optional, the headless site Service's name on port 33061 by default.
      if (mode != run_mode::kubernetes)
        fail(site_path(i, "groupReplication.localAddress"),
             "required in standalone groupReplication mode (host:port of the member's group "
             "communication endpoint, group_replication_local_address)");
    } else if (!parse_host_port(local)) {
      fail(site_path(i, "groupReplication.localAddress"),
           "invalid address " + in_quotes(local) + ": expected host:port");
    } else if (!addresses.insert(local).second) {
      fail(site_path(i, "groupReplication.localAddress"),
           "duplicate address " + in_quotes(local) + ": every member needs its own");
    }
  }
  if (gr.multi_primary)
    fail("spec.replication.groupReplication.multiPrimary",
         "multi-primary mode is not supported: only single-primary groups; remove the field");
  if (!gr.group_name.empty() && !is_uuid(gr.group_name))
    fail("spec.replication.groupReplication.groupName",
         "must be a UUID (8-4-4-4-12 hexadecimal digits), got " + in_quotes(gr.group_name));
  if (gr.auto_rejoin_tries < 0 || gr.auto_rejoin_tries > 2016)
    fail("spec.replication.groupReplication.autoRejoinTries",
         "must be between 0 and 2016, got " + std::to_string(gr.auto_rejoin_tries));
  if (gr.max_switchover_delay < 1s || gr.max_switchover_delay > 1h)
    fail("spec.replication.groupReplication.maxSwitchoverDelay",
         "must be between 1s and 1h, got " + in_quotes(format_duration(gr.max_switchover_delay)));
  if (auto v = image_version(spec.image);
      v && std::make_tuple((*v)[0], (*v)[1], (*v)[2]) < std::make_tuple(8, 0, 27))
    // The members communicate over MySQL connections (group_replication_communication_stack
    // MYSQL), which MySQL has from 8.0.27 on.
    fail("spec.image", "Group Replication mode needs MySQL 8.0.27 or later (the MySQL "
                       "communication stack), got " + in_quotes(spec.image));

  // Async-only members: the group elects, fences and recovers itself.
  const auto& sb = spec.split_brain_policy;
  if (!sb.prefer_site.empty() || !sb.site_priorities.empty())
    fail("spec.splitBrainPolicy",
         "not used in groupReplication mode: the group's quorum prevents a split brain and the "
         "group elects its primary; remove it");
  if (spec.promotion_policy != promotion_policy::safe)
    fail("spec.promotionPolicy",
         "not used in groupReplication mode: the operator never promotes, the group elects; "
         "remove it");
  if (spec.planned_failover.on_cooldown != cooldown_action::reject)
    fail("spec.plannedFailover.onCooldown",
         "not used in groupReplication mode: a switchover is the group's "
         "group_replication_set_as_primary, bounded by groupReplication.maxSwitchoverDelay; "
         "remove it");
  if (spec.backup) {
    // Backups read an ONLINE SECONDARY of the agreed view (decide/gr_backup_source.hpp); the
    // binlog archiver is not built for a group (issue 23: no PITR in this mode).
    if (!(spec.backup->pitr == pitr_spec{}))
      fail("spec.backup.pitr",
           "not implemented yet in groupReplication mode (no binlog archiving for a group); remove it");
    if (spec.backup->max_lag_seconds_for_source != backup_spec{}.max_lag_seconds_for_source)
      fail("spec.backup.maxLagSecondsForSource",
           "not used in groupReplication mode (the backup reads an ONLINE SECONDARY of the agreed "
           "view, which applies what the group certified); remove it");
  }
  // Members that tune the async rules (promotion, fencing, clone plans): the group does this
  // itself, so a value other than the default would be ignored; refused with its path.
  const group_spec defaults;
  auto async_only = [&](const char* path, bool differs) {
    if (differs)
      fail(path, "not used in groupReplication mode (the group elects, fences and recovers "
                 "itself); remove it");
  };
  async_only("spec.failoverCooldown", spec.failover_cooldown != defaults.failover_cooldown);
  async_only("spec.promotionGateTimeout",
             spec.promotion_gate_timeout != defaults.promotion_gate_timeout);
  async_only("spec.relayDrainTimeout", spec.relay_drain_timeout != defaults.relay_drain_timeout);
  async_only("spec.cloneTimeout", spec.clone_timeout != defaults.clone_timeout);
  async_only("spec.plannedFailover.maxLagWait",
             spec.planned_failover.max_lag_wait != defaults.planned_failover.max_lag_wait);
  async_only("spec.plannedFailover.drainTimeout",
             spec.planned_failover.drain_timeout != defaults.planned_failover.drain_timeout);
  async_only("spec.sidecar", !(spec.sidecar == defaults.sidecar));
  // Read by the async rules only (review of issue 22, M2): lag bounds of the replicas' routing and
  // the debounce of a site's state. A GR member is routed by its ONLINE state in the agreed view.
  async_only("spec.replication.maxLagSeconds", r.max_lag_seconds != defaults.replication.max_lag_seconds);
  async_only("spec.replication.readOnlyMaxLagSeconds", r.read_only_max_lag_seconds.has_value());
  async_only("spec.failureThreshold", spec.failure_threshold != defaults.failure_threshold);
  async_only("spec.recoveryThreshold", spec.recovery_threshold != defaults.recovery_threshold);
  if (spec.init_from_backup)
    // The GR bootstrap does not wait for a restore (finding M2: the seed would start empty and the
    // restore Job then finds a primary); issue 23 restores into a fresh single-member group.
    fail("spec.initFromBackup",
         "not implemented yet in groupReplication mode in Kubernetes (a member's pod is Ready only "
         "once it is ONLINE, and the restore waits for a Ready target); restore a new group with "
         "`bloodraven restore` into its seed member before the operator starts it (standalone); "
         "remove it");
  if (spec.restore_in_place)
    // The coordinator's freeze covers the async rules only (decide/step_restore_freeze.cpp): a GR
    // group fences and elects itself, so it refuses the freeze too.
    fail("spec.restoreInPlace", "not implemented yet in groupReplication mode (the group elects and "
                                "fences itself; nothing would hold it while the data is replaced); remove it");
  if (spec.update_strategy == update_strategy::recreate)
    // Every member restarted at once comes back OFFLINE (start_on_boot is OFF) and the group has
    // no member left to start the others into: a total outage (finding H2).
    fail("spec.updateStrategy",
         "Recreate restarts every member at once, which a Group Replication group does not survive; "
         "use OrderedUpdate");
}

}  // namespace br::config
