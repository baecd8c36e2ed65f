// kube-sim: the Kubernetes API simulator as a standalone program (manual use with kubectl).
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/kube_sim/simulator.hpp"

int main(int argc, char** argv) {
  br::kube_sim::options o;
  std::string kubeconfig_dir;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--port") {
      o.port = static_cast<std::uint16_t>(std::stoi(next()));
    } else if (a == "--address") {
      o.address = next();
    } else if (a == "--history") {
      o.history_limit = std::stoul(next());
    } else if (a == "--write-kubeconfig") {
      kubeconfig_dir = next();
    } else {
      std::fprintf(stderr,
                   "usage: kube-sim [--port N] [--address A] [--history N] [--write-kubeconfig DIR]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);  // before threads start: only sigwait sees them
  br::kube_sim::simulator sim{o};
  const auto port = sim.start();
  nlohmann::json line = {{"msg", "kube-sim listening"}, {"port", port}, {"url", sim.url()}};
  if (!kubeconfig_dir.empty()) line["kubeconfig"] = sim.write_kubeconfig(kubeconfig_dir);
  std::printf("%s\n", line.dump().c_str());
  std::fflush(stdout);
  int sig = 0;
  sigwait(&set, &sig);
  sim.stop();
  std::printf("%s\n", nlohmann::json{{"msg", "kube-sim stopped"}, {"signal", sig}}.dump().c_str());
  return 0;
}
