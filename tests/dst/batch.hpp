// DST batches: run many seeds of one configuration, sum the run statistics, print one line.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "tests/dst/world.hpp"

namespace br::dst {

struct batch_result {
  int64_t seeds = 0;
  int64_t steps = 0;
  int64_t violations = 0;
  int64_t promotions = 0;
  int64_t failovers = 0;
  int64_t switch_fences = 0;
  int64_t acked = 0;
  int64_t rule4_opens = 0;
  int64_t clones = 0;
  int64_t late_acks = 0;
  uint64_t first_bad_seed = 0;
  violation first;
};

inline batch_result run_batch(const sim_config& cfg, uint64_t first_seed, int64_t seeds,
                              bool stop_at_first) {
  batch_result r;
  for (uint64_t seed = first_seed; seed < first_seed + static_cast<uint64_t>(seeds); ++seed) {
    world w(seed, cfg);
    auto v = w.run();
    ++r.seeds;
    r.steps += v.found ? v.tick : cfg.steps;
    r.promotions += w.stats().promotions;
    r.failovers += w.stats().failovers_started;
    r.switch_fences += w.stats().switch_fences;
    r.acked += w.stats().acked;
    r.rule4_opens += w.stats().rule4_opens;
    r.clones += w.stats().clones;
    r.late_acks += w.stats().late_acks;
    if (!v.found) continue;
    if (r.violations++ == 0) {
      r.first_bad_seed = seed;
      r.first = v;
    }
    if (stop_at_first) break;
  }
  return r;
}

inline void report(const std::string& label, const batch_result& r) {
  std::cout << "[dst] " << label << ": seeds=" << r.seeds << " steps=" << r.steps
            << " violations=" << r.violations << " failovers=" << r.failovers
            << " promotions=" << r.promotions << " switch_fences=" << r.switch_fences;
  if (r.acked > 0)
    std::cout << " acked=" << r.acked << " rule4_opens=" << r.rule4_opens
              << " clones=" << r.clones << " late_acks=" << r.late_acks;
  std::cout << '\n';
  if (r.violations > 0)
    std::cout << "[dst] first violation: seed " << r.first_bad_seed << " at t=" << r.first.tick
              << " (" << r.first.what << "), last events:\n"
              << r.first.trace;
}

inline int64_t env_int(const char* name, int64_t fallback) {
  auto* v = std::getenv(name);
  return v && *v ? std::stoll(v) : fallback;
}

}  // namespace br::dst
