// Process kubelet (tests): pods of rendered Deployments run for real (see kubelet.hpp).
#include "tests/support/process_kubelet/kubelet.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "tests/support/process_kubelet/command.hpp"
#include "tests/support/process_kubelet/https_probe.hpp"
#include "tests/support/process_kubelet/job_controller.hpp"
#include "tests/support/process_kubelet/pod_config.hpp"
#include "tests/support/process_kubelet/pod_network.hpp"

namespace br::test::kubelet {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using json = nlohmann::json;
using steady = std::chrono::steady_clock;

namespace {

std::string now_rfc3339() {
  char buf[32];
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Rewrites the file in place (same inode): bind mounts of it see the new content.
void write_in_place(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  [[maybe_unused]] auto n = ::write(fd, text.data(), text.size());
  ::close(fd);
}

void write_file(const std::string& path, const std::string& text, int mode) {
  fs::create_directories(fs::path(path).parent_path());
  const auto tmp = path + ".brk-tmp";
  {
    std::ofstream out(tmp, std::ios::trunc | std::ios::binary);
    out << text;
  }
  ::chmod(tmp.c_str(), static_cast<mode_t>(mode));
  ::rename(tmp.c_str(), path.c_str());
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

bool is_mysql_image(const std::string& image) {
  return image.rfind("mysql:", 0) == 0 || image.find("/mysql:") != std::string::npos ||
         image == "mysql";
}
bool is_sidecar_image(const std::string& image) { return image.find("sidecar") != std::string::npos; }
/// The operator's image (bloodraven, not the sidecar's): what backup and restore Jobs run.
bool is_bloodraven_image(const std::string& image) {
  return !is_sidecar_image(image) && image.find("bloodraven") != std::string::npos;
}

const kube::resource_ref jobs_resource{"batch", "v1", "jobs", true};

inline constexpr const char* sandbox_ready_line = "process kubelet: pod sandbox ready";

/// "Job <name>" pods are keyed apart from the Deployments' (whose key is the Deployment name).
std::string job_pod_key(const std::string& pod) { return "job/" + pod; }

/// The container's log since its last start (the kubelet's marker line), for FallbackToLogsOnError.
std::string last_run_log(const std::string& log) {
  const auto at = log.rfind("---- process kubelet: container ");
  if (at == std::string::npos) return log;
  const auto nl = log.find('\n', at);
  return nl == std::string::npos ? "" : log.substr(nl + 1);
}

std::optional<int64_t> security_value(const json& pod_spec, const json& container, const char* key) {
  const json csc = container.value("securityContext", json::object());
  if (csc.contains(key) && csc[key].is_number_integer()) return csc[key].get<int64_t>();
  const json psc = pod_spec.value("securityContext", json::object());
  if (psc.contains(key) && psc[key].is_number_integer()) return psc[key].get<int64_t>();
  return std::nullopt;
}

int port_of(const json& port, const json& container) {
  if (port.is_number_integer()) return port.get<int>();
  if (port.is_string())
    for (const auto& p : container.value("ports", json::array()))
      if (p.value("name", "") == port.get<std::string>()) return p.value("containerPort", 0);
  return 0;
}

/// tcpSocket: connect; httpGet: a 2xx/3xx status (scheme HTTPS: over TLS, unverified). 1 s bound.
bool probe_once(const std::string& ip, const json& probe, const json& container) {
  json action;
  bool http = false;
  if (probe.contains("tcpSocket")) {
    action = probe["tcpSocket"];
  } else if (probe.contains("httpGet")) {
    action = probe["httpGet"];
    http = true;
  } else {
    return false;
  }
  const int port = port_of(action.value("port", json()), container);
  if (port <= 0) return false;
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, ip.c_str(), &a.sin_addr);
  bool ok = false;
  int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  pollfd p{fd, POLLOUT, 0};
  if (rc == 0 || (errno == EINPROGRESS && ::poll(&p, 1, 1000) == 1)) {
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    ok = err == 0;
  }
  if (ok && http && action.value("scheme", std::string{"HTTP"}) == "HTTPS") {
    ok = https_get_ok(fd, ip, action.value("path", "/"));
  } else if (ok && http) {
    ok = false;
    const std::string req = "GET " + action.value("path", "/") + " HTTP/1.1\r\nHost: " + ip +
                            "\r\nConnection: close\r\n\r\n";
    if (::send(fd, req.data(), req.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(req.size())) {
      std::string got;
      const auto deadline = steady::now() + 1s;
      char buf[256];
      while (got.find("\r\n") == std::string::npos && steady::now() < deadline) {
        pollfd r{fd, POLLIN, 0};
        if (::poll(&r, 1, 200) != 1) continue;
        ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        got.append(buf, static_cast<size_t>(n));
      }
      // "HTTP/1.1 200 OK"
      if (got.size() > 12 && got.rfind("HTTP/", 0) == 0) {
        int code = std::atoi(got.c_str() + got.find(' ') + 1);
        ok = code >= 200 && code < 400;
      }
    }
  }
  ::close(fd);
  return ok;
}

void kill_namespace(const std::string& mnt_ns, int sig) {
  for (pid_t pid : pids_in_mount_namespace(mnt_ns)) ::kill(pid, sig);
}

}  // namespace

// ----------------------------------------------------------------------------------------------

struct process_kubelet::pod_state {
  struct container_rt {
    std::string name;
    json spec;
    pid_t pid = -1;
    int restarts = 0;
    bool ever_started = false;
    bool ready = false;
    std::string started_at;
    steady::time_point started{}, next_start{}, next_probe{};
    int backoff_ms = 0;
    int last_exit = -1;
    steady::time_point held_until{};  ///< hold_restart(): no start before this
    std::string waiting_reason = "ContainerCreating", waiting_message;
    std::string log;
    /// Job pods: the file bind-mounted at terminationMessagePath ("" for Deployment pods).
    std::string termination_file;
    /// Exited and not started again (restartPolicy Never, or OnFailure with exit 0).
    bool terminated = false;
    std::string finished_at, message;  ///< of the last exit
  };
  std::string name, deployment;
  std::string job;  ///< the owning Job ("" for a Deployment's pod)
  std::string restart_policy = "Always";
  std::string final_phase;  ///< Succeeded | Failed once every container has terminated
  bool final_written = false;
  int64_t generation = 0;
  int index = 0;
  std::string ip, dir;
  json pod;  // the object we created (spec, metadata at creation)
  pid_t pause = -1;
  std::string mnt_ns;
  bool sandbox_ready = false;
  std::string sandbox_error;
  steady::time_point next_sandbox_try{};
  std::string start_time;
  std::vector<container_rt> containers;
  /// spec.initContainers, run one after the other to completion before `containers`; a failed
  /// one is restarted (backoff) and the pod stays Pending (Init:Error, Init:CrashLoopBackOff).
  std::vector<container_rt> init_containers;
  size_t init_done = 0;
  std::string status_written;
  json labels;  // latest from the API
};

options options::from_test_env() {
  options o;
  const char* src = std::getenv("BR_SOURCE_DIR");
  const char* bin = std::getenv("BR_BINARY_DIR");
  const std::string s = src ? src : ".", b = bin ? bin : "build";
  const char* sb = std::getenv("BR_SANDBOX_DIR");
  o.chroot = (sb ? std::string(sb) : s + "/.sandbox") + "/root";
  o.sidecar_binary = b + "/actors/bloodraven-sidecar";
  o.bloodraven_binary = b + "/actors/bloodraven";
  o.entrypoint_script = s + "/tests/support/process_kubelet/mysql-entrypoint.sh";
  return o;
}

process_kubelet::process_kubelet(std::shared_ptr<kube::client> c, options o)
    : c_(std::move(c)), opts_(std::move(o)) {}

process_kubelet::~process_kubelet() { stop(); }

std::string process_kubelet::error() const {
  std::lock_guard<std::mutex> lk(mx_);
  return error_;
}

void process_kubelet::cleanup(const std::string& state_dir) {
  std::error_code ec;
  // Processes first: every pod's pause process and whatever runs in its mount namespace.
  if (fs::exists(state_dir + "/pods", ec)) {
    for (const auto& d : fs::directory_iterator(state_dir + "/pods", ec)) {
      const auto ns = read_text(d.path().string() + "/mnt_ns");
      const pid_t pause = static_cast<pid_t>(std::atoi(read_text(d.path().string() + "/pause.pid").c_str()));
      if (ns.empty()) continue;
      for (int round = 0; round < 50; ++round) {
        auto pids = pids_in_mount_namespace(ns);
        if (pause > 0 && mount_namespace_of(pause) == ns) ::kill(pause, SIGKILL);
        if (pids.empty()) break;
        for (pid_t p : pids) ::kill(p, SIGKILL);
        ::usleep(100000);
      }
    }
  }
  // Temporary servers daemonize out of the container's process group but stay in its mount
  // namespace: covered above. Then the networks and the host mount points.
  remove_all_networks();
  const auto created = read_text(state_dir + "/host_mountpoints");
  std::vector<std::string> dirs;
  std::istringstream in(created);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) dirs.push_back(l);
  std::sort(dirs.begin(), dirs.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  for (const auto& d : dirs) fs::remove(d, ec);  // mount points: empty directories or files
  fs::remove_all(state_dir, ec);
}

bool process_kubelet::start() {
  cleanup(opts_.state_dir);
  std::error_code ec;
  fs::create_directories(opts_.state_dir + "/pods", ec);
  fs::create_directories(opts_.state_dir + "/pvc", ec);
  fs::create_directories(opts_.state_dir + "/logs", ec);
  fs::create_directories(opts_.state_dir + "/bin", ec);
  std::string err;
  if (!setup_host_network(err)) {
    std::lock_guard<std::mutex> lk(mx_);
    error_ = err;
    return false;
  }
  fs::copy_file(opts_.entrypoint_script, opts_.state_dir + "/bin/entrypoint.sh",
                fs::copy_options::overwrite_existing, ec);
  // The images' binaries as they are now: a build relinking them while pods run (another build
  // on this machine) must not make a container start fail with "No such file or directory".
  fs::create_directories(opts_.binaries_dir, ec);
  for (auto* bin : {&opts_.sidecar_binary, &opts_.bloodraven_binary}) {
    if (bin->empty() || !fs::exists(*bin)) continue;
    const auto copy = opts_.binaries_dir + "/" + fs::path(*bin).filename().string();
    fs::copy_file(*bin, copy, fs::copy_options::overwrite_existing, ec);
    if (!ec) *bin = copy;
  }
  ::chmod((opts_.state_dir + "/bin/entrypoint.sh").c_str(), 0755);
  {
    std::lock_guard<std::mutex> lk(mx_);
    int n = 0;
    for (const auto& hs : opts_.host_services) cluster_ips_[hs.ns + "/" + hs.name] = cluster_ip(n++);
    hosts_ = hosts_text(cluster_ips_);
    write_in_place(hosts_file(), hosts_);
  }
  started_ = true;
  thread_ = std::thread([this] { loop(); });
  return true;
}

void process_kubelet::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (!started_) return;
  started_ = false;
  std::lock_guard<std::mutex> lk(mx_);
  for (auto& [_, p] : pods_) stop_pod(*p, false);
  pods_.clear();
  cleanup(opts_.state_dir);
  std::error_code ec;
  fs::remove_all(opts_.binaries_dir, ec);
}

void process_kubelet::loop() {
  while (!stop_.load()) {
    {
      std::lock_guard<std::mutex> lk(mx_);
      tick();
    }
    std::this_thread::sleep_for(opts_.tick);
  }
}

std::string process_kubelet::pvc_dir(const std::string& claim) const {
  return opts_.state_dir + "/pvc/" + opts_.ns + "/" + claim;
}

void process_kubelet::wipe_pvc(const std::string& claim) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(pvc_dir(claim), ec)) fs::remove_all(e.path(), ec);
}

