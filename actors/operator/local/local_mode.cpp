// Standalone mode: the group file, the credential flags and the root children (local_mode.hpp).
#include "actors/operator/local/local_mode.hpp"
#include "actors/common/key_dir.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "actors/common/http_worker.hpp"
#include "actors/common/lifetime_hook.hpp"
#include "actors/operator/group/site_io.hpp"
#include "actors/operator/api/status_hub.hpp"
#include "io/log/log.hpp"

namespace br {

namespace {

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return static_cast<bool>(in) || in.eof();
}

/// Reads the file named by --<flag> without its trailing line break; false (after saying why on
/// stderr) when it cannot be read.
bool read_secret_flag(std::map<std::string, std::string>& flags, const std::string& flag,
                      std::string& out) {
  if (!read_file(flags[flag], out)) {
    std::fprintf(stderr, "bloodraven: cannot read --%s %s\n", flag.c_str(), flags[flag].c_str());
    return false;
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return true;
}

}  // namespace

int load_standalone(std::map<std::string, std::string>& flags, standalone_setup& out) {
  const auto& file = flags["standalone"];
  out.file = file;
  std::string text;
  if (!read_file(file, text)) {
    std::fprintf(stderr, "bloodraven: cannot read group file %s\n", file.c_str());
    return 2;
  }
  auto parsed = config::load_group_yaml(text, config::run_mode::standalone);
  if (!parsed.ok()) {
    // Every error with its field path, so one edit round fixes the whole file.
    std::fprintf(stderr, "bloodraven: invalid group file %s (%zu errors):\n", file.c_str(),
                 parsed.errors.size());
    for (const auto& e : parsed.errors) std::fprintf(stderr, "  %s\n", e.to_string().c_str());
    return 2;
  }
  out.group = parsed.group;
  if (out.group.metadata.name.empty()) {
    std::fprintf(stderr, "bloodraven: invalid group file %s:\n  metadata.name: required\n",
                 file.c_str());
    return 2;
  }
  out.namespace_name =
      out.group.metadata.namespace_name.empty() ? "default" : out.group.metadata.namespace_name;
  out.creds.operator_user = flags["mysql-user"];
  if (out.creds.operator_user.empty()) {
    std::fprintf(stderr,
                 "bloodraven: --standalone needs --mysql-user (or BLOODRAVEN_MYSQL_USER)\n");
    return 2;
  }
  if (!flags["mysql-password-file"].empty()) {
    if (!read_secret_flag(flags, "mysql-password-file", out.creds.operator_password)) return 2;
  } else if (const char* pw = std::getenv("BLOODRAVEN_MYSQL_PASSWORD")) {
    out.creds.operator_password = pw;
  }
  out.state_dir = flags["state-dir"];
  std::error_code ec;
  std::filesystem::create_directories(out.state_dir, ec);
  if (ec) {
    std::fprintf(stderr, "bloodraven: cannot create --state-dir %s: %s\n", out.state_dir.c_str(),
                 ec.message().c_str());
    return 2;
  }
  {
    std::vector<std::string> sites;
    for (const auto& s : out.group.spec.sites) sites.push_back(s.name);
    auto dir = flags["keys-dir"];
    if (dir.empty()) {
      // No keys given: the group's keys live beside the state (created once, kept after). The
      // sidecars need operator.pub and their own site key from there (KEYS_DIR).
      dir = out.state_dir + "/keys";
      if (auto err = auth::write_key_dir(dir, sites); !err.empty()) {
        std::fprintf(stderr, "bloodraven: cannot create the keys in %s: %s\n", dir.c_str(),
                     err.c_str());
        return 2;
      }
      std::fprintf(stderr, "bloodraven: --keys-dir not set: using %s\n", dir.c_str());
    }
    auto k = auth::load_operator_keys(dir, sites);
    if (!k.ring) {
      std::fprintf(stderr, "bloodraven: --keys-dir: %s\n", k.error.c_str());
      return 2;
    }
    out.keys = std::make_shared<const auth::key_ring>(std::move(*k.ring));
  }
  if (const char* pw = std::getenv("BLOODRAVEN_DRAGONFLY_PASSWORD")) out.creds.dragonfly_password = pw;
  out.creds.replication_user = out.group.spec.replication.user;
  out.creds.replication_password = out.group.spec.replication.password;
  return 0;
}


children_factory standalone_children(std::shared_ptr<const standalone_setup> setup,
                                     std::shared_ptr<group_table> groups,
                                     std::shared_ptr<http::websocket_hub> ws,
                                     std::shared_ptr<event_ring> events) {
  log::info("standalone mode", {{"file", setup->file},
                                {"group", setup->group.metadata.name},
                                {"namespace", setup->namespace_name},
                                {"stateDir", setup->state_dir}});
  return [setup, groups, ws, events](caf::actor_system& sys) {
    local_platform_config pc;
    pc.dir = setup->state_dir;
    pc.events = events;
    // Actors that live outside the supervision tree; the lifetime hook stops them and drops
    // the handles (handles must not outlive the actor system).
    struct outside {
      local_platform platform;
      site_io_actor io;
      status_writer_actor hub;  ///< /ws/status feed in front of the platform's status writer
    };
    auto o = std::make_shared<outside>();
    o->platform = spawn_local_platform(sys, pc);
    o->io = spawn_site_io(sys);
    status_hub_config hc;
    hc.namespace_name = setup->namespace_name;
    hc.ws = ws;
    hc.forward = o->platform.handles.status;
    hc.events = [events] { return events->snapshot(); };
    hc.interval = setup->group.spec.poll_interval;
    o->hub = spawn_status_hub(sys, hc);
    group_runtime rt;
    rt.site_io = o->io;
    rt.platform = o->platform.handles;
    rt.platform.status = o->hub;
    rt.namespace_name = setup->namespace_name;
    rt.keys = setup->keys;
    rt.http_worker = [&sys, tls = setup->api_tls] { return spawn_http_worker(sys, tls); };
    const auto& name = setup->group.metadata.name;
    std::vector<child_spec> out;
    out.push_back(lifetime_hook("platform", [o, groups, ws] {
      groups->drop_handles();
      ws->close_all();  // before the HTTP server (and its sockets) go
      caf::anon_send_exit(o->hub, caf::exit_reason::user_shutdown);
      stop_local_platform(o->platform);
      caf::anon_send_exit(o->io, caf::exit_reason::user_shutdown);
      *o = outside{};
    }));
    std::vector<std::string> sites;
    for (const auto& s : setup->group.spec.sites) sites.push_back(s.name);
    out.push_back(groups->track(setup->namespace_name, name,
                                group_supervisor_child(name, setup->group.spec, setup->creds, rt),
                                setup->keys, sites,
                                setup->group.spec.replication.mode ==
                                    config::replication_mode::group_replication));
    return out;
  };
}

}  // namespace br
