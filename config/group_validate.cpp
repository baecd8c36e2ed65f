// Validation rules for the MysqlFailoverGroup spec.
#include "config/group_validate.hpp"

#include <algorithm>
#include <set>

#include "config/duration_limits.hpp"
#include "config/saturating.hpp"

namespace br::config {
namespace {

std::string in_quotes(std::string_view s) {
  return "\"" + std::string{s} + "\"";
}

std::string site_path(std::size_t i, std::string_view field = {}) {
  std::string p = "spec.sites[" + std::to_string(i) + "]";
  if (!field.empty()) p += "." + std::string{field};
  return p;
}

struct checker {
  const group_spec& spec;
  run_mode mode;
  field_errors errs;

  void fail(std::string path, std::string message) {
    errs.push_back({std::move(path), std::move(message)});
  }

  template <class Int>
  void at_least(const std::string& path, Int value, Int min, std::string_view unit = {}) {
    if (value < min)
      fail(path, "must be at least " + std::to_string(min) + std::string{unit} + ", got " +
                     std::to_string(value));
  }

  void port(const std::string& path, std::int32_t p) {
    if (p < 1 || p > 65535) fail(path, "must be between 1 and 65535, got " + std::to_string(p));
  }

  void sites() {
    const auto& sites = spec.sites;
    // Group Replication counts members its own way (validate_replication_mode).
    const bool gr = spec.replication.mode == replication_mode::group_replication;
    if (!gr && (sites.size() < 2 || sites.size() > 16))
      fail("spec.sites", "must list between 2 and 16 sites, got " + std::to_string(sites.size()));
    std::set<std::string> seen;
    std::size_t candidates = 0;
    bool kube = mode == run_mode::kubernetes;
    for (std::size_t i = 0; i < sites.size(); ++i) {
      const auto& s = sites[i];
      if (s.role == site_role::primary_candidate) ++candidates;
      if (s.name.empty()) {
        fail(site_path(i, "name"), "required");
      } else if (!is_dns_label(s.name)) {
        fail(site_path(i, "name"),
             "invalid site name " + in_quotes(s.name) +
                 ": use lowercase letters, digits and '-', starting and ending "
                 "with a letter or digit, at most 63 characters");
      } else if (!seen.insert(s.name).second) {
        fail(site_path(i, "name"), "duplicate site name " + in_quotes(s.name));
      }
      std::string role{to_string(s.role)};
      bool steered = s.role != site_role::read_only;  // DNS target and taint owner when active
      if (kube) {
        if (steered && s.lb_ip.empty())
          fail(site_path(i, "lbIP"), "required for " + role + " sites in Kubernetes mode");
        if (steered && s.taint_node_selector.empty())
          fail(site_path(i, "taintNodeSelector"),
               "required for " + role + " sites in Kubernetes mode (at least one node label)");
        if (s.zone.empty()) fail(site_path(i, "zone"), "required in Kubernetes mode");
        if (s.storage.size.empty())
          fail(site_path(i, "storage.size"), "required in Kubernetes mode");
        if (s.address) fail(site_path(i, "address"), "only used in standalone mode; remove it");
        if (!s.sidecar_address.empty())
          fail(site_path(i, "sidecarAddress"), "only used in standalone mode; remove it");
        if (!s.dragonfly_address.empty())
          fail(site_path(i, "dragonflyAddress"), "only used in standalone mode; remove it");
      } else if (!s.address) {
        fail(site_path(i, "address"),
             "required in standalone mode (host and port of the MySQL server)");
      }
      if (s.address) {
        if (s.address->host.empty()) fail(site_path(i, "address.host"), "required");
        port(site_path(i, "address.port"), s.address->port);
      }
      if (!s.sidecar_address.empty() && !parse_host_port(s.sidecar_address))
        fail(site_path(i, "sidecarAddress"),
             "invalid address " + in_quotes(s.sidecar_address) + ": expected host:port");
      if (!s.dragonfly_address.empty() && !parse_host_port(s.dragonfly_address))
        fail(site_path(i, "dragonflyAddress"),
             "invalid address " + in_quotes(s.dragonfly_address) + ": expected host:port");
      else if (!kube && spec.dragonfly.enabled && s.dragonfly_address.empty())
        fail(site_path(i, "dragonflyAddress"),
             "required in standalone mode when spec.dragonfly.enabled (host:port of the site's cache server)");
    }
    if (!gr && candidates < 2)
      fail("spec.sites", "at least two sites must have role primary-candidate, got " +
                             std::to_string(candidates));
  }

