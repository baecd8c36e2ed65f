// Event recording: legacy core/v1 count/firstTimestamp/lastTimestamp de-duplication.
#include "io/kube/events.hpp"

#include <ctime>
#include <random>

namespace br::kube {

namespace {

std::string rfc3339(std::chrono::system_clock::time_point t) {
  const auto tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string unique_suffix(std::chrono::system_clock::time_point t) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  char buf[40];
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  std::snprintf(buf, sizeof buf, "%llx%04x", static_cast<unsigned long long>(ns),
                static_cast<unsigned>(rng() & 0xffff));
  return buf;
}

}  // namespace

object_ref ref_of(const json& object) {
  const json md = object.value("metadata", json::object());
  return {object.value("apiVersion", std::string{}), object.value("kind", std::string{}),
          md.value("namespace", std::string{}),      md.value("name", std::string{}),
          md.value("uid", std::string{}),            md.value("resourceVersion", std::string{})};
}

event_recorder::event_recorder(client& c, event_recorder_options o, clock_fn now)
    : c_(c), o_(std::move(o)), now_(std::move(now)) {}

result<json> event_recorder::record(const object_ref& about, const std::string& type,
                                    const std::string& reason, const std::string& message) {
  const auto now = now_();
  const std::string ns = about.ns.empty() ? "default" : about.ns;
  const std::string key = about.api_version + "|" + about.kind + "|" + ns + "|" + about.name + "|" +
                          about.uid + "|" + type + "|" + reason + "|" + message;
  entry prior;
  bool repeat = false;
  {
    std::lock_guard lock{m_};
    auto it = seen_.find(key);
    if (it != seen_.end() && now - it->second.last <= o_.dedup_window) {
      prior = it->second;
      repeat = true;
    }
    // Forget entries far outside the window so the cache stays small.
    for (auto e = seen_.begin(); e != seen_.end();) {
      if (now - e->second.last > 2 * o_.dedup_window) {
        e = seen_.erase(e);
      } else {
        ++e;
      }
    }
  }
  if (repeat) {
    const int count = prior.count + 1;
    auto res = c_.merge_patch(resources::events, prior.ns, prior.name,
                              {{"count", count}, {"lastTimestamp", rfc3339(now)}, {"message", message}});
    if (res) {
      std::lock_guard lock{m_};
      seen_[key] = {prior.ns, prior.name, count, now};
      return res;
    }
    if (!res.error().not_found()) return res;
    // The Event expired on the server: start a new one.
  }
  json ev = {{"apiVersion", "v1"},
             {"kind", "Event"},
             {"metadata", {{"name", about.name + "." + unique_suffix(now)}, {"namespace", ns}}},
             {"involvedObject",
              {{"apiVersion", about.api_version},
               {"kind", about.kind},
               {"namespace", about.ns},
               {"name", about.name},
               {"uid", about.uid},
               {"resourceVersion", about.resource_version}}},
             {"type", type},
             {"reason", reason},
             {"message", message},
             {"count", 1},
             {"firstTimestamp", rfc3339(now)},
             {"lastTimestamp", rfc3339(now)},
             {"source", {{"component", o_.component}, {"host", o_.instance}}},
             {"reportingComponent", o_.component},
             {"reportingInstance", o_.instance}};
  auto res = c_.create(resources::events, ns, ev);
  if (res) {
    std::lock_guard lock{m_};
    seen_[key] = {ns, ev["metadata"]["name"], 1, now};
  }
  return res;
}

}  // namespace br::kube
