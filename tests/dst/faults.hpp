// DST fault scheduler: per-run fault rates and the per-tick draw of partitions, crashes and hangs.
#pragma once

#include <cstdint>
#include <random>

namespace br::dst {

/// Fault rates of one run; drawn per seed so a batch mixes calm and stormy runs.
struct fault_rates {
  double link_flip = 0.03;  ///< per link per tick: a partition starts or heals
  double crash = 0.005;     ///< per process per tick: crash, or restart when down
  double hang = 0.003;      ///< per sidecar per tick: stops acting (GC pause, stuck I/O)
  double delay = 0.3;       ///< per request: the answer arrives one tick later (< requestTimeout)
};

inline fault_rates draw_rates(std::mt19937_64& rng) {
  static constexpr double links[] = {0.01, 0.03, 0.08};
  static constexpr double crashes[] = {0.0, 0.005, 0.02};
  static constexpr double hangs[] = {0.0, 0.003, 0.01};
  std::uniform_int_distribution<int> pick(0, 2);
  fault_rates r;
  r.link_flip = links[pick(rng)];
  r.crash = crashes[pick(rng)];
  r.hang = hangs[pick(rng)];
  r.delay = std::uniform_real_distribution<double>(0.0, 0.5)(rng);
  return r;
}

inline bool chance(std::mt19937_64& rng, double p) {
  return p > 0 && std::uniform_real_distribution<double>(0.0, 1.0)(rng) < p;
}

}  // namespace br::dst