void process_kubelet::lose_pvc(const std::string& claim) {
  std::lock_guard<std::mutex> lk(mx_);  // no tick in between: nothing restarts on the old data
  for (auto it = pods_.begin(); it != pods_.end();) {
    bool mounts = false;
    for (const auto& v : it->second->pod["spec"].value("volumes", json::array()))
      mounts = mounts || (v.contains("persistentVolumeClaim") &&
                          v["persistentVolumeClaim"].value("claimName", "") == claim);
    if (!mounts) {
      ++it;
      continue;
    }
    auto& p = *it->second;
    // The node is gone: no SIGTERM, no grace, no shutdown writes into the volume.
    for (auto* list : {&p.init_containers, &p.containers})
      for (auto& c : *list)
        if (c.pid > 0) ::kill(-c.pid, SIGKILL);
    kill_namespace(p.mnt_ns, SIGKILL);
    stop_pod(p, true);
    it = pods_.erase(it);
  }
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(pvc_dir(claim), ec)) fs::remove_all(e.path(), ec);
}

void process_kubelet::hold_restart(const std::string& deployment, const std::string& container,
                                   std::chrono::milliseconds until_from_now) {
  std::lock_guard<std::mutex> lk(mx_);
  auto it = pods_.find(deployment);
  if (it == pods_.end()) return;
  for (auto& c : it->second->containers)
    if (c.name == container) c.held_until = steady::now() + until_from_now;
}

bool process_kubelet::cut_mysql(const std::string& deployment, const std::vector<std::string>& peer_ips,
                                bool cut) {
  // Through the pause process's /proc entry, not /run/netns: the caller may be a thread with a
  // private mount namespace (use_cluster_dns) that never sees the netns mounts made after it.
  pid_t pause = -1;
  std::lock_guard<std::mutex> lk(mx_);
  auto it = pods_.find(deployment);
  if (it != pods_.end() && it->second->sandbox_ready) pause = it->second->pause;
  if (pause <= 0) {
    error_ = "cut_mysql: no running pod for " + deployment;
    return false;
  }
  const std::string op = cut ? "-I" : "-D";
  for (const auto& ip : peer_ips)
    for (const std::vector<std::string>& rule :
         {std::vector<std::string>{"INPUT", "-s", ip, "-p", "tcp", "--dport", "3306"},
          std::vector<std::string>{"OUTPUT", "-d", ip, "-p", "tcp", "--sport", "3306"},
          std::vector<std::string>{"INPUT", "-s", ip, "-p", "tcp", "--sport", "3306"},
          std::vector<std::string>{"OUTPUT", "-d", ip, "-p", "tcp", "--dport", "3306"}}) {
      std::vector<std::string> argv = {"nsenter", "-t", std::to_string(pause), "-n", "--",
                                       "iptables", "-w", "5", op};
      argv.insert(argv.end(), rule.begin(), rule.end());
      argv.insert(argv.end(), {"-j", "DROP"});
      auto r = run(argv, 10s);
      if (!r.ok() && cut) {
        error_ = "cut_mysql: exit " + std::to_string(r.exit_code) + ": " + r.output;
        return false;
      }
    }
  return true;
}

