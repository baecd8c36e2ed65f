// The operator's web dashboard (GET /): a page, its stylesheet and its script, live over
// /ws/status. The files are actors/operator/api/web/dashboard.{html,css,js}, embedded at build time.
#pragma once

#include "io/http/router.hpp"

namespace br {

/// GET / (the page), GET /dashboard.css, GET /dashboard.js. The Content-Security-Policy allows
/// only the operator's own origin: no inline script or style, no other host.
void install_dashboard(http::router& r);

}  // namespace br
