// Pure checks of backup verification (see verify.hpp).
#include <tuple>

#include "io/backup/verify.hpp"

namespace br::backup {

std::optional<std::string> newest_complete(const std::vector<listed_backup>& listed) {
  const listed_backup* best = nullptr;
  for (const auto& b : listed) {
    if (!b.info) continue;
    // RFC3339 UTC texts of one format order as the times do.
    if (best == nullptr || std::tie(b.info->completion_time, b.name) > std::tie(best->info->completion_time, best->name))
      best = &b;
  }
  if (best == nullptr) return std::nullopt;
  return best->name;
}

std::string check_restored_gtids(stop_bound::kind bound, const gtid_set& backup, const gtid_set& covered,
                                 const gtid_set& restored) {
  auto text = [](const gtid_set& s) { return s.empty() ? std::string("(empty)") : s.to_compact_string(); };
  switch (bound) {
    case stop_bound::kind::none:
      if (restored == backup) return "";
      return "gtid_executed after the restore is " + text(restored) + ", the backup holds " + text(backup);
    case stop_bound::kind::latest:
    case stop_bound::kind::gtid:
      if (restored == covered) return "";
      return "gtid_executed after the replay is " + text(restored) + ", the backup and the archived binlogs hold " +
             text(covered);
    case stop_bound::kind::datetime:
      if (restored.contains(backup) && covered.contains(restored)) return "";
      return "gtid_executed after the replay is " + text(restored) + ", not between the backup's " + text(backup) +
             " and the archive's " + text(covered);
  }
  return "";
}

std::string check_sanity(const sanity_result& r, uint64_t min_rows, std::chrono::milliseconds max_duration) {
  if (r.rows < min_rows)
    return "the sanity query returned " + std::to_string(r.rows) + " row(s), expected at least " +
           std::to_string(min_rows);
  if (max_duration.count() > 0 && r.took > max_duration)
    return "the sanity query took " + std::to_string(r.took.count()) + " ms, more than the " +
           std::to_string(max_duration.count()) + " ms allowed";
  return "";
}

}  // namespace br::backup
