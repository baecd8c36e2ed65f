// spec.restoreInPlace's preflight (see restore_in_place.hpp).
#include "actors/operator/kube/restore/restore_in_place.hpp"

#include "config/rfc3339.hpp"

namespace br::restore_ctl {

namespace {

std::string str(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

}  // namespace

in_place_preflight preflight_in_place(const config::failover_group& g, const nlohmann::json& status,
                                      const nlohmann::json& backup) {
  in_place_preflight out;
  const auto& spec = *g.spec.restore_in_place;
  out.token = spec.confirm;
  const nlohmann::json rec = status.is_object() ? status.value("restoreInPlace", nlohmann::json::object())
                                                : nlohmann::json::object();
  const std::string used = str(rec, "confirmTokenUsed");
  auto token = config::parse_rfc3339(spec.confirm);
  if (!token) return out;  // validation refuses it first
  if (!used.empty()) {
    auto u = config::parse_rfc3339(used);
    if (!u || *token <= *u) return out;  // used (terminal phases stay until a newer token)
  }
  out.armed = true;
  const std::string phase = str(rec, "phase");
  if (phase == "Preflight" || phase == "Fencing" || phase == "Restoring" || phase == "Resuming") {
    out.wait = "the restore armed with token " + used + " is " + phase + "; token " + spec.confirm +
               " runs after it has ended";
    return out;
  }
  out.target = str(status, "activeSite");
  if (out.target.empty()) {
    out.failed = "status.activeSite: the group has no active primary to restore into";
    return out;
  }
  out.source = resolve_source(g, spec.source, spec.point_in_time, "spec.restoreInPlace", backup);
  if (!out.source.failed.empty()) out.failed = out.source.failed;
  else if (!out.source.wait.empty()) out.wait = out.source.wait;
  return out;
}

}  // namespace br::restore_ctl
