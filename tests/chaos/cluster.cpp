// Chaos harness: building, faulting and tearing down the 3-site group (see cluster.hpp).
#include "tests/chaos/cluster.hpp"

#include "actors/common/key_dir.hpp"

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "io/http/client.hpp"
#include "tests/support/child_process.hpp"

using namespace std::chrono_literals;

namespace br::chaos {

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string source_dir() { return env_or("BR_SOURCE_DIR", "."); }

std::string sandbox_dir() { return env_or("BR_SANDBOX_DIR", source_dir() + "/.sandbox"); }

}  // namespace

int cluster::first_instance() {
  static const int first = [] {
    auto v = env_or("BR_CHAOS_FIRST_INSTANCE", "31");
    int n = std::atoi(v.c_str());
    return n >= 1 && n <= 990 ? n : 31;
  }();
  return first;
}

int cluster::site_index(const std::string& name) {
  for (int k = 0; k < sites; ++k)
    if (site_name(k) == name) return k;
  return -1;
}

std::string cluster::operator_url() const {
  return api_scheme() + host_addr_ + ":" + std::to_string(operator_port_);
}

std::string cluster::socket_path(int k) const {
  return sandbox_dir() + "/root/run/mysqld/" + std::to_string(instance(k)) + ".sock";
}

void cluster::note(const std::string& line) {
  std::ofstream(dir_ + "/events.log", std::ios::app) << now_ms() << " " << line << "\n";
}

void cluster::net(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"/bin/bash", source_dir() + "/tests/chaos/chaos_net.sh"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run(argv, 60s);
  if (r.exit_code != 0) {
    std::string cmd;
    for (const auto& a : args) cmd += " " + a;
    throw std::runtime_error("chaos_net.sh" + cmd + " failed: " + r.output);
  }
  if (!args.empty() && args[0] == "up") {
    std::istringstream in(r.output);
    std::string word;
    while (in >> word) {
      if (word == "host") {
        in >> host_addr_;
      } else if (word == "site") {
        int k = 0;
        std::string ns_kw, ns, addr_kw, addr;
        in >> k >> ns_kw >> ns >> addr_kw >> addr;
        if (k >= 1 && k <= sites) {
          netns_[k - 1] = ns;
          addr_[k - 1] = addr;
        }
      }
    }
  }
}

void cluster::setup_network() {
  net({"sweep"});  // what crashed runs left behind
  net({"up", std::to_string(run_id_), std::to_string(sites)});
  if (host_addr_.empty() || addr_[sites - 1].empty())
    throw std::runtime_error("chaos_net.sh up printed no addresses");
}

void cluster::teardown_network() noexcept {
  try {
    std::vector<std::string> argv{"/bin/bash", source_dir() + "/tests/chaos/chaos_net.sh", "down",
                                  std::to_string(run_id_)};
    run(argv, 60s);
  } catch (...) {
  }
}

