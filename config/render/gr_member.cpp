// Group Replication mode in Kubernetes: the member's address, seeds and my.cnf options.
#include "config/render/gr_member.hpp"

#include <algorithm>

#include "config/render/names.hpp"
#include "config/replication_mode.hpp"
#include "config/tls_spec.hpp"
#include "messages/gr_tls.hpp"

namespace br::render {

bool is_group_replication(const config::group_spec& spec) {
  return spec.replication.mode == config::replication_mode::group_replication;
}

std::string gr_member_address(std::string_view group, std::string_view namespace_name,
                              const config::site_spec& site) {
  if (site.group_replication && !site.group_replication->local_address.empty())
    return site.group_replication->local_address;
  return gr_local_address(group, site.name, namespace_name);
}

std::string gr_group_seeds(const config::failover_group& g) {
  std::string seeds;
  for (const auto& s : g.spec.sites)
    seeds += (seeds.empty() ? "" : ",") +
             gr_member_address(g.metadata.name, g.metadata.namespace_name, s);
  return seeds;
}

bool is_gr_owned_option(std::string_view k) {
  if (k.starts_with("loose-")) k.remove_prefix(6);
  return k.starts_with("group-replication-") || k == "report-host" || k == "report-port" ||
         k == "plugin-load-add" || k == "plugin-load";
}

std::map<std::string, std::string> gr_my_cnf_options(const config::failover_group& g,
                                                     std::size_t site_index) {
  if (!is_group_replication(g.spec) || site_index >= g.spec.sites.size()) return {};
  const auto& spec = g.spec;
  const auto gr = spec.replication.group_replication.value_or(config::group_replication_spec{});
  const auto& site = spec.sites[site_index];
  const std::string address = gr_member_address(g.metadata.name, g.metadata.namespace_name, site);
  // "loose-": `mysqld --initialize` (the init container) does not load plugins and would refuse
  // the plugin's options as unknown; at a normal start the plugin is loaded and reads them.
  std::map<std::string, std::string> o = {
      // Both in one list: the option map holds one value per key.
      {"plugin-load-add", "mysql_clone.so;group_replication.so"},
      // The operator starts the member (bootstrap once, else a plain START): never the server.
      {"loose-group-replication-start-on-boot", "OFF"},
      {"loose-group-replication-single-primary-mode", "ON"},
      // The MySQL communication stack (as the operator's SET GLOBAL): group communication over
      // the members' MySQL port, authenticated as the recovery account; XCom's IP allowlist
      // (by default the subnets of the pod's own interfaces) would refuse members on other nodes.
      {"loose-group-replication-communication-stack", "MYSQL"},
      {"loose-group-replication-local-address", address},
      {"loose-group-replication-group-seeds", gr_group_seeds(g)},
      {"loose-group-replication-consistency", std::string{config::to_string(gr.consistency)}},
      {"loose-group-replication-exit-state-action", std::string{config::to_string(gr.exit_state_action)}},
      {"loose-group-replication-autorejoin-tries", std::to_string(gr.auto_rejoin_tries)},
      // How the others (distributed recovery, the member table) reach this member's mysqld.
      {"report-host", address.substr(0, address.rfind(':'))},
      {"report-port", std::to_string(mysql_port)},
  };
  // A pinned name is known before the first bootstrap; a generated one is set by the operator
  // (SET GLOBAL before every START), so the file does not change when it is generated.
  if (!gr.group_name.empty()) o["loose-group-replication-group-name"] = gr.group_name;
  // TLS of the group communication and the recovery channel: the same values as the operator's
  // SET GLOBAL (spec.tls verifies against the CA the pods mount; spec.replication.tls encrypts).
  const std::string ca = spec.tls ? config::effective_mysql_ca_file(*spec.tls) : "";
  for (const auto& t : gr_tls_settings(spec.replication.tls, ca)) {
    std::string key = "loose-" + t.variable;
    std::replace(key.begin(), key.end(), '_', '-');
    o[key] = t.value;
  }
  return o;
}

}  // namespace br::render
