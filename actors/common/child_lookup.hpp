// Finding a sibling actor by asking its supervisor, instead of sharing a "current handle" cell.
//
// A supervisor answers (child, name) with the child's current handle. It holds children of every
// kind as caf::actor (it only starts, stops and watches them); a child that was started as a typed
// actor is turned back into its own interface here, in one place, and nowhere else.
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <caf/system_messages.hpp>
#include <caf/error.hpp>
#include <caf/timespan.hpp>

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "messages/atoms.hpp"

namespace br {

/// Asks `supervisor` for its child `name` and calls `on_handle(Handle)` or `on_error(error&)`.
/// `Handle` must be the interface the child was spawned with (its child_spec says which).
template <class Handle, class Self, class OnHandle, class OnError>
void ask_child(Self* self, const caf::actor& supervisor, const std::string& name,
               caf::timespan timeout, OnHandle on_handle, OnError on_error) {
  if (!supervisor) {
    auto err = caf::make_error(caf::sec::invalid_argument, "no supervisor to ask for " + name);
    on_error(err);
    return;
  }
  self->request(supervisor, timeout, child_atom::value, name)
      .then(
          [=](caf::actor& child) mutable {
            // The supervisor stores every child untyped; this child was spawned as `Handle`
            // (see its child_spec), so this only restores the handle's own interface.
            on_handle(caf::actor_cast<Handle>(child));
          },
          [=](caf::error& err) mutable { on_error(err); });
}

/// A sibling found by asking, kept until it goes down. The owner monitors it (done here) and
/// forwards its down messages to on_down(); uses made while the answer is pending wait in a
/// short queue (the oldest are dropped beyond `max_waiting`: each use carries the newest state).
/// Copies share one lookup: a pending answer lands in that shared state, never in a moved-from or
/// destroyed object.
template <class Handle>
class child_ref {
 public:
  child_ref() = default;
  child_ref(caf::actor supervisor, std::string name, size_t max_waiting = 16,
            caf::timespan timeout = std::chrono::seconds(2))
      : s_(std::make_shared<lookup>()) {
    s_->supervisor = std::move(supervisor);
    s_->name = std::move(name);
    s_->max_waiting = max_waiting;
    s_->timeout = timeout;
  }

  /// Calls `use` with the child now when it is known, else once the supervisor answered; calls
  /// `missing` instead when the supervisor has no such child running (or did not answer in time),
  /// or when the use was dropped from a full queue.
  template <class Self>
  void with(Self* self, std::function<void(const Handle&)> use,
            std::function<void()> missing = {}) {
    if (!s_) s_ = std::make_shared<lookup>();  // default-constructed: no supervisor to ask
    auto& s = *s_;
    if (s.handle) {
      use(s.handle);
      return;
    }
    s.waiting.push_back({std::move(use), std::move(missing)});
    while (s.waiting.size() > s.max_waiting) {
      auto oldest = std::move(s.waiting.front());
      s.waiting.pop_front();
      if (oldest.missing) oldest.missing();
    }
    if (s.asking) return;
    s.asking = true;
    // The owner (self) outlives its own requests; the answer goes to the shared lookup.
    ask_child<Handle>(
        self, s.supervisor, s.name, s.timeout,
        [shared = s_, self](Handle h) {
          shared->asking = false;
          if (!h) {
            shared->fail_waiting();
            return;
          }
          shared->handle = h;
          self->monitor(shared->handle);
          auto uses = std::move(shared->waiting);
          shared->waiting.clear();
          for (auto& u : uses) u.use(shared->handle);
        },
        [shared = s_](caf::error&) {
          shared->asking = false;  // the next use asks again
          shared->fail_waiting();
        });
  }

  /// True (and the handle forgotten) when `dm` is about the child.
  bool on_down(const caf::down_msg& dm) {
    if (!s_ || !s_->handle || dm.source != s_->handle.address()) return false;
    s_->handle = nullptr;
    return true;
  }

  /// The child when known (null before the first answer and after it went down).
  Handle current() const { return s_ ? s_->handle : Handle{}; }

 private:
  struct waiting_use {
    std::function<void(const Handle&)> use;
    std::function<void()> missing;
  };
  struct lookup {
    caf::actor supervisor;
    std::string name;
    size_t max_waiting = 16;
    caf::timespan timeout = std::chrono::seconds(2);
    Handle handle;
    bool asking = false;
    std::deque<waiting_use> waiting;
    void fail_waiting() {
      auto uses = std::move(waiting);
      waiting.clear();
      for (auto& u : uses)
        if (u.missing) u.missing();
    }
  };
  std::shared_ptr<lookup> s_;
};

}  // namespace br