  // A split-brain winner must be a primary-candidate site.
  void names_candidate(const std::string& path, const std::string& name) {
    const site_spec* site = find_site(spec, name);
    if (!site)
      fail(path, in_quotes(name) + " is not a site of this group");
    else if (site->role != site_role::primary_candidate)
      fail(path, "site " + in_quotes(name) + " has role " + std::string{to_string(site->role)} +
                     "; only primary-candidate sites can win a split brain");
  }

  // The bootstrap seed, when given, must be a primary-candidate site.
  void seed() {
    const auto& seed = spec.bootstrap.seed_site;
    if (seed.empty()) return;
    const site_spec* site = find_site(spec, seed);
    if (!site)
      fail("spec.bootstrap.seedSite", in_quotes(seed) + " is not a site of this group");
    else if (site->role != site_role::primary_candidate)
      fail("spec.bootstrap.seedSite",
           "site " + in_quotes(seed) + " has role " + std::string{to_string(site->role)} +
               "; only a primary-candidate site can seed the group");
  }

  void split_brain() {
    const auto& p = spec.split_brain_policy;
    if (!p.prefer_site.empty() && !p.site_priorities.empty())
      fail("spec.splitBrainPolicy",
           "preferSite and sitePriorities are mutually exclusive; use sitePriorities");
    if (!p.prefer_site.empty()) names_candidate("spec.splitBrainPolicy.preferSite", p.prefer_site);
    if (p.site_priorities.size() > 16)
      fail("spec.splitBrainPolicy.sitePriorities",
           "must have at most 16 entries, got " + std::to_string(p.site_priorities.size()));
    std::set<std::string> seen;
    for (std::size_t i = 0; i < p.site_priorities.size(); ++i) {
      std::string path = "spec.splitBrainPolicy.sitePriorities[" + std::to_string(i) + "]";
      const auto& name = p.site_priorities[i];
      if (!seen.insert(name).second)
        fail(path, "duplicate entry " + in_quotes(name));
      else
        names_candidate(path, name);
    }
  }

  // A duration outside its range (duration_limits.hpp); zero and negative read "positive".
  void within(const std::string& path, duration d, const duration_bounds& b) {
    auto problem = check_bounds(d, b);
    if (!problem.empty()) fail(path, problem + ", got " + in_quotes(format_duration(d)));
  }

  template <class Int>
  void at_most(const std::string& path, Int value, Int max, std::string_view unit = {}) {
    if (value > max)
      fail(path, "must be at most " + std::to_string(max) + std::string{unit} + ", got " +
                     std::to_string(value));
  }

