// Admin annotations on MysqlFailoverGroup objects: the reclone request
// (bloodraven.shipstream.io/reclone-site, written by `kubectl bloodraven reclone`) and the planned
// failover (bloodraven.shipstream.io/planned-failover, written by `kubectl bloodraven promote`).
//
// Reclone: the annotation is first removed from the object, conditionally on the resourceVersion
// it was read from, and only then handed to the group's coordinator. So a request is acted on at
// most once, even when the operator restarts in between (then it is lost, and the requester, who
// sees neither RecloneRequested nor RecloneRejected, asks again); acting twice on a destructive
// request would be worse. The coordinator validates and answers; its Events say what happened.
// Planned failover: the annotation stays on the object while the request runs and is removed when
// it ends (rejected, skipped, Succeeded or Failed): the source hands it to the coordinator, then
// asks again every few seconds until the answer says it ended.
// Forced quorum recovery (bloodraven.shipstream.io/force-quorum-recovery, written by `kubectl
// bloodraven group recover`) goes like a reclone: removed first, then handed, so it is consumed
// once; the coordinator records the request before it acts.
// Every hand-off carries the request's id (value + resourceVersion first read), so a hand-off
// repeated after a lost answer, or asked again, is never acted on twice (decide/admin_handoff).
#include "actors/operator/kube/group_source_detail.hpp"

#include <functional>

#include "actors/common/child_lookup.hpp"
#include "actors/operator/decide/admin_handoff.hpp"
#include "actors/operator/decide/group_step.hpp"
#include "actors/operator/decide/planned_failover.hpp"

namespace br {

std::optional<admin_annotation_seen> admin_annotation_of(const nlohmann::json& object) {
  if (!object.is_object()) return std::nullopt;
  const auto md = object.value("metadata", nlohmann::json::object());
  if (!md.is_object() || md.contains("deletionTimestamp")) return std::nullopt;
  const auto ann = md.value("annotations", nlohmann::json::object());
  if (!ann.is_object()) return std::nullopt;
  admin_annotation_seen s;
  for (const char* key : {reclone_annotation, planned_failover_annotation,
                          force_quorum_recovery_annotation})
    if (ann.contains(key) && ann[key].is_string()) {
      s.annotation = key;
      break;
    }
  if (s.annotation.empty()) return std::nullopt;
  s.value = ann[s.annotation].get<std::string>();
  s.resource_version = md.value("resourceVersion", std::string{});
  if (s.resource_version.empty()) return std::nullopt;  // no precondition possible: not from the API
  return s;
}

}  // namespace br

