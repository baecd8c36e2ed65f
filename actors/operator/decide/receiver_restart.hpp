// Followers whose replication receiver stopped for good: which to restart now.
//
// A follower's IO thread gives up after SOURCE_RETRY_COUNT x SOURCE_CONNECT_RETRY (an outage
// longer than that leaves it stopped). restart_receivers() names the sites whose receiver the
// operator should START again, all of which must hold:
//   - the site is not the active site and its latest probe succeeded: read-only, a channel
//     configured, IO thread "OFF" (not "CONNECTING": that one is still retrying), and no applier
//     error (an applier error can mean divergence: that is the recovery path's business);
//   - the active site's latest probe succeeded and shows it writable (the source is healthy);
//   - the site has no recovery state (pending, in progress or blocked sites are handled by
//     recovery) and no plan runs;
//   - the site is not restore-pending (decide/restore_freeze.hpp: it may hold transactions an
//     in-place restore discarded; only its reclone from the restored site lets it replicate);
//   - no restart of that site within `min_interval` (a receiver that stops again at once is
//     retried at that pace, not every poll).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "messages/operator.hpp"

namespace br {

struct receiver_restart_input {
  std::string active_site;
  std::map<std::string, site_report> reports;  ///< latest report per site
  std::map<std::string, site_recovery> recovery;
  std::vector<std::string> restore_pending;  ///< restore_freeze_record::pending
  bool busy = false;
  mono_time now{};
  std::map<std::string, mono_time> last_restart;
  caf::timespan min_interval{std::chrono::seconds(30)};
};

std::vector<std::string> restart_receivers(const receiver_restart_input& in);

}  // namespace br