  void timing() {
    namespace L = limits;
    const auto& sc = spec.sidecar;
    within("spec.pollInterval", spec.poll_interval, L::poll_interval);
    within("spec.failoverCooldown", spec.failover_cooldown, L::failover_cooldown);
    within("spec.relayDrainTimeout", spec.relay_drain_timeout, L::relay_drain_timeout);
    within("spec.promotionGateTimeout", spec.promotion_gate_timeout, L::promotion_gate_timeout);
    within("spec.sidecar.fenceTimeout", sc.fence_timeout, L::fence_timeout);
    within("spec.sidecar.requestTimeout", sc.request_timeout, L::request_timeout);
    within("spec.plannedFailover.maxLagWait", spec.planned_failover.max_lag_wait, L::max_lag_wait);
    within("spec.plannedFailover.drainTimeout", spec.planned_failover.drain_timeout,
           L::planned_drain_timeout);
    at_least<std::int32_t>("spec.failureThreshold", spec.failure_threshold, 1);
    at_least<std::int32_t>("spec.recoveryThreshold", spec.recovery_threshold, 1);
    at_least<std::int64_t>("spec.cloneTimeout", spec.clone_timeout, L::clone_timeout_min_seconds,
                           " seconds");
    at_most<std::int64_t>("spec.cloneTimeout", spec.clone_timeout, L::clone_timeout_max_seconds,
                          " seconds");

    // The reference sidecar clamps these silently; we reject so the user sees the real values.
    if (sc.peer_check_interval < 1s) {
      fail("spec.sidecar.peerCheckInterval",
           "must be at least 1s, got " + in_quotes(format_duration(sc.peer_check_interval)));
    } else {
      within("spec.sidecar.peerCheckInterval", sc.peer_check_interval, L::peer_check_interval);
    }
    duration min_lease = std::max<duration>(3s, 3 * std::min(sc.peer_check_interval,
                                                             L::peer_check_interval.max));
    if (sc.lease_timeout < min_lease)
      fail("spec.sidecar.leaseTimeout", "must be at least " + format_duration(min_lease) +
                                            " (3 x peerCheckInterval, and at least 3s), got " +
                                            in_quotes(format_duration(sc.lease_timeout)));
    else
      within("spec.sidecar.leaseTimeout", sc.lease_timeout, L::lease_timeout);

    // Under Safe, gate rule 3 opens only after this wait (the same sum and margin as
    // rule3_wait in actors/operator/decide/promotion_gate.cpp, saturating); a gate timeout that is
    // not longer would make the unreachable-primary failover impossible.
    duration wait = plus_ten_percent(
        sat_sum(sc.lease_timeout, sc.peer_check_interval, sc.fence_timeout, sc.request_timeout));
    if (spec.promotion_policy == promotion_policy::safe &&
        spec.promotion_gate_timeout > duration::zero() && spec.promotion_gate_timeout <= wait)
      fail("spec.promotionGateTimeout",
           "must be longer than leaseTimeout + peerCheckInterval + fenceTimeout + requestTimeout "
           "plus 10% (" +
               format_duration(wait) + "), got " +
               in_quotes(format_duration(spec.promotion_gate_timeout)) +
               "; otherwise a Safe failover away from an unreachable primary can never proceed");
  }

  void access() {
    bool kube = mode == run_mode::kubernetes;
    if (!spec.secret_name.empty() && spec.credentials)
      fail("spec.credentials",
           "secretName and credentials are mutually exclusive; set exactly one");
    else if (kube && spec.secret_name.empty() && !spec.credentials)
      fail("spec.secretName", "one of secretName or credentials is required in Kubernetes mode");
    if (spec.credentials && spec.credentials->operator_secret.empty())
      fail("spec.credentials.operatorSecret", "required");
    if (kube && spec.dns.hostname.empty()) fail("spec.dns.hostname", "required in Kubernetes mode");
    at_least<std::int64_t>("spec.dns.ttl", spec.dns.ttl, 1);
    at_most<std::int64_t>("spec.dns.ttl", spec.dns.ttl, limits::dns_ttl_max_seconds, " seconds");
    if (spec.image.empty()) fail("spec.image", "must not be empty");

    const auto& r = spec.replication;
    at_least<std::int64_t>("spec.replication.maxLagSeconds", r.max_lag_seconds, 0);
    at_most<std::int64_t>("spec.replication.maxLagSeconds", r.max_lag_seconds,
                          limits::max_lag_max_seconds, " seconds");
    if (r.read_only_max_lag_seconds) {
      at_least<std::int64_t>("spec.replication.readOnlyMaxLagSeconds", *r.read_only_max_lag_seconds,
                             0);
      at_most<std::int64_t>("spec.replication.readOnlyMaxLagSeconds", *r.read_only_max_lag_seconds,
                            limits::max_lag_max_seconds, " seconds");
    }
    if (!r.secret_name.empty() && (!r.user.empty() || !r.password.empty()))
      fail("spec.replication.secretName", "mutually exclusive with user and password");
    if (!r.password.empty() && r.user.empty())
      fail("spec.replication.user", "required when password is set");
  }

