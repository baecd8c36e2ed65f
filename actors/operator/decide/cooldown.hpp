// Anti-flap cooldown () and the merge of its two durable copies (S7).
//
// failover_cooldown(now, last, cooldown): automatic failover is suppressed while
// now - last < cooldown, i.e. allowed from exactly last + cooldown on; remaining =
// (last + cooldown) - now while suppressed, 0 otherwise. No record -> allowed. A record
// stamped after `now` (clock step) still suppresses, for longer: remaining counts from `last`.
//
// merge_durable_failover_record(status copy, annotation copy, now, max_future_skew): the
// operator rehydrates lastFailover/lastFailoverTarget at start-up from the CR status and from
// the out-of-band annotations. A copy stamped later than now + max_future_skew is refused
// (WARN) so a bad clock cannot block failover for ever; a copy exactly at the limit is
// accepted. Of the valid copies the newer wins; on equal times the status copy wins (a WARN if
// the targets disagree). Choosing the annotation copy because the status copy is older or
// missing emits "restored lastFailover from out-of-band annotations".
#pragma once

#include <optional>

#include "messages/decisions.hpp"

namespace br {

cooldown_status failover_cooldown(wall_time now, std::optional<wall_time> last_failover,
                                  caf::timespan failover_cooldown);

merged_failover_record merge_durable_failover_record(std::optional<failover_record> status_copy,
                                                     std::optional<failover_record> annotation_copy,
                                                     wall_time now, caf::timespan max_future_skew);

}  // namespace br
