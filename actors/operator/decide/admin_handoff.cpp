// The idempotent hand-off of admin annotations (see admin_handoff.hpp).
#include "actors/operator/decide/admin_handoff.hpp"

#include "actors/operator/decide/planned_failover.hpp"

namespace br {

namespace {

bool starts(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool is_planned(const std::string& annotation) { return annotation == planned_failover_annotation; }

/// The planned failover request `request` is still in progress (Deferred, or its plan runs).
bool still_running(uint64_t request, const handoff_facts& now) {
  return now.planned.request == request && now.planned.in_progress();
}

std::string running_text(const handoff_facts& now) {
  const auto& r = now.planned;
  if (r.in_progress()) return "running: planned failover to " + r.target + " is " + r.phase;
  return "running: planned failover to " + now.plan.candidate + " (plan " +
         std::to_string(now.plan.id) + ")";
}

}  // namespace

std::string handoff_key(const std::string& annotation, const std::string& id) {
  return id.empty() ? annotation : annotation + "#" + id;
}

handoff_parts split_handoff_key(const std::string& key) {
  auto at = key.find('#');
  if (at == std::string::npos) return {key, ""};
  return {key.substr(0, at), key.substr(at + 1)};
}

std::string handoff_id(const std::string& value, const std::string& resource_version) {
  return value + "@" + resource_version;
}

std::optional<std::string> answer_again(const taken_request& last, const std::string& annotation,
                                        const std::string& value, const std::string& id,
                                        const handoff_facts& now) {
  if (id.empty()) return std::nullopt;
  if (id != last.id) {
    if (!is_planned(annotation)) return std::nullopt;
    bool running = now.plan_active && now.plan.kind == plan_kind::switchover;
    bool deferred = now.planned.phase == "Deferred";
    if (!running && !deferred) return std::nullopt;
    auto req = parse_planned_annotation(value);
    if (!req.ok || req.target != (running ? now.plan.candidate : now.planned.target))
      return std::nullopt;
    return running_text(now);  // the running (or deferred) request's own annotation, read again
  }
  if (last.planned_request == 0) return "already taken: " + last.answer;
  if (still_running(last.planned_request, now)) return running_text(now);
  const auto& r = now.planned;
  if (r.request != last.planned_request)
    return std::string("ended: the planned failover request is over");
  return "ended: planned failover to " + r.target + " " + r.phase +
         (r.reason.empty() ? "" : " (" + r.reason + ")");
}

taken_request remember_taken(const taken_request& last, const std::string& annotation,
                             const std::string& id, const std::string& answer,
                             const handoff_facts& now) {
  if (id.empty() || id == last.id || starts(answer, "busy")) return last;
  taken_request t{id, answer, 0};
  if (!is_planned(annotation)) return t;
  if (starts(answer, "running: ") || (starts(answer, "accepted: ") && now.planned.in_progress()))
    t.planned_request = now.planned.request;
  return t;
}

handoff_next next_after_answer(const std::string& annotation,
                               const std::optional<std::string>& answer) {
  if (!answer || starts(*answer, "busy")) return handoff_next::retry;
  if (!is_planned(annotation)) return handoff_next::done;
  if (starts(*answer, "running: ")) return handoff_next::poll;
  if (starts(*answer, "accepted: ") && !starts(*answer, "accepted: nothing to do"))
    return handoff_next::poll;  // started: it ends later
  return handoff_next::done;     // rejected, skipped, ended
}

}  // namespace br
