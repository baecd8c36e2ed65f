// The operator's web dashboard (GET /): one self-contained HTML page, live over /ws/status.
#pragma once

#include <string_view>

#include "io/http/router.hpp"

namespace br {

/// The page (HTML + inline CSS/JS, no external resources).
std::string_view dashboard_html();

/// GET / -> the dashboard.
void install_dashboard(http::router& r);

}  // namespace br
