// The acknowledgement rule for a pushed view (PUT /view), as a pure step function.
//
// A pushed view walks through at most four facts, each fed to push_step():
//   offered   the view cache answered the offer (the cached view afterwards):
//               cached epoch > pushed -> answer stale;
//               names this site       -> answer ok without touching MySQL (only the operator
//                                        unfences);
//               otherwise             -> probe local MySQL.
//   probed    the local probe:
//               mysqld provably down ("down": refused on the local address, or no socket)
//                                     -> answer ok, mysqld not reachable (S5: it boots fenced);
//                                        any other failure, a lost connection included -> no
//                                        ack (unknown);
//               already super_read_only -> answer ok, fenced;
//               deposes this site     -> fence now;
//               names another site    -> refresh once (docs/safety.md rule 1: a best-effort push
//                                        of an older view can arrive after this site was promoted).
//   refreshed the one refresh from the operator: a fresher view naming this site supersedes the
//             push (answer stale); anything else, or no answer, -> fence.
//   fenced    the fence: ok -> answer ok, fenced; otherwise answer the error. Gate rule 2 counts
//             only acknowledgements given after a confirmed fence.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "messages/operator.hpp"
#include "messages/sidecar.hpp"
#include "messages/mysql.hpp"

namespace br::sidecar {

/// One pushed view being handled.
struct push_progress {
  topology_view pushed;
  std::string site;  ///< this sidecar's site
  push_ack ack;
};

namespace push_event {
struct offered {
  sidecar_view cached;
  bool fenced = false;           ///< the monitor's own knowledge, for an ack of a view naming us
  bool mysql_reachable = true;
};
struct probed {
  std::optional<mysql_outcome> outcome;  ///< nullopt: the probe request itself failed
  std::string error;                     ///< why, when nullopt
};
struct refreshed {
  std::optional<sidecar_view> view;  ///< nullopt: the operator could not be asked or answered
};
struct fence_done {
  bool ok = false;
  std::string error;
};
}  // namespace push_event

using push_input = std::variant<push_event::offered, push_event::probed, push_event::refreshed,
                                push_event::fence_done>;

enum class push_action : uint8_t { answer, probe, fence, refresh };

struct push_result {
  push_progress progress;
  push_action action = push_action::answer;
};

push_result push_step(push_progress p, const push_input& in);

}  // namespace br::sidecar
