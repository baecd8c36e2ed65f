// Semantic validation of a MysqlFailoverGroup: every violated rule, each with its field path.
#pragma once

#include <string>
#include <string_view>

#include "config/failover_group.hpp"
#include "config/field_error.hpp"
#include "config/group_spec.hpp"

namespace br::config {

/// RFC 1123 label: lowercase alphanumerics and '-', alphanumeric at both ends, 1..63 characters.
/// Site and group names end up in Service, PVC and taint names, so the label form is required.
bool is_dns_label(std::string_view s);

/// A DNS subdomain (RFC 1123): dot-separated labels, at most 253 characters.
bool is_dns_label_or_subdomain(std::string_view s);

/// Rules that do not depend on the mode: 2..16 sites, unique DNS-label site names, at least two
/// primary-candidate sites, split-brain policy (preferSite and sitePriorities are mutually
/// exclusive; entries must name primary-candidate sites, no duplicates), bootstrap.seedSite (a
/// primary-candidate site when given), every duration within
/// its range (positive, at most its maximum: config/duration_limits.hpp), thresholds >= 1,
/// cloneTimeout 60..604800, peerCheckInterval >= 1s, leaseTimeout >= max(3s, 3 x
/// peerCheckInterval), dns.ttl 1..86400, replication lags 0..604800, replication credentials,
/// Dragonfly settings, the pod and Service shaping members (config/pod_spec.hpp: resources,
/// podLabels/podAnnotations without operator keys, tolerations, affinity and security contexts as
/// objects, priorityClassName, Service templates), refusal of unimplemented members (dragonfly
/// enabled, backup, unread credentials Secrets, connectionDrainTimeout) and,
/// under the Safe policy, promotionGateTimeout longer than the fencing
/// wait of docs/safety.md gate rule 3 (lease + peer check + fence + request timeout, plus 10%).
/// Kubernetes mode adds: exactly one of secretName/credentials, dns.hostname, and for
/// primary-candidate and dr-only sites lbIP, taintNodeSelector; for every site zone and
/// storage.size; standalone-only fields (address, sidecarAddress) are rejected. Standalone mode
/// adds: address for every site; lbIP and taints are optional. Paths are rooted at "spec".
field_errors validate_spec(const group_spec& spec, run_mode mode);

/// spec.replication.mode (config/replication_validate.cpp): async refuses the Group Replication
/// members; groupReplication takes 1..9 primary-candidate sites (one member each), a member
/// address per site in standalone mode (a MySQL host:port of the member: the MySQL communication
/// stack; in Kubernetes rendered when not given), a UUID
/// groupName, autoRejoinTries 0..2016, maxSwitchoverDelay 1s..1h, an image of MySQL 8.0.27 or
/// later (when its tag names a version), and refuses multiPrimary and the async-only members
/// (splitBrainPolicy, promotionPolicy Fast, plannedFailover.onCooldown defer) and spec.backup.
void validate_replication_mode(const group_spec& spec, run_mode mode, field_errors& errs);

/// "shipstream.io/site.<group>": the node label that puts a node in one of the group's sites (its
/// value is the site name). A site's taintNodeSelector must carry it with the site's name, so a
/// group can only taint its own site's nodes (docs/architecture.md "Node taints").
std::string site_node_label(std::string_view group);

/// Pure: whether `selector` (a taintNodeSelector, or a node's labels) carries
/// site_node_label(group) = site.
bool selects_site(const string_map& selector, std::string_view group, std::string_view site);

/// validate_spec plus metadata.name (required, DNS label) and, when the name is valid, every
/// non-empty taintNodeSelector carrying site_node_label(name) = the site's name.
field_errors validate(const failover_group& group, run_mode mode);

}  // namespace br::config
