// One-for-one supervisor implementation (links to children, traps their exits).
#include "actors/common/supervisor.hpp"

#include <caf/all.hpp>

#include <deque>
#include <set>

#include "actors/common/registry.hpp"
#include "io/log/log.hpp"
#include "io/metrics/metrics.hpp"

namespace br {
namespace {

struct child_record {
  child_spec spec;
  caf::actor handle;
  bool finished = false;  // exited normally: never restarted
  uint64_t restarts = 0;
  std::deque<caf::actor_clock::time_point> recent;  // restart times inside the window
};

struct supervisor_state {
  std::string path;
  restart_policy policy;
  std::vector<child_record> children;
  bool stopping = false;
  caf::error stop_reason;  // reason to quit with once every child has stopped
  std::vector<caf::response_promise> stop_waiters;
  std::set<caf::actor_id> linked_ids;  // children whose exit message may still arrive
  static inline const char* name = "supervisor";
};

using sup_ptr = caf::stateful_actor<supervisor_state>*;

std::string child_path(sup_ptr self, const child_record& c) {
  return self->state.path + "/" + c.spec.name;
}

void start_child(sup_ptr self, child_record& c) {
  auto path = child_path(self, c);
  c.handle = c.spec.start(self, path);
  if (!c.handle) {
    self->quit(caf::make_error(caf::sec::runtime_error, "could not start child " + path));
    return;
  }
  // Linked so the child dies with us; monitored because a child we stop ourselves unlinks before
  // it exits (CAF 0.17), so only the down message reliably reports every child exit.
  self->link_to(c.handle);
  self->monitor(c.handle);
  self->state.linked_ids.insert(c.handle.id());
  if (auto r = find_registry(self->system()))
    self->send(r, announce_atom::value,
               actor_entry{path, c.spec.name, c.spec.kind, self->state.path, c.handle.id()},
               c.handle);
}

child_record* find_child(sup_ptr self, const caf::actor_addr& addr) {
  for (auto& c : self->state.children)
    if (c.handle && c.handle.address() == addr) return &c;
  return nullptr;
}

child_record* find_child(sup_ptr self, const std::string& name) {
  for (auto& c : self->state.children)
    if (c.spec.name == name) return &c;
  return nullptr;
}

// Stops the last running child; called again on each of their exits until none is left.
void continue_stop(sup_ptr self) {
  for (auto it = self->state.children.rbegin(); it != self->state.children.rend(); ++it) {
    if (!it->handle) continue;
    auto handle = it->handle;
    self->send_exit(handle, caf::exit_reason::user_shutdown);
    self->delayed_send(self, self->state.policy.stop_timeout, stop_atom::value, handle.id());
    report_step(self, self->state.path, "stopping " + it->spec.name);
    return;
  }
  for (auto& rp : self->state.stop_waiters) rp.deliver(true);
  self->state.stop_waiters.clear();
  self->quit(self->state.stop_reason);
}

void begin_stop(sup_ptr self, caf::error reason) {
  if (self->state.stopping) return;
  self->state.stopping = true;
  self->state.stop_reason = std::move(reason);
  log::info("supervisor stopping", {{"actor", self->state.path}});
  continue_stop(self);
}

void on_child_exit(sup_ptr self, child_record& c, const caf::error& reason) {
  auto path = child_path(self, c);
  c.handle = nullptr;
  if (self->state.stopping) {
    continue_stop(self);
    return;
  }
  if (!reason) {
    c.finished = true;
    log::info("actor finished", {{"actor", path}});
    return;
  }
  auto text = to_string(reason);
  auto now = self->clock().now();
  auto& p = self->state.policy;
  while (!c.recent.empty() && now - c.recent.front() >= p.window) c.recent.pop_front();
  if (c.recent.size() >= p.max_restarts) {
    auto msg = "restart budget exhausted: " + path + " failed " +
               std::to_string(c.recent.size() + 1) + " times within " +
               std::to_string(std::chrono::duration_cast<std::chrono::seconds>(p.window).count()) +
               "s; last error: " + text;
    log::error("supervisor giving up", {{"actor", self->state.path}, {"child", path},
                                        {"error", text}});
    report_error(self, self->state.path, msg);
    begin_stop(self, caf::make_error(caf::sec::runtime_error, msg));
    return;
  }
  c.recent.push_back(now);
  ++c.restarts;
  auto delay = backoff_delay(p, c.recent.size());
  metrics::actor_restarts(path).Increment();
  if (auto r = find_registry(self->system())) {
    self->send(r, restarts_atom::value, path, c.restarts);
    self->send(r, error_atom::value, path, text);
  }
  log::warn("actor failed; restarting",
            {{"actor", path}, {"error", text}, {"restarts", c.restarts},
             {"delayMs", std::chrono::duration_cast<std::chrono::milliseconds>(delay).count()}});
  self->delayed_send(self, delay, restart_atom::value, c.spec.name);
}

caf::behavior supervisor_impl(sup_ptr self, std::string path, restart_policy policy,
                              std::vector<child_spec> specs) {
  self->state.path = std::move(path);
  self->state.policy = policy;
  announce(self, self->state.path, "supervisor");
  self->set_down_handler([=](caf::down_msg& dm) {
    if (auto c = find_child(self, dm.source)) on_child_exit(self, *c, dm.reason);
  });
  self->set_exit_handler([=](caf::exit_msg& em) {
    if (self->state.linked_ids.erase(em.source.id()) > 0) return;  // a child: see down handler
    // Not a child: our parent (or a linked peer) went down. Stop our subtree in order.
    if (em.reason) begin_stop(self, em.reason);
  });
  for (auto& s : specs) self->state.children.push_back(child_record{std::move(s), {}, false, 0, {}});
  for (auto& c : self->state.children) {
    start_child(self, c);
    if (self->getf(caf::abstract_actor::is_terminated_flag)) return {};
  }
  report_step(self, self->state.path, "running");
  return {
      [=](restart_atom, const std::string& name) {
        auto c = find_child(self, name);
        if (!c || c->handle || c->finished || self->state.stopping) return;
        start_child(self, *c);
        report_step(self, self->state.path, "running");
      },
      [=](child_atom, const std::string& name) -> caf::result<caf::actor> {
        auto c = find_child(self, name);
        if (!c) return caf::make_error(caf::sec::invalid_argument, "no child named " + name);
        if (!c->handle) return caf::make_error(caf::sec::invalid_argument, name + " is not running");
        return c->handle;
      },
      [=](child_atom, child_spec& spec) -> caf::result<caf::actor> {
        if (self->state.stopping) return caf::make_error(caf::sec::invalid_argument, "stopping");
        if (find_child(self, spec.name))
          return caf::make_error(caf::sec::invalid_argument, "duplicate child " + spec.name);
        self->state.children.push_back(child_record{std::move(spec), {}, false, 0, {}});
        auto& c = self->state.children.back();
        start_child(self, c);
        return c.handle;
      },
      [=](restarts_atom, const std::string& name) -> caf::result<uint64_t> {
        auto c = find_child(self, name);
        if (!c) return caf::make_error(caf::sec::invalid_argument, "no child named " + name);
        return c->restarts;
      },
      [=](stop_atom) -> caf::result<bool> {
        auto rp = self->make_response_promise();
        self->state.stop_waiters.push_back(rp);
        begin_stop(self, caf::none);
        return rp;
      },
      [=](stop_atom, caf::actor_id id) {
        // Stop timeout for one child: it did not exit after user_shutdown, so kill it.
        for (auto& c : self->state.children)
          if (c.handle && c.handle.id() == id) {
            log::warn("child did not stop in time; killing", {{"actor", child_path(self, c)}});
            // `kill` cannot be trapped and travels along links: unlink first or it kills us too.
            self->unlink_from(c.handle);
            self->state.linked_ids.erase(c.handle.id());
            self->send_exit(c.handle, caf::exit_reason::kill);
          }
      },
  };
}

}  // namespace

caf::timespan backoff_delay(const restart_policy& p, size_t n) {
  auto d = p.backoff_base;
  for (size_t i = 1; i < n && d < p.backoff_cap; ++i) d *= 2;
  return d < p.backoff_cap ? d : p.backoff_cap;
}

caf::actor spawn_supervisor(caf::actor_system& sys, std::string path, restart_policy policy,
                            std::vector<child_spec> children) {
  return sys.spawn(supervisor_impl, std::move(path), policy, std::move(children));
}

child_spec supervisor_child(std::string name, restart_policy policy,
                            std::vector<child_spec> children) {
  child_spec spec;
  spec.name = name;
  spec.kind = "supervisor";
  spec.start = [policy, children](caf::local_actor* sup, const std::string& path) {
    return sup->spawn(supervisor_impl, path, policy, children);
  };
  return spec;
}

}  // namespace br