void cluster::write_group_file() {
  std::ostringstream y;
  if (p_.gr) {
    // Group Replication: the async-only knobs (cooldown, gate, promotionPolicy, sidecar) are
    // refused in this mode, so none is written; the sidecars get the operator's address by env.
    y << "apiVersion: shipstream.io/v1alpha1\n"
         "kind: MysqlFailoverGroup\n"
         "metadata: {name: g, namespace: chaos}\n"
         "spec:\n"
      << "  pollInterval: " << p_.poll_interval << "\n"
      << "  replication:\n"
         "    user: repl\n"
         "    password: replpw\n"
         "    mode: groupReplication\n"
      << "    groupReplication: {groupName: " << chaos_gr_group_name << "}\n"
      << "  sites:\n";
    for (int k = 0; k < sites; ++k)
      y << "    - {name: " << site_name(k) << ", address: {host: " << addr_[k]
        << ", port: " << mysql_port_[k] << "}, sidecarAddress: \"" << addr_[k] << ":"
        << sidecar_port_ << "\", groupReplication: {localAddress: \"" << addr_[k] << ":"
        << mysql_port_[k] << "\"}}\n";
    group_file_ = dir_ + "/group.yaml";
    std::ofstream(group_file_) << y.str();
    return;
  }
  y << "apiVersion: shipstream.io/v1alpha1\n"
       "kind: MysqlFailoverGroup\n"
       "metadata: {name: g, namespace: chaos}\n"
       "spec:\n"
    << "  pollInterval: " << p_.poll_interval << "\n"
    << "  failureThreshold: " << p_.failure_threshold << "\n"
    << "  failoverCooldown: " << p_.failover_cooldown << "\n"
    << "  promotionPolicy: " << p_.policy << "\n"
    << "  promotionGateTimeout: " << p_.promotion_gate_timeout << "\n"
    << "  replication: {user: repl, password: replpw";
  if (p_.tls) y << ", tls: true";
  if (p_.semisync_k > 0)
    y << ", semiSync: {enabled: true, waitForReplicaCount: " << p_.semisync_k << "}";
  y << "}\n";
  if (p_.tls)  // the CA on this host (the operator's sessions) and as each chrooted mysqld sees it
    y << "  tls: {caFile: \"" << mysql_ca_ << "\", mysqlCaFile: /etc/mysql/tls/ca.crt, "
      << "requireSecureTransport: true}\n";
  if (!p_.prefer_site.empty()) y << "  splitBrainPolicy: {preferSite: " << p_.prefer_site << "}\n";
  if (!p_.relay_drain_timeout.empty()) y << "  relayDrainTimeout: " << p_.relay_drain_timeout << "\n";
  if (!p_.max_lag_wait.empty() || !p_.drain_timeout.empty()) {
    y << "  plannedFailover: {";
    if (!p_.max_lag_wait.empty()) y << "maxLagWait: " << p_.max_lag_wait;
    if (!p_.max_lag_wait.empty() && !p_.drain_timeout.empty()) y << ", ";
    if (!p_.drain_timeout.empty()) y << "drainTimeout: " << p_.drain_timeout;
    y << "}\n";
  }
  y << "  sidecar: {leaseTimeout: " << p_.lease_timeout
    << ", peerCheckInterval: " << p_.peer_check_interval << ", fenceTimeout: " << p_.fence_timeout
    << ", bloodravenAddress: \"" << host_addr_ << ":" << operator_port_ << "\"}\n"
    << "  sites:\n";
  for (int k = 0; k < sites; ++k) {
    std::string role = k < 2 ? "primary-candidate" : p_.third_role;
    y << "    - {name: " << site_name(k) << ", role: " << role << ", address: {host: " << addr_[k]
      << ", port: " << mysql_port_[k] << "}, sidecarAddress: \"" << addr_[k] << ":"
      << sidecar_port_ << "\"}\n";
  }
  group_file_ = dir_ + "/group.yaml";
  std::ofstream(group_file_) << y.str();
}

cluster::cluster(cluster_params p, std::string work_dir) : p_(std::move(p)), dir_(std::move(work_dir)) {
  run_id_ = static_cast<int>(getpid());
  std::filesystem::create_directories(dir_);
  try {
    setup_network();
    for (int k = 0; k < sites; ++k)
      sandbox_.must({"netns", std::to_string(instance(k)), netns_[k], addr_[k]});
    if (p_.tls) setup_tls();
    if (p_.gr) {
      std::vector<std::string> args{"gr-config"};
      for (int k = 0; k < sites; ++k) args.push_back(std::to_string(instance(k)));
      args.insert(args.end(), {"--group-name", chaos_gr_group_name});
      sandbox_.must(args);
    }
    if (p_.semisync_k > 0) {
      std::vector<std::string> args{"semisync-config"};
      for (int k = 0; k < sites; ++k) args.push_back(std::to_string(instance(k)));
      sandbox_.must(args);
    }
    for (int k = 0; k < sites; ++k) {
      sandbox_.reset(instance(k));  // fresh datadir, started inside the namespace, boots fenced
      mysql_port_[k] = sandbox_.port(instance(k));
      sql_[k] = std::make_unique<site_sql>(socket_path(k));
    }
    if (p_.gr) {
      setup_gr_members();
    } else {
      for (int k = 1; k < sites; ++k) {
        sandbox_.replicate(instance(k), instance(0));
        if (p_.tls) verify_replication_tls(k);
      }
      if (!sql(0).exec("CREATE TABLE appdb.chaos_writes (id BIGINT PRIMARY KEY, site VARCHAR(16) "
                       "NOT NULL, t_ms BIGINT NOT NULL)"))
        throw std::runtime_error("create table: " + sql(0).error());
      // Semi-sync: s1 starts with its source side OFF; the operator switches it on when it
      // adopts s1 (SemiSyncSourceOff), as it would for any primary found without it.
    }

    sidecar_port_ = free_port();
    operator_port_ = free_port();
    keys_dir_ = p_.keys_dir;
    if (keys_dir_.empty()) {
      keys_dir_ = dir_ + "/keys";
      std::vector<std::string> names;
      for (int k = 0; k < sites; ++k) names.push_back(site_name(k));
      if (auto err = br::auth::write_key_dir(keys_dir_, names); !err.empty())
        throw std::runtime_error("keys: " + err);
    }
    write_group_file();
    start_operator();
    if (p_.gr) wait_gr_bootstrapped();
    if (!wait_operator_view(site_name(0), 60))
      throw std::runtime_error("the operator never named s1 active; view: " +
                               active_view().dump());
    for (int k = 0; k < sites; ++k) start_sidecar(k);
    // Healthy = every sidecar answers /healthz and the operator still names s1 (a sidecar that
    // fenced s1 at boot would have made it lose the view).
    auto until = std::chrono::steady_clock::now() + 60s;
    for (;;) {
      bool ok = true;
      for (int k = 0; k < sites; ++k)
        ok = ok && http_get(api_scheme() + addr_[k] + ":" +
                                std::to_string(sidecar_port_) + "/healthz",
                            1000ms)
                           .status == 200;
      if (ok) break;
      if (std::chrono::steady_clock::now() > until)
        throw std::runtime_error("sidecars not healthy within 60 s (logs in " + dir_ + ")");
      std::this_thread::sleep_for(200ms);
    }
    std::this_thread::sleep_for(std::chrono::seconds(2));  // a couple of sidecar ticks
    if (!wait_operator_view(site_name(0), 30))
      throw std::runtime_error("s1 lost the active view after the sidecars started: " +
                               active_view().dump());
    note(std::string("cluster up") + (p_.tls ? " (TLS)" : "") + ": host " + host_addr_ + " operator :" + std::to_string(operator_port_) +
         " sidecars :" + std::to_string(sidecar_port_));
  } catch (...) {
    shutdown();
    throw;
  }
}

