// Pure sidecar fencing rules (docs/safety.md rules 1, 2, 6, startup grace, re-arm) and view adoption.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "messages/sidecar.hpp"

namespace br::sidecar {

using time_point = std::chrono::steady_clock::time_point;
using duration = std::chrono::steady_clock::duration;

// -- view adoption --------------------------------------------------------------------------------

/// Should the cache replace `current` with `offered`? Epochs never go back:
/// - nothing cached: adopt anything;
/// - operator answers, pushes and the boot guard's answer are authoritative: adopt when
///   epoch >= cached (an equal epoch refreshes observedAt and repeats the same authority);
/// - a peer's view and the file: adopt only when epoch > cached (docs/safety.md: peers exchange views and
///   adopt only strictly higher epochs, so two peers can never ping-pong a view).
bool should_adopt(const sidecar_view& current, const topology_view& offered, view_source source);

// -- fencing ---------------------------------------------------------------------------------------

/// What the sidecar last heard from one peer's /peer/active-site.
enum class peer_view_kind : uint8_t {
  unknown,   ///< never answered (or only errors so far)
  no_view,   ///< 204: the peer has no view (e.g. restarted without its file)
  old_peer,  ///< 404: an old sidecar without /peer/active-site
  view,      ///< 200 with a view of `epoch`
};

struct peer_observation {
  std::string address;
  peer_view_kind kind = peer_view_kind::unknown;
  uint64_t epoch = 0;          ///< valid for kind == view
  time_point last_view_sent{};  ///< SEND time of the last 200 view answer (rule 6)
};

struct fencing_input {
  std::string my_site;
  sidecar_view view;            ///< the cached view after this tick's pulls
  bool mysql_reachable = false;
  bool mysql_writable = false;
  time_point now{};
  time_point window_start{};    ///< start of the current lease window (process start or re-arm)
  time_point last_operator_contact{};  ///< SEND time of the last successful operator request
  std::vector<peer_observation> peers;
  duration lease_timeout = std::chrono::seconds(20);
  bool fenced = false;     ///< this sidecar confirmed a self-fence earlier
  bool refreshed = false;  ///< the view was re-read after the mismatch was seen (rule 1's refresh)
};

enum class fencing_action : uint8_t { none, refresh_view, fence };
enum class fence_reason : uint8_t { none, mismatch, transition, lease };

struct fencing_decision {
  fencing_action action = fencing_action::none;
  fence_reason reason = fence_reason::none;
  /// MySQL turned writable after a confirmed self-fence: only the operator does that, so clear the
  /// fenced flag and start a fresh lease window at `now` (the decision already assumes it).
  bool rearm = false;
  std::string why;  ///< one human line for logs
};

std::string_view to_string(fence_reason r);
std::string_view to_string(fencing_action a);

/// Does the cached view tell this site not to be writable? mismatch: another site is active;
/// transition: no active site and this site is being deposed. Otherwise none.
fence_reason view_conflict(const sidecar_view& v, const std::string& my_site);

/// Does this peer keep the primary writable at `now`? Only with a view whose epoch is at least
/// ours, served (sent) within the lease.
bool peer_anchors(const peer_observation& p, const sidecar_view& mine, time_point now,
                  duration lease_timeout);

/// When the current lease was last renewed (docs/safety.md rule 6 applied to rule 7): the latest of the
/// window start, the operator's last contact and the last view of every peer that anchors now, all
/// SEND times; after a re-arm (fenced and writable again) it is `now`. The sidecar writes its
/// heartbeat as the server's NOW() minus (now - lease_anchor), so the in-database switch fires no
/// later than this sidecar's own lease would: a sidecar that hangs right after a heartbeat cannot
/// stretch the lease to twice its length (the DST long run found exactly that with NOW()).
time_point lease_anchor(const fencing_input& in);

/// The rules, in order: nothing to do unless MySQL is reachable and writable; re-arm; rule 1
/// (refresh once, then fence); startup grace; rule 2 (lease: operator and every anchoring peer
/// silent for more than lease_timeout; exactly lease_timeout is not yet silent).
fencing_decision decide_fencing(const fencing_input& in);

}  // namespace br::sidecar
