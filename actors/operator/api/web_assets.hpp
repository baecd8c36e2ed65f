// The operator's web assets (actors/operator/api/web/*.html|css|js), embedded at build time by
// cmake/embed_assets.cmake.
#pragma once

#include <optional>
#include <string_view>

namespace br {

/// The bytes of the asset named `name` (e.g. "dashboard.js"), or nullopt.
std::optional<std::string_view> web_asset(std::string_view name);

}  // namespace br