  void dragonfly() {
    const auto& d = spec.dragonfly;
    port("spec.dragonfly.port", d.port);
    port("spec.dragonfly.adminPort", d.admin_port);
    at_least<std::int64_t>("spec.dragonfly.maxMemoryMb", d.max_memory_mb, 0);
    at_least<std::int32_t>("spec.dragonfly.proactorThreads", d.proactor_threads, 0);
    within("spec.dragonfly.plannedFailover.maxSyncWait", d.planned_failover.max_sync_wait,
           limits::max_sync_wait);
    if (d.auth && d.auth->secret_name.empty()) fail("spec.dragonfly.auth.secretName", "required");
    // Kubernetes mode runs the image (render/dragonfly.hpp); standalone mode never does.
    if (d.enabled && mode == run_mode::kubernetes && d.image.empty())
      fail("spec.dragonfly.image", "required when spec.dragonfly.enabled in Kubernetes mode");
    if (d.image.ends_with(":latest"))
      fail("spec.dragonfly.image", "the :latest tag is refused: pin a version (e.g. v1.38.0)");
  }

  // Pods a user can run: resources, labels, tolerations, affinity, security contexts, Services.
  void pods() {
    if (spec.resources) validate_resources(*spec.resources, "spec.resources", errs);
    if (spec.sidecar_resources)
      validate_resources(*spec.sidecar_resources, "spec.sidecarResources", errs);
    for (std::size_t i = 0; i < spec.sites.size(); ++i) {
      const auto& s = spec.sites[i];
      if (s.resources) validate_resources(*s.resources, site_path(i, "resources"), errs);
      if (s.service_template)
        validate_service_template(*s.service_template, site_path(i, "serviceTemplate"),
                                  {3306, 8080}, errs);
    }
    if (spec.primary_service_template)
      validate_service_template(*spec.primary_service_template, "spec.primaryServiceTemplate",
                                {3306}, errs);
    if (spec.replica_service_template)
      validate_service_template(*spec.replica_service_template, "spec.replicaServiceTemplate",
                                {3306}, errs);
    auto keys = [&](const string_map& m, const char* field, bool labels) {
      for (const auto& [k, v] : m) {
        std::string p = std::string{"spec."} + field + "[" + k + "]";
        if (!is_qualified_name(k))
          fail(p, "invalid key " + in_quotes(k));
        else if (is_operator_key(k))
          fail(p, std::string{"reserved: the operator sets this "} +
                      (labels ? "label" : "annotation") + " on its pods; remove it");
        else if (labels && !is_label_value(v))
          fail(p, "invalid label value " + in_quotes(v));
      }
    };
    keys(spec.pod_labels, "podLabels", true);
    keys(spec.pod_annotations, "podAnnotations", false);
    for (std::size_t i = 0; i < spec.tolerations.size(); ++i)
      validate_toleration(spec.tolerations[i], "spec.tolerations[" + std::to_string(i) + "]",
                          errs);
    if (!spec.affinity.is_null()) {
      if (!spec.affinity.is_object())
        fail("spec.affinity", "expected object, got " + std::string{spec.affinity.type_name()});
      else
        for (const auto& [k, v] : spec.affinity.items()) {
          if (k != "nodeAffinity" && k != "podAffinity" && k != "podAntiAffinity")
            fail("spec.affinity." + k, "unknown field: expected nodeAffinity, podAffinity or "
                                       "podAntiAffinity");
          else if (!v.is_object())
            fail("spec.affinity." + k, "expected object, got " + std::string{v.type_name()});
        }
    }
    if (!spec.priority_class_name.empty() && !is_dns_label_or_subdomain(spec.priority_class_name))
      fail("spec.priorityClassName",
           "invalid name " + in_quotes(spec.priority_class_name) + ": expected a DNS subdomain");
    for (const auto& [field, value] :
         {std::pair{"spec.podSecurityContext", &spec.pod_security_context},
          std::pair{"spec.containerSecurityContext", &spec.container_security_context}})
      if (!value->is_null() && !value->is_object())
        fail(field, "expected object, got " + std::string{value->type_name()});
  }

