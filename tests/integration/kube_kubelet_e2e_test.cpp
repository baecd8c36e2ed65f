// Kubernetes end to end on the process kubelet (issue 19, acceptance 1). The operator's group
// source and status API run in this process against the API simulator; the process kubelet runs
// the pods it renders for real (init container, mysqld 9.7, the real bloodraven-sidecar, each pod
// in its own network namespace; Services and cluster DNS are the kubelet's SIMULATION). Three
// sites on empty PVCs, policy Safe. No test code sets up MySQL: the operator generates the
// credentials, the init containers initialise the servers, the operator bootstraps the group.
// The operator runs under the chart's RBAC (the simulator refuses what it does not grant).
// In order:
//   (1) apply -> the seed is promoted, the other two are brought in, replication healthy;
//   (2) writes through the -primary Service reach every site;
//   (3) kill -9 of the primary's mysqld (its restart held back) -> failover through the real
//       sidecars; the old primary comes back fenced and rejoins;
//   (4) the old primary's PVC is lost -> a new pod on an empty volume -> auto-clone -> replicating;
//   (5) the primary takes writes its replicas never see (MySQL traffic cut), is killed -> failover;
//       it comes back divergent -> RecoveryBlocked -> `kubectl bloodraven reclone` -> cloned,
//       replicating again, its divergent rows gone.
// Phase timings are printed (BOOST_TEST_MESSAGE), never asserted. Needs root (the kubelet).
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "tests/integration/kube_kubelet_fixture.hpp"
#include "tests/support/child_process.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;
using br::test::kubelet_e2e::eventually;
using br::test::kubelet_e2e::log_capture;

namespace {

const std::string group = "ke";
const std::string ns = "default";
const std::vector<std::string> sites = {"a", "b", "c"};
const std::string primary_svc = "mysql-" + group + "-primary.default.svc.cluster.local";

std::string operator_log() { return log_capture::tail(); }

json group_object() {
  json g = br::test::kubelet_e2e::kubelet_group_object(group, sites, "192.0.2.9");
  g["spec"].update({{"failoverCooldown", "2s"},
                    {"relayDrainTimeout", "5s"},
                    {"promotionPolicy", "Safe"},
                    {"promotionGateTimeout", "90s"},
                    {"replication", {{"tls", true}}}});
  return g;
}

struct e2e_fixture : br::test::kubelet_e2e::operator_on_kubelet {
  e2e_fixture() : operator_on_kubelet(::group, ::sites) {}  // not the (unset) members

  /// The active site, which a waiting step expects `s` to replicate from. The scenario has one
  /// failover per fault; another (a false alarm, or a new primary fencing itself) is not the
  /// step's subject but is said, with the status, so it is seen.
  std::string primary_now() {
    auto a = active();
    if (a.empty()) return a;
    if (!last_primary.empty() && a != last_primary)
      BOOST_TEST_MESSAGE("active site changed outside a fault: " << last_primary << " -> " << a
                                                                  << ", status: " << status().dump()
                                                                  << "\noperator's decisions before it:\n"
                                                                  << decisions(60));
    last_primary = a;
    return a;
  }
  std::string last_primary;

  /// The operator's last `n` log lines about site states, evaluations and plans.
  static std::string decisions(size_t n) {
    std::vector<std::string> keep;
    {
      std::lock_guard<std::mutex> g(log_capture::mutex());
      std::istringstream in(log_capture::text());
      for (std::string line; std::getline(in, line);)
        for (const char* k : {"site state changed", "evaluation changed", "initiating", "plan done",
                              "plan failed", "poll", "unreachable", "fenc"})
          if (line.find(k) != std::string::npos) {
            keep.push_back(line);
            break;
          }
    }
    std::string out;
    for (size_t i = keep.size() > n ? keep.size() - n : 0; i < keep.size(); ++i) out += keep[i] + "\n";
    return out;
  }

  std::string rows(const std::string& s) { return qs(s, "SELECT COUNT(*) FROM app.t"); }

  /// What the cluster looks like, for a failure message. Boost.Test evaluates a message's
  /// operands even when the check passes, so this returns a handle that is only rendered when
  /// the message is printed (its gdb stack dump stops the process for a minute).
  struct description {
    e2e_fixture* f;
    friend std::ostream& operator<<(std::ostream& os, const description& d) { return os << d.f->describe_now(); }
  };
  description describe() { return {this}; }

