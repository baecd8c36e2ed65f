// The planned failover's requests to the Dragonfly manager and its reports (issue 24): the
// coordinator asks (never waiting on the cache itself: a CAF request with a deadline), the
// manager, a detached actor, does the I/O and answers. decide/planned_dragonfly.hpp decides
// what a report means for the planned failover.
#pragma once

#include <caf/meta/type_name.hpp>

#include <cstdint>
#include <string>

namespace br {

/// sync (promote == false): wait until the cache replica on `target` reached the offset the
/// cache master has when the request arrives, up to `max_wait_ms`. promote: move the cache
/// master to `target` (REPLTAKEOVER when advertised, else traffic stopped, writes paused, catch
/// up, REPLICAOF NO ONE), bounded by `max_wait_ms` for the catch-up.
struct dragonfly_handover_request {
  bool promote = false;
  uint64_t request = 0;  ///< the planned failover's request number (reports are matched by it)
  std::string source;    ///< MySQL's source site (informational: the cache master is the manager's)
  std::string target;
  int64_t max_wait_ms = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, dragonfly_handover_request& x) {
  return f(caf::meta::type_name("dragonfly_handover_request"), x.promote, x.request, x.source,
           x.target, x.max_wait_ms);
}

struct dragonfly_handover_report {
  bool promote = false;
  uint64_t request = 0;
  bool ok = false;
  std::string master;             ///< the cache master the offsets are about ("" unknown)
  bool offset_capture_failed = false;  ///< sync: the master's offset could not be read
  int64_t source_offset = -1;     ///< sync: the master's master_repl_offset captured
  int64_t target_offset = -1;     ///< the target's offset at the end
  int64_t waited_ms = 0;
  std::string method;             ///< promote: REPLTAKEOVER | REPLICAOF NO ONE | skipped
  std::string error;              ///< when !ok: why
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, dragonfly_handover_report& x) {
  return f(caf::meta::type_name("dragonfly_handover_report"), x.promote, x.request, x.ok,
           x.master, x.offset_capture_failed, x.source_offset, x.target_offset, x.waited_ms,
           x.method, x.error);
}

}  // namespace br
