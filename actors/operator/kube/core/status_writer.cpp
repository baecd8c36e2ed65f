// Kubernetes status writer: latest-wins front, detached API worker, 409 re-read, backoff, annotations.
#include "actors/operator/kube/core/status_writer.hpp"
#include "config/group_status.hpp"

#include <caf/all.hpp>

#include "actors/common/registry.hpp"
#include "config/rfc3339.hpp"
#include "io/kube/retry.hpp"
#include "io/log/log.hpp"

namespace br {

using nlohmann::json;

bool status_semantically_equal(const json& a, const json& b) { return a == b; }

json merge_status(const json& current, const json& desired, bool owns_all) {
  json out = current.is_object() ? current : json::object();
  // The coordinator omits empty members (activeSite "" during a transition): an owned member
  // absent from its status is cleared, not left stale.
  if (owns_all)
    for (const char* owned : {"activeSite", "sites", "lastFailover", "lastFailoverTarget",
                              "promotionGtidExecuted", "conditions", "epoch", "deposingSite",
                              "observedAt"})
      out.erase(owned);
  if (desired.is_object())
    for (auto it = desired.begin(); it != desired.end(); ++it) {
      if (it.key() == "dragonfly") continue;
      out[it.key()] = it.value();
    }
  if (desired.is_object() && desired.contains("dragonfly")) {
    const auto& d = desired["dragonfly"];
    if (!d.is_object()) {
      out.erase("dragonfly");
    } else {
      // Member by member: what the manager does not send (lastFailover after an operator
      // restart) stays as written before.
      json merged = out.contains("dragonfly") && out["dragonfly"].is_object() ? out["dragonfly"] : json::object();
      for (auto it = d.begin(); it != d.end(); ++it) merged[it.key()] = it.value();
      out["dragonfly"] = std::move(merged);
    }
  }
  return out;
}

namespace {

/// Puts each of `incoming` into status["conditions"], replacing the conditions of the same type
/// and appending the others (the array is created when absent or not an array).
void upsert_conditions(json& status, const json& incoming) {
  json conds = status.contains("conditions") && status["conditions"].is_array()
                   ? status["conditions"]
                   : json::array();
  for (const auto& c : incoming) {
    bool replaced = false;
    for (auto& have : conds)
      if (have.value("type", std::string{}) == c.value("type", std::string{})) {
        have = c;
        replaced = true;
      }
    if (!replaced) conds.push_back(c);
  }
  status["conditions"] = std::move(conds);
}

}  // namespace

json compose_status(const json& coordinator_status, const json& spec_conditions) {
  json out = coordinator_status.is_object() ? coordinator_status : json::object();
  if (!spec_conditions.is_array() || spec_conditions.empty()) return out;
  upsert_conditions(out, spec_conditions);
  return out;
}

json with_reconciler_status(const json& status, const json& part) {
  json out = status.is_object() ? status : json::object();
  if (!part.is_object()) return out;
  for (auto it = part.begin(); it != part.end(); ++it) {
    if (it.key() != "conditions") {
      out[it.key()] = it.value();
      continue;
    }
    upsert_conditions(out, it.value());
  }
  return out;
}

json anti_flap_patch(const json& annotations, const json& status) {
  if (!status.is_object() || !status.contains("lastFailover") || !status["lastFailover"].is_string())
    return nullptr;
  auto at = config::parse_rfc3339(status["lastFailover"].get<std::string>());
  if (!at) return nullptr;
  auto secs = std::chrono::floor<std::chrono::seconds>(*at);
  auto target = status.value("lastFailoverTarget", std::string{});
  if (annotations.is_object() && annotations.contains(annotation_last_failover) &&
      annotations[annotation_last_failover].is_string()) {
    auto have = config::parse_rfc3339(annotations[annotation_last_failover].get<std::string>());
    auto have_target = annotations.value(annotation_last_failover_target, std::string{});
    if (have && (*have > secs || (*have == secs && have_target == target))) return nullptr;
  }
  return {{"metadata",
           {{"annotations",
             {{annotation_last_failover, config::format_rfc3339(config::timestamp{secs})},
              {annotation_last_failover_target, target}}}}}};
}

namespace {

// -- the detached worker: one blocking write attempt per message ---------------------------------

/// "" when written (or nothing needed writing), else what failed.
std::string write_once(const status_writer_options& o, const json& desired, bool owns_all) {
  if (o.guard && !o.guard->valid()) return "not leading: the lease guard is not valid";
  auto& c = *o.client;
  std::string problems;
  auto fail = [&](const std::string& what, const kube::api_error& e) {
    if (!problems.empty()) problems += "; ";
    problems += what + ": " + e.describe();
  };
  json annotations = json::object();
  kube::retry_options ro;
  ro.attempts = o.conflict_attempts;
  auto res = kube::update_with_retry(
      [&]() -> kube::result<json> {
        auto got = c.get(mfg_resource, o.ns, o.name, o.call_timeout);
        if (got) annotations = (*got)["metadata"].value("annotations", json::object());
        return got;
      },
      [&](json& obj) {
        json before = obj.value("status", json::object());
        json after = merge_status(before, desired, owns_all);
        if (status_semantically_equal(before, after)) return false;
        obj["status"] = std::move(after);
        return !(o.guard && !o.guard->valid());  // the lease went while we read: write nothing
      },
      [&](const json& obj) { return c.update_status(mfg_resource, obj, o.call_timeout); }, ro);
  if (!res) fail("status", res.error());
  // The out-of-band copy of the anti-flap record: independent of the status path, so one
  // failing does not hold the other back.
  if (auto patch = anti_flap_patch(annotations, desired); !patch.is_null() && res.ok()) {
    annotations = (*res)["metadata"].value("annotations", json::object());
    patch = anti_flap_patch(annotations, desired);
  }
  if (auto patch = anti_flap_patch(annotations, desired); !patch.is_null()) {
    if (o.guard && !o.guard->valid()) return "not leading: the lease guard is not valid";
    auto p = c.merge_patch(mfg_resource, o.ns, o.name, patch, {}, o.call_timeout);
    if (!p) fail("anti-flap annotations", p.error());
  }
  return problems;
}

status_api_worker_actor::behavior_type status_worker(status_api_worker_actor::pointer,
                                                    status_writer_options o) {
  return {[o](write_atom, const std::string& desired, bool owns_all) -> std::string {
    return write_once(o, json::parse(desired), owns_all);
  }};
}

// -- the front: never blocks, coalesces, retries --------------------------------------------------

struct front_state {
  status_writer_options o;
  status_api_worker_actor worker;
  json coordinator = json::object();  // newest status from the coordinator
  bool have_coordinator = false;      // until then only the spec conditions are written
  json spec_conditions = json::array();
  json reconciler = json::object();  // the reconciler's conditions and members
  json dragonfly;                    // status.dragonfly from the manager; null = remove it
  bool have_dragonfly = false;       // until then status.dragonfly is left as it is
  bool have_desired = false;
  json last_written;  // what the last successful write carried (null before the first)
  bool in_flight = false;
  bool retry_scheduled = false;
  std::chrono::milliseconds backoff{0};
  uint64_t writes = 0, failures = 0;
  static inline const char* name = "status_writer";
};

using front_ptr = kube_status_writer_actor::stateful_pointer<front_state>;

json log_fields(front_ptr self) {
  return {{"group", self->state.o.name}, {"namespace", self->state.o.ns}};
}

void kick(front_ptr self) {
  auto& st = self->state;
  if (st.in_flight || st.retry_scheduled || !st.have_desired) return;
  json desired =
      compose_status(with_reconciler_status(st.coordinator, st.reconciler), st.spec_conditions);
  if (st.have_dragonfly) desired["dragonfly"] = st.dragonfly;
  if (!st.last_written.is_null() && status_semantically_equal(desired, st.last_written)) return;
  st.in_flight = true;
  // The worker may need a GET, conflict retries and a patch, each bounded by call_timeout.
  auto budget = st.o.call_timeout * (2 * st.o.conflict_attempts + 2);
  self->request(st.worker, budget, write_atom::value, desired.dump(), st.have_coordinator)
      .then(
          [=](const std::string& problem) {
            auto& s = self->state;
            s.in_flight = false;
            if (problem.empty()) {
              s.last_written = desired;
              s.backoff = std::chrono::milliseconds{0};
              ++s.writes;
              report_step(self, s.o.path, "written " + std::to_string(s.writes));
              kick(self);  // a newer status may have arrived meanwhile
              return;
            }
            ++s.failures;
            s.backoff = s.backoff.count() == 0 ? s.o.backoff_initial
                                               : std::min(s.backoff * 2, s.o.backoff_max);
            auto f = log_fields(self);
            f["error"] = problem;
            f["retryInMs"] = s.backoff.count();
            log::warn("status write failed", f);
            report_error(self, s.o.path, problem);
            s.retry_scheduled = true;
            self->delayed_send(self, s.backoff, retry_later_atom::value);
          },
          [=](caf::error& err) {
            auto& s = self->state;
            s.in_flight = false;
            ++s.failures;
            s.backoff = std::max(s.o.backoff_initial, std::min(s.backoff * 2, s.o.backoff_max));
            auto f = log_fields(self);
            f["error"] = self->system().render(err);
            log::warn("status write failed", f);
            s.retry_scheduled = true;
            self->delayed_send(self, s.backoff, retry_later_atom::value);
          });
}

kube_status_writer_actor::behavior_type status_front(front_ptr self, status_writer_options o) {
  self->state.o = o;
  self->state.worker = self->spawn<caf::detached + caf::linked>(status_worker, o);
  announce(self, o.path, "status_writer");
  report_step(self, o.path, "idle");
  return {
      [=](status_atom, const std::string&, const config::group_status& status) {
        self->state.coordinator = status;  // the Kubernetes edge: the value becomes JSON here
        self->state.have_coordinator = true;
        self->state.have_desired = true;
        kick(self);
      },
      [=](spec_atom, const std::string& conditions) {
        auto parsed = json::parse(conditions, nullptr, false);
        if (parsed.is_discarded() || !parsed.is_array()) return;
        self->state.spec_conditions = std::move(parsed);
        self->state.have_desired = true;
        kick(self);
      },
      [=](reconcile_atom, const std::string& part) {
        auto parsed = json::parse(part, nullptr, false);
        if (parsed.is_discarded() || !parsed.is_object()) return;
        self->state.reconciler = std::move(parsed);
        self->state.have_desired = true;
        kick(self);
      },
      [=](dragonfly_atom, const std::string& part) {
        auto parsed = json::parse(part, nullptr, false);
        if (parsed.is_discarded() || !(parsed.is_object() || parsed.is_null())) return;
        self->state.dragonfly = std::move(parsed);
        self->state.have_dragonfly = true;
        self->state.have_desired = true;
        kick(self);
      },
      [=](retry_later_atom) {
        self->state.retry_scheduled = false;
        kick(self);
      },
  };
}

}  // namespace

kube_status_writer_actor spawn_kube_status_writer(caf::actor_system& sys,
                                                  status_writer_options o) {
  return sys.spawn(status_front, std::move(o));
}

}  // namespace br
