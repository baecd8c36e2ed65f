// The reload rule over file stamps.
#include "actors/sidecar/runtime/tls_reload_rule.hpp"

#include <algorithm>

namespace br::sidecar {

std::string_view to_string(tls_reload_action a) {
  switch (a) {
    case tls_reload_action::none: return "none";
    case tls_reload_action::settle: return "settle";
    case tls_reload_action::reload: return "reload";
  }
  return "none";
}

tls_reload_action decide_tls_reload(const std::vector<fs::file_stamp>& loaded,
                                    const std::vector<fs::file_stamp>& previous,
                                    const std::vector<fs::file_stamp>& now) {
  if (std::any_of(now.begin(), now.end(), [](const fs::file_stamp& s) { return s.missing(); }))
    return tls_reload_action::settle;
  if (now == loaded) return tls_reload_action::none;
  if (now != previous) return tls_reload_action::settle;
  return tls_reload_action::reload;
}

std::string reload_trust(const std::string& current, const std::string& trusted) {
  if (trusted.empty() || current == trusted) return current;
  if (current.empty()) return trusted;
  return current + (current.back() == '\n' ? "" : "\n") + trusted;
}

}  // namespace br::sidecar