cluster::~cluster() { shutdown(); }

void cluster::shutdown() noexcept {
  if (down_) return;
  down_ = true;
  try {
    shutdown_all();
  } catch (...) {
  }
  teardown_network();
}

void cluster::shutdown_all() {
  if (operator_) operator_->stop(5s);
  for (auto& s : sidecar_)
    if (s) s->stop(5s);
  for (auto& s : sql_)
    if (s) s->close();
  for (int k = 0; k < sites; ++k) {
    if (p_.gr) sandbox_.run({"gr-stop", std::to_string(instance(k))});  // else shutdown is slow
    sandbox_.run({"stop", std::to_string(instance(k))});
    sandbox_.run({"netns", std::to_string(instance(k)), "none"});
    if (p_.gr) sandbox_.run({"gr-off", std::to_string(instance(k))});  // the next run may be async
    if (p_.semisync_k > 0) sandbox_.run({"semisync-off", std::to_string(instance(k))});
    if (p_.tls) sandbox_.run({"tls-off", std::to_string(instance(k))});  // the next run may be plain
  }
}

void cluster::setup_gr_members() {
  for (int k = 0; k < sites; ++k) {
    // Seen once: a freshly reset server answered without the plugin loaded (its variables
    // unknown). Reset it once more before giving up.
    auto loaded = [&] {
      auto v = sql(k).scalar("SELECT COUNT(*) FROM information_schema.plugins WHERE "
                             "PLUGIN_NAME='group_replication' AND PLUGIN_STATUS='ACTIVE'");
      return v && *v == "1";
    };
    if (!loaded()) {
      note(site_name(k) + ": group_replication plugin not active after reset; resetting again");
      sql(k).close();
      sandbox_.reset(instance(k));
      if (!loaded())
        throw std::runtime_error(site_name(k) + ": the group_replication plugin is not active (" +
                                 sql(k).error() + ")");
    }
    // Sandbox servers boot fenced; the grant is local (no GTID) and fenced again. Expel timeout
    // 0 (persisted in the fresh datadir): the group's election takes about 7 s, not 22 s.
    if (!sql(k).exec("SET GLOBAL super_read_only=OFF") || !sql(k).exec("SET sql_log_bin=0") ||
        !sql(k).exec("GRANT GROUP_REPLICATION_ADMIN ON *.* TO 'bloodraven'@'%'") ||
        !sql(k).exec("SET sql_log_bin=1") || !sql(k).exec("SET GLOBAL super_read_only=ON") ||
        !sql(k).exec("SET PERSIST group_replication_member_expel_timeout=0"))
      throw std::runtime_error("GR setup on " + site_name(k) + ": " + sql(k).error());
    auto st = sql(k).scalar("SELECT IFNULL((SELECT MEMBER_STATE FROM "
                            "performance_schema.replication_group_members WHERE "
                            "MEMBER_ID=@@server_uuid), 'OFFLINE')");
    if (!st || *st != "OFFLINE")
      throw std::runtime_error(site_name(k) + " is not an OFFLINE member: " + st.value_or(sql(k).error()));
  }
}