  std::string describe_now() {
    std::string out = "status: " + status().dump() + "\n";
    for (const auto& s : sites) {
      auto m = kubelet->container(dep(s), "mysql");
      out += s + ": pod " + kubelet->pod_name(dep(s)) + " ip " + pod_ip(s) + " mysql " +
             (m ? std::to_string(m->pid) + " restarts " + std::to_string(m->restarts) + " " +
                      m->waiting_reason + " " + m->waiting_message
                : "none") +
             "\n";
    }
    return out + "kubelet: " + kubelet->error() + "\nthreads:\n" + threads() + stacks() +
           "operator log tail:\n" + operator_log();
  }

  /// Every thread's stack, taken by gdb attached to this process (when gdb is installed): the
  /// full dump goes to a file, the frames of our own code are returned.
  std::string stacks() {
    if (!std::filesystem::exists("/usr/bin/gdb")) return "";
    // Outside the test's temporary directory, which goes with the test.
    const auto file = std::filesystem::temp_directory_path() /
                      ("br-e2e-stacks-" + std::to_string(::getpid()) + "-" + std::to_string(++stack_dumps) + ".txt");
    // Into a file, not a pipe: this process, stopped by gdb, could not read a pipe gdb fills.
    br::test::child_process g("/bin/sh", {"-c", "exec /usr/bin/gdb -p " + std::to_string(::getpid()) +
                                                    " -batch -ex 'set pagination off' -ex 'thread apply all bt' >" +
                                                    file.string() + " 2>&1"});
    g.wait_exit(180s);
    std::string out = "stacks (full: " + file.string() + "):\n";
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);)
      if (line.starts_with("Thread ") || (line.find(" br::") != std::string::npos &&
                                          line.find("kube_kubelet_e2e_test.cpp") == std::string::npos))
        out += "  " + line.substr(0, 220) + "\n";
    return out;
  }
  int stack_dumps = 0;

  /// This process's threads (name, kernel wait channel, current syscall): when the operator
  /// stops writing status, which of its threads are blocked and where.
  static std::string threads() {
    std::string out;
    std::error_code ec;
    for (const auto& t : std::filesystem::directory_iterator("/proc/self/task", ec)) {
      auto read = [&](const char* f) {
        std::ifstream in(t.path() / f);
        std::string v;
        std::getline(in, v);
        return v;
      };
      out += "  " + t.path().filename().string() + " " + read("comm") + " wchan=" + read("wchan") +
             " syscall=" + read("syscall").substr(0, 24) + "\n";
    }
    return out;
  }

  /// `kubectl bloodraven <args>` with the simulator's kubeconfig and the plugin on PATH.
  std::pair<int, std::string> kubectl_bloodraven(std::vector<std::string> args) {
    const auto bin = dir.path / "bin";
    std::filesystem::create_directories(bin);
    if (!std::filesystem::exists(bin / "kubectl-bloodraven"))
      std::filesystem::create_symlink(std::string(std::getenv("BR_SOURCE_DIR")) + "/tools/kubectl-bloodraven",
                                      bin / "kubectl-bloodraven");
    const auto kubeconfig = sim.write_kubeconfig(dir.path.string());
    // kubectl takes no flags before a plugin's name; the plugin passes these on to kubectl.
    args.insert(args.begin(), {"bloodraven", "--kubeconfig", kubeconfig, "--cache-dir",
                               (dir.path / "cache").string(), "-n", ns});
    br::test::child_process p("/usr/bin/kubectl", args,
                              {{"HOME", dir.path.string()},
                               {"PATH", bin.string() + ":/usr/local/bin:/usr/bin:/bin"}});
    auto code = p.wait_exit(60s);
    return {code.value_or(-1), p.output()};
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_kubelet_e2e, e2e_fixture)

