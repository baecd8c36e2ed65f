// The CAF type-id block: every custom value type that travels in a message.
#pragma once

#include <caf/actor_system_config.hpp>
#include <caf/type_id.hpp>

#include "messages/actor_info.hpp"
#include "messages/gtid_set.hpp"

CAF_BEGIN_TYPE_ID_BLOCK(bloodraven, caf::first_custom_type_id)
CAF_ADD_TYPE_ID(bloodraven, (br::actor_entry))
CAF_ADD_TYPE_ID(bloodraven, (br::gtid_set))
CAF_END_TYPE_ID_BLOCK(bloodraven)

namespace br {
/// Registers the block with a config (needed for type names and serialization).
inline void add_message_types(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::bloodraven>();
}
}  // namespace br
