// core/v1 Event recorder with de-duplication (same object, type, reason, message -> count++).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "io/kube/client.hpp"

namespace br::kube {

/// The object an Event is about (involvedObject).
struct object_ref {
  std::string api_version;
  std::string kind;
  std::string ns;
  std::string name;
  std::string uid;
  std::string resource_version;
};
object_ref ref_of(const json& object);

struct event_recorder_options {
  std::string component = "bloodraven";  // source.component / reportingComponent
  std::string instance;                  // source.host / reportingInstance (pod name)
  std::chrono::seconds dedup_window{600};  // repeats within this of the last one update it
};

class event_recorder {
 public:
  using clock_fn = std::function<std::chrono::system_clock::time_point()>;
  event_recorder(client& c, event_recorder_options o, clock_fn now = std::chrono::system_clock::now);

  /// Creates the Event, or patches count/lastTimestamp of the one recorded for the same
  /// object+type+reason+message within the window. Blocking (call from a detached worker).
  result<json> record(const object_ref& about, const std::string& type, const std::string& reason,
                      const std::string& message);

 private:
  struct entry {
    std::string ns, name;
    int count = 0;
    std::chrono::system_clock::time_point last;
  };
  client& c_;
  event_recorder_options o_;
  clock_fn now_;
  std::mutex m_;
  std::map<std::string, entry> seen_;
};

}  // namespace br::kube
