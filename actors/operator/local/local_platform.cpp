// Local platform actors: durable state file, event log + ring, DNS/route files, hooks, status file.
#include "actors/operator/local/local_platform.hpp"
#include "config/group_status.hpp"

#include <caf/all.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "actors/operator/group/durable_state_json.hpp"
#include "actors/operator/local/route_book.hpp"
#include "io/fs/atomic_file.hpp"
#include "io/log/log.hpp"

extern char** environ;

namespace br {

namespace {

caf::error io_error(const std::string& what) {
  return caf::make_error(caf::sec::runtime_error, what + ": " + std::strerror(errno));
}

std::string state_path(const std::string& dir, const std::string& group) {
  return dir + "/" + group + ".state.json";
}

}  // namespace

void event_ring::push(group_event e) {
  std::lock_guard<std::mutex> g(mx_);
  events_.push_back(std::move(e));
  while (events_.size() > capacity_) events_.pop_front();
}

std::vector<group_event> event_ring::snapshot() const {
  std::lock_guard<std::mutex> g(mx_);
  return {events_.begin(), events_.end()};
}

caf::error write_file_atomic(const std::string& path, const std::string& content) {
  auto err = fs::write_file_atomic(path, content);
  return err.empty() ? caf::error{} : caf::make_error(caf::sec::runtime_error, err);
}

caf::expected<durable_state> load_state_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    if (ec) return caf::make_error(caf::sec::runtime_error, "stat " + path + ": " + ec.message());
    return durable_state{};
  }
  std::ifstream in(path);
  if (!in) return caf::make_error(caf::sec::runtime_error, "cannot read " + path);
  std::stringstream buf;
  buf << in.rdbuf();
  auto j = nlohmann::json::parse(buf.str(), nullptr, false);
  if (j.is_discarded())
    return caf::make_error(caf::sec::runtime_error, "corrupt state file " + path + ": not JSON");
  auto s = durable_state_from_json(j);
  if (!s)
    return caf::make_error(caf::sec::runtime_error,
                           "corrupt state file " + path + ": " + to_string(s.error()));
  return s;
}

caf::error save_state_file(const std::string& path, const durable_state& s) {
  return write_file_atomic(path, durable_state_to_json(s).dump(2) + "\n");
}

caf::expected<int> run_hook(const std::string& command,
                            const std::map<std::string, std::string>& env,
                            std::chrono::milliseconds timeout) {
  std::vector<std::string> vars;
  for (char** e = environ; e && *e; ++e) vars.emplace_back(*e);
  for (const auto& [k, v] : env) vars.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& v : vars) envp.push_back(v.data());
  envp.push_back(nullptr);
  std::string sh = "/bin/sh", dash_c = "-c", cmd = command;
  char* argv[] = {sh.data(), dash_c.data(), cmd.data(), nullptr};
  // Own process group, so a timeout kills the whole hook (children of the shell included).
  posix_spawnattr_t attr;
  ::posix_spawnattr_init(&attr);
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  ::posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  int spawn_rc = ::posix_spawn(&pid, "/bin/sh", nullptr, &attr, argv, envp.data());
  ::posix_spawnattr_destroy(&attr);
  if (spawn_rc != 0)
    return caf::make_error(caf::sec::runtime_error,
                           std::string("hook spawn failed: ") + std::strerror(spawn_rc));
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    auto r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return io_error("waitpid");
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return caf::make_error(caf::sec::runtime_error, "hook timed out: " + command);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return caf::make_error(caf::sec::runtime_error, "hook killed by a signal: " + command);
}

