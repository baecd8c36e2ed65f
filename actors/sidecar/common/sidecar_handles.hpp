// Current handles of the sidecar's actors, shared by actors and HTTP routes (restarts replace them).
#pragma once

#include <caf/actor_cast.hpp>
#include <caf/weak_intrusive_ptr.hpp>

#include <mutex>
#include <vector>

#include "messages/interfaces.hpp"

namespace br::sidecar {

/// A supervisor restart gives an actor a new handle; every user looks it up here at the moment
/// of use instead of keeping a copy. Thread-safe (HTTP handlers read it from server threads).
///
/// Why a table here and not ask-the-supervisor (actors/common/child_lookup.hpp, which the
/// operator's actors use): its readers are HTTP handlers on server threads, outside the actor
/// system, and the fencing monitor at the moment it must fence. A lookup through the supervisor
/// would put one more asynchronous hop, with its own timeout and failure path, in front of every
/// self-fence (docs/safety.md rules 1-3); a table lookup cannot fail other than "not running",
/// which the fence path already handles. The table is written only by the sidecar supervisor's
/// child specs (sidecar_app.cpp), once per (re)start.
/// References are WEAK: the supervisor owns its children; a strong reference here would keep a
/// stopped detached actor's thread alive and hang the actor system's shutdown.
class sidecar_handles {
 public:
  local_mysql_actor mysql() const { return get<local_mysql_actor>(mysql_); }
  view_cache_actor cache() const { return get<view_cache_actor>(cache_); }
  fencing_monitor_actor monitor() const { return get<fencing_monitor_actor>(monitor_); }
  http_worker_actor operator_http() const { return get<http_worker_actor>(operator_http_); }
  binlog_archiver_actor archiver() const { return get<binlog_archiver_actor>(archiver_); }
  http_worker_actor peer_http(size_t i) const {
    caf::weak_actor_ptr w;
    {
      std::lock_guard<std::mutex> g(m_);
      if (i < peer_http_.size()) w = peer_http_[i];
    }
    return upgrade<http_worker_actor>(w);
  }

  void set_mysql(const local_mysql_actor& h) { set(mysql_, h); }
  void set_cache(const view_cache_actor& h) { set(cache_, h); }
  void set_monitor(const fencing_monitor_actor& h) { set(monitor_, h); }
  void set_operator_http(const http_worker_actor& h) { set(operator_http_, h); }
  void set_archiver(const binlog_archiver_actor& h) { set(archiver_, h); }
  void set_peer_http(size_t i, const http_worker_actor& h) {
    std::lock_guard<std::mutex> g(m_);
    if (peer_http_.size() <= i) peer_http_.resize(i + 1);
    peer_http_[i] = caf::actor_cast<caf::weak_actor_ptr>(h);
  }

 private:
  template <class T>
  static T upgrade(const caf::weak_actor_ptr& w) {
    auto strong = w.lock();
    // Each slot only ever holds a handle of type T (set() takes it typed): back to its own type.
    return strong ? caf::actor_cast<T>(strong) : T{};
  }
  template <class T>
  T get(const caf::weak_actor_ptr& x) const {
    caf::weak_actor_ptr copy;
    {
      std::lock_guard<std::mutex> g(m_);
      copy = x;
    }
    return upgrade<T>(copy);
  }
  template <class H>
  void set(caf::weak_actor_ptr& x, const H& h) {
    std::lock_guard<std::mutex> g(m_);
    x = caf::actor_cast<caf::weak_actor_ptr>(h);
  }
  mutable std::mutex m_;
  caf::weak_actor_ptr mysql_;
  caf::weak_actor_ptr cache_;
  caf::weak_actor_ptr monitor_;
  caf::weak_actor_ptr operator_http_;
  caf::weak_actor_ptr archiver_;
  std::vector<caf::weak_actor_ptr> peer_http_;
};

}  // namespace br::sidecar
