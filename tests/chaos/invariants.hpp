// Chaos invariant checker, pure part: S1 from samples and from write acks, S3, the write gap.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace br::chaos {

/// One site's writability as sampled out of band (root over the unix socket).
struct site_sample {
  std::string site;
  bool reachable = false;
  bool read_only = true;
  bool super_read_only = true;
  /// Accepts application writes: reachable and read_only off (app users lack SUPER).
  bool writable() const { return reachable && !read_only; }
};

/// Every site sampled at (nearly) one instant, plus the operator's answer at that time.
struct sample_round {
  int64_t t_ms = 0;
  std::vector<site_sample> sites;
  std::string operator_active;  ///< "" when none or unreachable
  int64_t operator_epoch = -1;  ///< -1 when unreachable
};

/// An acknowledged write: the COMMIT returned OK.
struct ack {
  int64_t id = 0;
  std::string site;
  int64_t t_send_ms = 0;
  int64_t t_ack_ms = 0;
  bool direct = false;  ///< from a per-site prober rather than the steered workload
};

struct s1_report {
  int violating_rounds = 0;
  int64_t window_ms = 0;  ///< summed span of consecutive violating rounds (each at least `cadence`)
  int64_t first_ms = -1;
  std::string detail;  ///< first violation: which sites
  bool ok() const { return violating_rounds == 0; }
};

/// S1 on samples: no round with two writable sites.
s1_report check_s1_samples(const std::vector<sample_round>& rounds, int64_t cadence_ms);

struct ack_overlap_report {
  int overlaps = 0;
  std::string detail;  ///< the first overlap
  bool ok() const { return overlaps == 0; }
};

/// S1 on acks: site A was accepting writes between two of its acks at most `max_gap_ms` apart,
/// and a different site acknowledged a write strictly inside that interval.
ack_overlap_report check_s1_acks(std::vector<ack> acks, int64_t max_gap_ms);

/// S1 for Group Replication (issue 23): two members accepting writes = two different sites each
/// acknowledged a write through their direct probers less than `window_ms` apart (the sample
/// window). A member cut off from its majority keeps read_only off while its commits block, so
/// GR is judged on what was acknowledged, not on read_only. Steered acks are not counted.
/// Semi-sync mode uses it too: an old primary keeps read_only off while its commits wait.
ack_overlap_report check_gr_two_primaries(std::vector<ack> acks, int64_t window_ms);

struct s3_report {
  int acked = 0;
  int lost = 0;               ///< missing on the final primary and not reported
  int reported_lost = 0;      ///< missing, acked by a site the operator reports as divergent
  std::vector<int64_t> lost_ids;  ///< first few unreported
  bool ok() const { return lost == 0; }
};

/// S3: every acked id is on the final primary, unless its acking site is reported divergent.
s3_report check_s3(const std::vector<ack>& acks, const std::set<int64_t>& present,
                   const std::set<std::string>& divergent_sites);

/// Longest time without a steered-workload ack, over gaps that end at or after `from_ms` (the
/// fault); a trailing gap up to `end_ms` counts when the last ack is older.
int64_t write_unavailability_ms(const std::vector<ack>& acks, int64_t from_ms, int64_t end_ms);

}  // namespace br::chaos