int process_kubelet::allocate_index() {
  std::set<int> used;
  for (const auto& [_, p] : pods_) used.insert(p->index);
  for (int i = 1; i <= max_pods; ++i)
    if (!used.contains(i)) return i;
  return -1;
}

std::string process_kubelet::pod_name(const std::string& deployment) const {
  std::lock_guard<std::mutex> lk(mx_);
  auto it = pods_.find(deployment);
  return it == pods_.end() ? "" : it->second->name;
}

std::string process_kubelet::pod_ip(const std::string& deployment) const {
  std::lock_guard<std::mutex> lk(mx_);
  auto it = pods_.find(deployment);
  return it == pods_.end() ? "" : it->second->ip;
}

std::optional<container_view> process_kubelet::container(const std::string& deployment,
                                                         const std::string& name) const {
  std::lock_guard<std::mutex> lk(mx_);
  auto it = pods_.find(deployment);
  if (it == pods_.end()) return std::nullopt;
  for (const auto* list : {&it->second->init_containers, &it->second->containers})
    for (const auto& c : *list)
      if (c.name == name)
        return container_view{c.pid, c.restarts, c.ready, c.waiting_reason, c.waiting_message};
  return std::nullopt;
}

std::string process_kubelet::container_log(const std::string& deployment,
                                           const std::string& name) const {
  std::string path;
  {
    std::lock_guard<std::mutex> lk(mx_);
    auto it = pods_.find(deployment);
    if (it == pods_.end()) return {};
    for (const auto* list : {&it->second->init_containers, &it->second->containers})
      for (const auto& c : *list)
        if (c.name == name) path = c.log;
  }
  return path.empty() ? "" : read_text(path);
}

std::string process_kubelet::job_container_log(const std::string& pod, const std::string& container) const {
  return read_text(opts_.state_dir + "/logs/" + pod + "_" + container + ".log");
}

std::string process_kubelet::service_ip(const std::string& service, const std::string& ns) const {
  std::lock_guard<std::mutex> lk(mx_);
  auto it = cluster_ips_.find((ns.empty() ? opts_.ns : ns) + "/" + service);
  return it == cluster_ips_.end() ? "" : it->second;
}

// ----------------------------------------------------------------------------------------------

void process_kubelet::tick() {
  auto deps = c_->list(kube::resources::deployments, opts_.ns, {}, 3s);
  auto pods = c_->list(kube::resources::pods, opts_.ns, {}, 3s);
  auto secrets = c_->list(kube::resources::secrets, opts_.ns, {}, 3s);
  auto cms = c_->list(kube::resources::configmaps, opts_.ns, {}, 3s);
  auto pvcs = c_->list(kube::resources::pvcs, opts_.ns, {}, 3s);
  auto svcs = c_->list(kube::resources::services, opts_.ns, {}, 3s);
  auto jobs = c_->list(jobs_resource, opts_.ns, {}, 3s);
  for (const auto* r : {&deps, &pods, &secrets, &cms, &pvcs, &svcs, &jobs})
    if (!*r) {
      error_ = "list: " + r->error().describe();
      return;  // next tick
    }
  secrets_ = (*secrets)["items"];
  configmaps_ = (*cms)["items"];
  pvcs_ = (*pvcs)["items"];
  std::map<std::string, json> api_pods;
  for (const auto& p : (*pods)["items"]) api_pods[p["metadata"].value("name", "")] = p;
  std::map<std::string, json> wanted;
  const json managed = {{"app.kubernetes.io/managed-by", "bloodraven"}};
  for (const auto& d : (*deps)["items"])
    if (selector_matches(managed, d["metadata"].value("labels", json::object())))
      wanted[d["metadata"].value("name", "")] = d;
  if (std::getenv("BRK_DEBUG"))
    std::fprintf(stderr, "process kubelet: %zu deployments (%zu managed), %zu pods, %zu of ours, %zu secrets, ns %s, %s\n",
                 (*deps)["items"].size(), wanted.size(), api_pods.size(), pods_.size(), secrets_.size(),
                 opts_.ns.c_str(), c_->cfg().server.c_str());

  // Pods deleted through the API, or whose Deployment is gone: stop them.
  for (auto it = pods_.begin(); it != pods_.end();) {
    auto& p = *it->second;
    const bool gone = !api_pods.contains(p.name);
    const bool orphan = p.job.empty() && !wanted.contains(p.deployment);
    const bool old = p.job.empty() && !orphan &&
                     wanted[p.deployment]["metadata"].value("generation", int64_t{1}) > p.generation;
    if (gone || orphan || old) {
      stop_pod(p, !gone);
      it = pods_.erase(it);
    } else {
      ++it;
    }
  }
  // The Deployment controller: one pod per Deployment, from its current template.
  for (const auto& [name, d] : wanted) {
    const int64_t gen = d["metadata"].value("generation", int64_t{1});
    if (!pods_.contains(name)) {
      const int index = allocate_index();
      if (index < 0) continue;
      const json tmpl = d["spec"].value("template", json::object());
      auto p = std::make_unique<pod_state>();
      p->deployment = name;
      p->generation = gen;
      p->index = index;
      p->ip = kubelet::pod_ip(index);
      p->name = name + "-" + std::to_string(gen) + "-" + std::to_string(++pod_seq_[name]);
      p->labels = tmpl.value("metadata", json::object()).value("labels", json::object());
      json md = {{"name", p->name}, {"namespace", opts_.ns}, {"labels", p->labels}};
      const json ann = tmpl.value("metadata", json::object()).value("annotations", json::object());
      if (!ann.empty()) md["annotations"] = ann;
      md["ownerReferences"] = json::array(
          {{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", name},
            {"uid", d["metadata"].value("uid", "")}, {"controller", true}}});
      p->pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", md},
                {"spec", tmpl.value("spec", json::object())}};
      p->pod["spec"]["nodeName"] = "process-kubelet";
      auto made = c_->create(kube::resources::pods, opts_.ns, p->pod, 3s);
      if (!made && !made.error().already_exists()) {
        error_ = "create pod " + p->name + ": " + made.error().describe();
        continue;
      }
      if (made) api_pods[p->name] = *made;
      p->dir = opts_.state_dir + "/pods/" + p->name;
      for (const char* list : {"initContainers", "containers"})
        for (const auto& cs : p->pod["spec"].value(list, json::array())) {
          pod_state::container_rt c;
          c.name = cs.value("name", "");
          c.spec = cs;
          c.log = opts_.state_dir + "/logs/" + p->name + "_" + c.name + ".log";
          if (list == std::string{"initContainers"}) {
            c.waiting_reason = "PodInitializing";
            p->init_containers.push_back(std::move(c));
          } else {
            if (p->pod["spec"].contains("initContainers")) c.waiting_reason = "PodInitializing";
            p->containers.push_back(std::move(c));
          }
        }
      p->start_time = now_rfc3339();
      pods_[name] = std::move(p);
    }
    // Deployment status: observed, and ready when its pod is.
    auto& p = *pods_[name];
    bool ready = p.sandbox_ready && !p.containers.empty();
    for (const auto& c : p.containers) ready = ready && c.ready;
    json st = {{"observedGeneration", gen}, {"replicas", 1}, {"updatedReplicas", 1},
               {"readyReplicas", ready ? 1 : 0}, {"availableReplicas", ready ? 1 : 0}};
    if (!ready) st["unavailableReplicas"] = 1;
    if (deployment_status_written_[name] != st.dump() || d.value("status", json::object()) != st) {
      json obj = d;
      obj["status"] = st;
      if (c_->update_status(kube::resources::deployments, obj, 3s))
        deployment_status_written_[name] = st.dump();
    }
  }
  run_jobs((*jobs)["items"], api_pods);
  for (auto& [_, p] : pods_) {
    auto it = api_pods.find(p->name);
    if (it == api_pods.end()) continue;
    p->labels = it->second["metadata"].value("labels", json::object());
    run_pod(*p, it->second);
  }
  // Job pods that ended, their final status written: processes and network go, the object stays.
  for (auto it = pods_.begin(); it != pods_.end();) {
    if (it->second->final_written) {
      stop_pod(*it->second, false);
      it = pods_.erase(it);
    } else {
      ++it;
    }
  }
  sync_services((*svcs)["items"]);
}

