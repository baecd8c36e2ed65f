// INFO replication / INFO persistence of Dragonfly and Valkey, parsed (pure) into
// messages/dragonfly.hpp's replication_info. Both servers print
// "key:value" lines under "# Section" headers; a replica says role:slave (Valkey) or
// role:replica (Dragonfly). Unknown or missing fields keep their "unknown" defaults.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "messages/dragonfly.hpp"

namespace br::redis {

/// Every "key:value" line (the first ':' splits; '\r' dropped; headers and blank lines skipped).
std::map<std::string, std::string> parse_info(std::string_view text);

/// From the text of INFO replication, optionally followed by INFO persistence's and INFO
/// keyspace's.
dragonfly::replication_info parse_replication(std::string_view text);

}  // namespace br::redis
