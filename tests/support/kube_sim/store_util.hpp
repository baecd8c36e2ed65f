// Small helpers shared by the store's translation units (keys, times, Status errors, tokens).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/kube_sim/schema_validation.hpp"
#include "tests/support/kube_sim/store.hpp"

namespace br::kube_sim {

inline std::string object_key(const std::string& ns, const std::string& name) { return ns + "/" + name; }
std::string now_rfc3339();
std::string random_suffix();
api_result not_found(const resource_type& t, const std::string& name);
api_result conflict(const resource_type& t, const std::string& name);
api_result invalid(const resource_type& t, const std::string& name, const std::vector<field_error>& errs);
std::string encode_continue(const std::string& last_key, std::uint64_t rv);
std::optional<std::pair<std::string, std::uint64_t>> decode_continue(const std::string& token);
/// A request path's non-empty segments ("/api/v1/pods/" -> api, v1, pods): the simulator's router
/// and the RBAC authoriser read paths the same way.
std::vector<std::string> split_path(const std::string& path);
/// The status the API server gives an accepted CRD (Established, NamesAccepted).
json crd_status(const json& crd);

}  // namespace br::kube_sim
