// Ask the sidecars which views they hold, then step the loaded state (epoch_recovery.hpp).
#include "actors/operator/group/epoch_recovery.hpp"

#include <caf/all.hpp>

#include "actors/operator/decide/epoch_floor.hpp"
#include "actors/operator/group/view_push.hpp"
#include "io/log/log.hpp"

namespace br {

namespace {

struct round {
  durable_state stored;
  std::vector<topology_view> held;
  std::size_t outstanding = 0;
  std::size_t answered = 0;
};

void finish(coordinator_self self, const std::shared_ptr<round>& r) {
  auto res = resume_above_held(std::move(r->stored), r->held);
  nlohmann::json f = {{"group", self->state.cfg.rules.group},
                      {"sidecarsAnswered", r->answered},
                      {"viewsHeld", r->held.size()},
                      {"epoch", res.durable.view.epoch}};
  if (res.raised) {
    f["activeSite"] = res.durable.view.active_site;
    f["deposing"] = res.durable.view.deposing;
    f["planDropped"] = res.plan_dropped;
    log::warn("stored state is behind the views the sidecars hold: resuming from the highest", f);
  } else {
    log::info("epoch recovery: stored state is current", f);
  }
  step_group(self, input::loaded{std::move(res.durable)});
}

}  // namespace

void load_after_epoch_recovery(coordinator_self self, durable_state stored) {
  auto& st = self->state;
  const auto& deps = st.cfg.deps;
  if (!deps.http_worker || !deps.keys || deps.keys->operator_keys.empty()) {
    step_group(self, input::loaded{std::move(stored)});
    return;
  }
  auto r = std::make_shared<round>();
  r->stored = std::move(stored);
  for (const auto& [site, addr] : deps.sidecars)
    if (!addr.empty()) ++r->outstanding;
  if (r->outstanding == 0) {
    finish(self, r);
    return;
  }
  auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(deps.sidecar_request_timeout);
  auto keys = deps.keys;
  auto group = deps.authority_group;
  for (const auto& [site, addr] : deps.sidecars) {
    if (addr.empty()) continue;
    auto& w = (*st.push_workers)[site];
    if (!w) w = deps.http_worker();
    auto s = site;
    auto done = [=] {
      if (--r->outstanding == 0) finish(self, r);
    };
    self->request(w, deps.sidecar_request_timeout + std::chrono::seconds(1), http_call_atom::value,
                  held_view_call(addr, auth::new_nonce(), timeout))
        .then(
            [=](const http_reply& rep) {
              auto h = parse_held_view(rep, keys->operator_keys, group);
              if (h.answered) ++r->answered;
              if (h.view) r->held.push_back(*h.view);
              if (!h.error.empty())
                log::info("epoch recovery: no view from sidecar",
                          {{"group", self->state.cfg.rules.group}, {"site", s}, {"error", h.error}});
              done();
            },
            [=](caf::error&) { done(); });
  }
}

}  // namespace br
