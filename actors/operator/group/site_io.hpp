// The real site_io_actor: one lane per site target (site, host:port) over an elastic worker pool.
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
  /// Worker threads at most (spawned on demand, closed after idle_after without work). Commands of
  /// one target run one at a time, so a hung target holds one worker; a command waits for a
  /// worker only while this many targets have a command running at once (then first come, first
  /// served, its deadline still counting).
  size_t max_workers = 512;
  /// Workers spawned whenever none is idle. Beyond them the pool grows only for a target whose
  /// command has waited grow_after for a worker: a burst of quick commands (every poller ticking
  /// at once) is served by the few, while targets held up by hung ones get a worker of their own
  /// after at most grow_after.
  size_t min_workers = 8;
  caf::timespan grow_after{std::chrono::milliseconds(100)};
  /// Targets tracked at once. A new target beyond it takes the place of the least recently used
  /// idle one; when none is idle it is answered "overload".
  size_t max_lanes = 4096;
  /// Commands waiting for one target behind the one running; more are answered "overload" (after
  /// the waiting ones whose deadline passed were dropped). A hung target cannot grow its queue.
  size_t lane_queue = 16;
  /// An idle worker, an idle target's lane and a session unused for this long are closed.
  caf::timespan idle_after{std::chrono::minutes(2)};
  /// A worker that has not answered `3 x timeout + wedged_after` after a command started is
  /// given up: the caller hears "timeout", the worker is killed (it ends when its blocking call
  /// returns) and the target takes new work only once it is gone, so a hung target never holds
  /// two workers.
  caf::timespan wedged_after{std::chrono::seconds(10)};
};

/// Spawns the dispatcher. Commands of one target (site, host:port) run one at a time, in order;
/// a command waits for other targets' commands at most grow_after (below max_workers). A
/// target's command goes to the worker that served it last when that one is idle (its session
/// is cached there). A command still waiting when its deadline passes, or one decided under a
/// leadership generation below the floor, is answered without running. The reply is the
/// worker's mysql_outcome.
site_io_actor spawn_site_io(caf::actor_system& sys, site_io_config cfg = {});

namespace site_io_detail {

/// io/mysql's error kind as mysql_outcome.error_kind ("protocol" is reported as "other").
std::string outcome_kind(std::string_view io_kind);

/// The lane a command runs in: "site@host:port" of its target (the account does not matter).
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
