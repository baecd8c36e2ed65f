// Chaos harness: the writer workload (steered by the operator's /active-site), per-site direct
// write probers, and the writability sampler feeding the invariant checker.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/chaos/cluster.hpp"
#include "tests/chaos/invariants.hpp"

namespace br::chaos {

class workload {
 public:
  struct options {
    int64_t write_period_ms = 50;    ///< steered writer
    int64_t probe_period_ms = 200;   ///< per-site direct probers (0 = off)
    int64_t sample_period_ms = 100;  ///< sampler cadence
  };
  workload(cluster& c, options o);
  ~workload() { stop(); }
  workload(const workload&) = delete;
  workload& operator=(const workload&) = delete;

  void start();
  void stop();
  /// Pauses / resumes every writer (the sampler keeps going): scenarios that need replicas
  /// caught up before a fault pause, wait, fault, resume.
  void pause(bool p) { paused_ = p; }

  std::vector<ack> acks() const;
  std::vector<sample_round> rounds() const;
  /// Steered writes attempted / failed (failed = no OK; the outcome may be unknown on timeouts).
  int64_t attempts() const { return attempts_; }
  int64_t failures() const { return failures_; }
  int64_t sample_period_ms() const { return opt_.sample_period_ms; }
  /// The site the steered writer last wrote to ("" before the first answer).
  std::string writer_site() const;

 private:
  void writer_loop();
  void prober_loop(int k);
  void sampler_loop();
  bool write_one(class writer_conn& conn, int k, bool direct);

  cluster& c_;
  options opt_;
  std::atomic<bool> stop_{true}, paused_{false};
  std::atomic<int64_t> next_id_{1}, attempts_{0}, failures_{0};
  mutable std::mutex mx_;
  std::vector<ack> acks_;
  std::vector<sample_round> rounds_;
  std::string writer_site_;
  std::vector<std::thread> threads_;
};

}  // namespace br::chaos