void process_kubelet::run_jobs(const json& jobs, std::map<std::string, json>& api_pods) {
  static constexpr char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";  // as generateName's
  const auto now = std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now());
  for (const auto& job : jobs) {
    if (job["metadata"].contains("deletionTimestamp")) continue;
    const std::string uid = job["metadata"].value("uid", "");
    std::vector<json> owned;
    for (const auto& [_, p] : api_pods)
      if (owned_by(p, uid)) owned.push_back(p);
    std::string suffix;
    for (int i = 0; i < 5; ++i) suffix += alphabet[random_() % (sizeof alphabet - 1)];
    const auto step = decide_job(job, owned, now, suffix, opts_.jobs);
    const std::string name = job["metadata"].value("name", "");
    if (!step.unsupported.empty()) {
      error_ = "job " + name + ": " + step.unsupported;
      continue;
    }
    for (const auto& pod : step.remove) {
      kube::delete_options d;
      d.propagation_policy = "Background";
      (void)c_->remove(kube::resources::pods, opts_.ns, pod, d, 3s);  // next tick stops it
    }
    if (step.create) {
      auto made = c_->create(kube::resources::pods, opts_.ns, *step.create, 3s);
      if (!made) {
        error_ = "create pod of job " + name + ": " + made.error().describe();
        continue;  // no status claiming an active pod
      }
      api_pods[(*made)["metadata"].value("name", "")] = *made;
    }
    if (job.value("status", json::object()) != step.status) {
      json obj = job;
      obj["status"] = step.status;
      auto r = c_->update_status(jobs_resource, obj, 3s);
      if (!r) error_ = "job " + name + " status: " + r.error().describe();
    }
  }
  // The kubelet's side: the Job pods bound to this node that it does not run yet.
  for (const auto& [name, p] : api_pods) {
    if (p.value("spec", json::object()).value("nodeName", "") != opts_.jobs.node_name) continue;
    bool of_job = false;
    for (const auto& r : p["metadata"].value("ownerReferences", json::array()))
      of_job = of_job || r.value("kind", "") == "Job";
    const std::string phase = p.value("status", json::object()).value("phase", "");
    if (!of_job || phase == "Succeeded" || phase == "Failed" || p["metadata"].contains("deletionTimestamp") ||
        pods_.contains(job_pod_key(name)))
      continue;
    adopt_job_pod(p);
  }
}

void process_kubelet::adopt_job_pod(const json& api_pod) {
  const int index = allocate_index();
  if (index < 0) return;
  auto p = std::make_unique<pod_state>();
  p->name = api_pod["metadata"].value("name", "");
  for (const auto& r : api_pod["metadata"].value("ownerReferences", json::array()))
    if (r.value("kind", "") == "Job") p->job = r.value("name", "");
  p->index = index;
  p->ip = kubelet::pod_ip(index);
  p->labels = api_pod["metadata"].value("labels", json::object());
  p->pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", api_pod["metadata"]}, {"spec", api_pod["spec"]}};
  p->restart_policy = api_pod["spec"].value("restartPolicy", "Always");
  p->dir = opts_.state_dir + "/pods/" + p->name;
  for (const char* list : {"initContainers", "containers"})
    for (const auto& cs : p->pod["spec"].value(list, json::array())) {
      pod_state::container_rt c;
      c.name = cs.value("name", "");
      c.spec = cs;
      c.log = opts_.state_dir + "/logs/" + p->name + "_" + c.name + ".log";
      c.termination_file = p->dir + "/termination/" + c.name;
      if (list == std::string{"initContainers"}) {
        c.waiting_reason = "PodInitializing";
        p->init_containers.push_back(std::move(c));
      } else {
        if (p->pod["spec"].contains("initContainers")) c.waiting_reason = "PodInitializing";
        p->containers.push_back(std::move(c));
      }
    }
  p->start_time = now_rfc3339();
  pods_[job_pod_key(p->name)] = std::move(p);
}

void process_kubelet::run_pod(pod_state& p, const json& api_pod) {
  const auto now = steady::now();
  if (!p.final_phase.empty()) {  // ended: only its final status is left to write
    p.final_written = write_pod_status(p, api_pod);
    return;
  }
  // An exit that is not followed by a start (restartPolicy Never/OnFailure): the container's
  // termination message and time.
  auto terminate = [&](pod_state::container_rt& c, int rc) {
    c.terminated = true;
    c.finished_at = now_rfc3339();
    if (!c.termination_file.empty())
      c.message = termination_message(read_text(c.termination_file), last_run_log(read_text(c.log)),
                                      c.spec.value("terminationMessagePolicy", "File"), rc);
  };
  if (!p.sandbox_ready) {
    if (now < p.next_sandbox_try) return;
    std::string err;
    if (!create_sandbox(p, err)) {
      p.sandbox_error = err;
      for (auto& c : p.containers) {
        c.waiting_reason = "ContainerCreating";
        c.waiting_message = err;
      }
      p.next_sandbox_try = now + 2s;
      write_pod_status(p, api_pod);
      return;
    }
    p.sandbox_ready = true;
  }
  // A running pod's ConfigMap/Secret/projected volumes follow their sources in place (the files
  // the containers see change; nothing restarts), as the kubelet's periodic volume sync does.
  refresh_projected_volumes(p);
  while (p.init_done < p.init_containers.size()) {
    auto& c = p.init_containers[p.init_done];
    if (c.pid > 0) {
      const int rc = reap(c.pid);
      if (rc < 0) break;  // still running
      c.pid = -1;
      c.last_exit = rc;
      if (rc == 0) {
        c.waiting_reason = "Completed";
        c.waiting_message.clear();
        ++p.init_done;
        continue;
      }
      if (!restarts_after_exit(p.restart_policy, rc)) {  // Never: the pod fails
        terminate(c, rc);
        p.final_phase = "Failed";
        p.final_written = write_pod_status(p, api_pod);
        return;
      }
      ++c.restarts;
      c.backoff_ms = c.backoff_ms == 0 ? 500 : std::min(8000, c.backoff_ms * 2);
      c.next_start = now + std::chrono::milliseconds(c.backoff_ms);
      c.waiting_reason = c.restarts > 1 ? "CrashLoopBackOff" : "Error";
      c.waiting_message = "exited with " + std::to_string(rc);
    }
    if (c.pid < 0 && now >= c.next_start) start_container(p, true, p.init_done);
    break;
  }
  if (p.init_done < p.init_containers.size()) {
    write_pod_status(p, api_pod);
    return;
  }
  for (size_t i = 0; i < p.containers.size(); ++i) {
    auto& c = p.containers[i];
    if (c.pid > 0) {
      const int rc = reap(c.pid);
      if (rc >= 0) {
        c.pid = -1;
        c.ready = false;
        c.last_exit = rc;
        if (!restarts_after_exit(p.restart_policy, rc)) {
          terminate(c, rc);
          continue;
        }
        if (!c.termination_file.empty())  // OnFailure: the failed run's message, as lastState
          c.message = termination_message(read_text(c.termination_file), last_run_log(read_text(c.log)),
                                          c.spec.value("terminationMessagePolicy", "File"), rc);
        c.finished_at = now_rfc3339();
        ++c.restarts;
        const bool ran_long = now - c.started > 30s;
        c.backoff_ms = ran_long || c.backoff_ms == 0 ? 500 : std::min(8000, c.backoff_ms * 2);
        c.next_start = now + std::chrono::milliseconds(c.backoff_ms);
        c.waiting_reason = "CrashLoopBackOff";
        c.waiting_message = "exited with " + std::to_string(rc);
      }
    }
    if (c.pid < 0 && !c.terminated && now >= c.next_start && now >= c.held_until)
      start_container(p, false, i);
  }
  bool all_ended = !p.containers.empty(), all_ok = true;
  for (const auto& c : p.containers) {
    all_ended = all_ended && c.terminated;
    all_ok = all_ok && c.last_exit == 0;
  }
  if (all_ended) {
    p.final_phase = all_ok ? "Succeeded" : "Failed";
    p.final_written = write_pod_status(p, api_pod);
    return;
  }
  probe(p);
  write_pod_status(p, api_pod);
}