void cluster::wait_gr_bootstrapped() {
  auto until = std::chrono::steady_clock::now() + 180s;
  for (;;) {
    auto g = gr_status();
    int online = 0;
    if (g.is_object() && g.value("viewKnown", false))
      for (const auto& m : g.value("members", nlohmann::json::array()))
        online += m.is_object() && m.value("state", "") == "ONLINE" ? 1 : 0;
    if (online == sites) break;
    if (std::chrono::steady_clock::now() > until)
      throw std::runtime_error("the operator did not bring 3 members ONLINE within 180 s: " + g.dump());
    std::this_thread::sleep_for(500ms);
  }
  // The table, on the bootstrapped PRIMARY (s1, the designated member): the group replicates it.
  if (!sql(0).exec("CREATE TABLE appdb.chaos_writes (id BIGINT PRIMARY KEY, site VARCHAR(16) NOT "
                   "NULL, t_ms BIGINT NOT NULL)"))
    throw std::runtime_error("create table on the GR primary: " + sql(0).error());
  note("GR group bootstrapped, 3 ONLINE");
}

nlohmann::json cluster::gr_status() const {
  auto st = status();
  if (!st.is_object() || !st.contains("chaos/g") || !st["chaos/g"].is_object()) return nullptr;
  return st["chaos/g"].value("groupReplication", nlohmann::json());
}

bool cluster::wait_operator_view(const std::string& site, int seconds) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < until) {
    auto v = active_view();
    if (v.is_object() && v.value("activeSite", "") == site && v.value("epoch", 0) >= 1) return true;
    std::this_thread::sleep_for(200ms);
  }
  return false;
}

nlohmann::json cluster::active_view() const {
  return get_json(operator_url() + "/active-site?namespace=chaos&group=g");
}

nlohmann::json cluster::status() const { return get_json(operator_url() + "/status"); }

nlohmann::json cluster::events() const { return get_json(operator_url() + "/events"); }

std::vector<std::string> cluster::divergent_sites() const {
  // Either report counts: the site's recoveryState/divergentGtid in /status, or a
  // DataLossDetected / DivergentTransactions event naming it.
  std::set<std::string> out;
  auto st = status();
  if (st.is_object() && st.contains("chaos/g") && st["chaos/g"].is_object())
    for (const auto& s : st["chaos/g"].value("sites", nlohmann::json::array())) {
      if (!s.is_object()) continue;
      auto rs = s.contains("recoveryState") && s["recoveryState"].is_string()
                    ? s["recoveryState"].get<std::string>() : "";
      auto dg = s.contains("divergentGtid") && s["divergentGtid"].is_string()
                    ? s["divergentGtid"].get<std::string>() : "";
      if (rs == "RecoveryBlocked" || !dg.empty()) out.insert(s.value("name", ""));
    }
  auto ev = events();
  if (ev.is_array())
    for (const auto& e : ev) {
      if (!e.is_object()) continue;
      auto reason = e.value("reason", "");
      if (reason == "DataLossDetected" || reason == "DivergentTransactions" ||
          reason == "RecoveryBlocked")
        out.insert(e.value("site", ""));
    }
  out.erase("");
  return {out.begin(), out.end()};
}

std::vector<std::string> cluster::sanitizer_findings() const {
  std::vector<std::string> out;
  std::vector<std::string> logs{"operator.log"};
  for (int k = 0; k < sites; ++k) logs.push_back("sidecar-" + site_name(k) + ".log");
  for (const auto& name : logs) {
    std::ifstream in(dir_ + "/" + name);
    std::string line;
    while (std::getline(in, line))
      if (line.find("ERROR: AddressSanitizer") != std::string::npos ||
          line.find("runtime error:") != std::string::npos) {
        out.push_back(name + ": " + line.substr(0, 240));
        break;
      }
  }
  return out;
}

