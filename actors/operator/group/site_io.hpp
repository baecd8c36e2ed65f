// The real site_io_actor: one lane per MySQL target (host:port), each with its own detached worker.
#pragma once

#include <caf/actor_clock.hpp>
#include <caf/actor_system.hpp>
#include <caf/timespan.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "messages/interfaces.hpp"
#include "messages/mysql.hpp"

namespace br {

struct site_io_config {
  /// Lanes open at once, i.e. worker threads (one per target). A new target beyond it takes the
  /// least recently used idle lane; when every lane is busy it is answered "overload".
  size_t max_lanes = 256;
  /// Commands waiting in one lane behind the one running; more are answered "overload" (after
  /// the waiting ones whose deadline passed were dropped). A hung target cannot grow its queue.
  size_t lane_queue = 16;
  /// A lane without work for this long is closed (its worker and cached sessions end).
  caf::timespan idle_after{std::chrono::minutes(2)};
  /// A worker that has not answered `3 x timeout + wedged_after` after a command started is
  /// given up: the caller hears "timeout", the worker is killed (it ends when its blocking call
  /// returns) and the lane takes new work only once it is gone, so a lane never has two threads.
  caf::timespan wedged_after{std::chrono::seconds(10)};
};

/// Spawns the dispatcher. Commands of one target run one at a time, in arrival order, on that
/// target's own worker (spawned on demand, linked to the dispatcher); commands of different
/// targets never wait for each other. A command still waiting when its deadline passes, or one
/// decided under a leadership generation below the floor, is answered without running. The reply
/// is the worker's mysql_outcome.
site_io_actor spawn_site_io(caf::actor_system& sys, site_io_config cfg = {});

namespace site_io_detail {

/// io/mysql's error kind as mysql_outcome.error_kind ("protocol" is reported as "other").
std::string outcome_kind(std::string_view io_kind);

/// The lane a command runs in: "host:port" of its target (the account does not matter).
std::string lane_key(const mysql_target& t);

/// Whether a command may start now (pure; checked when it reaches the front of its lane and again
/// by the worker right before it touches the server).
enum class start_verdict { run, abandoned, stale_generation };
start_verdict judge_start(const mysql_command& cmd, uint64_t floor,
                          caf::actor_clock::time_point now);

/// The outcome of a command that was not run (verdict != run) or not admitted ("overload").
mysql_outcome not_run(start_verdict v, const mysql_command& cmd, uint64_t floor,
                      caf::actor_clock::time_point now);
mysql_outcome overload(const mysql_command& cmd, const std::string& why);

}  // namespace site_io_detail

}  // namespace br
