// probe_result -> site_probe: the message form of a probe, shared by the operator and the sidecar.
#pragma once

#include "io/mysql/probe.hpp"
#include "messages/mysql.hpp"

namespace br::mysql {

site_probe to_wire(const probe_result& p);

}  // namespace br::mysql
