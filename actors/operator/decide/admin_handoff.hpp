// The hand-off of an admin annotation (reclone-site, planned-failover) from the Kubernetes group
// source to the group's coordinator, made idempotent (issue 19 finding 13).
//
// The source may hand the same request more than once: an answer lost to a timeout is retried,
// and a planned failover is asked about again until it ends (its annotation is cleared then). Each
// request carries an id (the annotation's value and the resourceVersion it was first read at); the
// coordinator remembers the last id it took and answers a repeat without acting on it again, so a
// reclone runs at most once per annotation. The id travels in the message's key, as
// `<annotation>#<id>` (an annotation key never holds '#'); a key without '#' has no id and is
// always acted on (the standalone admin API: each signed request is new).
// All pure; the coordinator keeps a `taken_request` in memory (lost with the coordinator: a
// repeat after a coordinator restart meets the persisted plan and is refused as concurrent).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "messages/operator.hpp"
#include "messages/planned_failover.hpp"

namespace br {

/// `<annotation>#<id>` (just the annotation when `id` is empty).
std::string handoff_key(const std::string& annotation, const std::string& id);

struct handoff_parts {
  std::string annotation;
  std::string id;  ///< "" when the key carries none
};
handoff_parts split_handoff_key(const std::string& key);

/// The id of a request read from an object: its value and the resourceVersion it was read at.
std::string handoff_id(const std::string& value, const std::string& resource_version);

/// The last admin request the coordinator took (answered with anything but "busy").
struct taken_request {
  std::string id;
  std::string answer;
  /// A planned failover it accepted (started or deferred): its request number
  /// (planned_failover_record::request; 0: none).
  uint64_t planned_request = 0;
};

/// What the coordinator knows of its plans when a request arrives.
struct handoff_facts {
  bool plan_active = false;
  failover_plan plan;                ///< the persisted plan (when active)
  planned_failover_record planned;  ///< the latest accepted planned failover's record
};

/// A request handed again: the answer it gets instead of being acted on, or nullopt (act on it).
/// Same id as the last taken one: a planned failover answers "running: ..." while its request is
/// still in progress (Deferred or its plan running), else "ended: <phase> ..."; any other
/// request its first answer again, prefixed "already taken: ". A planned failover with a new id
/// whose target is the candidate of the switchover plan that runs, or of the Deferred request
/// (the operator restarted and read the annotation again), is that request: "running: ...",
/// not a second request refused as concurrent.
std::optional<std::string> answer_again(const taken_request& last, const std::string& annotation,
                                        const std::string& value, const std::string& id,
                                        const handoff_facts& now);

/// What the coordinator remembers after answering a request with id `id` (`answer`, `now` after
/// the step): nothing new for a "busy" answer, an empty id or the id already remembered; for a
/// planned failover that was accepted (started or deferred: "accepted: ...") or is running
/// ("running: ..."), its request number.
taken_request remember_taken(const taken_request& last, const std::string& annotation,
                             const std::string& id, const std::string& answer,
                             const handoff_facts& now);

/// What the group source does after an answer (nullopt: no answer, the request timed out).
enum class handoff_next : uint8_t {
  retry,  ///< busy or no answer: hand the same request again shortly
  poll,   ///< a planned failover is running: ask again later, the annotation stays
  done,   ///< the request ended: a planned failover's annotation is removed now
};
handoff_next next_after_answer(const std::string& annotation, const std::optional<std::string>& answer);

}  // namespace br
