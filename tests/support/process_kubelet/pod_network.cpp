// Process kubelet (tests): bridge, pod network namespaces and Service DNAT rules (SIMULATION).
#include "tests/support/process_kubelet/pod_network.hpp"

#include <sstream>

#include "tests/support/process_kubelet/command.hpp"

namespace br::test::kubelet {
namespace {

using namespace std::chrono_literals;

bool step(const std::vector<std::string>& argv, std::string& err, const std::string& input = {}) {
  auto r = run(argv, 10s, input);
  if (r.ok()) return true;
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  err = cmd + ": exit " + std::to_string(r.exit_code) + (r.timed_out ? " (timed out)" : "") + ": " +
        r.output;
  return false;
}

std::vector<std::string> in_ns(int index, std::vector<std::string> argv) {
  if (index == 0) return argv;
  std::vector<std::string> out = {"ip", "netns", "exec", pod_netns(index)};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

/// Adds `-j BRK-SVC` to nat OUTPUT once (host: only for the pod/service /24).
bool ensure_chain(int index, std::string& err) {
  (void)run(in_ns(index, {"iptables", "-w", "5", "-t", "nat", "-N", service_chain}), 10s);
  std::vector<std::string> rule = {"-d", "10.244.0.0/24", "-j", service_chain};
  auto check = in_ns(index, {"iptables", "-w", "5", "-t", "nat", "-C", "OUTPUT"});
  check.insert(check.end(), rule.begin(), rule.end());
  if (run(check, 10s).ok()) return true;
  auto add = in_ns(index, {"iptables", "-w", "5", "-t", "nat", "-A", "OUTPUT"});
  add.insert(add.end(), rule.begin(), rule.end());
  return step(add, err);
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

}  // namespace

std::string pod_ip(int index) { return "10.244.0." + std::to_string(10 + index); }
std::string pod_netns(int index) { return "brkn" + std::to_string(index); }
std::string cluster_ip(int n) { return "10.244.0." + std::to_string(first_cluster_ip + n); }

bool setup_host_network(std::string& err) {
  if (!run({"ip", "link", "show", bridge_name}, 5s).ok()) {
    if (!step({"ip", "link", "add", bridge_name, "type", "bridge"}, err)) return false;
  }
  (void)run({"ip", "addr", "add", std::string(gateway_ip) + "/24", "dev", bridge_name}, 5s);
  if (!step({"ip", "link", "set", bridge_name, "up"}, err)) return false;
  return ensure_chain(0, err);
}

bool add_pod_network(int index, const std::string& rules, std::string& err) {
  const auto ns = pod_netns(index);
  const auto host_end = "brkh" + std::to_string(index);
  remove_pod_network(index);
  if (!step({"ip", "netns", "add", ns}, err)) return false;
  if (!step({"ip", "link", "add", host_end, "type", "veth", "peer", "name", "eth0", "netns", ns}, err))
    return false;
  if (!step({"ip", "link", "set", host_end, "master", bridge_name, "up"}, err)) return false;
  if (!step({"ip", "-n", ns, "link", "set", "lo", "up"}, err)) return false;
  if (!step({"ip", "-n", ns, "addr", "add", pod_ip(index) + "/24", "dev", "eth0"}, err)) return false;
  if (!step({"ip", "-n", ns, "link", "set", "eth0", "up"}, err)) return false;
  if (!step({"ip", "-n", ns, "route", "add", "default", "via", gateway_ip}, err)) return false;
  if (!ensure_chain(index, err)) return false;
  return load_rules(index, rules, err);
}

void remove_pod_network(int index) {
  (void)run({"ip", "netns", "del", pod_netns(index)}, 10s);
  (void)run({"ip", "link", "del", "brkh" + std::to_string(index)}, 5s);
}

bool load_rules(int index, const std::string& rules, std::string& err) {
  return step(in_ns(index, {"iptables-restore", "-w", "5", "--noflush"}), err, rules);
}

void remove_all_networks() {
  for (const auto& l : lines_of(run({"ip", "netns", "list"}, 10s).output)) {
    auto name = l.substr(0, l.find(' '));
    if (name.rfind("brkn", 0) == 0) (void)run({"ip", "netns", "del", name}, 10s);
  }
  for (const auto& l : lines_of(run({"ip", "-o", "link", "show"}, 10s).output)) {
    // "12: brkh3@if2: <...>"
    auto a = l.find(": ");
    if (a == std::string::npos) continue;
    auto name = l.substr(a + 2);
    name = name.substr(0, name.find_first_of("@:"));
    if (name.rfind("brkh", 0) == 0) (void)run({"ip", "link", "del", name}, 5s);
  }
  (void)run({"ip", "link", "del", bridge_name}, 5s);
  for (int i = 0; i < 20; ++i)
    if (!run({"iptables", "-w", "5", "-t", "nat", "-D", "OUTPUT", "-d", "10.244.0.0/24", "-j", service_chain},
             10s)
             .ok())
      break;
  (void)run({"iptables", "-w", "5", "-t", "nat", "-F", service_chain}, 10s);
  (void)run({"iptables", "-w", "5", "-t", "nat", "-X", service_chain}, 10s);
}

}  // namespace br::test::kubelet
