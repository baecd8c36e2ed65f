// The CAF type-id block: every custom value type that travels in a message.
#pragma once

#include <caf/actor_system_config.hpp>
#include <caf/type_id.hpp>

#include "messages/actor_info.hpp"
#include "messages/dragonfly_handover.hpp"
#include "messages/group_status.hpp"
#include "messages/gtid_set.hpp"
#include "messages/operator.hpp"
#include "messages/sidecar.hpp"
#include "messages/mysql.hpp"

CAF_BEGIN_TYPE_ID_BLOCK(bloodraven, caf::first_custom_type_id)
CAF_ADD_TYPE_ID(bloodraven, (br::actor_entry))
CAF_ADD_TYPE_ID(bloodraven, (br::gtid_set))
CAF_ADD_TYPE_ID(bloodraven, (br::mysql_target))
CAF_ADD_TYPE_ID(bloodraven, (br::mysql_command))
CAF_ADD_TYPE_ID(bloodraven, (br::site_probe))
CAF_ADD_TYPE_ID(bloodraven, (br::mysql_outcome))
CAF_ADD_TYPE_ID(bloodraven, (br::site_report))
CAF_ADD_TYPE_ID(bloodraven, (br::topology_view))
CAF_ADD_TYPE_ID(bloodraven, (br::failover_plan))
CAF_ADD_TYPE_ID(bloodraven, (br::plan_result))
CAF_ADD_TYPE_ID(bloodraven, (br::plan_facts))
CAF_ADD_TYPE_ID(bloodraven, (br::site_recovery))
CAF_ADD_TYPE_ID(bloodraven, (br::durable_state))
CAF_ADD_TYPE_ID(bloodraven, (br::group_event))
CAF_ADD_TYPE_ID(bloodraven, (br::sidecar_view))
CAF_ADD_TYPE_ID(bloodraven, (br::view_offer))
CAF_ADD_TYPE_ID(bloodraven, (br::http_call))
CAF_ADD_TYPE_ID(bloodraven, (br::http_reply))
CAF_ADD_TYPE_ID(bloodraven, (br::push_ack))
CAF_ADD_TYPE_ID(bloodraven, (br::sidecar_status))
CAF_ADD_TYPE_ID(bloodraven, (br::poll_stats))
CAF_ADD_TYPE_ID(bloodraven, (br::config::site_status))
CAF_ADD_TYPE_ID(bloodraven, (br::config::condition))
CAF_ADD_TYPE_ID(bloodraven, (br::config::group_status))
CAF_ADD_TYPE_ID(bloodraven, (br::dragonfly_handover_request))
CAF_ADD_TYPE_ID(bloodraven, (br::dragonfly_handover_report))
CAF_END_TYPE_ID_BLOCK(bloodraven)

namespace br {
/// Registers the block with a config (needed for type names and serialization).
inline void add_message_types(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::bloodraven>();
}
}  // namespace br
