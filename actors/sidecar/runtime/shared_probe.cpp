// shared_probe: a mutex-guarded waiter list in front of one request to the MySQL worker.
#include "actors/sidecar/runtime/shared_probe.hpp"

#include <caf/all.hpp>

namespace br::sidecar {

shared_probe::shared_probe(caf::actor_system& sys, std::shared_ptr<sidecar_handles> h, options o)
    : sys_(sys), h_(std::move(h)), o_(o) {}

std::size_t shared_probe::probes_started() const {
  std::lock_guard<std::mutex> g(m_);
  return started_;
}

void shared_probe::get(callback cb) {
  {
    std::unique_lock<std::mutex> g(m_);
    auto now = std::chrono::steady_clock::now();
    if (last_ && now - last_at_ <= o_.max_age) {
      auto r = last_;
      g.unlock();
      cb(r);
      return;
    }
    if (inflight_) {
      if (waiters_.size() >= o_.max_waiters) {
        g.unlock();
        cb(std::nullopt);
        return;
      }
      waiters_.push_back(std::move(cb));
      return;
    }
    inflight_ = true;
    ++started_;
    waiters_.push_back(std::move(cb));
  }
  auto m = h_->mysql();
  if (!m) {
    finish(std::nullopt);
    return;
  }
  auto self_ref = shared_from_this();
  auto timeout = o_.timeout;
  sys_.spawn([self_ref, m, timeout](caf::event_based_actor* self) {
    self->request(m, timeout, probe_atom::value)
        .then([self_ref](const mysql_outcome& o) { self_ref->finish(o); },
              [self_ref](caf::error&) { self_ref->finish(std::nullopt); });
  });
}

void shared_probe::finish(std::optional<mysql_outcome> r) {
  std::vector<callback> ws;
  {
    std::lock_guard<std::mutex> g(m_);
    inflight_ = false;
    ws.swap(waiters_);
    if (r) {
      last_ = r;
      last_at_ = std::chrono::steady_clock::now();
    }
  }
  for (auto& w : ws) w(r);
}

}  // namespace br::sidecar
