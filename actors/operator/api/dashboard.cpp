// The dashboard routes: the embedded web assets with their content types and a strict CSP. Every
// value from the server is shown through textContent (never innerHTML), so a site name cannot
// inject markup.
#include "actors/operator/api/dashboard.hpp"

#include <string>

#include "actors/operator/api/web_assets.hpp"

namespace br {

namespace {

void serve(http::router& r, const std::string& path, const std::string& route_name,
           const char* asset, const char* content_type) {
  auto body = web_asset(asset);
  std::string text = body ? std::string(*body) : std::string();
  r.get(path, route_name, [text, content_type](const http::request&, http::responder reply) {
    auto res = http::response::text(200, text, content_type);
    res.headers.emplace_back("Cache-Control", "no-store");
    res.headers.emplace_back("Content-Security-Policy",
                             "default-src 'self'; connect-src 'self'; object-src 'none'; "
                             "base-uri 'none'; frame-ancestors 'none'");
    res.headers.emplace_back("X-Content-Type-Options", "nosniff");
    reply(std::move(res));
  });
}

}  // namespace

void install_dashboard(http::router& r) {
  serve(r, "/", "dashboard", "dashboard.html", "text/html; charset=utf-8");
  serve(r, "/dashboard.css", "dashboard_css", "dashboard.css", "text/css; charset=utf-8");
  serve(r, "/dashboard.js", "dashboard_js", "dashboard.js", "text/javascript; charset=utf-8");
}

}  // namespace br