  // Members the spec accepts (the reference API has them) but nothing implements yet: refused,
  // never accepted and ignored. A member with a CRD default is refused only when it differs
  // from that default (the API server fills the default in).
  void unimplemented() {
    if (spec.credentials) {
      const auto& c = *spec.credentials;
      auto unread = [&](const char* key, const std::string& value) {
        if (!value.empty())
          fail(std::string{"spec.credentials."} + key,
               "not implemented yet: the operator does not read this Secret; remove the field");
      };
      unread("appSecret", c.app_secret);
      unread("readOnlySecret", c.read_only_secret);
      unread("monitorSecret", c.monitor_secret);
      unread("backupSecret", c.backup_secret);
    }
    if (spec.connection_drain_timeout != group_spec{}.connection_drain_timeout)
      fail("spec.connectionDrainTimeout",
           "not implemented yet: client connections are not drained by this operator (sessions "
           "are killed at the fence; plannedFailover.drainTimeout bounds a planned drain); remove "
           "the field");
  }
};

}  // namespace

bool is_dns_label_or_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  std::size_t start = 0;
  while (true) {
    auto dot = s.find('.', start);
    if (!is_dns_label(s.substr(start, dot == std::string_view::npos ? dot : dot - start)))
      return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool is_dns_label(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return alnum(c) || c == '-'; });
}

field_errors validate_spec(const group_spec& spec, run_mode mode) {
  checker c{spec, mode, {}};
  c.sites();
  c.split_brain();
  c.seed();
  c.timing();
  c.access();
  c.dragonfly();
  c.pods();
  c.unimplemented();
  validate_replication_mode(spec, mode, c.errs);
  // In groupReplication mode spec.tls also verifies the group communication and the recovery
  // channel (messages/gr_tls.hpp).
  if (spec.tls) validate_tls(*spec.tls, mode, "spec.tls", c.errs);
  if (spec.backup) validate_backup(*spec.backup, "spec.backup", c.errs);
  if (spec.init_from_backup) {
    if (mode == run_mode::standalone)
      c.errs.push_back({"spec.initFromBackup",
                        "Kubernetes mode only: in standalone mode restore with `bloodraven "
                        "restore` into a fresh server before the group starts"});
    else
      validate_init_from_backup(*spec.init_from_backup,
                                spec.backup ? &*spec.backup : nullptr, "spec.initFromBackup",
                                c.errs);
  }
  if (spec.restore_in_place) {
    validate_restore_in_place(*spec.restore_in_place, spec.backup ? &*spec.backup : nullptr,
                              "spec.restoreInPlace", c.errs);
    if (mode == run_mode::standalone)
      c.errs.push_back({"spec.restoreInPlace",
                        "Kubernetes mode only: in standalone mode fence the primary and run "
                        "`bloodraven restore --replace` against it"});
  }
  return std::move(c.errs);
}

std::string site_node_label(std::string_view group) {
  return "shipstream.io/site." + std::string{group};
}

bool selects_site(const string_map& selector, std::string_view group, std::string_view site) {
  auto it = selector.find(site_node_label(group));
  return it != selector.end() && it->second == site;
}