namespace br::source_detail {

namespace {

constexpr int max_busy_attempts = 120;  // the coordinator said "busy" (loading, writing): 2 min
constexpr auto busy_retry = std::chrono::seconds(1);
constexpr auto failed_retry = std::chrono::seconds(5);
constexpr auto running_poll = std::chrono::seconds(2);  // a planned failover that runs
constexpr auto coordinator_timeout = std::chrono::seconds(10);

json admin_fields(const std::string& key, const pending_admin& p) {
  return {{"group", key}, {"annotation", p.annotation}, {"value", p.value}, {"request", p.id}};
}

bool is_planned(const pending_admin& p) { return p.annotation == planned_failover_annotation; }

/// The object's value of annotation `key` (nullopt: absent, or the object is being deleted).
std::optional<std::string> annotation_value(const json& object, const std::string& key) {
  const auto md = object.value("metadata", json::object());
  if (!md.is_object() || md.contains("deletionTimestamp")) return std::nullopt;
  const auto ann = md.value("annotations", json::object());
  if (!ann.is_object() || !ann.contains(key) || !ann[key].is_string()) return std::nullopt;
  return ann[key].get<std::string>();
}

void retry(source_ptr self, const std::string& key, std::chrono::seconds after) {
  self->delayed_send(self, after, annotate_atom::value, key);
}

/// Hands (annotation, value) to the group's coordinator; `done` gets its answer, or nullopt when
/// the coordinator could not be reached or did not answer in time.
void ask_coordinator(source_ptr self, group_entry& e, std::string annotation, std::string value,
                     std::function<void(std::optional<std::string>)> done) {
  ask_child<coordinator_actor>(
      self, e.supervisor, "coordinator", coordinator_timeout,
      [=](coordinator_actor co) {
        self->request(co, coordinator_timeout, annotate_atom::value, annotation, value)
            .then([=](std::string& answer) { done(answer); },
                  [=](caf::error&) { done(std::nullopt); });
      },
      [=](caf::error&) { done(std::nullopt); });
}

void hand_to_coordinator(source_ptr self, const std::string& key, group_entry& e) {
  auto& p = self->state.admin[key];
  p.in_flight = true;
  auto value = p.value;
  auto annotation = handoff_key(p.annotation, p.id);
  auto done = [self, key](std::optional<std::string> answer) {
    auto it = self->state.admin.find(key);
    if (it == self->state.admin.end()) return;
    auto& p = it->second;
    p.in_flight = false;
    auto f = admin_fields(key, p);
    switch (next_after_answer(p.annotation, answer)) {
      case handoff_next::done:
        f["answer"] = *answer;
        log::info("admin annotation handled", f);
        if (!is_planned(p)) {
          self->state.admin.erase(it);
          return;
        }
        p.ended = true;  // the request ended: now its annotation goes
        drive_admin(self, key);
        return;
      case handoff_next::poll:
        if (!p.taken) {
          f["answer"] = *answer;
          log::info("admin annotation taken; it is removed when the request ends", f);
        }
        p.taken = true;
        p.attempts = 0;
        retry(self, key, running_poll);
        return;
      case handoff_next::retry:
        break;
    }
    if (++p.attempts >= max_busy_attempts) {
      f["answer"] = answer ? *answer : std::string("no answer");
      log::error("admin annotation dropped: the group did not take it; annotate again", f);
      self->state.admin.erase(it);
      return;
    }
    retry(self, key, busy_retry);
  };
  ask_coordinator(self, e, annotation, value, done);
}

/// The planned-failover annotation went while its request had not ended: ask the coordinator
/// to cancel it (Deferred -> Failed/Cancelled). Then the request is asked about as before, and
/// ends with the answer "ended: ... (Cancelled)", or with its plan when one already runs.
void cancel_planned(source_ptr self, const std::string& key, group_entry& e) {
  auto& p = self->state.admin[key];
  p.in_flight = true;
  auto done = [self, key](std::optional<std::string> answer) {
    auto it = self->state.admin.find(key);
    if (it == self->state.admin.end()) return;
    auto& p = it->second;
    p.in_flight = false;
    auto f = admin_fields(key, p);
    if ((!answer || answer->rfind("busy", 0) == 0) && ++p.attempts < max_busy_attempts) {
      retry(self, key, busy_retry);
      return;
    }
    p.cancel_wanted = false;  // answered, or given up like any busy hand-off
    p.attempts = 0;
    f["answer"] = answer ? *answer : std::string("no answer");
    log::info("planned-failover annotation removed: cancel asked", f);
    retry(self, key, busy_retry);  // asked about again: it ends now if it was cancelled
  };
  ask_coordinator(self, e, planned_failover_annotation, planned_cancel_value, done);
}

void clear_on_object(source_ptr self, const std::string& key, const group_entry& e) {
  auto& p = self->state.admin[key];
  p.in_flight = true;
  self->request(self->state.resolver, std::chrono::seconds(30), annotate_atom::value, e.ns, e.name,
                p.annotation, p.resource_version)
      .then(
          [=](int r) {
            auto it = self->state.admin.find(key);
            if (it == self->state.admin.end()) return;
            auto& p = it->second;
            p.in_flight = false;
            if (r == clear_result::cleared && is_planned(p)) {
              log::info("planned-failover annotation removed: the request ended", admin_fields(key, p));
              self->state.admin.erase(it);
            } else if (r == clear_result::cleared) {
              p.cleared = true;
              drive_admin(self, key);
            } else if (r == clear_result::changed && is_planned(p)) {
              // Status writes move the resourceVersion on: every event brings the newest one
              // (note_admin_annotation, which also tries again); the timer covers an event that
              // came while this removal was under way.
              retry(self, key, busy_retry);
            } else if (r == clear_result::changed) {
              log::info("admin annotation changed before it was taken; the next event carries it",
                        admin_fields(key, p));
              self->state.admin.erase(it);
            } else {
              retry(self, key, failed_retry);
            }
          },
          [=](caf::error&) {
            auto it = self->state.admin.find(key);
            if (it == self->state.admin.end()) return;
            it->second.in_flight = false;
            retry(self, key, failed_retry);
          });
}

}  // namespace

void ask_group_coordinator(source_ptr self, group_entry& e, std::string key, std::string value,
                           std::function<void(std::optional<std::string>)> done) {
  ask_coordinator(self, e, std::move(key), std::move(value), std::move(done));
}

void note_admin_annotation(source_ptr self, const json& object) {
  if (!object.is_object()) return;
  const json md = object.value("metadata", json::object());
  auto key = key_of(md.value("namespace", std::string{}), md.value("name", std::string{}));
  auto& admin = self->state.admin;
  auto it = admin.find(key);
  if (it != admin.end() && is_planned(it->second)) {
    // A planned failover stays on the object while it runs: the same value again is the same
    // request (its removal, once it ended, needs the newest resourceVersion).
    auto& p = it->second;
    auto now = annotation_value(object, p.annotation);
    if (now && *now == p.value) {
      p.gone = false;
      p.resource_version = md.value("resourceVersion", p.resource_version);
      if (p.ended && !p.in_flight) drive_admin(self, key);
      return;
    }
    if (!now) p.gone = true;
    if (!now && !p.ended && p.taken && !p.cancel_wanted) {
      p.cancel_wanted = true;  // removed by the user while it waits: cancel it
      if (!p.in_flight) drive_admin(self, key);
      return;
    }
    if (!p.ended || p.in_flight) return;  // a running request first ends
    admin.erase(it);                      // ended, and its annotation changed or went: a new one
    it = admin.end();
  }
  auto seen = admin_annotation_of(object);
  if (!seen) return;
  // One request per group at a time: a removed one is still owed to the coordinator, and a newer
  // annotation waits on the object for a later event.
  if (it != admin.end() && (it->second.cleared || it->second.in_flight)) return;
  pending_admin p;
  p.annotation = seen->annotation;
  p.value = seen->value;
  p.resource_version = seen->resource_version;
  p.id = handoff_id(p.value, p.resource_version);
  admin[key] = p;
  log::info("admin annotation seen", admin_fields(key, p));
  drive_admin(self, key);
}

void drive_admin(source_ptr self, const std::string& key) {
  auto& st = self->state;
  auto it = st.admin.find(key);
  if (it == st.admin.end() || it->second.in_flight || st.stopping) return;
  auto g = st.groups.find(key);
  // Not running yet (being resolved, invalid, no credentials): kept until start_group calls again.
  if (g == st.groups.end() || !g->second.supervisor || g->second.stopping) return;
  const auto& p = it->second;
  // Reclone: removed, then handed. Planned failover: handed (and asked again) until it ended,
  // then removed.
  if (is_planned(p) && p.ended && p.gone) {
    log::info("planned failover ended; its annotation was already removed", admin_fields(key, p));
    st.admin.erase(it);
  } else if (is_planned(p) && p.cancel_wanted && !p.ended)
    cancel_planned(self, key, g->second);
  else if (is_planned(p) ? p.ended : !p.cleared)
    clear_on_object(self, key, g->second);
  else
    hand_to_coordinator(self, key, g->second);
}

}  // namespace br::source_detail
