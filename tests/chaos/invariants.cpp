// Chaos invariant checker, pure part (see invariants.hpp).
#include "tests/chaos/invariants.hpp"

#include <algorithm>
#include <map>

namespace br::chaos {

s1_report check_s1_samples(const std::vector<sample_round>& rounds, int64_t cadence_ms) {
  s1_report r;
  int64_t run_start = -1, run_last = -1;
  auto close_run = [&] {
    if (run_start >= 0) r.window_ms += std::max(cadence_ms, run_last - run_start + cadence_ms);
    run_start = run_last = -1;
  };
  for (const auto& round : rounds) {
    std::vector<std::string> w;
    for (const auto& s : round.sites)
      if (s.writable()) w.push_back(s.site);
    if (w.size() < 2) {
      close_run();
      continue;
    }
    ++r.violating_rounds;
    if (r.first_ms < 0) {
      r.first_ms = round.t_ms;
      for (const auto& s : w) r.detail += (r.detail.empty() ? "" : "+") + s;
      r.detail += " writable at t=" + std::to_string(round.t_ms) + "ms";
    }
    if (run_start < 0) run_start = round.t_ms;
    run_last = round.t_ms;
  }
  close_run();
  return r;
}

ack_overlap_report check_s1_acks(std::vector<ack> acks, int64_t max_gap_ms) {
  ack_overlap_report r;
  std::sort(acks.begin(), acks.end(),
            [](const ack& a, const ack& b) { return a.t_ack_ms < b.t_ack_ms; });
  std::map<std::string, std::vector<int64_t>> by_site;
  for (const auto& a : acks) by_site[a.site].push_back(a.t_ack_ms);
  for (const auto& [site, times] : by_site) {
    for (size_t i = 0; i + 1 < times.size(); ++i) {
      int64_t lo = times[i], hi = times[i + 1];
      if (hi - lo > max_gap_ms) continue;
      for (const auto& b : acks) {
        if (b.t_ack_ms <= lo) continue;
        if (b.t_ack_ms >= hi) break;
        if (b.site == site) continue;
        if (r.overlaps++ == 0)
          r.detail = b.site + " acked id " + std::to_string(b.id) + " at t=" +
                     std::to_string(b.t_ack_ms) + "ms while " + site + " acked at t=" +
                     std::to_string(lo) + " and t=" + std::to_string(hi) + "ms";
      }
    }
  }
  return r;
}

ack_overlap_report check_gr_two_primaries(std::vector<ack> acks, int64_t window_ms) {
  ack_overlap_report r;
  acks.erase(std::remove_if(acks.begin(), acks.end(), [](const ack& a) { return !a.direct; }),
             acks.end());
  std::sort(acks.begin(), acks.end(),
            [](const ack& a, const ack& b) { return a.t_ack_ms < b.t_ack_ms; });
  for (size_t j = 0; j < acks.size(); ++j)
    for (size_t i = j; i-- > 0 && acks[j].t_ack_ms - acks[i].t_ack_ms < window_ms;)
      if (acks[i].site != acks[j].site) {
        if (r.overlaps++ == 0)
          r.detail = acks[i].site + " acked id " + std::to_string(acks[i].id) + " at t=" +
                     std::to_string(acks[i].t_ack_ms) + "ms and " + acks[j].site + " acked id " +
                     std::to_string(acks[j].id) + " at t=" + std::to_string(acks[j].t_ack_ms) + "ms";
        break;  // one overlap per later ack
      }
  return r;
}

s3_report check_s3(const std::vector<ack>& acks, const std::set<int64_t>& present,
                   const std::set<std::string>& divergent_sites) {
  s3_report r;
  r.acked = static_cast<int>(acks.size());
  for (const auto& a : acks) {
    if (present.count(a.id)) continue;
    if (divergent_sites.count(a.site)) {
      ++r.reported_lost;
      continue;
    }
    ++r.lost;
    if (r.lost_ids.size() < 10) r.lost_ids.push_back(a.id);
  }
  return r;
}

int64_t write_unavailability_ms(const std::vector<ack>& acks, int64_t from_ms, int64_t end_ms) {
  std::vector<int64_t> t;
  for (const auto& a : acks)
    if (!a.direct) t.push_back(a.t_ack_ms);
  std::sort(t.begin(), t.end());
  int64_t worst = 0;
  for (size_t i = 0; i + 1 < t.size(); ++i)
    if (t[i + 1] >= from_ms) worst = std::max(worst, t[i + 1] - t[i]);
  // The gap still open when the scenario ended (no ack since the last one).
  int64_t last = t.empty() ? from_ms : t.back();
  worst = std::max(worst, end_ms - last);
  return worst;
}

}  // namespace br::chaos
