// Semi-synchronous replication (issue 25): the active primary blocked waiting for
// acknowledgements, one Event per episode.
#include "actors/operator/decide/semisync_waiting.hpp"

namespace br {

semisync_waiting_verdict judge_semisync_waiting(const semisync_waiting_episode& prev,
                                                const std::string& site, const site_semisync& s) {
  semisync_waiting_verdict v;
  v.next = prev.site == site ? prev : semisync_waiting_episode{site, 0, false};
  const bool too_few = s.clients < s.wait_count;
  const bool blocked = s.source_on && (s.wait_sessions > 0 || too_few);
  if (!blocked) {
    v.next.polls_blocked = 0;
    v.next.raised = false;
    return v;
  }
  if (v.next.polls_blocked < semisync_waiting_polls) ++v.next.polls_blocked;
  if (v.next.polls_blocked < semisync_waiting_polls || v.next.raised) return v;
  v.next.raised = true;
  v.raise = true;
  v.message = site + ": the primary is blocked waiting for semi-sync acknowledgements: " +
              std::to_string(s.wait_sessions) + " commit(s) waiting, " +
              std::to_string(s.clients) + " semi-sync replica(s) connected of the " +
              std::to_string(s.wait_count) + " each commit waits for (" +
              std::to_string(semisync_waiting_polls) + " polls in a row)";
  return v;
}

}  // namespace br