field_errors validate(const failover_group& group, run_mode mode) {
  field_errors errs;
  const auto& name = group.metadata.name;
  if (name.empty())
    errs.push_back({"metadata.name", "required"});
  else if (!is_dns_label(name))
    errs.push_back(
        {"metadata.name", "invalid group name " + in_quotes(name) +
                              ": use lowercase letters, digits and '-', at most 63 characters"});
  auto spec_errs = validate_spec(group.spec, mode);
  errs.insert(errs.end(), spec_errs.begin(), spec_errs.end());
  // The CronJob mysql-<g>-backup-<schedule> must fit Kubernetes' 52-character CronJob names.
  if (is_dns_label(name) && group.spec.backup)
    for (std::size_t i = 0; i < group.spec.backup->schedules.size(); ++i) {
      const auto& s = group.spec.backup->schedules[i].name;
      if (is_dns_label(s) && ("mysql-" + name + "-backup-" + s).size() > 52)
        errs.push_back({"spec.backup.schedules[" + std::to_string(i) + "].name",
                        "the CronJob name mysql-" + name + "-backup-" + s +
                            " is longer than 52 characters; use a shorter schedule name"});
    }
  // And mysql-<g>-verify-<profile> for a profile whose verification is enabled.
  if (is_dns_label(name) && group.spec.backup)
    for (std::size_t i = 0; i < group.spec.backup->profiles.size(); ++i) {
      const auto& p = group.spec.backup->profiles[i];
      const bool enabled = p.verification.is_object() && p.verification.value("enabled", nlohmann::json(false)) == true;
      if (enabled && is_dns_label(p.name) && ("mysql-" + name + "-verify-" + p.name).size() > 52)
        errs.push_back({"spec.backup.profiles[" + std::to_string(i) + "].name",
                        "the verification CronJob name mysql-" + name + "-verify-" + p.name +
                            " is longer than 52 characters; use a shorter profile name"});
    }
  // Kubernetes + spec.tls + Group Replication: the operator's CA (or the issuer) signs the
  // member's certificate for the host of its localAddress, so that host must be the site's own
  // Service (review V7 H2: any other name would be a certificate for someone else's host, its
  // key in this namespace).
  if (mode == run_mode::kubernetes && group.spec.tls && is_dns_label(name) &&
      group.spec.replication.mode == replication_mode::group_replication)
    for (std::size_t i = 0; i < group.spec.sites.size(); ++i) {
      const auto& s = group.spec.sites[i];
      if (!s.group_replication || s.group_replication->local_address.empty()) continue;
      const auto& local = s.group_replication->local_address;
      const auto host = local.substr(0, local.rfind(':'));
      const std::string svc = "mysql-" + name + "-" + s.name;
      const std::string ns = group.metadata.namespace_name;
      if (host == svc || host == svc + "." + ns || host == svc + "." + ns + ".svc" ||
          host == svc + "." + ns + ".svc.cluster.local")
        continue;
      errs.push_back({site_path(i, "groupReplication.localAddress"),
                      "with spec.tls the member's certificate names its site Service only: the "
                      "host must be " + svc + " (or ." + ns + ", .svc, .svc.cluster.local forms), got " +
                          in_quotes(host) + "; or leave it empty"});
    }
  // A selector may only pick nodes of its own site, so a group cannot taint arbitrary nodes.
  if (is_dns_label(name))
    for (std::size_t i = 0; i < group.spec.sites.size(); ++i) {
      const auto& s = group.spec.sites[i];
      if (s.taint_node_selector.empty() || !is_dns_label(s.name) ||  // the name is reported
          selects_site(s.taint_node_selector, name, s.name))
        continue;
      errs.push_back({site_path(i, "taintNodeSelector"),
                      "must carry the label " + in_quotes(site_node_label(name)) + " with value " +
                          in_quotes(s.name) + " so that it selects only this site's nodes"});
    }
  return errs;
}

}  // namespace br::config
