// Anti-flap cooldown and the durable failover record merge (see cooldown.hpp).
#include "actors/operator/decide/cooldown.hpp"

#include <caf/deep_to_string.hpp>

namespace br {

cooldown_status failover_cooldown(wall_time now, std::optional<wall_time> last_failover,
                                  caf::timespan failover_cooldown) {
  cooldown_status out;
  if (!last_failover) return out;
  auto allowed_from = *last_failover + failover_cooldown;
  if (now >= allowed_from) return out;
  out.allowed = false;
  out.remaining = allowed_from - now;
  return out;
}

namespace {

std::string describe(const char* which, const failover_record& r) {
  return std::string(which) + " copy (" + caf::deep_to_string(r.at) + ", target \"" + r.target +
         "\")";
}

}  // namespace

merged_failover_record merge_durable_failover_record(std::optional<failover_record> status_copy,
                                                     std::optional<failover_record> annotation_copy,
                                                     wall_time now, caf::timespan max_future_skew) {
  merged_failover_record out;
  auto limit = now + max_future_skew;
  auto screen = [&](std::optional<failover_record>& copy, const char* which) {
    if (copy && copy->at > limit) {
      out.warnings.push_back("refusing durable failover record: " + describe(which, *copy) +
                             " is stamped more than the allowed clock skew in the future");
      copy.reset();
    }
  };
  screen(status_copy, "status");
  screen(annotation_copy, "annotation");
  if (status_copy && annotation_copy) {
    if (annotation_copy->at > status_copy->at) {
      out.record = *annotation_copy;
      out.source = record_source::annotation;
      out.warnings.push_back("restored lastFailover from out-of-band annotations: " +
                             describe("annotation", *annotation_copy) + " is newer than " +
                             describe("status", *status_copy));
    } else {
      out.record = *status_copy;
      out.source = record_source::status;
      if (annotation_copy->at == status_copy->at && annotation_copy->target != status_copy->target)
        out.warnings.push_back("durable failover records disagree at the same time: " +
                               describe("status", *status_copy) + " vs " +
                               describe("annotation", *annotation_copy) + "; using status");
    }
  } else if (status_copy) {
    out.record = *status_copy;
    out.source = record_source::status;
  } else if (annotation_copy) {
    out.record = *annotation_copy;
    out.source = record_source::annotation;
    out.warnings.push_back("restored lastFailover from out-of-band annotations: " +
                           describe("annotation", *annotation_copy) + "; no valid status copy");
  }
  return out;
}

}  // namespace br
