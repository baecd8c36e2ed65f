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
template <class Handle>
class child_ref {
 public:
  child_ref() = default;
  child_ref(caf::actor supervisor, std::string name, size_t max_waiting = 16,
            caf::timespan timeout = std::chrono::seconds(2))
      : supervisor_(std::move(supervisor)),
        name_(std::move(name)),
        max_waiting_(max_waiting),
        timeout_(timeout) {}

  /// Calls `use` with the child now when it is known, else once the supervisor answered; calls
  /// `missing` instead when the supervisor has no such child running (or did not answer in time),
  /// or when the use was dropped from a full queue.
  template <class Self>
  void with(Self* self, std::function<void(const Handle&)> use,
            std::function<void()> missing = {}) {
    if (handle_) {
      use(handle_);
      return;
    }
    waiting_.push_back({std::move(use), std::move(missing)});
    while (waiting_.size() > max_waiting_) {
      auto oldest = std::move(waiting_.front());
      waiting_.pop_front();
      ++dropped_;
      if (oldest.missing) oldest.missing();
    }
    if (asking_) return;
    asking_ = true;
    // The owner (self) outlives its own requests, and this object lives in its state.
    ask_child<Handle>(
        self, supervisor_, name_, timeout_,
        [this, self](Handle h) {
          asking_ = false;
          if (!h) {
            fail_waiting();
            return;
          }
          handle_ = h;
          self->monitor(handle_);
          auto uses = std::move(waiting_);
          waiting_.clear();
          for (auto& u : uses) u.use(handle_);
        },
        [this](caf::error&) {
          asking_ = false;  // the next use asks again
          fail_waiting();
        });
  }

  /// True (and the handle forgotten) when `dm` is about the child.
  bool on_down(const caf::down_msg& dm) {
    if (!handle_ || dm.source != handle_.address()) return false;
    handle_ = nullptr;
    return true;
  }

  const Handle& current() const { return handle_; }
  /// Uses dropped because too many waited for an answer.
  size_t dropped() const { return dropped_; }

 private:
  void fail_waiting() {
    auto uses = std::move(waiting_);
    waiting_.clear();
    for (auto& u : uses)
      if (u.missing) u.missing();
  }

  caf::actor supervisor_;
  std::string name_;
  size_t max_waiting_ = 16;
  caf::timespan timeout_ = std::chrono::seconds(2);
  Handle handle_;
  bool asking_ = false;
  struct waiting_use {
    std::function<void(const Handle&)> use;
    std::function<void()> missing;
  };
  std::deque<waiting_use> waiting_;
  size_t dropped_ = 0;
};

}  // namespace br