namespace {

state_store_actor::behavior_type file_store(state_store_actor::pointer self, std::string dir) {
  (void)self;
  return {
      [dir](persist_atom, const std::string& group, const durable_state& s) {
        auto path = state_path(dir, group);
        std::string stored;
        if (std::ifstream in(path); in) stored.assign(std::istreambuf_iterator<char>(in), {});
        if (auto why = epoch_regression(stored, s); !why.empty()) {
          log::error("state persist refused", {{"group", group}, {"error", why}});
          return false;
        }
        auto err = save_state_file(path, s);
        if (err) {
          log::error("state persist failed", {{"group", group}, {"error", to_string(err)}});
          return false;
        }
        return true;
      },
      [dir](load_atom, const std::string& group) -> caf::result<durable_state> {
        auto s = load_state_file(state_path(dir, group));
        if (!s) return s.error();
        return std::move(*s);
      },
  };
}

struct status_file_state {
  std::map<std::string, std::string> last;
};

status_writer_actor::behavior_type status_file(
    status_writer_actor::stateful_pointer<status_file_state> self, std::string dir,
    std::shared_ptr<route_book> routes) {
  return {
      [=](status_atom, const std::string& group, const config::group_status& status) {
        routes->follow(group, status);  // the route file follows manual fences
        auto json = nlohmann::json(status).dump();  // the file is the edge: JSON here
        auto& last = self->state.last[group];
        if (last == json) return;  // identical writes are skipped
        if (auto err = write_file_atomic(dir + "/" + group + ".status.json", json + "\n")) {
          log::warn("status write failed", {{"group", group}, {"error", to_string(err)}});
          return;  // the next change retries
        }
        last = json;
      },
  };
}

dns_actor::behavior_type dns_file(dns_actor::pointer, local_platform_config cfg) {
  return {
      [cfg](dns_atom, const std::string& group, const std::string& site,
            const std::string& target) {
        if (auto err = write_file_atomic(cfg.dir + "/" + group + ".dns", target + "\n")) {
          log::error("dns write failed", {{"group", group}, {"site", site}, {"error", to_string(err)}});
          return false;
        }
        if (cfg.dns_hook.empty()) return true;
        auto rc = run_hook(cfg.dns_hook, {{"BR_GROUP", group}, {"BR_SITE", site}, {"BR_TARGET", target}},
                           cfg.hook_timeout);
        if (!rc || *rc != 0) {
          log::error("dns hook failed", {{"group", group}, {"site", site},
                                         {"error", rc ? "exit " + std::to_string(*rc)
                                                      : to_string(rc.error())}});
          return false;
        }
        return true;
      },
  };
}

taint_actor::behavior_type taint_hook(taint_actor::pointer, local_platform_config cfg) {
  return {
      [cfg](taint_atom, const std::string& group, const std::string& site, bool on) {
        if (cfg.taint_hook.empty()) return true;  // no nodes to taint outside Kubernetes
        auto rc = run_hook(cfg.taint_hook,
                           {{"BR_GROUP", group}, {"BR_SITE", site}, {"BR_TAINT", on ? "1" : "0"}},
                           cfg.hook_timeout);
        return rc && *rc == 0;
      },
  };
}

router_actor::behavior_type route_file(router_actor::pointer, std::shared_ptr<route_book> routes) {
  return {
      [routes](route_atom, const std::string& group, const std::string& primary,
               const std::vector<std::string>& replicas) {
        return routes->steer(group, primary, replicas);
      },
  };
}

event_actor::behavior_type event_log(event_actor::pointer, std::shared_ptr<event_ring> ring) {
  return {
      [ring](event_atom, const group_event& e) {
        nlohmann::json f = {{"group", e.group}, {"type", e.type}, {"reason", e.reason},
                            {"epoch", e.epoch}};
        if (!e.site.empty()) f["site"] = e.site;
        if (e.type == "Warning")
          log::warn(e.message, f);
        else
          log::info(e.message, f);
        ring->push(e);
      },
  };
}

}  // namespace

state_store_actor spawn_file_state_store(caf::actor_system& sys, std::string dir) {
  return sys.spawn<caf::detached>(file_store, std::move(dir));
}

local_platform spawn_local_platform(caf::actor_system& sys, local_platform_config cfg) {
  local_platform p;
  p.events = cfg.events ? cfg.events : std::make_shared<event_ring>(cfg.event_ring);
  p.handles.store = spawn_file_state_store(sys, cfg.dir);
  auto routes = std::make_shared<route_book>(cfg.dir);
  p.handles.status = sys.spawn<caf::detached>(status_file, cfg.dir, routes);
  p.handles.dns = sys.spawn<caf::detached>(dns_file, cfg);
  p.handles.taints = sys.spawn<caf::detached>(taint_hook, cfg);
  p.handles.router = sys.spawn<caf::detached>(route_file, routes);
  p.handles.events = sys.spawn(event_log, p.events);
  return p;
}

void stop_local_platform(const local_platform& p) {
  auto kill = [](const auto& h) {
    if (h) caf::anon_send_exit(h, caf::exit_reason::user_shutdown);
  };
  kill(p.handles.store);
  kill(p.handles.status);
  kill(p.handles.dns);
  kill(p.handles.taints);
  kill(p.handles.router);
  kill(p.handles.events);
}

}  // namespace br