bool process_kubelet::project_files(pod_state& p, const json& v, const pod_refs& refs, bool changed_only,
                                    std::string& err) {
  const auto name = v.value("name", "");
  const auto dir = p.dir + "/vol/" + name;
  const auto fs_group = security_value(p.pod["spec"], json::object(), "fsGroup");
  auto files = v.contains("projected") ? project_projected(v, p.pod, refs) : project_volume(v, refs);
  if (!files.error.empty()) {
    err = "MountVolume.SetUp failed for volume \"" + name + "\": " + files.error;
    return false;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  ::chmod(dir.c_str(), 0755);
  for (const auto& f : files.files) {
    const auto path = dir + "/" + f.path;
    if (changed_only && fs::exists(path) && read_text(path) == f.content) continue;
    // With fsGroup the kubelet makes a projected volume's files group-owned by it and
    // group-readable (its volume ownership for read-only volumes: mode | 0440). Written to a
    // temporary file and renamed: a reader sees the old file or the new one, never a part.
    write_file(path, f.content, fs_group ? f.mode | 0440 : f.mode);
    if (fs_group) ::chown(path.c_str(), static_cast<uid_t>(-1), static_cast<gid_t>(*fs_group));
    if (changed_only) ++volume_updates_;
  }
  return true;
}

void process_kubelet::refresh_projected_volumes(pod_state& p) {
  pod_refs refs;
  for (const auto& s : secrets_) refs.secrets[s["metadata"].value("name", "")] = s;
  for (const auto& c : configmaps_) refs.configmaps[c["metadata"].value("name", "")] = c;
  for (const auto& v : p.pod["spec"].value("volumes", json::array())) {
    if (!v.contains("configMap") && !v.contains("secret") && !v.contains("projected")) continue;
    std::string err;  // a source gone or incomplete: the files stay as they were (as the kubelet)
    (void)project_files(p, v, refs, true, err);
  }
}

bool process_kubelet::materialise_volumes(pod_state& p, std::string& err) {
  pod_refs refs;
  for (const auto& s : secrets_) refs.secrets[s["metadata"].value("name", "")] = s;
  for (const auto& c : configmaps_) refs.configmaps[c["metadata"].value("name", "")] = c;
  const json spec = p.pod["spec"];
  const auto fs_group = security_value(spec, json::object(), "fsGroup");
  std::error_code ec;
  for (const auto& v : spec.value("volumes", json::array())) {
    const auto name = v.value("name", "");
    const auto dir = p.dir + "/vol/" + name;
    if (v.contains("persistentVolumeClaim")) {
      const auto claim = v["persistentVolumeClaim"].value("claimName", "");
      bool exists = false;
      for (const auto& pvc : pvcs_) exists = exists || pvc["metadata"].value("name", "") == claim;
      if (!exists) {
        err = "persistentvolumeclaim \"" + claim + "\" not found";
        return false;
      }
      fs::create_directories(pvc_dir(claim), ec);
      if (fs_group) {
        ::chown(pvc_dir(claim).c_str(), static_cast<uid_t>(-1), static_cast<gid_t>(*fs_group));
        ::chmod(pvc_dir(claim).c_str(), 02775);
      }
    } else if (v.contains("emptyDir")) {
      if (!fs::exists(dir)) {
        fs::create_directories(dir, ec);
        ::chmod(dir.c_str(), 0777);
        if (fs_group) ::chown(dir.c_str(), static_cast<uid_t>(-1), static_cast<gid_t>(*fs_group));
      }
    } else if (v.contains("configMap") || v.contains("secret") || v.contains("projected")) {
      if (!project_files(p, v, refs, false, err)) return false;
    } else {
      err = "volume \"" + name + "\": only persistentVolumeClaim, emptyDir, configMap, secret "
            "and projected volumes are run by the process kubelet";
      return false;
    }
  }
  return true;
}

bool process_kubelet::create_sandbox(pod_state& p, std::string& err) {
  std::error_code ec;
  if (p.pause > 0) {  // a failed earlier try
    kill_namespace(p.mnt_ns, SIGKILL);
    ::kill(p.pause, SIGKILL);
    (void)reap(p.pause);
    p.pause = -1;
  }
  fs::create_directories(p.dir + "/vol", ec);
  for (const char* d : {"/tmp", "/run-mysqld", "/mysql-files"}) {
    fs::create_directories(p.dir + d, ec);
    ::chmod((p.dir + d).c_str(), 01777);
  }
  if (!materialise_volumes(p, err)) return false;
  if (!add_pod_network(p.index, rules_, err)) return false;

  // Mounts, done by the pause process inside its new private mount namespace.
  struct mnt {
    std::string src, target;
    bool ro = false, file = false;
  };
  std::vector<mnt> mounts;
  std::set<std::string> host_created;
  auto target_for = [&](const json& container, const std::string& path, bool file) -> std::string {
    std::string t;
    if (is_mysql_image(container.value("image", ""))) {
      t = path_in_root(opts_.chroot, path);
    } else {
      t = path;
    }
    if (!fs::exists(t)) {
      // Mount points: created in the chroot, or on the host (recorded, removed by cleanup()).
      fs::path dir = file ? fs::path(t).parent_path() : fs::path(t);
      std::vector<fs::path> made;
      for (fs::path q = dir; !q.empty() && !fs::exists(q); q = q.parent_path()) made.push_back(q);
      fs::create_directories(dir, ec);
      if (file) write_in_place(t, "");
      if (!is_mysql_image(container.value("image", ""))) {
        for (const auto& m : made) host_created.insert(m.string());
        if (file) host_created.insert(t);
      }
    }
    return t;
  };
  const json spec = p.pod["spec"];
  json all = spec.value("initContainers", json::array());
  for (const auto& cs : spec.value("containers", json::array())) all.push_back(cs);
  for (const auto& cs : all) {
    std::set<std::string> paths;
    for (const auto& vm : cs.value("volumeMounts", json::array())) {
      const auto vname = vm.value("name", "");
      const auto mpath = vm.value("mountPath", "");
      paths.insert(mpath);
      std::string src;
      bool directory_volume = false;  // a PVC or emptyDir (not projected files)
      for (const auto& v : spec.value("volumes", json::array())) {
        if (v.value("name", "") != vname) continue;
        directory_volume = v.contains("persistentVolumeClaim") || v.contains("emptyDir");
        src = v.contains("persistentVolumeClaim")
                  ? pvc_dir(v["persistentVolumeClaim"].value("claimName", ""))
                  : p.dir + "/vol/" + vname;
      }
      if (src.empty()) {
        err = "container " + cs.value("name", "") + ": volumeMount " + vname + " names no volume";
        return false;
      }
      if (vm.contains("subPath")) {
        // Created when missing, as the kubelet does; here with the volume root's group and mode
        // (fsGroup, setgid, group-writable) so a non-root container can write to it.
        src += "/" + vm.value("subPath", "");
        if (directory_volume && !fs::exists(src)) {
          fs::create_directories(src, ec);
          if (const auto fsg = security_value(spec, json::object(), "fsGroup")) {
            ::chown(src.c_str(), static_cast<uid_t>(-1), static_cast<gid_t>(*fsg));
            ::chmod(src.c_str(), 02775);
          }
        }
      }
      mounts.push_back({src, target_for(cs, mpath, false), vm.value("readOnly", false), false});
    }
    mounts.push_back({hosts_file(), target_for(cs, "/etc/hosts", true), true, true});
    if (is_mysql_image(cs.value("image", ""))) {
      auto add_default = [&](const std::string& path, const std::string& src) {
        for (const auto& q : paths)
          if (path_in_root(opts_.chroot, q) == path_in_root(opts_.chroot, path)) return;
        mounts.push_back({src, target_for(cs, path, false), false, false});
      };
      add_default("/tmp", p.dir + "/tmp");
      add_default("/var/run/mysqld", p.dir + "/run-mysqld");
      add_default("/var/lib/mysql-files", p.dir + "/mysql-files");
      mounts.push_back({opts_.state_dir + "/bin", target_for(cs, "/brk-kubelet", false), true, false});
    }
    if (is_bloodraven_image(cs.value("image", ""))) {
      // The image's MySQL client, simulated by the chroot (see kubelet.hpp): the pod's names
      // and a private /tmp there too.
      mounts.push_back({hosts_file(), path_in_root(opts_.chroot, "/etc/hosts"), true, true});
      mounts.push_back({p.dir + "/tmp", path_in_root(opts_.chroot, "/tmp"), false, false});
    }
  }
  // Job pods: each container's termination message file at its terminationMessagePath
  // (world-writable, as the kubelet makes it: the container may run as any user).
  for (auto* list : {&p.init_containers, &p.containers})
    for (auto& c : *list) {
      if (c.termination_file.empty()) continue;
      fs::create_directories(fs::path(c.termination_file).parent_path(), ec);
      write_in_place(c.termination_file, "");
      ::chmod(c.termination_file.c_str(), 0666);
      mounts.push_back({c.termination_file,
                        target_for(c.spec, c.spec.value("terminationMessagePath", "/dev/termination-log"), true),
                        false, true});
    }
  {
    std::ofstream rec(opts_.state_dir + "/host_mountpoints", std::ios::app);
    for (const auto& h : host_created) rec << h << "\n";
  }
  // Shorter targets first (a mount inside another goes after it), except a target that would hide
  // the kubelet's own state directory (a container's /tmp on the host's root: the sources of the
  // other mounts live under /tmp/brk-kubelet): those go last.
  auto hides_state = [&](const mnt& m) {
    const auto rel = fs::path(opts_.state_dir).lexically_relative(m.target);
    return !rel.empty() && *rel.begin() != "..";
  };
  std::stable_sort(mounts.begin(), mounts.end(), [&](const mnt& a, const mnt& b) {
    if (hides_state(a) != hides_state(b)) return !hides_state(a);
    return a.target.size() < b.target.size();
  });
  std::string script = "set -e\n";
  for (const auto& m : mounts) {
    script += "mount --bind " + quote(m.src) + " " + quote(m.target) + "\n";
    if (m.ro) script += "mount -o remount,bind,ro " + quote(m.target) + "\n";
  }
  // Ready: a line on stdout (the log the kubelet opened), not a file under p.dir, which a
  // container's /tmp mounted last may hide from this namespace.
  script += "echo " + std::string{sandbox_ready_line} + "\nexec sleep 2147483647\n";
  write_file(p.dir + "/sandbox.sh", script, 0644);
  fs::remove(p.dir + "/sandbox.log", ec);
  p.pause = spawn({"/usr/bin/nsenter", "--net=/run/netns/" + pod_netns(p.index), "--", "/usr/bin/unshare",
                   "--mount", "--propagation", "private", "--", "/bin/sh", p.dir + "/sandbox.sh"},
                  {"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}, p.dir + "/sandbox.log");
  if (p.pause <= 0) {
    err = "cannot start the pod's pause process";
    return false;
  }
  write_file(p.dir + "/pause.pid", std::to_string(p.pause), 0644);
  const auto deadline = steady::now() + 10s;
  while (read_text(p.dir + "/sandbox.log").find(sandbox_ready_line) == std::string::npos) {
    if (reap(p.pause) >= 0 || steady::now() > deadline) {
      err = "pod sandbox setup failed: " + read_text(p.dir + "/sandbox.log");
      ::kill(p.pause, SIGKILL);
      (void)reap(p.pause);
      p.pause = -1;
      return false;
    }
    std::this_thread::sleep_for(20ms);
  }
  p.mnt_ns = mount_namespace_of(p.pause);
  write_file(p.dir + "/mnt_ns", p.mnt_ns, 0644);
  return true;
}

void process_kubelet::start_container(pod_state& p, bool init, size_t i) {
  auto& c = init ? p.init_containers[i] : p.containers[i];
  const auto now = steady::now();
  c.next_start = now + 1s;  // a failure below retries in a second
  std::string err;
  if (!materialise_volumes(p, err)) {
    c.waiting_reason = "ContainerCreating";
    c.waiting_message = err;
    return;
  }
  pod_refs refs;
  for (const auto& s : secrets_) refs.secrets[s["metadata"].value("name", "")] = s;
  for (const auto& m : configmaps_) refs.configmaps[m["metadata"].value("name", "")] = m;
  json pod_for_env = p.pod;
  auto env = resolve_env(c.spec, pod_for_env, p.ip, refs);
  if (!env.error.empty()) {
    c.waiting_reason = "CreateContainerConfigError";
    c.waiting_message = env.error;
    return;
  }
  const auto image = c.spec.value("image", "");
  // The operator image's command: its binary by the image's PATH, then more arguments.
  std::vector<std::string> bloodraven_args;
  bool command_ok = !c.spec.contains("command") || is_mysql_image(image);
  if (!command_ok && is_bloodraven_image(image) && c.spec["command"].is_array() && !c.spec["command"].empty()) {
    const auto first = c.spec["command"][0].get<std::string>();
    command_ok = first == "bloodraven" || first == "/usr/local/bin/bloodraven";
    for (size_t k = 1; command_ok && k < c.spec["command"].size(); ++k)
      bloodraven_args.push_back(c.spec["command"][k].get<std::string>());
  }
  if (!command_ok) {
    c.waiting_reason = "CreateContainerError";
    c.waiting_message = "containers[" + c.name + "].command: only the mysql image's command, or "
                        "`bloodraven` in the operator image, can be set in the process kubelet";
    return;
  }
  if (!c.termination_file.empty()) write_in_place(c.termination_file, "");  // a fresh run's file
  const json spec = p.pod["spec"];
  const auto uid = security_value(spec, c.spec, "runAsUser");
  const auto gid = security_value(spec, c.spec, "runAsGroup");
  const auto fs_group = security_value(spec, json::object(), "fsGroup");
  std::vector<std::string> argv = {"/usr/bin/nsenter", "-t", std::to_string(p.pause), "-m", "-n", "--"};
  std::vector<std::string> envp = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                                   "HOSTNAME=" + p.name};
  for (const auto& [k, v] : env.env) envp.push_back(k + "=" + v);
  if (is_mysql_image(image)) {
    argv.push_back("/usr/sbin/chroot");
    if (uid) {
      argv.push_back("--userspec=" + std::to_string(*uid) + ":" + std::to_string(gid.value_or(*uid)));
      if (fs_group) argv.push_back("--groups=" + std::to_string(*fs_group));
    }
    if (c.spec.contains("command")) {
      // command replaces the image's entrypoint (run as given, inside the chroot), as in a
      // container runtime; args follow it.
      argv.push_back(opts_.chroot);
      for (const auto& a : c.spec["command"]) argv.push_back(a.get<std::string>());
      for (const auto& a : c.spec.value("args", json::array())) argv.push_back(a.get<std::string>());
    } else {
      argv.insert(argv.end(), {opts_.chroot, "/bin/bash", "/brk-kubelet/entrypoint.sh"});
      auto args = c.spec.value("args", json::array({"mysqld"}));
      for (const auto& a : args) argv.push_back(a.get<std::string>());
      envp.push_back("BRK_MYSQLD_EXTRA_ARGS=" + opts_.mysqld_extra_args);
    }
  } else if (is_sidecar_image(image)) {
    if (uid) {
      argv.insert(argv.end(), {"/usr/bin/setpriv", "--reuid=" + std::to_string(*uid),
                               "--regid=" + std::to_string(gid.value_or(*uid))});
      argv.push_back(fs_group ? "--groups=" + std::to_string(*fs_group) : "--clear-groups");
      argv.push_back("--");
    }
    argv.push_back(opts_.sidecar_binary);
    // The sanitizer build's settings (not part of the pod): the test's own, passed through.
    for (const char* k : {"ASAN_OPTIONS", "UBSAN_OPTIONS"})
      if (const char* v = std::getenv(k)) envp.push_back(std::string(k) + "=" + v);
    for (const auto& a : c.spec.value("args", json::array())) argv.push_back(a.get<std::string>());
  } else if (is_bloodraven_image(image)) {
    // The chroot standing for the image's MySQL client is entered with CAP_SYS_CHROOT, kept
    // across the user change as an ambient capability (the simulation's, not the pod's).
    if (uid) {
      argv.insert(argv.end(), {"/usr/bin/setpriv", "--reuid=" + std::to_string(*uid),
                               "--regid=" + std::to_string(gid.value_or(*uid))});
      argv.push_back(fs_group ? "--groups=" + std::to_string(*fs_group) : "--clear-groups");
      argv.insert(argv.end(), {"--inh-caps=+sys_chroot", "--ambient-caps=+sys_chroot", "--"});
    }
    argv.push_back(opts_.bloodraven_binary);
    argv.insert(argv.end(), bloodraven_args.begin(), bloodraven_args.end());
    for (const auto& a : c.spec.value("args", json::array())) argv.push_back(a.get<std::string>());
    bool chroot_set = false;
    for (const auto& [k, _] : env.env) chroot_set = chroot_set || k == "BLOODRAVEN_TOOLS_CHROOT";
    if (!chroot_set) envp.push_back("BLOODRAVEN_TOOLS_CHROOT=" + opts_.chroot);
    for (const char* k : {"ASAN_OPTIONS", "UBSAN_OPTIONS"})
      if (const char* v = std::getenv(k)) envp.push_back(std::string(k) + "=" + v);
  } else {
    c.waiting_reason = "CreateContainerError";
    c.waiting_message = "image " + image + " is not run by the process kubelet (mysql:*, *sidecar* or *bloodraven*)";
    return;
  }
  {
    std::ofstream log(c.log, std::ios::app);
    log << "---- process kubelet: container " << c.name << " start " << (c.restarts + 1) << " at "
        << now_rfc3339() << "\n";
  }
  c.pid = spawn(argv, envp, c.log);
  if (c.pid <= 0) {
    c.waiting_reason = "CreateContainerError";
    c.waiting_message = "spawn failed";
    return;
  }
  c.ever_started = true;
  c.started = now;
  c.started_at = now_rfc3339();
  c.waiting_reason.clear();
  c.waiting_message.clear();
  c.next_probe = now + 500ms;
}

void process_kubelet::probe(pod_state& p) {
  const auto now = steady::now();
  for (auto& c : p.containers) {
    if (c.pid <= 0) {
      c.ready = false;
      continue;
    }
    if (now < c.next_probe) continue;
    c.next_probe = now + 1s;
    c.ready = c.spec.contains("readinessProbe") ? probe_once(p.ip, c.spec["readinessProbe"], c.spec) : true;
  }
}

bool process_kubelet::write_pod_status(pod_state& p, const json& api_pod) {
  bool all_ready = p.sandbox_ready && !p.containers.empty() && p.final_phase.empty();
  bool any_running = false;
  json statuses = json::array();
  // An exit: its code, reason, times and (Job pods) termination message.
  auto terminated = [](const pod_state::container_rt& c) {
    json t = {{"exitCode", c.last_exit}, {"reason", c.last_exit == 0 ? "Completed" : "Error"}};
    if (!c.started_at.empty()) t["startedAt"] = c.started_at;
    if (!c.finished_at.empty()) t["finishedAt"] = c.finished_at;
    if (!c.message.empty()) t["message"] = c.message;
    return t;
  };
  for (const auto& c : p.containers) {
    all_ready = all_ready && c.ready;
    json s = {{"name", c.name}, {"image", c.spec.value("image", "")}, {"ready", c.ready},
              {"restartCount", c.restarts}, {"started", c.pid > 0}};
    if (c.pid > 0) {
      any_running = true;
      s["state"] = {{"running", {{"startedAt", c.started_at}}}};
    } else if (c.terminated) {
      s["state"] = {{"terminated", terminated(c)}};
    } else {
      s["state"] = {{"waiting", {{"reason", c.waiting_reason}, {"message", c.waiting_message}}}};
    }
    if (c.last_exit >= 0 && !c.terminated) s["lastState"] = {{"terminated", terminated(c)}};
    statuses.push_back(s);
  }
  json init_statuses = json::array();
  for (size_t i = 0; i < p.init_containers.size(); ++i) {
    const auto& c = p.init_containers[i];
    json s = {{"name", c.name}, {"image", c.spec.value("image", "")}, {"ready", i < p.init_done},
              {"restartCount", c.restarts}};
    if (i < p.init_done)
      s["state"] = {{"terminated", {{"exitCode", 0}, {"reason", "Completed"}}}};
    else if (c.terminated)
      s["state"] = {{"terminated", terminated(c)}};
    else if (c.pid > 0)
      s["state"] = {{"running", {{"startedAt", c.started_at}}}};
    else
      s["state"] = {{"waiting", {{"reason", c.waiting_reason}, {"message", c.waiting_message}}}};
    if (c.last_exit > 0) s["lastState"] = {{"terminated", {{"exitCode", c.last_exit}}}};
    init_statuses.push_back(s);
  }
  const bool initialized = p.init_done == p.init_containers.size();
  const std::string ready = all_ready ? "True" : "False";
  json st = {{"phase", !p.final_phase.empty() ? p.final_phase : any_running ? "Running" : "Pending"},
             {"hostIP", gateway_ip},
             {"startTime", p.start_time},
             {"conditions", json::array({{{"type", "PodScheduled"}, {"status", "True"}},
                                         {{"type", "Initialized"}, {"status", initialized ? "True" : "False"}},
                                         {{"type", "ContainersReady"}, {"status", ready}},
                                         {{"type", "Ready"}, {"status", ready}}})},
             {"containerStatuses", statuses}};
  if (!init_statuses.empty()) st["initContainerStatuses"] = init_statuses;
  if (p.sandbox_ready) {
    st["podIP"] = p.ip;
    st["podIPs"] = json::array({{{"ip", p.ip}}});
  }
  if (!p.final_phase.empty())  // not ready any more, as a real kubelet says of an ended pod
    for (auto& cnd : st["conditions"])
      if (cnd["type"] == "Ready" || cnd["type"] == "ContainersReady") cnd["reason"] = "PodCompleted";
  const auto dump = st.dump();
  if (dump == p.status_written && api_pod.value("status", json::object()) == st) return true;
  json obj = api_pod;
  obj["status"] = st;
  if (!c_->update_status(kube::resources::pods, obj, 3s)) return false;
  p.status_written = dump;
  return true;
}

void process_kubelet::sync_services(const json& services) {
  // ClusterIPs: kept for the kubelet's lifetime, host services first.
  std::vector<json> pods;
  for (const auto& [_, p] : pods_) {
    bool ready = p->sandbox_ready && !p->containers.empty();
    for (const auto& c : p->containers) ready = ready && c.ready;
    json md = p->pod["metadata"];
    md["labels"] = p->labels;
    pods.push_back({{"metadata", md},
                    {"spec", p->pod["spec"]},
                    {"status",
                     {{"podIP", p->sandbox_ready ? p->ip : ""},
                      {"conditions", json::array({{{"type", "Ready"}, {"status", ready ? "True" : "False"}}})}}}});
  }
  std::vector<service_rule> rules;
  for (const auto& hs : opts_.host_services)
    rules.push_back({cluster_ips_[hs.ns + "/" + hs.name], hs.port, {gateway_ip, hs.host_port}});
  std::set<std::string> present;
  for (const auto& hs : opts_.host_services) present.insert(hs.ns + "/" + hs.name);
  std::map<std::string, std::string> headless;  // name -> the pod's IP, no ClusterIP, no rule
  for (const auto& s : services) {
    const auto key = opts_.ns + "/" + s["metadata"].value("name", "");
    if (is_headless(s)) {
      if (auto ip = headless_address(s, pods); !ip.empty()) headless[key] = ip;
      continue;
    }
    present.insert(key);
    if (!cluster_ips_.contains(key)) {
      std::set<std::string> used;
      for (const auto& [_, ip] : cluster_ips_) used.insert(ip);
      for (int n = 0; first_cluster_ip + n <= last_cluster_ip; ++n)
        if (!used.contains(cluster_ip(n))) {
          cluster_ips_[key] = cluster_ip(n);
          break;
        }
    }
    if (!cluster_ips_.contains(key)) continue;
    for (const auto& [port, eps] : service_endpoints(s, pods))
      if (!eps.empty()) rules.push_back({cluster_ips_[key], port, eps.front()});
  }
  for (auto it = cluster_ips_.begin(); it != cluster_ips_.end();)
    it = present.contains(it->first) ? std::next(it) : cluster_ips_.erase(it);
  auto names = cluster_ips_;
  names.insert(headless.begin(), headless.end());
  const auto hosts = hosts_text(names);
  if (hosts != hosts_) {
    write_in_place(hosts_file(), hosts);
    hosts_ = hosts;
  }
  const auto doc = nat_rules_document(service_chain, rules);
  if (doc != rules_) {
    std::string err;
    bool ok = load_rules(0, doc, err);
    for (const auto& [_, p] : pods_)
      if (p->sandbox_ready) ok = load_rules(p->index, doc, err) && ok;
    if (ok) rules_ = doc;
    else error_ = err;
  }
}

void process_kubelet::stop_pod(pod_state& p, bool delete_object) {
  if (delete_object) (void)c_->remove(kube::resources::pods, opts_.ns, p.name, {}, 3s);
  const int64_t grace = p.pod["spec"].value("terminationGracePeriodSeconds", int64_t{30});
  const auto bound = std::min<std::chrono::seconds>(std::chrono::seconds(std::max<int64_t>(grace, 1)),
                                                    opts_.max_grace);
  std::vector<pod_state::container_rt*> all;
  for (auto* list : {&p.init_containers, &p.containers})
    for (auto& c : *list) all.push_back(&c);
  for (auto* c : all)
    if (c->pid > 0) ::kill(-c->pid, SIGTERM);
  const auto deadline = steady::now() + bound;
  while (steady::now() < deadline) {
    bool any = false;
    for (auto* c : all)
      if (c->pid > 0) {
        if (reap(c->pid) >= 0) c->pid = -1;
        else any = true;
      }
    if (!any) break;
    std::this_thread::sleep_for(50ms);
  }
  for (auto* c : all)
    if (c->pid > 0) ::kill(-c->pid, SIGKILL);
  // Everything left in the pod's mount namespace (a daemonized temporary server, strays).
  for (int round = 0; round < 100; ++round) {
    for (auto* c : all)
      if (c->pid > 0 && reap(c->pid) >= 0) c->pid = -1;
    auto left = pids_in_mount_namespace(p.mnt_ns);
    left.erase(std::remove(left.begin(), left.end(), p.pause), left.end());
    if (left.empty()) break;
    for (pid_t pid : left) ::kill(pid, SIGKILL);
    std::this_thread::sleep_for(50ms);
  }
  if (p.pause > 0) {
    ::kill(p.pause, SIGKILL);
    for (int i = 0; i < 100 && reap(p.pause) < 0; ++i) std::this_thread::sleep_for(20ms);
  }
  remove_pod_network(p.index);
  std::error_code ec;
  fs::remove_all(p.dir, ec);
}

bool use_cluster_dns(const std::string& hosts_file, std::string& err) {
  if (::unshare(CLONE_NEWNS) != 0) {
    err = std::string("unshare(CLONE_NEWNS): ") + std::strerror(errno);
    return false;
  }
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    err = std::string("mount --make-rprivate /: ") + std::strerror(errno);
    return false;
  }
  if (::mount(hosts_file.c_str(), "/etc/hosts", nullptr, MS_BIND, nullptr) != 0) {
    err = std::string("bind ") + hosts_file + " over /etc/hosts: " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace br::test::kubelet
