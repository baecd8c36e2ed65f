// PITR replay plan (see pitr_plan.hpp).
#include "io/backup/pitr_plan.hpp"

#include <algorithm>
#include <tuple>

#include "config/rfc3339.hpp"
#include "io/backup/archive_lineage.hpp"

namespace br::backup {
namespace {

std::optional<int64_t> unix_of(const std::string& rfc3339) {
  auto t = config::parse_rfc3339(rfc3339);
  if (!t) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::seconds>(t->time_since_epoch()).count();
}

struct candidate {
  replay_file file;
  gtid_set previous;
  gtid_set end;
  int64_t first = 0;
  int64_t last = 0;
  bool taken = false;
};

/// What the start `s` is, for the messages.
std::string start_text(const history_start& s) {
  return s.site + "/" + s.file + " starts a new history at " + binlog::rfc3339(s.unix_seconds) + " (" +
         (s.previous_file.empty()
              ? std::string("the site's first archived binlog, with an empty Previous_gtids: a new or recloned server, "
                            "or a reset")
              : "after " + s.previous_file + " ended with " + s.previous_end +
                    ": the site's binary logs were reset, by an in-place restore, or it was recloned") +
         ")";
}

/// Why a bound cannot be reached from a backup that predates start `s`; `limit`: the latest
/// stop that backup can still use (the start's second or its history's newest archived event).
std::string crossing_error(const history_start& s, int64_t snapshot_unix, const stop_bound& stop, int64_t limit) {
  const std::string at = binlog::rfc3339(s.unix_seconds);
  std::string what = stop.what == stop_bound::kind::datetime ? "--stop-datetime " + binlog::rfc3339(stop.unix_seconds)
                     : stop.what == stop_bound::kind::latest ? std::string("the newest archived point")
                                                             : std::string("--stop-gtid");
  return what + " lies past the start of another history: " + start_text(s) + ", after this backup's consistent point " +
         binlog::rfc3339(snapshot_unix) +
         ". This backup is not known to be an ancestor of that history (an in-place restore discards what came "
         "after its own point), so the archive cannot carry it past there: restore from a backup taken after " +
         at + ", or stop at or before " + binlog::rfc3339(limit);
}

}  // namespace

std::optional<int64_t> parse_stop_datetime(const std::string& text) {
  return config::parse_stop_datetime(text);
}

std::string check_stop_bound(const stop_bound& stop, int64_t snapshot_unix, const gtid_set& backup_gtids) {
  switch (stop.what) {
    case stop_bound::kind::none:
    case stop_bound::kind::latest:
      return "";
    case stop_bound::kind::datetime: {
      const int64_t earliest = snapshot_unix + 1;
      if (stop.unix_seconds < earliest)
        return "--stop-datetime " + binlog::rfc3339(stop.unix_seconds) +
               " is before the backup's consistent point " + binlog::rfc3339(snapshot_unix) +
               ": the earliest stop this backup can restore to is " + binlog::rfc3339(earliest);
      return "";
    }
    case stop_bound::kind::gtid: {
      if (!stop.gtids.contains(backup_gtids))
        return "--stop-gtid does not contain the backup's GTID set (the backup already holds " +
               backup_gtids.subtract(stop.gtids).to_compact_string() + ", beyond the bound)";
      return "";
    }
  }
  return "";
}

replay_plan plan_replay(const gtid_set& backup_gtids, int64_t snapshot_unix, const stop_bound& stop,
                        const std::vector<binlog::manifest>& manifests) {
  replay_plan plan;
  plan.covered = backup_gtids;
  if (stop.what == stop_bound::kind::none) return plan;
  auto starts = find_history_starts(manifests, plan.error);
  if (!plan.error.empty()) return plan;
  // The history this backup belongs to ends before the first start after it: no file from then
  // on (any site) is a candidate, and a bound past it is refused (below).
  const auto start = first_start_after(starts, snapshot_unix);
  std::vector<candidate> all;
  int64_t newest = 0;
  std::string newest_file;
  for (const auto& m : manifests) {
    for (const auto& e : m.files) {
      candidate c;
      c.file = {m.site, e.name, e.remote_path, e.size};
      auto prev = gtid_set::parse(e.previous_gtids);
      auto end = gtid_set::parse(e.end_gtids);
      auto first = unix_of(e.first_event_time);
      auto last = unix_of(e.last_event_time);
      if (!prev || !end || !first || !last) {
        plan.error = "manifest of site " + m.site + ": file " + e.name +
                     " has an unreadable previousGtids, endGtids or event time";
        return plan;
      }
      c.previous = *prev;
      c.end = *end;
      c.first = *first;
      c.last = *last;
      if (start && c.first >= start->unix_seconds) continue;  // another history: never a candidate
      if (c.last > newest) {
        newest = c.last;
        newest_file = m.site + "/" + e.name;
      }
      all.push_back(std::move(c));
    }
  }
  // The latest stop datetime the backup's history can reach (at or before the start, and no later
  // than its newest archived event: a reset before the start, not archived, is not seen).
  const int64_t limit = !start ? newest : newest_file.empty() ? snapshot_unix : std::min(start->unix_seconds, newest);
  if (start && (stop.what == stop_bound::kind::latest ||
                (stop.what == stop_bound::kind::datetime && stop.unix_seconds > start->unix_seconds))) {
    plan.error = crossing_error(*start, snapshot_unix, stop, limit);
    return plan;
  }
  auto before_bound = [&](const candidate& c, const gtid_set& fresh) {
    if (stop.what == stop_bound::kind::datetime) return c.first < stop.unix_seconds;
    if (stop.what == stop_bound::kind::latest) return true;
    return !fresh.intersect(stop.gtids).empty();
  };
  if (stop.what == stop_bound::kind::gtid && plan.covered.contains(stop.gtids)) return plan;
  while (true) {
    candidate* best = nullptr;
    for (auto& c : all) {
      if (c.taken) continue;
      auto fresh = c.end.subtract(plan.covered);
      if (fresh.empty() || !plan.covered.contains(c.previous) || !before_bound(c, fresh)) continue;
      if (best == nullptr || std::tie(c.first, c.file.site, c.file.name) <
                                 std::tie(best->first, best->file.site, best->file.name))
        best = &c;
    }
    if (best == nullptr) break;
    best->taken = true;
    plan.files.push_back(best->file);
    plan.covered = plan.covered.unite(best->end);
    plan.last_event_unix = std::max(plan.last_event_unix, stop.what == stop_bound::kind::datetime
                                                              ? std::min(best->last, stop.unix_seconds - 1)
                                                              : best->last);
    if (stop.what == stop_bound::kind::datetime && best->last >= stop.unix_seconds) return plan;
    if (stop.what == stop_bound::kind::gtid && plan.covered.contains(stop.gtids)) return plan;
  }
  // Not finished: a gap, or the bound lies beyond the archive.
  for (const auto& c : all) {
    if (c.taken) continue;
    auto fresh = c.end.subtract(plan.covered);
    if (!fresh.empty() && before_bound(c, fresh)) {
      plan.error = "the binlog archive has a gap: " + c.file.site + "/" + c.file.name +
                   " follows transactions no archived file holds (" +
                   c.previous.subtract(plan.covered).to_compact_string() + ")";
      return plan;
    }
  }
  if (stop.what == stop_bound::kind::latest) return plan;  // everything archived is taken
  if (stop.what == stop_bound::kind::datetime) {
    if (newest >= stop.unix_seconds) return plan;  // nothing more before the bound
    if (start) {
      plan.error = "--stop-datetime " + binlog::rfc3339(stop.unix_seconds) +
                   " is after the newest archived event of this backup's history (" +
                   (newest_file.empty() ? std::string("none") : binlog::rfc3339(newest) + " in " + newest_file) +
                   ") and " + start_text(*start) +
                   ": what happened between is not in the archive (an in-place restore there would not be seen): "
                   "stop at or before " + binlog::rfc3339(limit) + ", or restore from a backup taken after " +
                   binlog::rfc3339(start->unix_seconds);
      return plan;
    }
    plan.error = "--stop-datetime " + binlog::rfc3339(stop.unix_seconds) +
                 " is after the newest archived binlog event (" +
                 (newest_file.empty() ? std::string("the archive is empty")
                                      : binlog::rfc3339(newest) + " in " + newest_file) +
                 "): binlogs not archived yet cannot be replayed (flush the primary's binary logs and "
                 "wait for the archiver, or choose an earlier time)";
  } else if (start) {
    plan.error = crossing_error(*start, snapshot_unix, stop, limit);
  } else {
    plan.error = "the binlog archive does not reach --stop-gtid: missing " +
                 stop.gtids.subtract(plan.covered).to_compact_string();
  }
  return plan;
}

}  // namespace br::backup
