// Stand-ins for the three symbols the http fuzz target links but never reaches with fuzzer
// input, so it need not build the dashboard's generated assets, Beast's WebSocket sessions or
// the binlog archiver actor (tools/fuzz.sh lists the real sources it compiles).
#include <cstdio>
#include <cstdlib>

#include "actors/operator/api/web_assets.hpp"
#include "actors/sidecar/archive/binlog_archiver.hpp"
#include "io/http/websocket_hub.hpp"

namespace br {

// The dashboard routes are installed with empty bodies (their content is not request input).
std::optional<std::string_view> web_asset(std::string_view) {
  return std::nullopt;
}

namespace sidecar {
// Same value as actors/sidecar/archive/binlog_archiver.cpp.
std::string archiver_disabled_status() {
  return R"({"enabled":false})";
}
}  // namespace sidecar

namespace http {
// The fuzz world installs no WebSocket hub (operator_api_options::ws is null).
upgrade_handler websocket_hub::upgrade() {
  std::fprintf(stderr, "http_fuzz: websocket_hub::upgrade is not linked in the fuzz target\n");
  std::abort();
}
}  // namespace http

}  // namespace br
