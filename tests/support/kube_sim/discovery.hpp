// Discovery documents (/api, /apis, group versions) and the OpenAPI documents kubectl fetches.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tests/support/kube_sim/store.hpp"

namespace br::kube_sim {

json core_versions();                                          // GET /api
json group_list(const std::vector<resource_type>& types);      // GET /apis
std::optional<json> group(const std::vector<resource_type>& types, const std::string& name);
/// GET /api/v1 or /apis/<group>/<version>; nullopt when nothing is served there.
std::optional<json> resource_list(const std::vector<resource_type>& types, const std::string& group,
                                  const std::string& version);
/// /openapi/v2 as protobuf (kubectl only accepts protobuf there): a Document with no
/// definitions, so kubectl's client-side validation finds no schema and defers to the server.
std::string openapi_v2_protobuf();
json openapi_v3_root();  // {"paths":{}}: no per-group documents published
json version_info();

}  // namespace br::kube_sim