BOOST_AUTO_TEST_CASE(empty_pvcs_to_bootstrap_failover_auto_clone_and_reclone) {
  auto crds = cluster.install_crds();
  BOOST_TEST_REQUIRE(crds.empty(), crds);

  // -- (1) apply: bootstrap from empty PVCs ------------------------------------------------------
  auto t0 = std::chrono::steady_clock::now();
  {
    auto made = c->create(mfg_resource, ns, group_object());
    BOOST_TEST_REQUIRE(made.ok(), "create the group: " << (made.ok() ? "" : made.error().describe()));
    // BR_E2E_RECONCILER_VERSION=5 (showing the test fails on the old rendering): the group
    // as an operator before version 6 left it, so it keeps being rendered at that version.
    if (const char* v = std::getenv("BR_E2E_RECONCILER_VERSION")) {
      json obj = *made;
      obj["status"] = {{"reconcileInfo", {{"reconcilerVersion", std::stoi(v)}, {"generation", 1}}}};
      BOOST_TEST_REQUIRE(c->update_status(mfg_resource, obj).ok());
    }
  }
  start();
  BOOST_TEST_REQUIRE(eventually([&] { return status().value("bootstrap", json::object()).value("phase", "") == "Done"; }, 420s),
                     "no bootstrap: " << describe());
  phase("apply to bootstrap Done", t0);
  BOOST_TEST_MESSAGE("status.bootstrap: " << status()["bootstrap"].dump());
  const std::string first = active();
  BOOST_TEST_REQUIRE(!first.empty(), describe());
  BOOST_TEST(qs(first, "SELECT CONCAT(@@read_only, @@super_read_only)") == "00");
  std::vector<std::string> others;
  for (const auto& s : sites)
    if (s != first) others.push_back(s);
  for (const auto& s : others) {
    BOOST_TEST(qs(s, "SELECT @@super_read_only") == "1", s);
    BOOST_TEST(eventually([&] { return replicating_ok(s, first); }, 60s), s << " not replicating: " << describe());
  }

  // -- (2) writes through the -primary Service ---------------------------------------------------
  BOOST_TEST_REQUIRE(eventually([&] { return q(primary_svc, "SELECT @@hostname") != ""; }, 60s), describe());
  q(primary_svc, "CREATE DATABASE app");
  q(primary_svc, "CREATE TABLE app.t (id INT PRIMARY KEY, v VARCHAR(20))");
  for (int k = 1; k <= 100; ++k) q(primary_svc, "INSERT INTO app.t VALUES (" + std::to_string(k) + ", 'one')");
  BOOST_TEST_REQUIRE(rows(first) == "100");
  for (const auto& s : others)
    BOOST_TEST(eventually([&] { return rows(s) == "100"; }, 60s), s << ": " << rows(s));

  // -- (3) kill -9 of the primary's mysqld: failover through the real sidecars ---------------
  const auto killed = *kubelet->container(dep(first), "mysql");
  BOOST_TEST_REQUIRE(killed.pid > 0);
  kubelet->hold_restart(dep(first), "mysql", 120s);
  auto t3 = std::chrono::steady_clock::now();
  ::kill(killed.pid, SIGKILL);
  BOOST_TEST_REQUIRE(eventually([&] { auto a = active(); return !a.empty() && a != first; }, 120s),
                     "no failover away from " << first << ": " << describe());
  phase("kill -9 to a new activeSite", t3);
  const std::string second = active();
  last_primary = second;
  BOOST_TEST(eventually([&] { return qs(second, "SELECT CONCAT(@@read_only, @@super_read_only)") == "00"; }, 30s));
  BOOST_TEST(rows(second) == "100");
  BOOST_TEST_MESSAGE("gate: " << (operator_log().find("gate rule 2") != std::string::npos ? "rule 2 seen" : "rule 2 not seen"));
  BOOST_TEST(eventually([&] { return q(primary_svc, "SELECT @@super_read_only") == "0"; }, 60s),
             "-primary does not lead to the new primary: " << describe());
  for (int k = 101; k <= 150; ++k) q(primary_svc, "INSERT INTO app.t VALUES (" + std::to_string(k) + ", 'two')");
  BOOST_TEST(rows(second) == "150");
  kubelet->hold_restart(dep(first), "mysql", 0ms);
  BOOST_TEST(eventually([&] { return replicating_ok(first, primary_now()) && rows(first) == "150"; }, 180s),
             "the old primary did not rejoin: " << describe());
  BOOST_TEST(qs(first, "SELECT @@super_read_only") == "1");

  // -- (4) the old primary's PVC is lost: auto-clone ------------------------------------------
  auto t4 = std::chrono::steady_clock::now();
  const auto lost_pod = kubelet->pod_name(dep(first));
  kubelet->lose_pvc(pvc(first));
  BOOST_TEST_REQUIRE(eventually([&] { auto p = kubelet->pod_name(dep(first)); return !p.empty() && p != lost_pod; }, 60s));
  BOOST_TEST(eventually([&] { return replicating_ok(first, primary_now()) && rows(first) == "150"; }, 300s),
             "no auto-clone of the empty " << first << ": " << describe());
  phase("lost PVC to replicating again", t4);
  BOOST_TEST(qs(first, "SELECT STATE FROM performance_schema.clone_status") == "Completed");
  BOOST_TEST(qs(first, "SELECT @@super_read_only") == "1");
  BOOST_TEST_MESSAGE("status.bootstrap after the lost PVC: " << status().value("bootstrap", json::object()).dump());
  BOOST_TEST(status().value("bootstrap", json::object()).value("source", "") == "auto-clone");

  // -- (5) a divergent old primary, recloned through kubectl bloodraven ----------------------
  const std::string cut = primary_now();
  BOOST_TEST_REQUIRE(!cut.empty());
  std::vector<std::string> replica_ips;
  for (const auto& s : sites)
    if (s != cut) replica_ips.push_back(pod_ip(s));
  BOOST_TEST_REQUIRE(kubelet->cut_mysql(dep(cut), replica_ips, true), kubelet->error());
  for (int k = 1001; k <= 1005; ++k)
    BOOST_TEST(q(primary_svc, "INSERT INTO app.t VALUES (" + std::to_string(k) + ", 'lost')") == "");
  BOOST_TEST_REQUIRE(rows(cut) == "155");
  const auto killed2 = *kubelet->container(dep(cut), "mysql");
  kubelet->hold_restart(dep(cut), "mysql", 120s);
  auto t5 = std::chrono::steady_clock::now();
  ::kill(killed2.pid, SIGKILL);
  BOOST_TEST_REQUIRE(eventually([&] { auto a = active(); return !a.empty() && a != cut; }, 120s),
                     "no failover away from " << cut << ": " << describe());
  phase("kill -9 of the cut-off primary to a new activeSite", t5);
  const std::string third = active();
  last_primary = third;
  BOOST_TEST(rows(third) == "150");  // the five never left the old primary
  BOOST_TEST_REQUIRE(kubelet->cut_mysql(dep(cut), replica_ips, false), kubelet->error());
  kubelet->hold_restart(dep(cut), "mysql", 0ms);
  BOOST_TEST_REQUIRE(eventually([&] { return site_status(cut).value("recoveryState", "") == "RecoveryBlocked"; }, 180s),
                     cut << " not blocked as divergent: " << describe());
  BOOST_TEST(!site_status(cut).value("divergentGtid", "").empty());
  BOOST_TEST(rows(cut) == "155");  // kept, never overwritten without a request
  BOOST_TEST(qs(cut, "SELECT @@super_read_only") == "1");
  auto t6 = std::chrono::steady_clock::now();
  auto [rc, out] = kubectl_bloodraven({"reclone", cut, "-g", group});
  BOOST_TEST_MESSAGE("kubectl bloodraven reclone: " << out);
  BOOST_TEST_REQUIRE(rc == 0, "kubectl bloodraven reclone: " << out);
  BOOST_TEST(eventually([&] { return replicating_ok(cut, primary_now()) && rows(cut) == "150"; }, 300s),
             "no reclone of " << cut << ": " << describe());
  phase("kubectl bloodraven reclone to replicating", t6);
  BOOST_TEST(qs(cut, "SELECT COUNT(*) FROM app.t WHERE v = 'lost'") == "0");
  BOOST_TEST(eventually([&] { return site_status(cut).value("recoveryState", "") != "RecoveryBlocked"; }, 60s),
             describe());
  for (int k = 2001; k <= 2010; ++k) q(primary_svc, "INSERT INTO app.t VALUES (" + std::to_string(k) + ", 'three')");
  for (const auto& s : sites)
    BOOST_TEST(eventually([&] { return rows(s) == "160"; }, 60s), s << ": " << rows(s));
}

BOOST_AUTO_TEST_SUITE_END()
