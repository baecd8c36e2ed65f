// Process kubelet (tests): a SIMULATION of the CNI plugin and kube-proxy. One bridge "brk0"
// (10.244.0.1/24) in the host namespace; one network namespace "brkn<i>" per pod, joined by a veth
// pair (host end "brkh<i>", pod end "eth0"), address 10.244.0.<10+i>, default route via the bridge
// (the host, where the operator runs in tests). Services get ClusterIPs 10.244.0.200-250; their
// DNAT rules sit in the nat OUTPUT path of every pod namespace and of the host (chain BRK-SVC), so
// connections are rewritten where they start and no forwarding or masquerading is needed.
// Names never collide with the chaos harness (brc*).
#pragma once

#include <string>
#include <vector>

namespace br::test::kubelet {

inline constexpr const char* bridge_name = "brk0";
inline constexpr const char* gateway_ip = "10.244.0.1";
inline constexpr const char* service_chain = "BRK-SVC";
inline constexpr int max_pods = 100;             // pod indexes 1..100
inline constexpr int first_cluster_ip = 200;     // 10.244.0.200 ..
inline constexpr int last_cluster_ip = 250;

std::string pod_ip(int index);
std::string pod_netns(int index);  ///< "brkn<i>"
std::string cluster_ip(int n);     ///< n = 0.. -> 10.244.0.(200+n)

/// Bridge, address, the host's nat chain and its jump. Idempotent; false + err on failure.
bool setup_host_network(std::string& err);
/// The pod's namespace, veth, address, route, its nat chain with the jump, and `rules` loaded.
bool add_pod_network(int index, const std::string& rules, std::string& err);
void remove_pod_network(int index);
/// Loads an iptables-restore --noflush document in the host (index 0) or a pod namespace.
bool load_rules(int index, const std::string& rules, std::string& err);
/// Removes every brkn* namespace, brkh* link, the bridge, and the host chain with its jumps.
void remove_all_networks();

}  // namespace br::test::kubelet