std::string cluster::stop_processes() {
  std::string bad;
  auto stop_one = [&](process& p, const std::string& what) {
    if (!p.running()) return;
    p.signal(SIGTERM);
    auto code = p.wait_exit_code(10s);
    if (!code) {
      p.kill_and_reap();
      bad += what + " ignored SIGTERM for 10 s; ";
    } else if (*code != 0) {
      bad += what + " exited " + std::to_string(*code) + " on SIGTERM; ";
    }
  };
  if (operator_) stop_one(*operator_, "operator");
  for (int k = 0; k < sites; ++k)
    if (sidecar_[k]) stop_one(*sidecar_[k], "sidecar " + site_name(k));
  return bad;
}

void cluster::start_operator() {
  if (!operator_) operator_ = std::make_unique<process>();
  // BR_CHAOS_OPERATOR_BIN: another operator binary (tools/chaos.sh --mutant-gate-open).
  const char* op_bin = std::getenv("BR_CHAOS_OPERATOR_BIN");
  std::vector<std::string> argv{op_bin && *op_bin ? std::string(op_bin) : br::test::binary_path("bloodraven"),
                                "--standalone", group_file_,
                                "--listen", host_addr_ + ":" + std::to_string(operator_port_),
                                "--metrics-listen", "",
                                "--state-dir", dir_ + "/operator-state",
                                "--mysql-user", "bloodraven"};
  for (auto& a : api_tls_args("operator")) argv.push_back(std::move(a));
  argv.insert(argv.end(), p_.operator_extra_args.begin(), p_.operator_extra_args.end());
  auto env = p_.operator_env;
  env.emplace("BLOODRAVEN_MYSQL_PASSWORD", "bloodravenpw");
  // the group's keys: the operator signs views; the sidecars' acks are checked with their keys
  env.emplace("BLOODRAVEN_KEYS_DIR", keys_dir_);
  operator_->start(argv, env, dir_ + "/operator.log");
  note("operator started pid " + std::to_string(operator_->pid()));
  auto until = std::chrono::steady_clock::now() + 30s;
  while (http_get(operator_url() + "/healthz", 500ms).status != 200) {
    if (!operator_->running() || std::chrono::steady_clock::now() > until)
      throw std::runtime_error("operator did not answer /healthz (log " + dir_ + "/operator.log)");
    std::this_thread::sleep_for(50ms);
  }
}

void cluster::kill_operator() {
  if (!operator_) return;
  note("kill -9 operator pid " + std::to_string(operator_->pid()));
  operator_->kill_and_reap();
}

void cluster::start_sidecar(int k) {
  if (!sidecar_[k]) sidecar_[k] = std::make_unique<process>();
  std::string peers;
  for (int j = 0; j < sites; ++j)
    if (j != k) peers += (peers.empty() ? "" : ",") + addr_[j] + ":" + std::to_string(sidecar_port_);
  std::map<std::string, std::string> env = {
      {"LISTEN_ADDR", addr_[k] + ":" + std::to_string(sidecar_port_)},
      {"MY_SITE", site_name(k)},
      {"POD_NAMESPACE", "chaos"},
      {"FAILOVER_GROUP", "g"},
      {"BLOODRAVEN_ADDRESS", host_addr_ + ":" + std::to_string(operator_port_)},
      {"PEER_ADDRESSES", peers},
      {"PEER_CHECK_INTERVAL", p_.peer_check_interval},
      {"LEASE_TIMEOUT", p_.lease_timeout},
      {"REQUEST_TIMEOUT", p_.request_timeout},
      {"FENCE_TIMEOUT", p_.fence_timeout},
      {"MYSQL_HOST", "127.0.0.1"},  // the site's own loopback: a pod's view of its mysqld
      {"MYSQL_PORT", std::to_string(mysql_port_[k])},
      {"MYSQL_USER", "bloodraven"},
      {"MYSQL_PASSWORD", "bloodravenpw"},
      {"SIDECAR_STATE_DIR", dir_ + "/sidecar-state-" + site_name(k)},
      {"KEYS_DIR", keys_dir_},
  };
  if (p_.tls) env["MYSQL_TLS_CA"] = mysql_ca_;  // its own mysqld verified
  if (p_.gr) {
    env["REPLICATION_MODE"] = "groupReplication";
    env["GR_MEMBERS"] = std::to_string(sites);
    env["GR_GROUP_NAME"] = chaos_gr_group_name;
  }
  for (const auto& [key, v] : p_.sidecar_env) env[key] = v;
  std::filesystem::create_directories(dir_ + "/sidecar-state-" + site_name(k));
  // nsenter execs the sidecar: the PID we hold is the sidecar's own.
  std::vector<std::string> argv{"/usr/bin/nsenter", "--net=/run/netns/" + netns_[k],
                                br::test::binary_path("bloodraven-sidecar")};
  for (auto& a : api_tls_args("site-" + site_name(k))) argv.push_back(std::move(a));  // its API as site k
  sidecar_[k]->start(argv, env, dir_ + "/sidecar-" + site_name(k) + ".log");
  note("sidecar " + site_name(k) + " started pid " + std::to_string(sidecar_[k]->pid()));
}

