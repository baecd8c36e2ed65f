// The fenced-sites annotation (bloodraven.shipstream.io/fenced-sites=<site>[,<site>...]): desired
// state, so unlike the reclone request it stays on the object. Its value (absent: "") is handed to
// the group's coordinator whenever it changes and whenever the group starts; the coordinator
// checks it (decide/manual_fence.hpp), records the set durably, and says what it did in Events
// (SiteFenced, SiteUnfenced, FenceRejected) and the status. A value handed while the coordinator
// is busy is asked again every second; one it refused stays its desired value and is applied
// once the rules allow (a plan ended, say), or reported until the annotation is changed.
#include "actors/operator/kube/group_source_detail.hpp"

#include "actors/common/child_lookup.hpp"
#include "actors/operator/decide/group_step.hpp"
#include "actors/operator/decide/manual_fence.hpp"

namespace br::source_detail {

namespace {

constexpr int max_busy_attempts = 120;
constexpr auto busy_retry = std::chrono::seconds(1);
constexpr auto coordinator_timeout = std::chrono::seconds(10);

json fence_fields(const std::string& key, const std::string& value) {
  return {{"group", key}, {"annotation", fenced_sites_annotation}, {"value", value}};
}

void retry(source_ptr self, const std::string& key) {
  self->delayed_send(self, busy_retry, annotate_atom::value, key);
}

}  // namespace

void note_fence_annotation(source_ptr self, const json& object) {
  if (!object.is_object() || !object.contains("metadata") || !object["metadata"].is_object())
    return;
  const auto& md = object["metadata"];
  if (md.contains("deletionTimestamp")) return;
  std::string value;
  if (md.contains("annotations") && md["annotations"].is_object()) {
    const auto& ann = md["annotations"];
    if (auto it = ann.find(fenced_sites_annotation); it != ann.end() && it->is_string())
      value = it->get<std::string>();
  }
  auto key = key_of(md.value("namespace", std::string{}), md.value("name", std::string{}));
  auto& d = self->state.fence[key];
  if (d.value == value && d.handed) return;
  if (d.value != value) {
    d.value = value;
    d.attempts = 0;
    log::info("fenced-sites annotation seen", fence_fields(key, value));
  }
  drive_fence(self, key);
}

void fence_group_started(source_ptr self, const std::string& key) {
  auto it = self->state.fence.find(key);
  if (it == self->state.fence.end()) return;  // no event seen yet: the first one hands it
  it->second.handed.reset();
  it->second.attempts = 0;
  drive_fence(self, key);
}

void drive_fence(source_ptr self, const std::string& key) {
  auto& st = self->state;
  auto it = st.fence.find(key);
  if (it == st.fence.end() || it->second.in_flight || st.stopping) return;
  if (it->second.handed == it->second.value) return;
  auto g = st.groups.find(key);
  if (g == st.groups.end() || !g->second.supervisor || g->second.stopping) return;
  auto& d = it->second;
  d.in_flight = true;
  auto value = d.value;
  auto done = [self, key, value](std::optional<std::string> answer) {
    auto it = self->state.fence.find(key);
    if (it == self->state.fence.end()) return;
    auto& d = it->second;
    d.in_flight = false;
    auto f = fence_fields(key, value);
    if (answer && answer->rfind("busy", 0) != 0) {
      d.handed = value;  // taken (accepted or refused: the coordinator keeps it as desired)
      f["answer"] = *answer;
      log::info("fenced-sites annotation handed to the group", f);
    } else if (++d.attempts >= max_busy_attempts) {
      f["answer"] = answer ? *answer : std::string("no answer");
      log::error("fenced-sites annotation not taken by the group; it is handed again when the "
                 "group restarts or the annotation changes",
                 f);
      d.handed = value;
      return;
    } else {
      retry(self, key);
      return;
    }
    drive_fence(self, key);  // the value may have changed meanwhile
  };
  ask_child<coordinator_actor>(
      self, g->second.supervisor, "coordinator", coordinator_timeout,
      [=](coordinator_actor co) {
        self->request(co, coordinator_timeout, annotate_atom::value,
                      std::string(fenced_sites_annotation), value)
            .then([=](std::string& answer) { done(answer); },
                  [=](caf::error&) { done(std::nullopt); });
      },
      [=](caf::error&) { done(std::nullopt); });
}

}  // namespace br::source_detail
