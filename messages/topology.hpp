// Basic topology vocabulary shared by config, decisions and actors: site roles and debounced states.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace br {

/// spec.sites[].role. Only primary candidates can become active.
enum class site_role { primary_candidate, dr_only, read_only };

/// Debounced per-site state: unknown before the first good poll.
enum class site_state { unknown, writable, read_only, unreachable };

inline std::string_view to_string(site_role r) {
  switch (r) {
    case site_role::primary_candidate: return "primary-candidate";
    case site_role::dr_only: return "dr-only";
    case site_role::read_only: return "read-only";
  }
  return "primary-candidate";
}

inline std::optional<site_role> parse_site_role(std::string_view s) {
  if (s == "primary-candidate") return site_role::primary_candidate;
  if (s == "dr-only") return site_role::dr_only;
  if (s == "read-only") return site_role::read_only;
  return std::nullopt;
}

inline std::string_view to_string(site_state s) {
  switch (s) {
    case site_state::unknown: return "unknown";
    case site_state::writable: return "writable";
    case site_state::read_only: return "read-only";
    case site_state::unreachable: return "unreachable";
  }
  return "unknown";
}

}  // namespace br
