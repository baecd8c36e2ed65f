// ConfigMap-backed durable state: conditional writes, owner reference, rehydration from status/annotations.
#include "actors/operator/kube/core/kube_state_store.hpp"

#include <caf/all.hpp>

#include "actors/operator/decide/cooldown.hpp"
#include "actors/operator/group/durable_state_json.hpp"
#include "actors/operator/kube/core/status_writer.hpp"
#include "config/rfc3339.hpp"
#include "io/kube/resource.hpp"
#include "io/log/log.hpp"

namespace br {

using nlohmann::json;

std::string state_configmap_name(const std::string& group) { return "mysql-" + group + "-state"; }

namespace {

std::optional<failover_record> record_from(const std::string& at_text, const std::string& target) {
  auto at = config::parse_rfc3339(at_text);
  if (!at) return std::nullopt;
  return failover_record{wall_time{std::chrono::duration_cast<wall_time::duration>(at->time_since_epoch())},
                         target};
}

int64_t to_ms(wall_time t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

}  // namespace

durable_state rehydrate_state(caf::optional<durable_state> configmap, const json& group_object,
                              wall_time now, caf::timespan max_future_skew,
                              std::vector<std::string>& warnings) {
  durable_state d = configmap ? *configmap : durable_state{};
  const json status = group_object.value("status", json::object());
  const json annotations =
      group_object.value("metadata", json::object()).value("annotations", json::object());
  // The view: the status copy only ever lags the ConfigMap, so it wins only when newer (the
  // ConfigMap was deleted or lost).
  const auto status_epoch = status.value("epoch", uint64_t{0});
  if (status_epoch > d.view.epoch) {
    warnings.push_back("restored the view from the group status (epoch " +
                       std::to_string(status_epoch) + "): the state ConfigMap held epoch " +
                       std::to_string(d.view.epoch));
    d.view.epoch = status_epoch;
    d.view.active_site = status.value("activeSite", std::string{});
    d.view.deposing = status.value("deposingSite", std::string{});
  }
  // The anti-flap record: the newer of the ConfigMap and status copies is "the status copy".
  std::optional<failover_record> primary;
  if (d.last_failover_ms > 0)
    primary = failover_record{wall_time{std::chrono::milliseconds{d.last_failover_ms}},
                              d.last_failover_target};
  if (status.contains("lastFailover") && status["lastFailover"].is_string())
    if (auto r = record_from(status["lastFailover"].get<std::string>(),
                             status.value("lastFailoverTarget", std::string{})))
      if (!primary || r->at > primary->at) primary = r;
  std::optional<failover_record> annotated;
  if (annotations.contains(annotation_last_failover) &&
      annotations[annotation_last_failover].is_string())
    annotated = record_from(annotations[annotation_last_failover].get<std::string>(),
                            annotations.value(annotation_last_failover_target, std::string{}));
  auto merged = merge_durable_failover_record(primary, annotated, now, max_future_skew);
  for (auto& w : merged.warnings) warnings.push_back(w);
  if (merged.record) {
    d.last_failover_ms = to_ms(merged.record->at);
    d.last_failover_target = merged.record->target;
  } else {
    d.last_failover_ms = 0;
    d.last_failover_target.clear();
  }
  return d;
}

namespace {

json log_fields(const kube_state_store_options& o) {
  return {{"group", o.group}, {"namespace", o.ns}};
}

caf::expected<durable_state> load_state(const kube_state_store_options& o) {
  auto& c = *o.client;
  caf::optional<durable_state> stored;
  auto cm = c.get(kube::resources::configmaps, o.ns, state_configmap_name(o.group), o.call_timeout);
  if (cm) {
    auto text = (*cm).value("data", json::object()).value(state_configmap_key, std::string{});
    auto parsed = json::parse(text, nullptr, false);
    if (parsed.is_discarded())
      return caf::make_error(caf::sec::runtime_error,
                             "state ConfigMap " + state_configmap_name(o.group) + " is not JSON");
    auto d = durable_state_from_json(parsed);
    if (!d) return d.error();
    stored = *d;
  } else if (!cm.error().not_found()) {
    return caf::make_error(caf::sec::runtime_error, "reading the state ConfigMap: " + cm.error().describe());
  }
  auto obj = c.get(mfg_resource, o.ns, o.group, o.call_timeout);
  if (!obj)  // without the second copies we cannot tell whether the epoch is the newest
    return caf::make_error(caf::sec::runtime_error, "reading the group: " + obj.error().describe());
  std::vector<std::string> warnings;
  auto d = rehydrate_state(stored, *obj, std::chrono::system_clock::now(),
                           std::chrono::duration_cast<caf::timespan>(o.max_future_skew), warnings);
  for (auto& w : warnings) {
    auto f = log_fields(o);
    f["detail"] = w;
    // Stable message texts come first in the detail.
    log::warn(w.rfind("restored lastFailover from out-of-band annotations", 0) == 0
                  ? "restored lastFailover from out-of-band annotations"
                  : "durable state rehydration",
              f);
  }
  return d;
}

bool persist_state(const kube_state_store_options& o, const durable_state& d) {
  if (o.guard && !o.guard->valid()) {
    log::warn("state persist refused: not leading", log_fields(o));
    return false;
  }
  auto& c = *o.client;
  const auto name = state_configmap_name(o.group);
  const std::string text = durable_state_to_json(d).dump();
  // The coordinator waits store_timeout (10 s) for the answer: stay well inside it, so a late
  // write never lands after the coordinator gave up on it.
  const auto deadline = std::chrono::steady_clock::now() + o.persist_budget;
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (o.guard && !o.guard->valid()) return false;
    if (attempt > 0 && std::chrono::steady_clock::now() + o.call_timeout > deadline) break;
    auto cur = c.get(kube::resources::configmaps, o.ns, name, o.call_timeout);
    if (!cur && cur.error().not_found()) {
      json cm = {{"apiVersion", "v1"},
                 {"kind", "ConfigMap"},
                 {"metadata",
                  {{"name", name},
                   {"namespace", o.ns},
                   {"labels",
                    {{"app.kubernetes.io/managed-by", "bloodraven"},
                     {"shipstream.io/failover-group", o.group}}}}},
                 {"data", {{state_configmap_key, text}}}};
      if (!o.group_uid.empty())
        cm["metadata"]["ownerReferences"] =
            json::array({{{"apiVersion", "shipstream.io/v1alpha1"},
                          {"kind", "MysqlFailoverGroup"},
                          {"name", o.group},
                          {"uid", o.group_uid},
                          {"controller", true},
                          {"blockOwnerDeletion", true}}});
      auto made = c.create(kube::resources::configmaps, o.ns, cm, o.call_timeout);
      if (made) return true;
      if (made.error().already_exists()) continue;
      auto f = log_fields(o);
      f["error"] = made.error().describe();
      log::error("state persist failed", f);
      return false;
    }
    if (!cur) {
      auto f = log_fields(o);
      f["error"] = cur.error().describe();
      log::error("state persist failed", f);
      return false;
    }
    json obj = *cur;
    std::string stored;
    if (obj.contains("data") && obj["data"].is_object() && obj["data"].contains(state_configmap_key) &&
        obj["data"][state_configmap_key].is_string())
      stored = obj["data"][state_configmap_key].get<std::string>();
    if (auto why = epoch_regression(stored, d); !why.empty()) {
      auto f = log_fields(o);
      f["error"] = why;
      log::error("state persist refused", f);
      return false;
    }
    obj["data"][state_configmap_key] = text;
    auto put = c.update(kube::resources::configmaps, obj, o.call_timeout);
    if (put) return true;
    if (put.error().conflict()) continue;  // fresh read, then write again
    auto f = log_fields(o);
    f["error"] = put.error().describe();
    log::error("state persist failed", f);
    return false;
  }
  log::error("state persist failed: conflicts", log_fields(o));
  return false;
}

state_store_actor::behavior_type kube_store(state_store_actor::pointer, kube_state_store_options o) {
  return {
      [o](persist_atom, const std::string&, const durable_state& d) { return persist_state(o, d); },
      [o](load_atom, const std::string&) -> caf::result<durable_state> {
        auto d = load_state(o);
        if (!d) return d.error();
        return *d;
      },
  };
}

}  // namespace

state_store_actor spawn_kube_state_store(caf::actor_system& sys, kube_state_store_options o) {
  return sys.spawn<caf::detached>(kube_store, std::move(o));
}

}  // namespace br
