// Verification metrics (see verify_metrics.hpp).
#include "actors/operator/kube/verify/verify_metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>

#include "io/metrics/metrics.hpp"

namespace br::verify_ctl::metrics {

void verification_ended(const std::string& ns, const std::string& group, const std::string& profile, bool ok,
                        double duration_seconds, double now_unix, double replay_lag_seconds) {
  auto& reg = *br::metrics::process_registry();
  static auto& runs = prometheus::BuildCounter()
                          .Name("bloodraven_backup_verification_runs_total")
                          .Help("MysqlBackupVerifications that ended, by result (success | failure).")
                          .Register(reg);
  static auto& duration = prometheus::BuildHistogram()
                              .Name("bloodraven_backup_verification_duration_seconds")
                              .Help("From a verification's start to its result (restore, replay and checks).")
                              .Register(reg);
  static auto& attempt = prometheus::BuildGauge()
                             .Name("bloodraven_backup_verification_last_attempt_timestamp_seconds")
                             .Help("When the newest verification ended (unix seconds), whatever its result.")
                             .Register(reg);
  static auto& verified = prometheus::BuildGauge()
                              .Name("bloodraven_backup_verified_timestamp_seconds")
                              .Help("When a backup was last restored and checked successfully (unix seconds).")
                              .Register(reg);
  static auto& lag = prometheus::BuildGauge()
                         .Name("bloodraven_backup_verification_replay_lag_seconds")
                         .Help("Completion of the newest replaying verification minus its last replayed event.")
                         .Register(reg);
  std::map<std::string, std::string> l{{"namespace", ns}, {"group", group}, {"profile", profile}};
  auto with_result = l;
  with_result["result"] = ok ? "success" : "failure";
  runs.Add(with_result).Increment();
  duration
      .Add(l, prometheus::Histogram::BucketBoundaries{15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400, 28800})
      .Observe(duration_seconds);
  attempt.Add(l).Set(now_unix);
  if (ok) verified.Add(l).Set(now_unix);
  if (ok && replay_lag_seconds >= 0) lag.Add(l).Set(replay_lag_seconds);
}

}  // namespace br::verify_ctl::metrics
