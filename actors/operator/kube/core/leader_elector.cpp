// leader_elector: tick loop (retry_period, jittered while waiting), renew deadline, release.
#include "actors/operator/kube/core/leader_elector.hpp"

#include <random>

#include "io/log/log.hpp"
#include "messages/atoms.hpp"

namespace br::op {

namespace {

using std::chrono::milliseconds;

void lose(elector_ptr self) {
  auto& st = self->state;
  st.guard->clear();  // writers stop before anyone hears about it
  st.leading = false;
  const auto& cfg = st.lock->config();
  br::log::error("leader lease lost", {{"identity", cfg.identity}, {"lease", cfg.name}});
  if (st.listener) self->send(st.listener, lost_atom::value, cfg.identity);
  self->quit();
}

milliseconds jittered(milliseconds d) {
  static thread_local std::mt19937 rng{std::random_device{}()};
  std::uniform_real_distribution<double> u{0.0, 0.2};
  return milliseconds{static_cast<long long>(d.count() * (1.0 + u(rng)))};
}

}  // namespace

leader_elector_actor::behavior_type leader_elector(elector_ptr self,
                                                   std::shared_ptr<br::kube::client> client,
                                                   election_config cfg,
                                                   std::shared_ptr<lease_guard> guard,
                                                   leadership_actor listener) {
  auto& st = self->state;
  st.lock = std::make_unique<lease_lock>(std::move(client), cfg);
  st.guard = std::move(guard);
  st.listener = std::move(listener);
  self->send(self, tick_atom::value);
  return {
      [=](tick_atom) {
        auto& s = self->state;
        const auto& c = s.lock->config();
        if (s.leading) {
          if (!s.guard->valid()) return lose(self);
          // A renew attempt may not outlive the current lease guard.
          if (s.lock->try_acquire_or_renew(std::min(s.guard->remaining(), c.renew_deadline))) {
            s.guard->set_until(s.lock->last_success_sent() + c.renew_deadline);
          } else if (!s.guard->valid()) {
            return lose(self);
          }
          const auto next = std::max(milliseconds{1}, std::min(c.retry_period, s.guard->remaining()));
          self->delayed_send(self, next, tick_atom::value);
          return;
        }
        if (s.lock->try_acquire_or_renew(c.retry_period)) {
          s.guard->set_until(s.lock->last_success_sent() + c.renew_deadline);
          if (s.guard->valid()) {
            s.leading = true;
            br::log::info("leader lease acquired", {{"identity", c.identity}, {"lease", c.name}});
            if (s.listener) self->send(s.listener, leading_atom::value, c.identity);
          }
          self->delayed_send(self, std::min(c.retry_period, std::max(milliseconds{1}, s.guard->remaining())),
                             tick_atom::value);
          return;
        }
        self->delayed_send(self, jittered(c.retry_period), tick_atom::value);
      },
      [=](stop_atom) {
        auto& s = self->state;
        const auto& c = s.lock->config();
        const bool was_leading = s.leading && s.guard->valid();
        const auto budget = std::min(s.guard->remaining(), c.renew_deadline);
        s.guard->clear();  // writers stop first; the release is the last write of this leader
        s.leading = false;
        if (was_leading && c.release_on_stop) s.lock->release(budget);
        self->quit();
      },
  };
}

}  // namespace br::op
