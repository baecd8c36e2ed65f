// tls_watcher: stamp the certificate files every interval; reload mysqld's TLS when they settle.
#include "actors/sidecar/runtime/tls_watcher.hpp"

#include <caf/all.hpp>

#include "actors/sidecar/runtime/tls_reload_rule.hpp"
#include "io/log/log.hpp"
#include "io/mysql/tls_reload.hpp"

namespace br::sidecar {

namespace {

struct tls_watcher_state {
  static inline const char* name = "tls_watcher";
  tls_watcher_options opts;
  std::vector<fs::file_stamp> loaded, previous;
  std::string last_error;  ///< logged once per distinct failure
};

using self_ptr = tls_watcher_actor::stateful_pointer<tls_watcher_state>;

void on_tick(self_ptr self) {
  auto& st = self->state;
  self->delayed_send(self, st.opts.interval, tick_atom::value);
  auto now = fs::stamps_of(st.opts.files);
  auto action = decide_tls_reload(st.loaded, st.previous, now);
  st.previous = now;
  if (action != tls_reload_action::reload) return;
  auto r = mysql::reload_tls(st.opts.mysql);  // blocking, bounded by the session's timeouts
  if (!r) {
    auto e = r.error().to_string();
    if (e != st.last_error)
      log::error("tls: ALTER INSTANCE RELOAD TLS failed; trying again next tick",
                 {{"error", e}, {"server", st.opts.mysql.describe()}});
    st.last_error = std::move(e);
    return;
  }
  st.loaded = now;
  st.last_error.clear();
  log::info("tls: mysqld reloaded its certificate files", {{"server", st.opts.mysql.describe()}});
}

tls_watcher_actor::behavior_type tls_watcher(self_ptr self, tls_watcher_options opts) {
  auto& st = self->state;
  st.opts = std::move(opts);
  st.loaded = st.previous = fs::stamps_of(st.opts.files);  // what mysqld read at its start
  self->delayed_send(self, st.opts.interval, tick_atom::value);
  return {[self](tick_atom) { on_tick(self); }};
}

}  // namespace

tls_watcher_actor spawn_tls_watcher(caf::actor_system& sys, tls_watcher_options opts) {
  return sys.spawn<caf::detached>(tls_watcher, std::move(opts));
}

}  // namespace br::sidecar