void cluster::kill_sidecar(int k) {
  if (!sidecar_[k]) return;
  note("kill -9 sidecar " + site_name(k) + " pid " + std::to_string(sidecar_[k]->pid()));
  sidecar_[k]->kill_and_reap();
}

void cluster::kill9_mysqld(int k) {
  // By PID, not `mysql-sandbox kill9`: that one waits for the sandbox's lock, which another
  // user's reset can hold for tens of seconds, moving the fault far from where the scenario put it.
  kill9_mysqld_together({k});
}

void cluster::kill9_mysqld_together(const std::vector<int>& ks) {
  std::vector<pid_t> pids;
  std::string names;
  for (int k : ks) {
    auto out = sandbox_.must({"pid", std::to_string(instance(k))});
    pids.push_back(static_cast<pid_t>(std::stol(out)));
    names += " " + site_name(k);
  }
  for (int k : ks) sql(k).close();
  note("kill -9 mysqld" + names + (ks.size() > 1 ? " (together)" : ""));
  for (auto pid : pids) ::kill(pid, SIGKILL);
  auto until = std::chrono::steady_clock::now() + 20s;
  for (int k : ks)
    while (sandbox_.running(instance(k)) && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(100ms);
}

void cluster::start_mysqld(int k) {
  note("start mysqld " + site_name(k));
  sandbox_.start(instance(k));
}

void cluster::shutdown_mysqld(int k) {
  note("SHUTDOWN mysqld " + site_name(k));
  sql(k).exec("SHUTDOWN");
  sql(k).close();
  auto until = std::chrono::steady_clock::now() + 60s;
  while (sandbox_.running(instance(k)) && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(100ms);
}

void cluster::pause_mysqld(int k) {
  note("SIGSTOP mysqld " + site_name(k));
  sandbox_.pause(instance(k));
}

void cluster::resume_mysqld(int k) {
  note("SIGCONT mysqld " + site_name(k));
  sandbox_.resume(instance(k));
}

void cluster::partition(int k) {
  note("partition " + site_name(k) + " from everything");
  net({"partition", std::to_string(run_id_), std::to_string(k + 1), "all"});
}

void cluster::partition_from(int k, const std::vector<std::string>& addrs) {
  std::vector<std::string> args{"partition", std::to_string(run_id_), std::to_string(k + 1)};
  std::string what;
  for (const auto& a : addrs) {
    args.push_back(a);
    what += " " + a;
  }
  note("partition " + site_name(k) + " from" + what);
  net(args);
}

void cluster::heal(int k) {
  note("heal " + site_name(k));
  net({"heal", std::to_string(run_id_), std::to_string(k + 1)});
}

std::pair<int, std::string> cluster::request_recover(const std::string& value) {
  note("quorum recovery requested: " + value);
  std::vector<std::string> args{"recover", "--operator", operator_url(), "--keys-dir", keys_dir_,
                                "--namespace", "chaos", "--group", "g", value};
  for (auto& a : api_tls_args("operator")) args.push_back(std::move(a));
  br::test::child_process cli(br::test::binary_path("bloodraven"), args, {});
  auto code = cli.wait_exit(20s);
  note("recover answer: " + cli.output());
  return {code.value_or(-1), cli.output()};
}

std::pair<int, std::string> cluster::request_switchover(const std::string& target) {
  note("switchover to " + target + " requested");
  std::vector<std::string> args{"switchover", "--operator", operator_url(), "--keys-dir", keys_dir_,
                                "--namespace", "chaos", "--group", "g", target};
  for (auto& a : api_tls_args("operator")) args.push_back(std::move(a));
  br::test::child_process cli(br::test::binary_path("bloodraven"), args, {});
  auto code = cli.wait_exit(20s);
  note("switchover answer: " + cli.output());
  return {code.value_or(-1), cli.output()};
}

}  // namespace br::chaos
