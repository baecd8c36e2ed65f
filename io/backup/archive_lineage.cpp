// History starts of the PITR archive (see archive_lineage.hpp).
#include "io/backup/archive_lineage.hpp"

#include <algorithm>
#include <tuple>

#include "config/rfc3339.hpp"
#include "io/binlog/binlog_name.hpp"
#include "messages/gtid_set.hpp"

namespace br::backup {

std::vector<history_start> find_history_starts(const std::vector<binlog::manifest>& manifests, std::string& error) {
  std::vector<history_start> out;
  for (const auto& m : manifests) {
    std::vector<const binlog::manifest_entry*> files;
    for (const auto& e : m.files) files.push_back(&e);
    std::sort(files.begin(), files.end(),
              [](const auto* a, const auto* b) { return binlog::binlog_name_less(a->name, b->name); });
    for (size_t i = 0; i < files.size(); ++i) {
      const auto* before = i == 0 ? nullptr : files[i - 1];
      const auto& e = *files[i];
      auto prev = gtid_set::parse(e.previous_gtids);
      auto end = before ? gtid_set::parse(before->end_gtids) : std::optional<gtid_set>(gtid_set{});
      auto first = config::parse_rfc3339(e.first_event_time);
      if (!prev || !end || !first) {
        error = "manifest of site " + m.site + ": file " + (!end ? before->name : e.name) +
                " has an unreadable previousGtids, endGtids or first event time";
        return {};
      }
      if (!prev->empty() || (before && end->empty())) continue;
      history_start s;
      s.site = m.site;
      s.file = e.name;
      if (before) {
        s.previous_file = before->name;
        s.previous_end = end->to_compact_string();
      }
      s.unix_seconds = std::chrono::duration_cast<std::chrono::seconds>(first->time_since_epoch()).count();
      out.push_back(std::move(s));
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::tie(a.unix_seconds, a.site, a.file) < std::tie(b.unix_seconds, b.site, b.file);
  });
  return out;
}

std::optional<history_start> first_start_after(const std::vector<history_start>& starts, int64_t snapshot_unix) {
  for (const auto& s : starts)
    if (s.unix_seconds >= snapshot_unix) return s;
  return std::nullopt;
}

}  // namespace br::backup
