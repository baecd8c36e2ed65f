// tls_watcher: stamp the certificate files every interval; reload mysqld's TLS when they settle.
#include "actors/sidecar/runtime/tls_watcher.hpp"

#include <caf/all.hpp>

#include <fstream>
#include <sstream>

#include "actors/sidecar/runtime/tls_reload_rule.hpp"
#include "io/fs/atomic_file.hpp"
#include "io/log/log.hpp"
#include "io/mysql/tls_reload.hpp"

namespace br::sidecar {

namespace {

struct tls_watcher_state {
  static inline const char* name = "tls_watcher";
  tls_watcher_options opts;
  std::vector<fs::file_stamp> loaded, previous;
  std::string last_error;  ///< logged once per distinct failure
  std::string trusted_ca;  ///< the CA text the server's current certificate was verified with
};

/// The client CA file's text ("" when unreadable or over 1 MiB: then nothing extra is trusted).
std::string read_ca(const std::string& path) {
  if (path.empty()) return {};
  std::ifstream in{path, std::ios::binary};
  if (!in) return {};
  std::string out(1u << 20, '\0');
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  if (in.gcount() == static_cast<std::streamsize>(out.size())) return {};
  out.resize(static_cast<std::size_t>(in.gcount()));
  return out;
}

using self_ptr = tls_watcher_actor::stateful_pointer<tls_watcher_state>;

void on_tick(self_ptr self) {
  auto& st = self->state;
  self->delayed_send(self, st.opts.interval, tick_atom::value);
  auto now = fs::stamps_of(st.opts.files);
  auto action = decide_tls_reload(st.loaded, st.previous, now);
  st.previous = now;
  if (action != tls_reload_action::reload) return;
  auto opts = st.opts.mysql;
  const auto current = read_ca(opts.tls_ca_file);
  const auto trust = reload_trust(current, st.trusted_ca);
  if (!st.opts.trust_file.empty() && trust != current) {
    if (auto e = fs::write_file_atomic(st.opts.trust_file, trust, 0600); e.empty())
      opts.tls_ca_file = st.opts.trust_file;
    else
      log::warn("tls: could not write the reload session's CA bundle", {{"file", st.opts.trust_file}, {"error", e}});
  }
  auto r = mysql::reload_tls(opts);  // blocking, bounded by the session's timeouts
  if (!r) {
    auto e = r.error().to_string();
    if (e != st.last_error)
      log::error("tls: ALTER INSTANCE RELOAD TLS failed; trying again next tick",
                 {{"error", e}, {"server", st.opts.mysql.describe()}});
    st.last_error = std::move(e);
    return;
  }
  st.loaded = now;
  st.trusted_ca = current;
  st.last_error.clear();
  log::info("tls: mysqld reloaded its certificate files", {{"server", st.opts.mysql.describe()}});
}

tls_watcher_actor::behavior_type tls_watcher(self_ptr self, tls_watcher_options opts) {
  auto& st = self->state;
  st.opts = std::move(opts);
  st.loaded = st.previous = fs::stamps_of(st.opts.files);  // what mysqld read at its start
  st.trusted_ca = read_ca(st.opts.mysql.tls_ca_file);
  self->delayed_send(self, st.opts.interval, tick_atom::value);
  return {[self](tick_atom) { on_tick(self); }};
}

}  // namespace

tls_watcher_actor spawn_tls_watcher(caf::actor_system& sys, tls_watcher_options opts) {
  return sys.spawn<caf::detached>(tls_watcher, std::move(opts));
}

}  // namespace br::sidecar
